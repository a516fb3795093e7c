// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/cpulanesplottable.h"

#include "core/record/recording.h"
#include "ui/common/taskpalette.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace schedlab::ui {

Nanoseconds msToNs(double ms)
{
    return Nanoseconds{std::llround(ms * 1e6)};
}

double nsToMs(Nanoseconds ns)
{
    return static_cast<double>(ns.count()) / 1e6;
}

CpuLanesPlottable::CpuLanesPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setAntialiased(false);
    setSelectable(QCP::stNone);
}

void CpuLanesPlottable::setSource(
    const RunSegmentIndex* index, const Recording* recording, int cpuCount)
{
    m_index = index;
    m_recording = recording;
    m_cpuCount = cpuCount;
    m_laneCache.clear();
}

TimelineLayout CpuLanesPlottable::layout() const
{
    const QCPAxis* key = keyAxis();
    const QCPRange range = key->range();
    return TimelineLayout(msToNs(range.lower), msToNs(range.upper), key->coordToPixel(range.lower),
        key->coordToPixel(range.upper));
}

int CpuLanesPlottable::cpuAt(double y) const
{
    const double value = valueAxis()->pixelToCoord(y);
    const int cpu = static_cast<int>(std::lround(value));
    if (cpu < 0 || cpu >= m_cpuCount || std::abs(value - cpu) > kLaneHalfHeight)
        return -1;
    return cpu;
}

double CpuLanesPlottable::selectTest(const QPointF&, bool, QVariant*) const
{
    return -1; // lanes are not selectable; the view shows tooltips instead
}

QCPRange CpuLanesPlottable::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    foundRange = m_index != nullptr;
    return QCPRange(0.0, std::max(nsToMs(m_now), 1e-3));
}

QCPRange CpuLanesPlottable::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    foundRange = m_cpuCount > 0;
    return QCPRange(-0.5, std::max(m_cpuCount, 1) - 0.5);
}

