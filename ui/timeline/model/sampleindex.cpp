// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/sampleindex.h"

#include "core/record/recording.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/model/timelinelayout.h"

#include <algorithm>
#include <array>
#include <bit>

namespace schedlab::ui {

void SampleIndex::clear()
{
    m_perTask.clear();
    m_perGroup.clear();
    m_groupOrder.clear();
    m_groupSlot.clear();
    m_queuedPerCpu.clear();
    m_slices.clear();
    m_exits.clear();
    m_maxSlices.clear();
    m_consumed = 0;
    m_hasPelt = false;
}

const std::vector<std::pair<Nanoseconds, int64_t>>& SampleIndex::sliceChanges(int task) const
{
    static const std::vector<std::pair<Nanoseconds, int64_t>> kNone;
    return task >= 0 && static_cast<size_t>(task) < m_slices.size()
        ? m_slices[static_cast<size_t>(task)]
        : kNone;
}

size_t SampleIndex::sampleCount(int task) const
{
    return task >= 0 && static_cast<size_t>(task) < m_perTask.size()
        ? m_perTask[static_cast<size_t>(task)].positions.size()
        : 0;
}

size_t SampleIndex::bytes() const
{
    size_t n = 0;
    for (const auto* all : {&m_perTask, &m_perGroup})
        for (const Series& s : *all)
            n += s.positions.capacity() * sizeof(uint32_t) + s.summary.bytes()
                + s.peltSummary.bytes();
    for (const auto& cpu : m_queuedPerCpu)
        n += cpu.capacity() * sizeof(uint32_t);
    for (const auto& slices : m_slices)
        n += slices.capacity() * sizeof(slices[0]);
    for (const auto& [key, slices] : m_maxSlices)
        n += slices.capacity() * sizeof(slices[0]);
    return n;
}

size_t SampleIndex::groupSlot(int32_t raw) const
{
    const EntityRef e{raw};
    if (!e.isGroup())
        return SIZE_MAX;
    const auto group = static_cast<size_t>(e.groupIndex());
    const auto cpu = static_cast<size_t>(e.groupCpu());
    if (group >= m_groupSlot.size() || cpu >= m_groupSlot[group].size()
        || m_groupSlot[group][cpu] == 0)
        return SIZE_MAX;
    return m_groupSlot[group][cpu] - 1;
}

const std::vector<std::pair<Nanoseconds, int64_t>>* SampleIndex::maxSlices(int cpu, int group) const
{
    if (cpu < 0 || group < 0)
        return nullptr;
    const uint32_t key =
        (static_cast<uint32_t>(group) << 12) | (static_cast<uint32_t>(cpu) & 0xfffu);
    const auto it = m_maxSlices.find(key);
    return it == m_maxSlices.end() ? nullptr : &it->second;
}

void SampleIndex::SampleSummary::merge(const SampleSummary& next)
{
    cpuChanges = cpuChanges || next.cpuChanges || lastCpu != next.firstCpu;
    lastCpu = next.lastCpu;
    last = next.last;
    lastAt = next.lastAt;
    for (size_t k = 0; k < extremes.size(); ++k) {
        Extreme& e = extremes[k];
        const Extreme& n = next.extremes[k];
        if (n.low < e.low) {
            e.low = n.low;
            e.lowAt = n.lowAt;
        }
        if (n.high > e.high) {
            e.high = n.high;
            e.highAt = n.highAt;
        }
    }
}

void SampleIndex::PeltSummary::merge(const PeltSummary& next)
{
    for (size_t k = 0; k < extremes.size(); ++k) {
        Extreme& e = extremes[k];
        const Extreme& n = next.extremes[k];
        if (n.low < e.low) {
            e.low = n.low;
            e.lowAt = n.lowAt;
        }
        if (n.high > e.high) {
            e.high = n.high;
            e.highAt = n.highAt;
        }
    }
}

namespace {

/// The Pelt record of the sample at @p position: the record right after it, of the same entity
/// and time (Machine appends the two together), if any.
const Record* peltOf(const std::vector<Record>& records, size_t position)
{
    if (position + 1 >= records.size())
        return nullptr;
    const Record& s = records[position];
    const Record& p = records[position + 1];
    return p.kind == RecordKind::Pelt && p.entity == s.entity && p.time == s.time ? &p : nullptr;
}

/// The PELT values of @p pelt (a Pelt record) as the leaf of a PeltSummary.
SampleIndex::PeltSummary peltLeaf(const Record& pelt, uint32_t position)
{
    const auto& p = pelt.payload.pelt;
    const std::array<int64_t, 8> values{p.loadAvg, p.runnableAvg, p.utilAvg, p.rqLoadAvg,
        p.rqRunnableAvg, p.rqUtilAvg, p.hNrQueued, p.hNrRunnable};
    SampleIndex::PeltSummary leaf;
    for (size_t k = 0; k < values.size(); ++k)
        leaf.extremes[k] = {values[k], values[k], position, position};
    return leaf;
}

SampleIndex::SampleSummary leafSummary(const Record& r, uint64_t reference, uint32_t position)
{
    // vruntime relative to the entity's first sample, as a signed distance: wrap-safe
    // (entity_before() compares the same way).
    const std::array<int64_t, 5> values{r.payload.sample.vlag,
        static_cast<int64_t>(r.payload.sample.vruntime - reference),
        static_cast<int64_t>(r.payload.sample.weight),
        static_cast<int64_t>(r.payload.sample.deadline - reference),
        static_cast<int64_t>(r.payload.sample.avgVruntime - reference)};
    SampleIndex::SampleSummary leaf;
    leaf.first = leaf.last = r.time;
    leaf.firstAt = leaf.lastAt = position;
    leaf.firstCpu = leaf.lastCpu = r.cpu;
    for (size_t k = 0; k < values.size(); ++k)
        leaf.extremes[k] = {values[k], values[k], position, position};
    return leaf;
}

} // namespace

void SampleIndex::Series::summarize(const std::vector<Record>& records) const
{
    if (summarized < positions.size() && positions.size() - summarized >= summarized) {
        // Catching up with at least as many samples as are summarized (the first drawing of
        // a series indexed whole): each level's nodes allocated once, exactly, not doubled.
        summary.reserve(positions.size());
        if (peltAligned && peltOf(records, positions[summarized]))
            peltSummary.reserve(positions.size());
    }
    for (; summarized < positions.size(); ++summarized) {
        const uint32_t position = positions[summarized];
        if (summarized + 8 < positions.size()) {
            // The samples are scattered over a recording far larger than the caches: ask for
            // a few ahead, so the reads overlap.
            const auto* ahead = reinterpret_cast<const char*>(&records[positions[summarized + 8]]);
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 2 * sizeof(Record) - 1); // with its Pelt record
        }
        summarizeOne(records, position);
    }
}

