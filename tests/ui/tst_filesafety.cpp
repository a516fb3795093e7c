// SPDX-License-Identifier: GPL-2.0-or-later
// Nothing is lost and nothing goes unnoticed: the open scenario changed, replaced (an editor's
// atomic rename) or removed on disk by another program shows a non-modal notice, our own saves
// do not; unsaved edits are never dropped without asking; a failed save or export leaves the old
// file as it was, keeps the document modified and reports the error; a run stopped by a
// resource guard says so in the status bar, a notice and the findings. Waits for file
// notifications are bounded by QTRY timeouts only; nothing measures time.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/analysis/findingsdock.h"
#include "ui/export/exportmenu.h"
#include "ui/run/simulationcontroller.h"
#include "ui/window/filewatcher.h"
#include "ui/window/mainwindow.h"
#include "ui/window/noticebar.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using schedlab::Nanoseconds;
using schedlab::ui::FileWatcher;
using schedlab::ui::MainWindow;
using schedlab::ui::NoticeBar;

namespace {

constexpr int kUpperBoundMs = 60'000;

QByteArray scenarioNamed(const char* name)
{
    return QByteArray(R"({ "schedlab": 1, "name": ")") + name
        + R"(", "duration": "20ms", "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] }
)";
}

const char* const kForker = R"({
  "schedlab": 1, "name": "forker", "duration": "1s", "machine": { "cpus": 2 },
  "tasks": [ { "name": "forker", "program": [ { "loop": [ { "run": "1ms" },
      { "fork": { "program": [ { "run": "forever" } ] } } ] } ] } ]
})";

bool writeInPlace(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

/// As editors save: a new file renamed over the old one (a new inode).
bool writeByRename(const QString& path, const QByteArray& text)
{
    const QString tmp = path + QStringLiteral(".new");
    return writeInPlace(tmp, text) && ::rename(qPrintable(tmp), qPrintable(path)) == 0;
}

QByteArray contentOf(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A folder event queued after everything done so far: once the watcher has examined it, every
/// earlier notification (inotify delivers in order) has been handled too.
void flushNotifications(const QString& dir, QSignalSpy& checked)
{
    const int before = static_cast<int>(checked.size());
    static int serial = 0;
    writeInPlace(dir + QStringLiteral("/marker-%1").arg(++serial), "x");
    QTRY_VERIFY_WITH_TIMEOUT(checked.size() > before, kUpperBoundMs);
}

/// Lowers the file size limit so that every write in this process fails, even as root (the
/// limit binds root too, unlike permissions); restored by the destructor.
class WritesFail
{
public:
    WritesFail()
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_handler = std::signal(SIGXFSZ, SIG_IGN); // write() fails with EFBIG instead
        rlimit low = m_old;
        low.rlim_cur = 8;
        setrlimit(RLIMIT_FSIZE, &low);
    }
    ~WritesFail()
    {
        setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_handler);
    }
    WritesFail(const WritesFail&) = delete;
    WritesFail& operator=(const WritesFail&) = delete;

private:
    rlimit m_old{};
    void (*m_handler)(int) = nullptr;
};

} // namespace

