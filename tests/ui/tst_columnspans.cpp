// SPDX-License-Identifier: GPL-2.0-or-later
// columnSpans (ui/timeline/model/columnspans.h): the rows a dense line covers in each device
// pixel column, computed by hand from the rule in the header: in column c the rows from
// ⌊ymin − w/2 + ½⌋ to ⌊ymax + w/2 + ½⌋ (device units), the column widened to
// [⌊c + ½ − w/2 + ½⌋, ⌊c + ½ + w/2 + ½⌋), equal neighbours joined, nothing across a break.
#include "ui/timeline/model/columnspans.h"

#include <QObject>
#include <QTest>

#include <limits>

using namespace schedlab::ui;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const DeviceClip kWide{-1000, -1000, 1000, 1000};
} // namespace

class TestColumnSpans : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void flatLineIsOneSpan()
    {
        // y 10.3, w 1: rows ⌊9.8 + ½⌋ = 10 to ⌊10.8 + ½⌋ = 11; columns 0..3.
        const auto s = columnSpans({{0.2, 10.3}, {3.8, 10.3}}, 1.0, 1.0, kWide);
        QCOMPARE(s, (std::vector<ColumnSpan>{{0, 4, 10, 11}}));
    }

    void zigzagInOneColumnCoversItsRange()
    {
        // Three points in column 5 from 0 to 20 and back to 3: rows ⌊−0.5 + ½⌋ = 0 to
        // ⌊20.5 + ½⌋ = 21.
        const auto s = columnSpans({{5.1, 0}, {5.5, 20}, {5.9, 3}}, 1.0, 1.0, kWide);
        QCOMPARE(s, (std::vector<ColumnSpan>{{5, 6, 0, 21}}));
    }

    void breakIsNotJoined()
    {
        // Piece 1 at y 2 in columns 1–2, piece 2 at y 30 in columns 2–3: column 2 has two
        // spans, nothing between rows 3 and 30.
        const auto s =
            columnSpans({{1.5, 2}, {2.5, 2}, {2.55, kNaN}, {2.6, 30}, {3.5, 30}}, 1.0, 1.0, kWide);
        QCOMPARE(s, (std::vector<ColumnSpan>{{1, 3, 2, 3}, {2, 4, 30, 31}}));
    }

    void slopeInterpolatedAtColumnEdges()
    {
        // (0, 0) to (4, 8): y = 2x. Column c covers y 2c .. 2c + 2: rows 2c to 2c + 3; the end
        // point (x 4) is in column 4: rows 8 to 9.
        const auto s = columnSpans({{0, 0}, {4, 8}}, 1.0, 1.0, kWide);
        QCOMPARE(s,
            (std::vector<ColumnSpan>{
                {0, 1, 0, 3}, {1, 2, 2, 5}, {2, 3, 4, 7}, {3, 4, 6, 9}, {4, 5, 8, 9}}));
    }

    void deviceScaleWidensThePen()
    {
        // Scale 2 (a 192-dpi capture), pen 1 layout pixel: w = 2 device pixels. y 10.3 → 20.6:
        // rows ⌊19.6 + ½⌋ = 20 to ⌊21.6 + ½⌋ = 22; column c widens to [c, c + 2); x 0..2 →
        // device columns 0..4, joined: [0, 6).
        const auto s = columnSpans({{0, 10.3}, {2, 10.3}}, 2.0, 1.0, kWide);
        QCOMPARE(s, (std::vector<ColumnSpan>{{0, 6, 20, 22}}));
    }

    void loneBetweenBreaksIsItsPixel()
    {
        const auto s = columnSpans({{3.0, kNaN}, {3.2, 7.7}, {3.4, kNaN}}, 1.0, 1.0, kWide);
        QCOMPARE(s, (std::vector<ColumnSpan>{{3, 4, 7, 8}}));
    }

    void farValuesStayInsideTheClip()
    {
        // A segment from far left to far right is walked only over the clip's columns; values
        // far off are held at the clip's rows.
        const DeviceClip clip{0, 0, 10, 100};
        QCOMPARE(columnSpans({{-1e9, 5}, {1e9, 5}}, 1.0, 1.0, clip),
            (std::vector<ColumnSpan>{{0, 10, 5, 6}}));
        QCOMPARE(columnSpans({{0.5, 1e12}, {0.6, -1e12}}, 1.0, 1.0, clip),
            (std::vector<ColumnSpan>{{0, 1, 0, 100}}));
        QVERIFY(columnSpans({{20, 5}, {30, 5}}, 1.0, 1.0, clip).empty());
    }
};

QTEST_GUILESS_MAIN(TestColumnSpans)
#include "tst_columnspans.moc"