void SampleIndex::Series::summarizeOne(const std::vector<Record>& records, uint32_t position) const
{
    summary.push(leafSummary(records[position], reference, position));
    // The PELT extremes are summarised while every sample has them (a run records PELT for
    // all or none); a sample without stops it for good (decimate() then reads them one by
    // one).
    const Record* pelt = peltOf(records, position);
    peltAligned = peltAligned && pelt;
    if (peltAligned)
        peltSummary.push(peltLeaf(*pelt, position));
}

void SampleIndex::Series::summarizeAppended(const std::vector<Record>& records) const
{
    if (summarized + 1 == positions.size()) {
        summarizeOne(records, positions.back());
        ++summarized;
    } else {
        summarize(records);
    }
}

Nanoseconds SampleIndex::exitTime(int task) const
{
    return task >= 0 && static_cast<size_t>(task) < m_exits.size()
        ? Nanoseconds{m_exits[static_cast<size_t>(task)]}
        : Nanoseconds{-1};
}

void SampleIndex::update(const Recording& recording)
{
    begin(recording);
    const auto& records = recording.records();
    for (size_t i = m_consumed; i < records.size(); ++i)
        consume(records, i);
    end(records.size());
}

void SampleIndex::begin(const Recording& recording)
{
    if (recording.records().size() < m_consumed)
        clear();
}