void CpuLanesPlottable::draw(QCPPainter* painter)
{
    const QCPAxis* value = valueAxis();
    const TimelineLayout lay = layout();
    const QRect clip = clipRect();
    const QFontMetrics metrics(painter->font());
    // The lane background: a step away from the plot's background, light or dark palette.
    const QColor base = parentPlot()->palette().color(QPalette::Base);
    const QColor laneBack = base.lightnessF() > 0.5 ? base.darker(106) : base.lighter(140);
    m_colourCache.clear();

    for (int cpu = 0; cpu < m_cpuCount; ++cpu) {
        const double y0 = value->coordToPixel(cpu - kLaneHalfHeight);
        const double y1 = value->coordToPixel(cpu + kLaneHalfHeight);
        const QRectF band(clip.left(), std::min(y0, y1), clip.width(), std::abs(y1 - y0));
        if (!band.intersects(clip))
            continue;
        painter->fillRect(band, laneBack);
        if (!m_index)
            continue;
        // One bin per pixel column, each stacked from the lane's bottom by the exact share every
        // task ran in it (idle is the rest, the lane's background above): a task that ran a
        // bin's 1/height gets a pixel row whatever the zoom. Equal neighbouring columns are
        // painted as one rectangle; a single task filling it gets its name when it fits.
        const int x0 = static_cast<int>(std::lround(lay.left()));
        const int bins = std::max(1, static_cast<int>(std::lround(lay.right())) - x0);
        const int top = static_cast<int>(std::lround(band.top()));
        const int height = std::max(1, static_cast<int>(std::lround(band.height())));
        if (m_laneCache.size() < static_cast<size_t>(m_cpuCount))
            m_laneCache.resize(static_cast<size_t>(m_cpuCount));
        LaneCache& cache = m_laneCache[static_cast<size_t>(cpu)];
        const std::array<int64_t, 6> key{lay.start().count(), lay.end().count(), m_now.count(),
            bins, height, static_cast<int64_t>(m_index->consumedRecords())};
        if (!m_caching || cache.key != key) {
            cache.columns = stackBins(m_index->binShares(cpu, lay.start(), lay.end(), m_now, bins),
                height, lay.start(), lay.end(), bins, m_groupOf);
            cache.key = m_caching ? key : std::array<int64_t, 6>{};
            cache.stripBuilt = false;
        }
        const std::vector<StackColumn>& columns = cache.columns;
        // Coloured by cgroup, a task's colour changes where it moves: join only equal colours.
        const auto sameColours = [&](const StackColumn& a, const StackColumn& b) {
            if (!m_groupOf)
                return true;
            for (const StackPiece& p : a.pieces)
                if (m_groupOf(p.task, a.at) != m_groupOf(p.task, b.at))
                    return false;
            return true;
        };
        if (!cache.stripBuilt || cache.stripBack != laneBack.rgb()) {
            // Narrow spans (a whole-run view is thousands of one-pixel columns of several
            // pieces) are written into an image of the lane, painted at once (and kept with the
            // columns); wide ones as rectangles.
            cache.strip = QImage();
            cache.wide.clear();
            QImage& strip = cache.strip;
            size_t i = 0;
            while (i < columns.size()) {
                size_t j = i + 1;
                while (j < columns.size() && columns[j].column == columns[j - 1].column + 1
                    && columns[j].pieces == columns[i].pieces
                    && sameColours(columns[i], columns[j]))
                    ++j;
                const int width = columns[j - 1].column + 1 - columns[i].column;
                if (width >= 4) {
                    cache.wide.emplace_back(columns[i].column, width, i);
                    i = j;
                    continue;
                }
                if (strip.isNull()) {
                    strip = QImage(bins, height, QImage::Format_RGB32);
                    strip.fill(laneBack);
                }
                const int end = std::min(columns[i].column + width, bins);
                for (const StackPiece& p : columns[i].pieces) {
                    const QRgb c = cachedColour(p.task, columns[i].at).rgb();
                    for (int row = height - p.top; row < height - p.bottom; ++row) {
                        auto* line = reinterpret_cast<QRgb*>(strip.scanLine(row));
                        std::fill(line + columns[i].column, line + end, c);
                    }
                }
                i = j;
            }
            cache.stripBack = laneBack.rgb();
            cache.stripBuilt = true;
        }
        if (!cache.strip.isNull())
            painter->drawImage(QPoint(x0, top), cache.strip);
        for (const auto& [column, width, i] : cache.wide) {
            const int left = x0 + column;
            for (const StackPiece& p : columns[i].pieces)
                painter->fillRect(QRect(left, top + height - p.top, width, p.top - p.bottom),
                    cachedColour(p.task, columns[i].at));
            const auto& only = columns[i].pieces;
            if (only.size() == 1 && only[0].bottom == 0 && only[0].top == height && width >= 8) {
                const QColor colour = cachedColour(only[0].task, columns[i].at);
                const QRect rect(left, top, width, height);
                painter->setPen(QPen(colour.darker(125), 1));
                painter->drawRect(rect.adjusted(0, 0, -1, -1));
                if (!m_groupOf && m_recording && only[0].task >= 0
                    && only[0].task < static_cast<int>(m_recording->taskNames.size())) {
                    const QString name = QString::fromStdString(
                        m_recording->taskNames[static_cast<size_t>(only[0].task)]);
                    if (rect.width() > metrics.horizontalAdvance(name) + 8) {
                        painter->setPen(colour.lightnessF() > 0.6 ? Qt::black : Qt::white);
                        painter->drawText(rect, Qt::AlignCenter, name);
                    }
                }
            }
        }
        if (!m_index->throttled(cpu).empty()) {
            // Throttled time: a hatched strip along the bottom fifth of the lane.
            const double h = std::max(3.0, band.height() * 0.2);
            const QBrush hatch(QColor(0xc0, 0x30, 0x30), Qt::BDiagPattern);
            for (const auto& [from, to] : m_index->throttled(cpu)) {
                const Nanoseconds end{to < 0 ? m_now.count() : to};
                if (end <= lay.start() || Nanoseconds{from} >= lay.end())
                    continue;
                const double h0 = lay.mapTimeToX(std::max(Nanoseconds{from}, lay.start()));
                const double h1 = lay.mapTimeToX(std::min(end, lay.end()));
                painter->fillRect(QRectF(h0, band.bottom() - h, std::max(h1 - h0, 1.0), h), hatch);
            }
        }
    }
}

