// SPDX-License-Identifier: GPL-2.0-or-later
// CSV text (RFC 4180) read into a table (a field is written by csvField(), core/base/text.h).
// Used by the sweep results (cli/sweep.h) and their plots (ui/export/sweepplot.h).
#pragma once

#include <string>
#include <vector>

namespace schedlab {

/// A CSV file (RFC 4180: quoted fields, doubled quotes, CRLF or LF).
struct CsvTable
{
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};
bool parseCsv(const std::string& text, CsvTable& table, std::string* error);

} // namespace schedlab
