// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: scenarios the loader accepts through export-rtapp (docs/limits.md,
// "Fuzzing"). The export is either refused with an error (more than kMaxExportEvents events) or
// an rt-app file that parses and that the importer answers without crashing; an unbounded
// export shows as a timeout or out-of-memory report of libFuzzer.
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
    const LoadResult loaded = parseScenario(text, "fuzz.json");
    if (!loaded.ok())
        return 0;
    const rtapp::ExportResult e = rtapp::exportRtApp(*loaded.scenario);
    if (!e.ok()) {
        if (!e.json.empty())
            fail("a refused export has text", e.errors.front());
        return 0;
    }
    std::string error;
    if (!rtapp::parseLenient(e.json, &error))
        fail("the exported rt-app file does not parse", error + "\n" + e.json);
    rtapp::importRtApp(e.json, "exported.json");
    return 0;
}
