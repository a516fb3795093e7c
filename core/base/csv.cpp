// SPDX-License-Identifier: GPL-2.0-or-later
#include "csv.h"

#include <utility>

namespace schedlab {

bool parseCsv(const std::string& text, CsvTable& table, std::string* error)
{
    table = {};
    std::vector<std::vector<std::string>> lines;
    std::vector<std::string> row;
    std::string field;
    size_t line = 1;
    size_t i = 0;
    bool any = false; // the current row has content
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' && field.empty()) {
            const size_t startLine = line;
            ++i;
            for (;;) {
                if (i >= text.size()) {
                    *error = "line " + std::to_string(startLine) + ": a quoted field is not closed";
                    return false;
                }
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                if (text[i] == '\n')
                    ++line;
                field += text[i++];
            }
            any = true;
            if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
                *error = "line " + std::to_string(line) + ": text after a quoted field";
                return false;
            }
            continue;
        }
        if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            if (any || !field.empty()) {
                row.push_back(std::move(field));
                lines.push_back(std::move(row));
            }
            row.clear();
            field.clear();
            any = false;
            ++line;
        } else {
            field += c;
            any = true;
        }
        ++i;
    }
    if (any || !field.empty()) {
        row.push_back(std::move(field));
        lines.push_back(std::move(row));
    }
    if (lines.empty()) {
        *error = "empty file (no header)";
        return false;
    }
    table.header = std::move(lines.front());
    for (size_t r = 1; r < lines.size(); ++r) {
        if (lines[r].size() != table.header.size()) {
            *error = "row " + std::to_string(r) + " has " + std::to_string(lines[r].size())
                + " fields, the header " + std::to_string(table.header.size());
            return false;
        }
        table.rows.push_back(std::move(lines[r]));
    }
    return true;
}

} // namespace schedlab
