// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/common/taskpalette.h"

#include <array>

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

} // namespace schedlab::ui
