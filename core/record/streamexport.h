// SPDX-License-Identifier: GPL-2.0-or-later
// Exports written in bounded memory (docs/exports.md): the records as text, the samples and run
// slices as CSV and the Perfetto trace, fed a chunk of records at a time — by a simulation while
// it runs (Simulation::streamRecording) or from a recording kept in memory (feedRecording). They
// are the only implementation of these formats: the whole-recording functions of
// core/record/traceexport.h feed them from memory. The trace layout is described there.
//
// What cannot be written in record order goes to an unnamed temporary file, never to memory: the
// run slices, which are written sorted by start (a slice is known only when it ends), and the
// trace's counters, which follow the slices in the file. Memory is a fixed text buffer, a block of
// slices per CPU and one sample per entity (the trace's value at the window's start).
#pragma once

#include "core/base/time.h"
#include "core/record/recording.h"
#include "core/record/traceexport.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

/// The time window of an export, both ends included; `to` is clipped to the end of the run.
struct ExportWindow
{
    Nanoseconds from{0};
    Nanoseconds to = Nanoseconds::max();
};

/// Which entities an export covers: all, a list (the GUI's plotted tasks), or name patterns
/// (`--entities`): a task name or a group path, with the shell wildcards * ? [..] (fnmatch); a
/// group path selects that group's entity on every CPU. Forked tasks are matched by the names they
/// get when forked (PARENT.N), so patterns are resolved as entities appear.
class EntitySelection
{
public:
    EntitySelection() = default;
    explicit EntitySelection(const EntityFilter& refs);
    static EntitySelection patterns(std::vector<std::string> patterns);
    /// Splits NAME[,NAME…] (spaces around names are dropped); empty names are an error.
    static std::optional<EntitySelection> parse(const std::string& list, std::string* error);

    bool all() const { return m_refs.empty() && m_patterns.empty(); }
    bool selected(EntityRef e, const Recording& names) const;
    const std::vector<std::string>& patternList() const { return m_patterns; }
    /// True when @p pattern has a wildcard (it may match tasks forked later).
    static bool isGlob(const std::string& pattern);
    /// Whether @p name matches one of the patterns.
    bool matchesName(const std::string& name) const;

private:
    EntityFilter m_refs;
    std::vector<std::string> m_patterns;
    mutable std::vector<int8_t> m_taskCache;  ///< -1 unknown, 0 no, 1 yes
    mutable std::vector<int8_t> m_groupCache; ///< per group index
};

/// Text handed to a stream a megabyte at a time; counts the most it ever held (tests check that
/// this stays bounded, whatever the run length).
class TextOut
{
public:
    explicit TextOut(std::ostream& stream);
    ~TextOut() { flush(); }
    TextOut(const TextOut&) = delete;
    TextOut& operator=(const TextOut&) = delete;
    TextOut& operator+=(const std::string& s) { return append(s); }
    TextOut& operator+=(const char* s) { return append(s); }
    TextOut& operator+=(char c)
    {
        m_buffer += c;
        return *this;
    }
    void flush();
    size_t peakBytes() const { return m_peak; }
    static constexpr size_t kFlushAt = size_t{1} << 20;

private:
    template <typename S> TextOut& append(const S& s)
    {
        m_buffer += s;
        if (m_buffer.size() >= kFlushAt)
            flush();
        return *this;
    }
    std::ostream& m_stream;
    std::string m_buffer;
    size_t m_peak = 0;
};

/// An unnamed temporary file (created in $TMPDIR or /tmp, removed when closed). Throws
/// std::runtime_error when it cannot be created or written.
class SpoolFile
{
public:
    SpoolFile();
    ~SpoolFile();
    SpoolFile(const SpoolFile&) = delete;
    SpoolFile& operator=(const SpoolFile&) = delete;
    /// Appends @p bytes; returns the offset they were written at.
    uint64_t write(const void* data, size_t bytes);
    void read(uint64_t offset, void* data, size_t bytes);
    uint64_t size() const { return m_size; }

private:
    std::FILE* m_file = nullptr;
    uint64_t m_size = 0;
};

/// A writer fed records in order; finish() writes what is left once the run is over.
class ExportWriter : public RecordSink
{
public:
    /// @p end: the time the run reached (the window's end is clipped to it).
    virtual void finish(const Recording& names, Nanoseconds end) = 0;
    /// The most bytes this writer held in memory at any time (text buffer, slice blocks, values
    /// at the window's start): bounded by the CPU and entity counts, not by the run length.
    virtual size_t peakMemory() const = 0;
};

