// SPDX-License-Identifier: GPL-2.0-or-later
#include "output.h"

#include "core/base/text.h"

#include <filesystem>
#include <sys/stat.h>

namespace schedlab {

namespace {

/// A file as the kernel sees it (the same file under two names has one identity) or, when it does
/// not exist yet, its absolute path with ".", ".." and links of its directories resolved.
struct Identity
{
    bool exists = false;
    struct stat st = {};
    std::string canonical;

    explicit Identity(const std::string& path)
    {
        exists = ::stat(path.c_str(), &st) == 0;
        std::error_code ec;
        canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    }
    bool operator==(const Identity& o) const
    {
        if (exists || o.exists)
            return exists && o.exists && st.st_dev == o.st.st_dev && st.st_ino == o.st.st_ino;
        return !canonical.empty() && canonical == o.canonical;
    }
    /// Two writers may share it (/dev/null, a terminal).
    bool shareable() const { return exists && S_ISCHR(st.st_mode); }
};

/// The directory and file checks of one output (the identity checks are in checkOutputs).
bool checkOne(const OutputOption& o, std::string* error)
{
    namespace fs = std::filesystem;
    const std::string& path = o.path;
    fs::path p(path);
    if (o.isDir && !p.has_filename() && p.has_parent_path())
        p = p.parent_path(); // "out/" names the directory out
    std::error_code ec;
    fs::path dir = p.parent_path();
    if (o.isDir && fs::is_directory(p, ec))
        return true;
    if (dir.empty())
        dir = ".";
    if (!fs::is_directory(dir, ec)) {
        *error = o.option + " " + printable(path) + ": directory " + printable(dir.string())
            + " does not exist";
        return false;
    }
    if (o.isDir) {
        if (fs::exists(fs::symlink_status(p, ec))) {
            *error = o.option + " " + printable(path) + ": exists and is not a directory";
            return false;
        }
        return true;
    }
    if (const std::string why = AtomicFile::refusal(path); !why.empty()) {
        *error = o.option + " " + printable(path) + ": " + printable(why);
        return false;
    }
    return true;
}

} // namespace

bool checkOutputs(const std::vector<OutputOption>& outputs, const std::vector<std::string>& inputs,
    std::string* error)
{
    std::vector<std::pair<const OutputOption*, std::string>> files; // option, file path
    for (const auto& o : outputs) {
        if (o.path.empty() || (o.path == "-" && !o.isDir))
            continue;
        if (!checkOne(o, error))
            return false;
        if (!o.isDir) {
            files.emplace_back(&o, o.path);
            continue;
        }
        // The files a directory option writes (--csv DIR): checked like the others when DIR exists.
        for (const char* name : {"samples.csv", "slices.csv"}) {
            const std::string file = (std::filesystem::path(o.path) / name).string();
            const std::string why =
                std::filesystem::is_directory(o.path) ? AtomicFile::refusal(file) : std::string();
            if (!why.empty()) {
                *error = o.option + " " + printable(o.path) + ": " + printable(file) + " "
                    + printable(why);
                return false;
            }
            files.emplace_back(&o, file);
        }
    }
    std::vector<Identity> ids;
    for (const auto& [o, path] : files) {
        const Identity id(path);
        for (const auto& in : inputs) {
            if (in.empty() || in == "-")
                continue;
            if (Identity(in) == id && !id.shareable()) {
                *error = o->option + " " + printable(path) + ": is the input file " + printable(in)
                    + ": give the output another name";
                return false;
            }
        }
        for (size_t i = 0; i < ids.size(); ++i)
            if (ids[i] == id && !id.shareable()) {
                *error = o->option + " " + printable(path) + ": names the same file as "
                    + files[i].first->option + " " + printable(files[i].second);
                return false;
            }
        ids.push_back(id);
    }
    return true;
}

std::ostream& OutputSet::open(const std::string& path)
{
    if (path == "-") {
        m_entries.push_back({path, nullptr});
        return m_stdout;
    }
    m_entries.push_back({path, std::make_unique<AtomicFile>(path)});
    return m_entries.back().file->stream();
}

std::string OutputSet::openError() const
{
    for (const auto& e : m_entries)
        if (e.file && !e.file->error().empty())
            return e.file->error();
    return {};
}

bool OutputSet::commit(std::ostream& err)
{
    // "written" lists what already holds the new text (files written in place, stdout); "left"
    // what keeps its old contents.
    auto list = [&](const std::vector<std::string>& paths) {
        std::string s;
        for (const auto& p : paths)
            s += (s.empty() ? "" : ", ") + printable(p);
        return s;
    };
    auto report = [&](const std::vector<std::string>& written,
                      const std::vector<std::string>& left) {
        if (!written.empty())
            err << "written: " << list(written) << "\n";
        if (!left.empty())
            err << "not written (any old file left as it was): " << list(left) << "\n";
    };
    // 1. Everything complete on disk (temporary files synced), or nothing is renamed.
    bool ok = true;
    std::vector<std::string> written, left;
    for (auto& e : m_entries) {
        std::string error;
        if (!e.file)
            error = m_stdout.flush() ? "" : "standard output: cannot write";
        else
            error = e.file->prepare();
        if (!error.empty()) {
            err << printable(error) << "\n";
            ok = false;
        }
        if (e.file && !e.file->inPlace())
            left.push_back(e.path);
        else if (error.empty())
            written.push_back(e.path);
    }
    if (!ok) {
        for (auto& e : m_entries)
            if (e.file)
                e.file->discard(); // the temporary files go now (the streams stay valid)
        report(written, left);
        return false;
    }
    // 2. The renames, in order; one that fails stops the others.
    written.clear();
    for (size_t i = 0; i < m_entries.size(); ++i) {
        auto& e = m_entries[i];
        const std::string error = e.file ? e.file->publish() : std::string();
        if (error.empty()) {
            written.push_back(e.path);
            continue;
        }
        err << printable(error) << "\n";
        left = {e.path};
        for (size_t j = i + 1; j < m_entries.size(); ++j) // in place: written already
            (m_entries[j].file && !m_entries[j].file->inPlace() ? left : written)
                .push_back(m_entries[j].path);
        for (size_t j = i + 1; j < m_entries.size(); ++j)
            if (m_entries[j].file)
                m_entries[j].file->discard();
        report(written, left);
        return false;
    }
    return true;
}

bool writeText(
    const std::string& path, const std::string& text, std::ostream& out, std::ostream& err)
{
    OutputSet outputs(out);
    outputs.open(path) << text;
    return outputs.commit(err);
}

} // namespace schedlab
