// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/common/taskpalette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace schedlab::ui {

QColor taskColor(int taskIndex)
{
    static constexpr std::array<QRgb, 10> kBase = {
        0x4e79a7,
        0xf28e2b,
        0xe15759,
        0x76b7b2,
        0x59a14f,
        0xedc948,
        0xb07aa1,
        0xff9da7,
        0x9c755f,
        0xbab0ac,
    };
    if (taskIndex < 0)
        return QColor(Qt::lightGray);
    const auto n = static_cast<int>(kBase.size());
    const QColor base = QColor::fromRgb(kBase[static_cast<size_t>(taskIndex % n)]);
    // Every further round of ten is a little darker, then lighter, so neighbours stay apart.
    static constexpr std::array<int, 4> kShade = {100, 135, 75, 160};
    const int shade =
        kShade[static_cast<size_t>((taskIndex / n) % static_cast<int>(kShade.size()))];
    return shade >= 100 ? base.darker(shade) : base.lighter(200 - shade);
}

QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::Highlight, QColor(0x2a, 0x6c, 0xb0)); // white on it: 5.4:1
    dark.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    dark.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    return dark;
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const auto luminance = [](const QColor& c) {
        const auto channel = [](double v) {
            return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF())
            + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor pickedRowBackground(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor high = palette.color(QPalette::Highlight);
    const auto mix = [](double b, double h) { return 0.75 * b + 0.25 * h; };
    return QColor::fromRgbF(static_cast<float>(mix(base.redF(), high.redF())),
        static_cast<float>(mix(base.greenF(), high.greenF())),
        static_cast<float>(mix(base.blueF(), high.blueF())));
}

QColor warningText(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightnessF() > 0.5 ? QColor(0xb0, 0x30, 0x30)
                                                            : QColor(0xff, 0x8a, 0x80);
}

} // namespace schedlab::ui