/// Run slices cut from Switch records (as runSlices()), written back sorted by start: each CPU's
/// slices are already in order, so they are kept per CPU in blocks on a spool file and merged.
class SliceSorter
{
public:
    SliceSorter(ExportWindow window, const EntitySelection* only);
    void add(const Record& r, const Recording& names);
    /// Closes the open slices at the window's end, then calls @p emit for every slice in the
    /// order of runSlices() (start, then the order they ended in).
    void finish(
        int64_t hi, const Recording& names, const std::function<void(const RunSlice&)>& emit);
    size_t peakMemory() const { return m_peak; }
    static constexpr size_t kBlock = 1024; ///< slices per block

private:
    struct Slice
    {
        RunSlice s;
        uint64_t seq = 0;
    };
    struct PerCpu
    {
        int task = -1;
        int64_t since = 0;
        std::vector<Slice> tail;
        std::vector<uint64_t> blocks; ///< spool offsets of full blocks
    };
    void close(int cpu, int64_t end, int64_t hi, const Recording& names);
    PerCpu& cpu(int c);
    ExportWindow m_window;
    const EntitySelection* m_only;
    std::vector<PerCpu> m_cpus;
    std::unique_ptr<SpoolFile> m_spool;
    uint64_t m_seq = 0;
    size_t m_peak = 0;
};

/// What every text export below shares: the text it writes to @p out, the time window it keeps
/// and the entities it is about. peakMemory() is the text buffer's; writers holding more add it.
class WindowedTextWriter : public ExportWriter
{
public:
    size_t peakMemory() const override { return m_out.peakBytes(); }

protected:
    WindowedTextWriter(std::ostream& out, ExportWindow window, EntitySelection only);
    TextOut m_out;
    ExportWindow m_window;
    EntitySelection m_only;
};

/// --records: formatRecord() lines. With a window, the records inside it; with entities, the
/// records about them (a switch when either task is selected; feature toggles are dropped).
class RecordsTextWriter : public WindowedTextWriter
{
public:
    RecordsTextWriter(std::ostream& out, ExportWindow window = {}, EntitySelection only = {});
    void consume(const Record* records, size_t count, const Recording& names) override;
    void finish(const Recording& names, Nanoseconds end) override;
};

/// samples.csv (writeSamplesCsv()).
class SamplesCsvWriter : public WindowedTextWriter
{
public:
    SamplesCsvWriter(std::ostream& out, ExportWindow window = {}, EntitySelection only = {});
    void consume(const Record* records, size_t count, const Recording& names) override;
    void finish(const Recording& names, Nanoseconds end) override;

private:
    /// Ends the last sample's line, with the PELT columns of @p pelt (empty without one).
    void endLine(const Record* pelt);
    bool m_open = false; ///< a sample line waits for its Pelt record
    Record m_sample;     ///< ... this sample's
};

/// slices.csv (writeSlicesCsv()).
class SlicesCsvWriter : public WindowedTextWriter
{
public:
    SlicesCsvWriter(std::ostream& out, ExportWindow window = {}, EntitySelection only = {});
    void consume(const Record* records, size_t count, const Recording& names) override;
    void finish(const Recording& names, Nanoseconds end) override;
    size_t peakMemory() const override { return m_out.peakBytes() + m_slices.peakMemory(); }

private:
    SliceSorter m_slices;
};

/// The Perfetto trace (writeChromeTrace()). Samples in the window go to a spool file in order
/// (the counters come after the slices in the file); the last sample of each entity before the
/// window is kept in memory.
class ChromeTraceWriter : public WindowedTextWriter
{
public:
    ChromeTraceWriter(std::ostream& out, ExportWindow window = {}, EntitySelection only = {},
        std::string title = {});
    void consume(const Record* records, size_t count, const Recording& names) override;
    void finish(const Recording& names, Nanoseconds end) override;
    size_t peakMemory() const override;

private:
    void spool(const Record& r, int64_t at);
    std::string m_title;
    SliceSorter m_slices;
    std::map<int32_t, std::optional<Record>> m_before; ///< entity: last sample before the window
    std::vector<Record> m_counterBlock;                ///< samples not yet on the spool
    std::unique_ptr<SpoolFile> m_counters;
    size_t m_peakCounters = 0;
};

/// Hands every chunk to several writers.
class ExportFanout : public RecordSink
{
public:
    void add(ExportWriter* w) { m_writers.push_back(w); }
    bool empty() const { return m_writers.empty(); }
    void consume(const Record* records, size_t count, const Recording& names) override;
    void finish(const Recording& names, Nanoseconds end);

private:
    std::vector<ExportWriter*> m_writers;
};

/// Feeds a recording kept in memory to @p sink, a chunk at a time. @p progress (may be empty)
/// gets the records done so far and returns false to stop early (then this returns false).
bool feedRecording(const Recording& rec, RecordSink& sink,
    const std::function<bool(size_t done, size_t total)>& progress = {});

} // namespace schedlab
