// SPDX-License-Identifier: GPL-2.0-or-later
#include "sampleindex.h"

#include "core/record/recording.h"

#include <algorithm>
#include <array>

namespace schedlab::ui {

void SampleIndex::clear()
{
    m_perTask.clear();
    m_perGroup.clear();
    m_groupOrder.clear();
    m_consumed = 0;
}

size_t SampleIndex::sampleCount(int task) const
{
    return task >= 0 && static_cast<size_t>(task) < m_perTask.size()
        ? m_perTask[static_cast<size_t>(task)].size()
        : 0;
}

void SampleIndex::update(const Recording& recording)
{
    const auto& records = recording.records();
    if (records.size() < m_consumed)
        clear();
    for (size_t i = m_consumed; i < records.size(); ++i) {
        const Record& r = records[i];
        if (r.kind != RecordKind::Sample)
            continue;
        if (r.entity.isGroup()) {
            const auto it = std::find(m_groupOrder.begin(), m_groupOrder.end(), r.entity.raw);
            const auto g = static_cast<size_t>(it - m_groupOrder.begin());
            if (it == m_groupOrder.end()) {
                m_groupOrder.push_back(r.entity.raw);
                m_perGroup.emplace_back();
            }
            m_perGroup[g].push_back(static_cast<uint32_t>(i));
            continue;
        }
        if (!r.entity.isTask())
            continue;
        const auto task = static_cast<size_t>(r.entity.taskIndex());
        if (task >= m_perTask.size())
            m_perTask.resize(task + 1);
        m_perTask[task].push_back(static_cast<uint32_t>(i));
    }
    m_consumed = records.size();
}

std::vector<EntitySample> SampleIndex::series(
    const Recording& recording, int task, Nanoseconds from, Nanoseconds to) const
{
    std::vector<EntitySample> out;
    if (sampleCount(task) == 0)
        return out;
    const auto& positions = m_perTask[static_cast<size_t>(task)];
    const auto& records = recording.records();
    auto timeAt = [&](uint32_t pos) { return records[pos].time; };
    // First sample after `from`, then step back to the last one at or before it (the left edge).
    auto first = std::upper_bound(positions.begin(), positions.end(), from.count(),
        [&](int64_t t, uint32_t pos) { return t < timeAt(pos); });
    if (first != positions.begin())
        --first;
    for (auto it = first; it != positions.end(); ++it) {
        if (*it >= records.size())
            break; // the recording was replaced without update()
        const Record& r = records[*it];
        out.push_back(toSample(r));
        if (r.time > to.count())
            break; // one past the right edge
    }
    return out;
}

EntitySample SampleIndex::toSample(const Record& r)
{
    return {Nanoseconds{r.time}, r.payload.sample.vruntime, r.payload.sample.deadline,
        r.payload.sample.avgVruntime, r.flags, r.payload.sample.vlag, r.payload.sample.weight};
}

std::vector<EntitySample> SampleIndex::decimatedSeries(
    const Recording& recording, int task, Nanoseconds from, Nanoseconds to, int bins) const
{
    if (sampleCount(task) == 0)
        return {};
    return decimate(m_perTask[static_cast<size_t>(task)], recording, from, to, bins);
}

std::vector<EntitySample> SampleIndex::groupSeries(
    const Recording& recording, int32_t raw, Nanoseconds from, Nanoseconds to, int bins) const
{
    const auto it = std::find(m_groupOrder.begin(), m_groupOrder.end(), raw);
    if (it == m_groupOrder.end())
        return {};
    return decimate(
        m_perGroup[static_cast<size_t>(it - m_groupOrder.begin())], recording, from, to, bins);
}

std::vector<EntitySample> SampleIndex::decimate(const std::vector<uint32_t>& positions,
    const Recording& recording, Nanoseconds from, Nanoseconds to, int bins)
{
    const auto& records = recording.records();
    if (positions.empty() || positions.back() >= records.size())
        return {};                   // none, or the recording was replaced without update()
    const auto at = [&](int64_t t) { // first position with time > t
        return std::upper_bound(positions.begin(), positions.end(), t,
            [&](int64_t v, uint32_t pos) { return v < records[pos].time; });
    };
    auto first = at(from.count());
    const auto last = at(to.count());
    std::vector<EntitySample> out;
    if (bins <= 0 || to <= from || last - first <= static_cast<std::ptrdiff_t>(bins) * 4) {
        // Few samples: all of them, plus the nearest one on each side.
        auto it = first != positions.begin() ? first - 1 : first;
        for (; it != positions.end(); ++it) {
            out.push_back(toSample(records[*it]));
            if (records[*it].time > to.count())
                break;
        }
        return out;
    }
    out.reserve(static_cast<size_t>(bins) * 4 + 2);
    if (first != positions.begin())
        out.push_back(toSample(records[*(first - 1)])); // the left edge
    const int64_t span = (to - from).count();
    for (int b = 0; b < bins && first != last; ++b) {
        const int64_t binEnd = b + 1 == bins ? to.count() : from.count() + span * (b + 1) / bins;
        const auto end = std::min(at(binEnd), last);
        if (end == first)
            continue;
        // Extremes of the lag among at most kProbe samples of the bin, so a redraw costs
        // O(bins · kProbe) whatever the length of the run.
        constexpr std::ptrdiff_t kProbe = 16;
        const std::ptrdiff_t n = end - first;
        const std::ptrdiff_t stride = std::max<std::ptrdiff_t>(1, n / kProbe);
        auto lo = first;
        auto hi = first;
        for (std::ptrdiff_t i = 0; i < n; i += stride) {
            const auto it = first + i;
            if (records[*it].payload.sample.vlag < records[*lo].payload.sample.vlag)
                lo = it;
            if (records[*it].payload.sample.vlag > records[*hi].payload.sample.vlag)
                hi = it;
        }
        std::array<std::vector<uint32_t>::const_iterator, 4> keep{first, lo, hi, end - 1};
        std::sort(keep.begin(), keep.end());
        for (size_t k = 0; k < keep.size(); ++k)
            if (k == 0 || keep[k] != keep[k - 1])
                out.push_back(toSample(records[*keep[k]]));
        first = end;
    }
    if (last != positions.end())
        out.push_back(toSample(records[*last])); // one past the right edge
    return out;
}

} // namespace schedlab::ui
