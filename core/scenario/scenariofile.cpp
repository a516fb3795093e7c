// SPDX-License-Identifier: GPL-2.0-or-later
// Scenario files on disk: reading a file whole (bounded), and saving atomically through
// core/base/atomicfile.
#include "core/base/atomicfile.h"
#include "core/base/limits.h"
#include "core/scenario/scenarioio.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace schedlab {

LoadResult loadScenarioFile(const std::string& path)
{
    LoadResult failed;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        failed.errors.push_back(path + ": is a directory, not a scenario file");
        return failed;
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) {
        failed.errors.push_back(path + ": cannot open: " + std::strerror(errno));
        return failed;
    }
    std::string text;
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        text.append(buffer, n);
        if (text.size() > ScenarioLimits::maxFileBytes) {
            std::fclose(file);
            failed.errors.push_back(path + ": larger than 64 MiB, not a scenario file");
            return failed;
        }
    }
    const bool readError = std::ferror(file) != 0;
    std::fclose(file);
    if (readError) {
        failed.errors.push_back(path + ": cannot read: " + std::strerror(errno));
        return failed;
    }
    return parseScenario(text, path);
}

std::string saveScenarioFile(const Scenario& scenario, const std::string& path)
{
    std::string text;
    try {
        text = writeScenario(scenario);
    } catch (const std::exception& e) {
        return path + ": cannot serialise: " + e.what();
    }
    AtomicFile file(path);
    file.stream() << text;
    return file.commit();
}

} // namespace schedlab
