// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: arbitrary bytes through the scenario loader (docs/limits.md, "Fuzzing").
// Every answer is either a scenario or errors in the documented one-line form; an accepted
// scenario is written, read back and written again, and must come back equal and identical.
#include "core/scenario/scenarioio.h"
#include "harness.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace schedlab;
using fuzz::fail;

namespace {

void checkMessages(const LoadResult& result, const std::string& file)
{
    if (result.ok() != result.errors.empty())
        fail("ok() disagrees with the error list", result.errors.empty() ? "" : result.errors[0]);
    for (const std::string& line : result.errors) {
        if (!line.starts_with(file + ": "))
            fail("an error does not start with the file name", line);
        for (const char c : line)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                fail("an error contains a control character", line);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::inputText(data, size);
    const LoadResult first = parseScenario(text, "fuzz.json");
    checkMessages(first, "fuzz.json");
    if (!first.ok())
        return 0;
    const std::string written = writeScenario(*first.scenario);
    const LoadResult second = parseScenario(written, "written.json");
    checkMessages(second, "written.json");
    if (!second.ok())
        fail("the written scenario does not load", second.errors.front() + "\n" + written);
    if (!(*second.scenario == *first.scenario))
        fail("the written scenario loads as a different scenario", written);
    const std::string rewritten = writeScenario(*second.scenario);
    if (rewritten != written)
        fail("writing the reloaded scenario gives other text", written + "\n---\n" + rewritten);
    return 0;
}