std::vector<StackColumn> stackBins(const std::vector<LaneBin>& bins, int height, Nanoseconds from,
    Nanoseconds to, int columns, const std::function<int(int, Nanoseconds)>& orderKey)
{
    std::vector<StackColumn> out;
    out.reserve(bins.size());
    const TimelineLayout lay(from, to, 0.0, static_cast<double>(columns));
    // One stacking order for the whole window: by orderKey(task, start of the task's first bin)
    // when given, then by first appearance (then task id, the order within a bin). A per-bin
    // key would reorder a column's stack whenever it changes (a cgroup move), and two tasks
    // would swap places from one column to the next.
    // Tasks by first appearance, with their keys (a task's slot is task + 1: task -1, unknown,
    // at slot 0; negative ids below that are not tasks and never appear).
    std::vector<char> seen;
    std::vector<std::pair<std::pair<int, size_t>, int>> order; // ((key, appearance), task)
    int highest = -1;
    for (const LaneBin& bin : bins)
        for (const auto& [task, busy] : bin.tasks) {
            const auto slot = static_cast<size_t>(std::max(task + 1, 0));
            if (slot >= seen.size())
                seen.resize(slot + 1, 0);
            if (seen[slot])
                continue;
            seen[slot] = 1;
            order.push_back({{orderKey ? orderKey(task, bin.start) : 0, order.size()}, task});
            highest = std::max(highest, task);
        }
    // Each task's place in that order, looked up by task id: the per-bin sorts below compare
    // two integers.
    std::sort(order.begin(), order.end());
    std::vector<int> place(static_cast<size_t>(highest + 2), 0);
    for (size_t k = 0; k < order.size(); ++k)
        place[static_cast<size_t>(order[k].second + 1)] = static_cast<int>(k);
    const auto placeOf = [&](int task) { return place[static_cast<size_t>(task + 1)]; };
    std::vector<std::pair<int, int64_t>> tasks;
    for (const LaneBin& bin : bins) {
        const double length =
            static_cast<double>(std::max<int64_t>((bin.end - bin.start).count(), 1));
        StackColumn c;
        c.pieces.reserve(bin.tasks.size());
        c.column = std::clamp(
            static_cast<int>(std::floor(lay.mapTimeToX(bin.start) + 0.5)), 0, columns - 1);
        c.at = bin.start;
        tasks.assign(bin.tasks.begin(), bin.tasks.end());
        std::sort(tasks.begin(), tasks.end(),
            [&](const auto& a, const auto& b) { return placeOf(a.first) < placeOf(b.first); });
        // Boundaries at the rounded running sum, so every piece is within a pixel of its share;
        // a task that ran at all keeps at least one row while rows are left.
        int64_t sum = 0;
        int bottom = 0;
        const int n = static_cast<int>(tasks.size());
        for (int k = 0; k < n; ++k) {
            sum += tasks[static_cast<size_t>(k)].second;
            int topRow = static_cast<int>(std::lround(static_cast<double>(sum) / length * height));
            // At least one row, and one left for each task still to come.
            topRow = std::min(std::max(topRow, bottom + 1), height - (n - 1 - k));
            if (topRow > bottom)
                c.pieces.push_back({tasks[static_cast<size_t>(k)].first, bottom, topRow});
            bottom = std::max(bottom, topRow);
        }
        if (!c.pieces.empty())
            out.push_back(std::move(c));
    }
    return out;
}

QColor CpuLanesPlottable::cachedColour(int task, Nanoseconds at) const
{
    if (m_groupOf)
        return groupColour(m_groupOf(task, at));
    // taskColor() goes through HSV; a whole-run view asks for the same few colours thousands
    // of times.
    const auto slot = static_cast<size_t>(task + 1); // task -1 (unknown) at slot 0
    if (slot >= m_colourCache.size())
        m_colourCache.resize(slot + 1, QColor());
    if (!m_colourCache[slot].isValid())
        m_colourCache[slot] = taskColor(task);
    return m_colourCache[slot];
}

QColor CpuLanesPlottable::groupColour(int group)
{
    return group < 0 ? QColor(Qt::gray) : groupColor(group); // -1: cgroup unknown
}

QRgb CpuLanesPlottable::mix(QRgb front, QRgb back, double alpha)
{
    const auto channel = [&](int f, int b) {
        return static_cast<int>(std::lround(alpha * f + (1.0 - alpha) * b));
    };
    return qRgb(channel(qRed(front), qRed(back)), channel(qGreen(front), qGreen(back)),
        channel(qBlue(front), qBlue(back)));
}

void CpuLanesPlottable::drawLegendIcon(QCPPainter*, const QRectF&) const
{ }

} // namespace schedlab::ui
