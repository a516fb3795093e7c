// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/window/noticebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace schedlab::ui {

NoticeBar::NoticeBar(QWidget* parent)
    : QFrame(parent)
    , m_label(new QLabel)
    , m_buttons(new QHBoxLayout)
{
    setFrameStyle(QFrame::StyledPanel | QFrame::Plain);
    setAutoFillBackground(true);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close this message"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 4, 4);
    row->addWidget(m_label, 1);
    row->addLayout(m_buttons);
    row->addWidget(close);
    hide();
}

void NoticeBar::showMessage(const QString& text, Level level)
{
    while (QLayoutItem* item = m_buttons->takeAt(0)) {
        if (QWidget* w = item->widget()) { // may be the button whose click got us here
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_label->setText(text);
    QPalette p = palette();
    p.setColor(QPalette::Window,
        level == Level::Warning ? QColor(0xfd, 0xe2, 0xc4) : QColor(0xd7, 0xe8, 0xfa));
    p.setColor(QPalette::WindowText, QColor(0x20, 0x20, 0x20));
    setPalette(p);
    show();
}

QPushButton* NoticeBar::addButton(const QString& text, std::function<void()> action, bool closes)
{
    auto* button = new QPushButton(text);
    connect(button, &QPushButton::clicked, this, [this, action = std::move(action), closes] {
        if (closes)
            hide();
        if (action)
            action();
    });
    m_buttons->addWidget(button);
    return button;
}

QString NoticeBar::text() const
{
    return m_label->text();
}

QStringList NoticeBar::buttonTexts() const
{
    QStringList out;
    for (int i = 0; i < m_buttons->count(); ++i)
        if (auto* b = qobject_cast<QPushButton*>(m_buttons->itemAt(i)->widget()))
            out << b->text();
    return out;
}

bool NoticeBar::trigger(const QString& text)
{
    for (int i = 0; i < m_buttons->count(); ++i)
        if (auto* b = qobject_cast<QPushButton*>(m_buttons->itemAt(i)->widget()))
            if (b->text() == text) {
                b->click();
                return true;
            }
    return false;
}

} // namespace schedlab::ui
