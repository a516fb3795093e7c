// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: arbitrary bytes through the rt-app importer (docs/limits.md, "Fuzzing").
// Every answer is either a scenario or errors naming FILE:LINE (or FILE); an imported scenario
// loads again after writing (the importer promises the loader's limits hold) and exports.
#include "core/rtapp/lenientjson.h"
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace schedlab;

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "fuzz_rtapp_import: %s\n%s\n", what, detail.c_str());
    std::abort();
}

void checkLines(const std::vector<std::string>& lines)
{
    for (const std::string& line : lines) {
        // Keys are quoted as written (the CLI and the GUI print messages through printable()).
        if (!line.starts_with("fuzz.json:"))
            fail("a message does not start with the file name", line);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const rtapp::ImportResult r = rtapp::importRtApp(text, "fuzz.json");
    checkLines(r.errors);
    checkLines(r.warnings);
    if (r.ok() != r.errors.empty())
        fail("ok() disagrees with the error list", r.errors.empty() ? "" : r.errors[0]);
    if (!r.ok())
        return 0;
    const std::string written = writeScenario(*r.scenario);
    const LoadResult again = parseScenario(written, "written.json");
    if (!again.ok())
        fail("the imported scenario does not load", again.errors.front() + "\n" + written);
    const rtapp::ExportResult e = rtapp::exportRtApp(*r.scenario);
    if (e.ok()) {
        std::string error;
        if (!rtapp::parseLenient(e.json, &error))
            fail("the exported rt-app file does not parse", error + "\n" + e.json);
    }
    return 0;
}