class TestFileSafety : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("schedlab-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_filesafety"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    void watcherReportsOtherProgramsOnly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("one")));
        FileWatcher watcher;
        QSignalSpy changed(&watcher, &FileWatcher::changedOnDisk);
        QSignalSpy removed(&watcher, &FileWatcher::removedFromDisk);
        QSignalSpy back(&watcher, &FileWatcher::backToKnown);
        QSignalSpy checked(&watcher, &FileWatcher::checked);
        watcher.watch(path, scenarioNamed("one"));
        QVERIFY(watcher.isArmed());

        // Rewritten with the same bytes (a touch, a save without changes): no change.
        QVERIFY(writeInPlace(path, scenarioNamed("one")));
        flushNotifications(dir.path(), checked);
        QCOMPARE(changed.size(), 0);

        // Replaced by rename: noticed, and the watch follows the new file. (A write in place may
        // be seen half-done and reported twice, so counts are compared after a flush.)
        QVERIFY(writeByRename(path, scenarioNamed("two")));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, kUpperBoundMs);
        QCOMPARE(changed.first().at(0).toString(), path);
        QTRY_VERIFY_WITH_TIMEOUT(watcher.isArmed(), kUpperBoundMs);
        flushNotifications(dir.path(), checked);
        QCOMPARE(changed.size(), 1); // the same change is not reported twice

        // Changed in place after the rename: the re-armed watch sees it.
        QVERIFY(writeInPlace(path, scenarioNamed("three")));
        QTRY_VERIFY_WITH_TIMEOUT(changed.size() >= 2, kUpperBoundMs);
        flushNotifications(dir.path(), checked);

        // Changed back to what we know: the notice can go.
        auto reported = changed.size();
        QVERIFY(writeByRename(path, scenarioNamed("one")));
        QTRY_COMPARE_WITH_TIMEOUT(back.size(), 1, kUpperBoundMs);
        flushNotifications(dir.path(), checked);
        QCOMPARE(changed.size(), reported);

        // Removed, then created again with other content.
        QVERIFY(QFile::remove(path));
        QTRY_COMPARE_WITH_TIMEOUT(removed.size(), 1, kUpperBoundMs);
        QVERIFY(writeInPlace(path, scenarioNamed("four")));
        QTRY_VERIFY_WITH_TIMEOUT(changed.size() > reported, kUpperBoundMs);
        flushNotifications(dir.path(), checked);
        QCOMPARE(removed.size(), 1);

        // Our own save, as MainWindow does it: QSaveFile, then the new content is the known one.
        reported = changed.size();
        QSaveFile own(path);
        QVERIFY(own.open(QIODevice::WriteOnly));
        own.write(scenarioNamed("five"));
        QVERIFY(own.commit());
        watcher.watch(path, scenarioNamed("five"));
        flushNotifications(dir.path(), checked);
        QCOMPARE(changed.size(), reported);
        QVERIFY(watcher.isArmed());
    }

    void windowOffersReloadAndKeepsUnsavedEdits()
    {
        const QString path = m_dir.filePath(QStringLiteral("watched.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("first")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        NoticeBar* notice = w.fileNotice();
        QVERIFY(notice->isHidden());
        QSignalSpy checked(w.fileWatcher(), &FileWatcher::checked);

        // No unsaved edits: a Reload is offered (not forced) and reloads.
        QVERIFY(writeByRename(path, scenarioNamed("second")));
        QTRY_VERIFY_WITH_TIMEOUT(!notice->isHidden(), kUpperBoundMs);
        QVERIFY2(notice->text().contains(QStringLiteral("watched.json was changed on disk")),
            qPrintable(notice->text()));
        QCOMPARE(notice->buttonTexts(),
            (QStringList{QStringLiteral("Reload"), QStringLiteral("Ignore")}));
        QCOMPARE(w.scenario().name, std::string("first"));
        QVERIFY(notice->trigger(QStringLiteral("Reload")));
        QCOMPARE(w.scenario().name, std::string("second"));
        QVERIFY(notice->isHidden());
        QVERIFY(!w.isWindowModified());

        // Changed in place after that rename: still watched. Ignore keeps what is open.
        QVERIFY(writeInPlace(path, scenarioNamed("third")));
        QTRY_VERIFY_WITH_TIMEOUT(!notice->isHidden(), kUpperBoundMs);
        flushNotifications(m_dir.path(), checked); // every notification of that write is handled
        QVERIFY(notice->trigger(QStringLiteral("Ignore")));
        QVERIFY(notice->isHidden());
        QCOMPARE(w.scenario().name, std::string("second"));

        // Our own save is not a change on disk.
        QVERIFY(w.saveFile(path));
        flushNotifications(m_dir.path(), checked);
        QVERIFY(notice->isHidden());

        // Unsaved edits: told, and neither side is dropped until the user chooses.
        w.addAnnotation(Nanoseconds{5'000'000}, QStringLiteral("mine"));
        QVERIFY(w.isWindowModified());
        QVERIFY(writeByRename(path, scenarioNamed("theirs")));
        QTRY_VERIFY_WITH_TIMEOUT(!notice->isHidden(), kUpperBoundMs);
        flushNotifications(m_dir.path(), checked);
        QVERIFY2(
            notice->text().contains(QStringLiteral("unsaved edits")), qPrintable(notice->text()));
        QCOMPARE(notice->buttonTexts(),
            (QStringList{
                QStringLiteral("Reload, discard my edits"), QStringLiteral("Keep my edits")}));
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.scenario().annotations.size(), size_t{1});
        QCOMPARE(contentOf(path), scenarioNamed("theirs"));
        QVERIFY(notice->trigger(QStringLiteral("Keep my edits")));
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.scenario().annotations.size(), size_t{1});
        QVERIFY(w.saveFile(path)); // the user's choice: their edits win
        QVERIFY(contentOf(path).contains("mine"));

        // Removed on disk: said so, and Save writes it again.
        QVERIFY(QFile::remove(path));
        QTRY_VERIFY_WITH_TIMEOUT(!notice->isHidden(), kUpperBoundMs);
        QVERIFY2(notice->text().contains(QStringLiteral("deleted or moved")),
            qPrintable(notice->text()));
        QVERIFY(notice->trigger(QStringLiteral("Save")));
        QVERIFY(contentOf(path).contains("mine"));
        QVERIFY(notice->isHidden());
    }

    void failedSaveLosesNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("keep.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("keep")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        w.addAnnotation(Nanoseconds{1'000'000}, QStringLiteral("unsaved"));
        QSignalSpy errors(&w, &MainWindow::errorReported);

        // A missing folder.
        const QString missing = m_dir.filePath(QStringLiteral("no/such/dir/x.json"));
        QVERIFY(!w.saveFile(missing));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.last().at(1).toString().contains(missing),
            qPrintable(errors.last().at(1).toString()));
        QVERIFY(!QFile::exists(missing));
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.currentFile(), path);

        // A write that fails half-way (file size limit; binds root too): the old file stays.
        {
            WritesFail failing;
            QVERIFY(!w.saveFile(path));
        }
        QCOMPARE(errors.size(), 2);
        QCOMPARE(contentOf(path), scenarioNamed("keep"));
        QVERIFY(w.isWindowModified());
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("keep.json*")}, QDir::Files),
            QStringList{QStringLiteral("keep.json")}); // no temporary file left behind

        // Exports fail the same way and keep an older export.
        const QString metrics = m_dir.filePath(QStringLiteral("metrics.json"));
        QVERIFY(writeInPlace(metrics, "old metrics"));
        QString error;
        QVERIFY(!w.exportMenu()->exportMetrics(
            m_dir.filePath(QStringLiteral("no/dir/m.json")), &error));
        QVERIFY2(error.contains(QStringLiteral("no/dir/m.json")), qPrintable(error));
        QVERIFY(!w.exportMenu()->captureVisible(
            m_dir.filePath(QStringLiteral("no/dir/c.png")), QSize(400, 300), 96, {}, &error));
        QVERIFY2(error.contains(QStringLiteral("no/dir/c.png: cannot write")), qPrintable(error));
        const QString picture = m_dir.filePath(QStringLiteral("capture.png"));
        QVERIFY(writeInPlace(picture, "old picture"));
        {
            WritesFail failing;
            QVERIFY(!w.exportMenu()->exportMetrics(metrics, &error));
            QVERIFY(!w.exportMenu()->captureVisible(picture, QSize(400, 300), 96, {}, &error));
        }
        QCOMPARE(contentOf(metrics), QByteArray("old metrics"));
        QCOMPARE(contentOf(picture), QByteArray("old picture"));
        QVERIFY(w.exportMenu()->exportMetrics(metrics, &error));
        QVERIFY(contentOf(metrics).startsWith("{"));
    }

    void readOnlyFolderKeepsTheOldFile()
    {
        if (geteuid() == 0)
            QSKIP("running as root: a read-only folder does not stop root from writing (the "
                  "file-size-limit case in failedSaveLosesNothing covers a failing write)");
        QTemporaryDir locked;
        const QString path = locked.filePath(QStringLiteral("old.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("old")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        w.addAnnotation(Nanoseconds{1'000'000}, QStringLiteral("unsaved"));
        QVERIFY(QFile::setPermissions(locked.path(), QFile::ReadOwner | QFile::ExeOwner));
        QSignalSpy errors(&w, &MainWindow::errorReported);
        const bool saved = w.saveFile(path);
        QString error;
        const bool exported = w.exportMenu()->exportMetrics(path, &error);
        QFile::setPermissions(
            locked.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(!saved);
        QVERIFY(!exported);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(contentOf(path), scenarioNamed("old"));
        QVERIFY(w.isWindowModified());
    }

    void stoppedRunIsShown()
    {
        const QString path = m_dir.filePath(QStringLiteral("forker.json"));
        QVERIFY(writeInPlace(path, kForker));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        schedlab::ResourceLimits limits;
        limits.liveTasks = 3;
        w.controller()->setResourceLimits(limits);
        QVERIFY(w.openFile(path));
        QVERIFY(w.runNotice()->isHidden());
        QSignalSpy finished(w.controller(), &schedlab::ui::SimulationController::finished);
        w.controller()->runToEnd();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kUpperBoundMs);
        const QString reason = w.controller()->stopReason();
        QVERIFY2(reason.contains(QStringLiteral("more than 3 live tasks")), qPrintable(reason));
        QVERIFY(!w.controller()->isPlaying());

        QVERIFY2(
            w.statusText().contains(QStringLiteral("stopped early")), qPrintable(w.statusText()));
        QVERIFY(w.statusBar()->currentMessage().contains(reason));
        QVERIFY(!w.runNotice()->isHidden());
        QVERIFY(w.runNotice()->text().contains(reason));
        QVERIFY(w.logText().contains(QStringLiteral("run ") + reason));
        QTableWidget* table = w.findings()->findingsTable();
        QVERIFY(table->rowCount() >= 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("resource_limit"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("forker.3"));
        QVERIFY(table->item(0, 4)->text().contains(QStringLiteral("more than 3 live tasks")));
        QVERIFY2(w.findings()->summaryText().contains(QStringLiteral("Run stopped at t=")),
            qPrintable(w.findings()->summaryText()));

        // A rewind is a fresh run: the notice goes until it stops again.
        w.controller()->seek(Nanoseconds{500'000});
        QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isSeeking(), kUpperBoundMs);
        QVERIFY(w.runNotice()->isHidden());
        QVERIFY2(w.statusText().contains(QStringLiteral("paused")), qPrintable(w.statusText()));
        QVERIFY(!w.findings()->summaryText().contains(QStringLiteral("Run stopped")));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestFileSafety)
#include "tst_filesafety.moc"
