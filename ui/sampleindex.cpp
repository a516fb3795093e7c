// SPDX-License-Identifier: GPL-2.0-or-later
#include "sampleindex.h"

#include "core/record/recording.h"

#include <algorithm>

namespace schedlab::ui {

void SampleIndex::clear()
{
    m_perTask.clear();
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
        if (r.kind != RecordKind::Sample || !r.entity.isTask())
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
        out.push_back({Nanoseconds{r.time}, r.payload.sample.vruntime, r.payload.sample.deadline,
            r.payload.sample.avgVruntime, r.flags});
        if (r.time > to.count())
            break; // one past the right edge
    }
    return out;
}

} // namespace schedlab::ui