void SampleIndex::consume(const std::vector<Record>& records, size_t i)
{
    const Record& r = records[i];
    switch (r.kind) {
    case RecordKind::Sample:
        consumeSample(records, i);
        return;
    case RecordKind::DeadlineRenew:
        if (r.entity.isTask()) {
            const auto task = static_cast<size_t>(r.entity.taskIndex());
            if (task >= m_slices.size())
                m_slices.resize(task + 1);
            auto& slices = m_slices[task];
            if (slices.empty() || slices.back().second != r.payload.generic.b)
                slices.emplace_back(Nanoseconds{r.time}, r.payload.generic.b);
        }
        return;
    case RecordKind::Exit:
        if (r.entity.isTask()) {
            const auto task = static_cast<size_t>(r.entity.taskIndex());
            if (task >= m_exits.size())
                m_exits.resize(task + 1, -1);
            m_exits[task] = r.time;
        }
        return;
    case RecordKind::MaxSlice: {
        const uint32_t key = (static_cast<uint32_t>(r.payload.generic.b) << 12)
            | (static_cast<uint32_t>(r.cpu) & 0xfffu);
        m_maxSlices[key].emplace_back(Nanoseconds{r.time}, r.payload.generic.a);
        return;
    }
    default:
        return;
    }
}

void SampleIndex::consumeSample(const std::vector<Record>& records, size_t i)
{
    const Record& r = records[i];
    if (!m_hasPelt) [[unlikely]]
        m_hasPelt = peltOf(records, i) != nullptr;
    const auto position = static_cast<uint32_t>(i);
    if (r.flags & Record::kQueued) {
        if (m_queuedPerCpu.size() <= r.cpu) [[unlikely]]
            m_queuedPerCpu.resize(static_cast<size_t>(r.cpu) + 1);
        m_queuedPerCpu[r.cpu].push_back(position);
    }
    if (r.entity.isGroup()) {
        const auto group = static_cast<size_t>(r.entity.groupIndex());
        const auto cpu = static_cast<size_t>(r.entity.groupCpu());
        if (group >= m_groupSlot.size()) [[unlikely]]
            m_groupSlot.resize(group + 1);
        auto& perCpu = m_groupSlot[group];
        if (cpu >= perCpu.size()) [[unlikely]]
            perCpu.resize(cpu + 1, 0);
        if (perCpu[cpu] == 0) [[unlikely]] {
            m_groupOrder.push_back(r.entity.raw);
            m_perGroup.emplace_back();
            perCpu[cpu] = static_cast<uint32_t>(m_groupOrder.size());
        }
        const size_t slot = perCpu[cpu] - 1;
        Series& series = m_perGroup[slot];
        series.append(r, position);
        if (slot < m_summarizedGroups)
            series.summarizeAppended(records);
        return;
    }
    if (!r.entity.isTask())
        return;
    const auto task = static_cast<size_t>(r.entity.taskIndex());
    if (task >= m_perTask.size()) [[unlikely]]
        m_perTask.resize(task + 1);
    m_perTask[task].append(r, position);
}

void SampleIndex::shrinkToFit()
{
    for (auto* all : {&m_perTask, &m_perGroup})
        for (Series& s : *all) {
            s.positions.shrink_to_fit();
            // Summaries built while indexing grew by doubling (those built for a drawing were
            // allocated at their size: nothing to give back).
            s.summary.shrinkToFit();
            s.peltSummary.shrinkToFit();
        }
    for (auto& cpu : m_queuedPerCpu)
        cpu.shrink_to_fit();
    for (auto& slices : m_slices)
        slices.shrink_to_fit();
    for (auto& [key, slices] : m_maxSlices)
        slices.shrink_to_fit();
}

void updateIndexes(const Recording& recording, RunSegmentIndex& lanes, SampleIndex& samples)
{
    lanes.begin(recording);
    samples.begin(recording);
    const auto& records = recording.records();
    const size_t from = std::min(lanes.consumedRecords(), samples.consumedRecords());
    if (lanes.consumedRecords() != samples.consumedRecords()) {
        // Not in step (one was cleared or filled on its own): each its own pass.
        lanes.update(recording);
        samples.update(recording);
    } else {
        // One dispatch on the kind per record: the lanes read switches and throttling, the
        // samples index the rest (RunSegmentIndex::consume(), SampleIndex::consume()).
        for (size_t i = samples.consumedRecords(); i < records.size(); ++i) {
            const Record& r = records[i];
            switch (r.kind) {
            case RecordKind::Sample:
                samples.consumeSample(records, i);
                break;
            case RecordKind::Switch:
            case RecordKind::Throttle:
            case RecordKind::Unthrottle:
                lanes.consume(r);
                break;
            case RecordKind::DeadlineRenew:
            case RecordKind::Exit:
            case RecordKind::MaxSlice:
                samples.consume(records, i);
                break;
            default:
                break;
            }
        }
        lanes.end(records.size());
        samples.end(records.size());
    }
    if (records.size() - from >= kShrinkAfter && records.size() - from >= from) {
        // Most of the indexes were built by this pass (a finished run indexed whole): their
        // vectors grew by doubling, a third of their room unused on average. Give it back
        // (one vector copied at a time); a live run's small passes keep doubling.
        lanes.shrinkToFit();
        samples.shrinkToFit();
    }
}

