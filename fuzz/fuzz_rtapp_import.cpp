// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: arbitrary bytes through the rt-app importer (docs/limits.md, "Fuzzing").
// Every answer is either a scenario or errors naming FILE:LINE (or FILE); an imported scenario
// loads again after writing (the importer promises the loader's limits hold) and exports.
#include "core/rtapp/lenientjson.h"
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "harness.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace schedlab;
using fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::inputText(data, size);
    const rtapp::ImportResult r = rtapp::importRtApp(text, "fuzz.json");
    // Keys are quoted as written, line breaks included (the CLI and the GUI print messages
    // through printable()): only the file name is checked.
    fuzz::checkLines(r.errors, "fuzz.json", false);
    fuzz::checkLines(r.warnings, "fuzz.json", false);
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
