// SPDX-License-Identifier: GPL-2.0-or-later
#include "cpulanesplottable.h"

#include "core/record/recording.h"
#include "taskpalette.h"

#include <cmath>

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
    m_throttled.clear();
    m_openThrottle.clear();
    m_throttleScanned = 0;
}

void CpuLanesPlottable::updateThrottled()
{
    if (!m_recording)
        return;
    const auto& records = m_recording->records();
    if (records.size() < m_throttleScanned) { // a new run in the same recording
        m_throttled.clear();
        m_openThrottle.clear();
        m_throttleScanned = 0;
    }
    for (size_t i = m_throttleScanned; i < records.size(); ++i) {
        const Record& r = records[i];
        if (r.kind != RecordKind::Throttle && r.kind != RecordKind::Unthrottle)
            continue;
        if (m_throttled.size() <= r.cpu)
            m_throttled.resize(static_cast<size_t>(r.cpu) + 1);
        auto& lane = m_throttled[r.cpu];
        const auto open = m_openThrottle.find(r.entity.raw);
        if (r.kind == RecordKind::Throttle && open == m_openThrottle.end()) {
            m_openThrottle[r.entity.raw] = lane.size();
            lane.emplace_back(r.time, -1);
        } else if (r.kind == RecordKind::Unthrottle && open != m_openThrottle.end()) {
            lane[open->second].second = r.time;
            m_openThrottle.erase(open);
        }
    }
    m_throttleScanned = records.size();
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
        // Bounded cost for long windows (about one bin per pixel), exact runs when few.
        const int bins = std::max(1, static_cast<int>(lay.right() - lay.left()));
        const auto segments = lay.levelOfDetail(
            m_index->binnedSegments(cpu, lay.start(), lay.end(), m_now, bins), 1.0);
        // Narrow rectangles (level-of-detail bins, a pixel or so wide) are painted opaque on
        // whole pixels, with the paler shade of a partly idle bin mixed in by hand, and
        // neighbours of the same colour joined: a whole-run view of a long run is thousands of
        // them, and Qt fills opaque pixel-aligned rectangles fastest.
        QRect pending;
        QRgb pendingColour = 0;
        const auto flush = [&] {
            if (!pending.isEmpty())
                painter->fillRect(pending, QColor::fromRgb(pendingColour));
            pending = QRect();
        };
        // A wide rectangle, with an edge where it cannot swamp the fill.
        const auto paint = [&](Nanoseconds from, Nanoseconds to, const QColor& c) {
            const double p0 = lay.mapTimeToX(from);
            const QRectF rect(p0, band.top(), lay.mapTimeToX(to) - p0, band.height());
            painter->fillRect(rect, c);
            if (rect.width() >= 8.0) {
                painter->setPen(QPen(c.darker(125), 1));
                painter->drawRect(rect.adjusted(0, 0, -1, -1));
            }
            return rect;
        };
        for (const RunSegment& s : segments) {
            const double x0 = lay.mapTimeToX(s.start);
            const double x1 = lay.mapTimeToX(s.end);
            QColor colour = cachedColour(s.task, s.start);
            if (x1 - x0 < 8.0) {
                const double a = s.busy < 1.0 ? 0.25 + 0.75 * s.busy : 1.0;
                const QRgb mixed = mix(colour.rgb(), laneBack.rgb(), a);
                const int left = static_cast<int>(std::floor(x0));
                const int right = std::max(left + 1, static_cast<int>(std::lround(x1)));
                const QRect r(left, static_cast<int>(std::lround(band.top())), right - left,
                    static_cast<int>(std::lround(band.height())));
                if (!pending.isEmpty() && mixed == pendingColour && left <= pending.right() + 1)
                    pending.setRight(std::max(pending.right(), r.right()));
                else {
                    flush();
                    pending = r;
                    pendingColour = mixed;
                }
                continue;
            }
            flush();
            if (m_groupOf) {
                // A run during which its task was moved to another cgroup changes colour there.
                for (const auto& [from, to, group] : groupPieces(s.task, s.start, s.end))
                    paint(from, to, groupColour(group));
                continue;
            }
            // A bin of short runs with idle gaps is paler, so utilisation still reads right.
            if (s.busy < 1.0)
                colour.setAlphaF(0.25 + 0.75 * s.busy);
            const QRectF rect = paint(s.start, s.end, colour);
            if (!m_recording || s.task >= static_cast<int>(m_recording->taskNames.size()))
                continue;
            const QString name =
                QString::fromStdString(m_recording->taskNames[static_cast<size_t>(s.task)]);
            if (rect.width() > metrics.horizontalAdvance(name) + 8) {
                painter->setPen(colour.lightnessF() > 0.6 ? Qt::black : Qt::white);
                painter->drawText(rect, Qt::AlignCenter, name);
            }
        }
        flush();
        updateThrottled();
        if (static_cast<size_t>(cpu) < m_throttled.size()) {
            // Throttled time: a hatched strip along the bottom fifth of the lane.
            const double h = std::max(3.0, band.height() * 0.2);
            const QBrush hatch(QColor(0xc0, 0x30, 0x30), Qt::BDiagPattern);
            for (const auto& [from, to] : m_throttled[static_cast<size_t>(cpu)]) {
                const Nanoseconds end{to < 0 ? m_now.count() : to};
                if (end <= lay.start() || Nanoseconds{from} >= lay.end())
                    continue;
                const double x0 = lay.mapTimeToX(std::max(Nanoseconds{from}, lay.start()));
                const double x1 = lay.mapTimeToX(std::min(end, lay.end()));
                painter->fillRect(QRectF(x0, band.bottom() - h, std::max(x1 - x0, 1.0), h), hatch);
            }
        }
    }
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

std::vector<std::tuple<Nanoseconds, Nanoseconds, int>> CpuLanesPlottable::groupPieces(
    int task, Nanoseconds start, Nanoseconds end) const
{
    // The cgroup as a function of time is piecewise constant: split [start, end) where it
    // differs at the two ends, bisecting to the nanosecond of each change (a move there and
    // back inside one piece is not seen).
    std::vector<std::tuple<Nanoseconds, Nanoseconds, int>> out;
    const auto split = [&](auto&& self, Nanoseconds a, int ga, Nanoseconds b, int gb) -> void {
        // [a, b) with group ga at a and gb at b − 1.
        if (ga == gb || b - a <= Nanoseconds{1}) {
            out.emplace_back(a, b, ga);
            return;
        }
        const Nanoseconds mid = a + (b - a) / 2;
        const int gm = m_groupOf(task, mid);
        self(self, a, ga, mid, m_groupOf(task, mid - Nanoseconds{1}));
        self(self, mid, gm, b, gb);
    };
    if (end > start)
        split(split, start, m_groupOf(task, start), end, m_groupOf(task, end - Nanoseconds{1}));
    // Join neighbours of the same group.
    std::vector<std::tuple<Nanoseconds, Nanoseconds, int>> joined;
    for (const auto& piece : out) {
        if (!joined.empty() && std::get<2>(joined.back()) == std::get<2>(piece))
            std::get<1>(joined.back()) = std::get<1>(piece);
        else
            joined.push_back(piece);
    }
    return joined;
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