std::vector<EntitySample> SampleIndex::series(
    const Recording& recording, int task, Nanoseconds from, Nanoseconds to) const
{
    if (sampleCount(task) == 0)
        return {};
    // No bins: decimate()'s exact path, every sample of the window and one beyond each edge.
    return decimate(m_perTask[static_cast<size_t>(task)], recording, from, to, 0, KeepAll);
}

EntitySample SampleIndex::toSample(const std::vector<Record>& records, uint32_t position)
{
    const Record& r = records[position];
    EntitySample s{Nanoseconds{r.time}, r.payload.sample.vruntime, r.payload.sample.deadline,
        r.payload.sample.avgVruntime, r.flags, r.payload.sample.vlag, r.payload.sample.weight,
        false, r.cpu, -1, false, PeltValues{}};
    if (const Record* pelt = peltOf(records, position)) {
        const auto& p = pelt->payload.pelt;
        s.hasPelt = true;
        s.pelt = {p.loadAvg, p.runnableAvg, p.utilAvg, p.rqLoadAvg, p.rqRunnableAvg, p.rqUtilAvg,
            p.hNrQueued, p.hNrRunnable};
    }
    return s;
}

std::vector<EntitySample> SampleIndex::decimatedSeries(const Recording& recording, int task,
    Nanoseconds from, Nanoseconds to, int bins, unsigned keep,
    const std::vector<Nanoseconds>& moves) const
{
    if (sampleCount(task) == 0)
        return {};
    return decimate(m_perTask[static_cast<size_t>(task)], recording, from, to, bins, keep, moves);
}

std::vector<EntitySample> SampleIndex::groupSeries(const Recording& recording, int32_t raw,
    Nanoseconds from, Nanoseconds to, int bins, unsigned keep) const
{
    const size_t slot = groupSlot(raw);
    if (slot == SIZE_MAX)
        return {};
    return decimate(m_perGroup[slot], recording, from, to, bins, keep);
}

std::vector<std::pair<Nanoseconds, uint64_t>> SampleIndex::queueV(const Recording& recording,
    int cpu, Nanoseconds from, Nanoseconds to, int points,
    const std::function<bool(const Record&)>& onQueue) const
{
    std::vector<std::pair<Nanoseconds, uint64_t>> out;
    if (cpu < 0 || static_cast<size_t>(cpu) >= m_queuedPerCpu.size() || to <= from || points <= 0)
        return out;
    const auto& positions = m_queuedPerCpu[static_cast<size_t>(cpu)];
    const auto& records = recording.records();
    if (positions.empty() || positions.back() >= records.size())
        return out;
    constexpr int kLookBack = 64;
    const int64_t span = (to - from).count();
    for (int i = 1; i <= points; ++i) {
        const int64_t t = from.count() + span / points * i + (i == points ? span % points : 0);
        // The CPU's last queued sample at or before t, then back to one on the cfs_rq.
        auto it = std::upper_bound(positions.begin(), positions.end(), t,
            [&](int64_t v, uint32_t pos) { return v < records[pos].time; });
        for (int k = 0; k < kLookBack && it != positions.begin(); ++k) {
            --it;
            const Record& r = records[*it];
            if (r.time <= from.count() || (!out.empty() && r.time <= out.back().first.count()))
                break;
            if (onQueue(r)) {
                out.emplace_back(Nanoseconds{r.time}, r.payload.sample.avgVruntime);
                break;
            }
        }
    }
    return out;
}

