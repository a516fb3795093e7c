// SPDX-License-Identifier: GPL-2.0-or-later
// A non-modal message bar above the timeline (like a browser's info bar): a message and a few
// buttons, hidden until there is something to say. It never blocks: the window stays usable and
// scripted runs are not held up by it.
#pragma once

#include <QFrame>

#include <functional>

class QLabel;
class QHBoxLayout;
class QPushButton;

namespace schedlab::ui {

class NoticeBar : public QFrame
{
    Q_OBJECT
public:
    enum class Level { Info, Warning };
    explicit NoticeBar(QWidget* parent = nullptr);

    /// Shows @p text (plain) and removes the previous buttons.
    void showMessage(const QString& text, Level level = Level::Info);
    /// Adds a button that runs @p action; the bar closes first when @p closes.
    QPushButton* addButton(const QString& text, std::function<void()> action, bool closes = true);
    QString text() const;
    /// The buttons' texts, in order (tests).
    QStringList buttonTexts() const;
    /// Clicks the button whose text is @p text (tests); false if there is none.
    bool trigger(const QString& text);

private:
    QLabel* m_label;
    QHBoxLayout* m_buttons;
};

} // namespace schedlab::ui
