// SPDX-License-Identifier: GPL-2.0-or-later
// Headless runs (captures, sweep plots, --screenshot): Qt's notes about the headless platform
// itself say nothing about the picture and are not printed.
#pragma once

namespace schedlab::ui {

/// Installs a Qt message handler that drops the notes of the headless platform (no
/// XDG_RUNTIME_DIR on a server or in CI, the offscreen plugin's missing window features) and
/// passes every other message to the handler it replaces. Call before the QApplication exists.
void quietHeadlessNotes();

} // namespace schedlab::ui