std::vector<EntitySample> SampleIndex::decimate(const Series& series, const Recording& recording,
    Nanoseconds from, Nanoseconds to, int bins, unsigned keep,
    const std::vector<Nanoseconds>& moves)
{
    const auto& positions = series.positions;
    const auto& records = recording.records();
    if (positions.empty() || positions.back() >= records.size())
        return {};                   // none, or the recording was replaced without update()
    const auto at = [&](int64_t t) { // index of the first sample with time > t
        // The blocks of 16 summarized so far give the times of their first and last samples:
        // the search reads the recording only inside the one block where the answer lies, or
        // after the last block (each read of a sample is a cache miss in a long run).
        size_t lo = 0;
        size_t hi = positions.size();
        if (series.summary.levelCount() > 0) {
            constexpr size_t kSpan = SummaryPyramid<SampleSummary>::kFanout;
            const auto& blocks = series.summary.level(0);
            const auto j = static_cast<size_t>(
                std::upper_bound(blocks.begin(), blocks.end(), t,
                    [](int64_t v, const SampleSummary& block) { return v < block.first; })
                - blocks.begin());
            if (j < blocks.size())
                hi = j * kSpan; // that block's first sample is after t
            if (j > 0)
                lo = blocks[j - 1].last <= t ? j * kSpan // no sample of that block is after t
                                             : (j - 1) * kSpan + 1; // its first is not
        }
        return static_cast<size_t>(
            std::upper_bound(positions.begin() + static_cast<std::ptrdiff_t>(lo),
                positions.begin() + static_cast<std::ptrdiff_t>(hi), t,
                [&](int64_t v, uint32_t pos) { return v < records[pos].time; })
            - positions.begin());
    };
    const size_t first = at(from.count());
    const size_t last = at(to.count());
    std::vector<EntitySample> out;
    if (bins <= 0 || to <= from || last - first <= static_cast<size_t>(bins) * 4) {
        // Few samples: all of them, plus the nearest one on each side.
        for (size_t i = first > 0 ? first - 1 : 0; i < positions.size(); ++i) {
            out.push_back(toSample(records, positions[i]));
            if (records[positions[i]].time > to.count())
                break;
        }
        return out;
    }
    series.summarize(records);
    // Record positions of the samples to keep; their order is the samples' time order.
    std::vector<uint32_t> kept;
    kept.reserve(static_cast<size_t>(bins) * 4 + 2);
    if (first > 0)
        kept.push_back(positions[first - 1]); // the left edge

    // Walk the window's samples once, bin after bin: whole blocks from the summary where a
    // block lies inside the current bin, single samples elsewhere (a block that straddles a bin
    // edge would lend its extremes to the wrong column).
    const auto& pyramid = series.summary;
    int b = 0;
    int64_t b1 = columnEdge(from, to, bins, 1).count();
    bool open = false;
    SampleSummary bin;
    PeltSummary binPelt;
    bool binHasPelt = false; // binPelt holds the PELT of the open piece's samples that have it
    const bool wantPelt = (keep & KeepPelt) != 0;
    // The cfs_rq the open piece's samples are on: a CPU and the number of moves before.
    int binMoves = 0;
    const auto movesBefore = [&](int64_t t, bool queued) { // moves the sample at t is after
        int n = 0;
        for (const Nanoseconds m : moves)
            n += m.count() < t || (m.count() == t && queued);
        return n;
    };
    const auto movesIn = [&](int64_t lo, int64_t hi) { // a move in [lo, hi]
        return std::any_of(moves.begin(), moves.end(),
            [&](Nanoseconds m) { return m.count() >= lo && m.count() <= hi; });
    };
    const auto flush = [&] {
        if (open) {
            const auto binStart = static_cast<std::ptrdiff_t>(kept.size());
            kept.push_back(bin.firstAt);
            kept.push_back(bin.lastAt);
            for (size_t k = 0; k < bin.extremes.size(); ++k) {
                if (keep & (1u << k)) {
                    kept.push_back(bin.extremes[k].lowAt);
                    kept.push_back(bin.extremes[k].highAt);
                }
            }
            for (size_t k = 0; binHasPelt && k < binPelt.extremes.size(); ++k) {
                if (keep & (1u << (bin.extremes.size() + k))) {
                    kept.push_back(binPelt.extremes[k].lowAt);
                    kept.push_back(binPelt.extremes[k].highAt);
                }
            }
            std::sort(kept.begin() + binStart, kept.end());
            kept.erase(std::unique(kept.begin() + binStart, kept.end()), kept.end());
        }
        open = false;
    };
    const auto closeBin = [&] {
        flush();
        ++b;
        b1 = b + 1 == bins ? to.count() + 1 : columnEdge(from, to, bins, b + 1).count();
    };
    if (bins == 1)
        b1 = to.count() + 1; // the last bin ends at `to` inclusive
    // Takes a part of one cfs_rq (a block without a CPU change or a move, or one sample); a
    // part on another queue than the open piece's closes the piece first.
    const auto take = [&](const SampleSummary& part, const PeltSummary* partPelt, int partMoves) {
        if (open && (part.firstCpu != bin.lastCpu || partMoves != binMoves))
            flush();
        if (!open) {
            open = true;
            bin = part;
            binMoves = partMoves;
            binHasPelt = partPelt != nullptr;
            if (partPelt)
                binPelt = *partPelt;
        } else {
            bin.merge(part);
            if (partPelt && binHasPelt)
                binPelt.merge(*partPelt);
            else if (partPelt)
                binPelt = *partPelt;
            binHasPelt = binHasPelt || partPelt;
        }
    };
    // Samples read one by one come in runs up to the end of a block of 16 (one that straddles a
    // bin edge or holds a CPU change); their records are scattered over a recording far larger
    // than the caches: ask for the whole run at once, so the reads overlap instead of waiting for
    // each other (the decimation's main cost before).
    constexpr size_t kBlock = SummaryPyramid<SampleSummary>::kFanout;
    size_t prefetched = first;
    const auto prefetchBlock = [&](size_t i) {
        if (i < prefetched)
            return;
        prefetched = std::min(last, (i / kBlock + 1) * kBlock);
        for (size_t k = i; k < prefetched; ++k) {
            // A 48-byte record may straddle two cache lines: ask for both.
            const auto* p = reinterpret_cast<const char*>(&records[positions[k]]);
            __builtin_prefetch(p);
            __builtin_prefetch(p + sizeof(Record) - 1);
        }
    };
    for (size_t i = first; i < last;) {
        // The block of 16 starting here, if i starts one: its summary gives the time without a
        // read of the recording.
        const SampleSummary* block = pyramid.nodeAt(0, i);
        if (!block)
            prefetchBlock(i);
        const int64_t time = block ? block->first : records[positions[i]].time;
        while (time >= b1 && b + 1 < bins)
            closeBin();
        const auto [node, items] = pyramid.largestAt(i, [&](const SampleSummary& n) {
            // A block's PELT extremes are summarised only where every sample has PELT; else
            // the samples are read one by one.
            return n.last < b1 && n.last <= to.count() && !n.cpuChanges
                && (!wantPelt || series.peltAligned)
                && (moves.empty() || !movesIn(n.first, n.last));
        });
        if (node) {
            // The PELT node over the same samples: same level (items = 16^(level + 1)).
            const PeltSummary* nodePelt = nullptr;
            if (wantPelt && series.peltAligned) {
                const auto level = static_cast<size_t>(std::countr_zero(items))
                        / SummaryPyramid<SampleSummary>::kFanoutBits
                    - 1;
                nodePelt = series.peltSummary.nodeAt(level, i);
            }
            take(*node, nodePelt, movesBefore(node->first, false));
            i += items;
        } else {
            prefetchBlock(i);
            const Record& r = records[positions[i]];
            const Record* pelt = wantPelt ? peltOf(records, positions[i]) : nullptr;
            const PeltSummary leafPelt = pelt ? peltLeaf(*pelt, positions[i]) : PeltSummary{};
            take(leafSummary(r, series.reference, positions[i]), pelt ? &leafPelt : nullptr,
                moves.empty() ? 0 : movesBefore(r.time, r.flags & Record::kQueued));
            ++i;
        }
    }
    closeBin();
    if (last < positions.size())
        kept.push_back(positions[last]); // one past the right edge

    // The kept samples are scattered over a recording far larger than the caches: ask for a
    // few of them ahead, so their reads overlap instead of waiting for each other.
    constexpr size_t kAhead = 16;
    out.reserve(kept.size());
    size_t previous = 0; // index in the series of the previous kept sample
    for (size_t k = 0; k < kept.size(); ++k) {
        if (k + kAhead < kept.size()) {
            // A 48-byte record may straddle two cache lines: ask for both.
            const auto* ahead = reinterpret_cast<const char*>(&records[kept[k + kAhead]]);
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + sizeof(Record) - 1);
        }
        out.push_back(toSample(records, kept[k]));
        // Its index in the series (positions are sorted), searched from the previous one.
        const auto index = static_cast<size_t>(
            std::lower_bound(
                positions.begin() + static_cast<std::ptrdiff_t>(previous), positions.end(), kept[k])
            - positions.begin());
        out.back().afterGap = k > 0 && index != previous + 1;
        previous = index;
    }
    return out;
}

} // namespace schedlab::ui
