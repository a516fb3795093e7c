// SPDX-License-Identifier: GPL-2.0-or-later
// Nothing is lost and nothing goes unnoticed: the open scenario changed, replaced (an editor's
// atomic rename) or removed on disk by another program shows a non-modal notice, our own saves
// do not; unsaved edits are never dropped without asking; a failed save or export leaves the old
// file as it was, keeps the document modified and reports the error; a run stopped by a
// resource guard says so in the status bar, a notice and the findings. Saves, exports and the
// --screenshot picture follow schedlab-cli's output rules (docs/limits.md, "Output files"): a
// device or FIFO is written in place and stays what it was, a symbolic link out of its folder is
// refused; capture and plot-sweep refuse an output that is one of their inputs. Device nodes are
// private ones made with mknod in a temporary folder (skipped where that is not permitted). Waits
// for file notifications are bounded by QTRY timeouts only; nothing measures time.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/clirun.h"
#include "support/devnodes.h"
#include "support/guiprocess.h"
#include "ui/analysis/findingsdock.h"
#include "ui/common/savefile.h"
#include "ui/export/capture.h"
#include "ui/export/exportmenu.h"
#include "ui/export/sweepplot.h"
#include "ui/run/simulationcontroller.h"
#include "ui/window/filewatcher.h"
#include "ui/window/mainwindow.h"
#include "ui/window/noticebar.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>
#include <vector>

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

bool makeCharDevice(const QString& path, unsigned minor)
{
    return schedlab::test::makeCharDevice(QFile::encodeName(path).toStdString(), minor);
}

bool isCharDevice(const QString& path, unsigned minor)
{
    return schedlab::test::isCharDevice(QFile::encodeName(path).toStdString(), minor);
}

bool isFifo(const QString& path)
{
    struct stat st = {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISFIFO(st.st_mode);
}

/// Every entry of @p dir, hidden ones too (a temporary file ".NAME.XXXXXX" would show).
QStringList entriesOf(const QString& dir)
{
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

/// Reads a FIFO on a thread of its own until its writer closes it.
class FifoDrain
{
public:
    explicit FifoDrain(const QString& path)
        : m_path(QFile::encodeName(path))
        , m_thread([this] {
            const int fd = ::open(m_path.constData(), O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                return;
            char buf[4096];
            ssize_t n = 0;
            while ((n = ::read(fd, buf, sizeof buf)) > 0)
                m_bytes.append(buf, static_cast<qsizetype>(n));
            ::close(fd);
        })
    { }
    /// What was read; should the writer never have opened the FIFO, a writer of our own ends
    /// the reader's wait (then nothing was read).
    QByteArray finish()
    {
        const int unblock = ::open(m_path.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (unblock >= 0)
            ::close(unblock);
        if (m_thread.joinable())
            m_thread.join();
        return m_bytes;
    }
    ~FifoDrain() { finish(); }
    FifoDrain(const FifoDrain&) = delete;
    FifoDrain& operator=(const FifoDrain&) = delete;

private:
    QByteArray m_path;
    QByteArray m_bytes;
    std::thread m_thread;
};

using schedlab::test::CliResult;

CliResult capture(const std::vector<std::string>& args)
{
    return schedlab::test::runCaptured(schedlab::ui::runCaptureCli, args);
}

CliResult plotSweep(const std::vector<std::string>& args)
{
    return schedlab::test::runCaptured(schedlab::ui::runSweepPlotCli, args);
}

/// `schedlab --screenshot ARGS…` (offscreen, its settings in @p config).
schedlab::test::GuiRun runGui(const QStringList& args, const QString& config)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
    return schedlab::test::runGuiProcess(args, env, kUpperBoundMs);
}

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

        // Our own save, as MainWindow does it (a new file renamed over the old one), then the
        // new content is the known one.
        reported = changed.size();
        QCOMPARE(schedlab::ui::saveBytes(path, scenarioNamed("five")), QString());
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

    void streamedSaveIsWholeOrNothing()
    {
        // The export worker's writer (ui/common/savefile.h): Cancel, a failing export and a
        // short write each leave the old file and no temporary file; a complete one replaces it.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("e.json"));
        QVERIFY(writeInPlace(path, "old export"));
        using schedlab::ui::saveStreamed;
        QCOMPARE(saveStreamed(path,
                     [](std::ostream& out) {
                         out << "half of it";
                         return false; // cancelled
                     }),
            QString());
        QCOMPARE(contentOf(path), QByteArray("old export"));
        QCOMPARE(saveStreamed(path,
                     [](std::ostream& out) -> bool {
                         out << "half of it";
                         throw std::runtime_error("scratch file: No space left on device");
                     }),
            path + QStringLiteral(": scratch file: No space left on device"));
        QCOMPARE(contentOf(path), QByteArray("old export"));
        {
            WritesFail failing; // more than 8 bytes: the write fails part-way
            const QString error = saveStreamed(path, [](std::ostream& out) {
                out << "a new export, longer than eight bytes";
                return true;
            });
            QVERIFY2(
                error.startsWith(path + QStringLiteral(": cannot write: ")), qPrintable(error));
        }
        QCOMPARE(contentOf(path), QByteArray("old export"));
        QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("e.json")});
        QCOMPARE(saveStreamed(path,
                     [](std::ostream& out) {
                         out << "new export";
                         return true;
                     }),
            QString());
        QCOMPARE(contentOf(path), QByteArray("new export"));
        QCOMPARE(entriesOf(dir.path()), QStringList{QStringLiteral("e.json")});
    }

    void savesAndExportsToADeviceLeaveIt()
    {
        QTemporaryDir dir;
        const QString null = dir.filePath(QStringLiteral("null.json"));
        if (!makeCharDevice(null, 3))
            QSKIP("no usable device node here (mknod needs root or CAP_MKNOD; a nodev mount)");
        const QString nullPng = dir.filePath(QStringLiteral("null.png"));
        QVERIFY(makeCharDevice(nullPng, 3));
        const QString full = dir.filePath(QStringLiteral("full.json"));
        QVERIFY(makeCharDevice(full, 7));
        const QString path = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("dev")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        w.addAnnotation(Nanoseconds{1'000'000}, QStringLiteral("unsaved"));
        QSignalSpy errors(&w, &MainWindow::errorReported);

        // Written in place: the node stays the null device; the document keeps its file and
        // its unsaved state (a device is no file to open again).
        QVERIFY(w.saveFile(null));
        QVERIFY(isCharDevice(null, 3));
        QCOMPARE(w.currentFile(), path);
        QVERIFY(w.isWindowModified());
        QVERIFY2(w.logText().contains(QStringLiteral("wrote the scenario to ") + null),
            qPrintable(w.logText()));
        QCOMPARE(contentOf(path), scenarioNamed("dev"));

        runToEnd(w);
        QString error;
        QVERIFY2(w.exportMenu()->exportMetrics(null, &error), qPrintable(error));
        QVERIFY2(w.exportMenu()->exportTrace(null, &error), qPrintable(error));
        QVERIFY2(w.exportMenu()->captureVisible(nullPng, QSize(400, 300), 96, {}, &error),
            qPrintable(error));
        QVERIFY(isCharDevice(null, 3));
        QVERIFY(isCharDevice(nullPng, 3));
        QCOMPARE(errors.size(), 0);

        // A device that takes no bytes (full: ENOSPC): the short write is an error naming the
        // path, for the save and for a streamed export; the node stays the full device.
        QVERIFY(!w.saveFile(full));
        QCOMPARE(errors.size(), 1);
        const QString message = errors.last().at(1).toString();
        QVERIFY2(
            message.startsWith(full + QStringLiteral(": cannot write: ")), qPrintable(message));
        QVERIFY(w.isWindowModified());
        QVERIFY(!w.exportMenu()->exportTrace(full, &error));
        QVERIFY2(error.startsWith(full + QStringLiteral(": cannot write: ")), qPrintable(error));
        QVERIFY(isCharDevice(full, 7));

        // No temporary file was made (nor left) beside any of them.
        QCOMPARE(entriesOf(dir.path()),
            (QStringList{QStringLiteral("full.json"), QStringLiteral("null.json"),
                QStringLiteral("null.png"), QStringLiteral("s.json")}));
    }

    void savesAndExportsToAFifoWriteThrough()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("pipe.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QString path = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("fifo")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        w.addAnnotation(Nanoseconds{1'000'000}, QStringLiteral("unsaved"));
        QSignalSpy errors(&w, &MainWindow::errorReported);

        QByteArray saved;
        {
            FifoDrain drain(fifo);
            QVERIFY(w.saveFile(fifo));
            saved = drain.finish();
        }
        QVERIFY(isFifo(fifo));
        QCOMPARE(w.currentFile(), path); // a FIFO is not the document's file
        QVERIFY(w.isWindowModified());
        // The reader got exactly what a save to a regular file writes.
        const QString regular = dir.filePath(QStringLiteral("regular.json"));
        QVERIFY(w.saveFile(regular));
        QVERIFY(saved.contains("unsaved"));
        QCOMPARE(saved, contentOf(regular));

        // A streamed export (worker thread) the same way.
        runToEnd(w);
        QString error;
        QByteArray traced;
        {
            FifoDrain drain(fifo);
            QVERIFY2(w.exportMenu()->exportTrace(fifo, &error), qPrintable(error));
            traced = drain.finish();
        }
        QVERIFY(isFifo(fifo));
        const QString trace = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY2(w.exportMenu()->exportTrace(trace, &error), qPrintable(error));
        QVERIFY(traced.startsWith("{"));
        QCOMPARE(traced, contentOf(trace));
        QCOMPARE(errors.size(), 0);
        QCOMPARE(entriesOf(dir.path()),
            (QStringList{QStringLiteral("pipe.json"), QStringLiteral("regular.json"),
                QStringLiteral("s.json"), QStringLiteral("trace.json")}));
    }

    void linkOutOfTheFolderIsRefused()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("a")));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("b")));
        const QString victim = dir.filePath(QStringLiteral("b/victim.json"));
        QVERIFY(writeInPlace(victim, "precious\n"));
        const QString link = dir.filePath(QStringLiteral("a/s.json"));
        QVERIFY(QFile::link(victim, link));
        const QString path = dir.filePath(QStringLiteral("a/open.json"));
        QVERIFY(writeInPlace(path, scenarioNamed("link")));
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        w.addAnnotation(Nanoseconds{1'000'000}, QStringLiteral("unsaved"));
        QSignalSpy errors(&w, &MainWindow::errorReported);

        QVERIFY(!w.saveFile(link));
        QCOMPARE(errors.size(), 1);
        const QString message = errors.last().at(1).toString();
        QVERIFY2(message.startsWith(link + QStringLiteral(": is a symbolic link to ")),
            qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("outside its directory")), qPrintable(message));
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.currentFile(), path);

        runToEnd(w);
        QString error;
        QVERIFY(!w.exportMenu()->exportMetrics(link, &error));
        QVERIFY2(
            error.startsWith(link + QStringLiteral(": is a symbolic link to ")), qPrintable(error));
        error.clear();
        QVERIFY(!w.exportMenu()->exportTrace(link, &error));
        QVERIFY2(error.contains(QStringLiteral("outside its directory")), qPrintable(error));

        QCOMPARE(contentOf(victim), QByteArray("precious\n"));
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(QFileInfo(link).symLinkTarget(), victim);
        QCOMPARE(entriesOf(dir.filePath(QStringLiteral("a"))),
            (QStringList{QStringLiteral("open.json"), QStringLiteral("s.json")}));
        QCOMPARE(entriesOf(dir.filePath(QStringLiteral("b"))),
            QStringList{QStringLiteral("victim.json")});

        // A link to a file of its own folder is followed: that file is replaced, the link stays.
        const QString mine = dir.filePath(QStringLiteral("a/mine.json"));
        QVERIFY(writeInPlace(mine, "old\n"));
        const QString alias = dir.filePath(QStringLiteral("a/alias.json"));
        QVERIFY(QFile::link(QStringLiteral("mine.json"), alias));
        QVERIFY(w.saveFile(alias));
        QVERIFY(contentOf(mine).contains("unsaved"));
        QVERIFY(QFileInfo(alias).isSymLink());
        QCOMPARE(QFileInfo(alias).symLinkTarget(), mine);
    }

    void screenshotToADeviceOrThroughALink()
    {
        QTemporaryDir dir, config;
        const QString scenario = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(writeInPlace(scenario, scenarioNamed("shot")));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("a")));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("b")));
        const QString victim = dir.filePath(QStringLiteral("b/old.png"));
        QVERIFY(writeInPlace(victim, "old picture"));
        const QString link = dir.filePath(QStringLiteral("a/shot.png"));
        QVERIFY(QFile::link(victim, link));

        // Through a link out of its folder: refused before anything runs, the target unchanged.
        auto r = runGui({QStringLiteral("--screenshot"), link, scenario}, config.path());
        QVERIFY2(r.finished, "schedlab did not exit");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(link + QStringLiteral(": cannot write: is a symbolic link to ")),
            qPrintable(r.err));
        QCOMPARE(contentOf(victim), QByteArray("old picture"));
        QVERIFY(QFileInfo(link).isSymLink());

        const QString node = dir.filePath(QStringLiteral("null.png"));
        if (!makeCharDevice(node, 3))
            QSKIP("no usable device node here (mknod needs root or CAP_MKNOD; a nodev mount)");
        r = runGui({QStringLiteral("--screenshot"), node, scenario}, config.path());
        QVERIFY2(r.finished, "schedlab did not exit");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(isCharDevice(node, 3));
        QCOMPARE(entriesOf(dir.path()),
            (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("null.png"),
                QStringLiteral("s.json")}));
    }

    void captureAndPlotRefuseTheirInput()
    {
        QTemporaryDir dir;
        const QString scenario = dir.filePath(QStringLiteral("s.json"));
        QVERIFY(writeInPlace(scenario, scenarioNamed("in")));
        const QString alias = dir.filePath(QStringLiteral("s.png")); // the same file
        QCOMPARE(
            ::link(QFile::encodeName(scenario).constData(), QFile::encodeName(alias).constData()),
            0);
        const std::string s = scenario.toStdString();
        const std::string a = alias.toStdString();

        CliResult r = capture({"capture", s, "--from", "0", "--to", "10ms", "--out", a});
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.find("capture: --out " + a + ": is the input file " + s) == 0, r.err.c_str());
        QCOMPARE(r.out, std::string()); // nothing was drawn
        QCOMPARE(contentOf(scenario), scenarioNamed("in"));

        // plot-sweep: the plot over the CSV it reads.
        const QString csv = dir.filePath(QStringLiteral("r.csv"));
        QVERIFY(writeInPlace(csv, "run,runs,seed\n0,1,1\n"));
        const QString csvAlias = dir.filePath(QStringLiteral("r.png"));
        QCOMPARE(
            ::link(QFile::encodeName(csv).constData(), QFile::encodeName(csvAlias).constData()), 0);
        r = plotSweep({"plot-sweep", csv.toStdString(), "--plot", "m", "--x", "seed", "--out",
            csvAlias.toStdString()});
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.find("plot-sweep: --out " + csvAlias.toStdString() + ": is the input file") == 0,
            r.err.c_str());
        QCOMPARE(contentOf(csv), QByteArray("run,runs,seed\n0,1,1\n"));

        // sweep --plot: checked before the sweep runs, so not even the CSV is written. The
        // scenario is found among the sweep's own options (--seeds 2 takes a value).
        const QString out = dir.filePath(QStringLiteral("sweep.png"));
        const std::vector<std::string> sweep{
            "sweep", "--seeds", "2", s, "--param", "duration=5ms,10ms", "--quiet"};
        auto with = [&](std::vector<std::string> extra) {
            std::vector<std::string> args = sweep;
            args.insert(args.end(), extra.begin(), extra.end());
            return args;
        };
        r = plotSweep(with({"--out", out.toStdString(), "--plot", "m", "--x", "duration",
            "--plot-out", out.toStdString()}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("sweep: --out " + out.toStdString()
                     + ": names the same file as "
                       "--plot-out")
                == 0,
            r.err.c_str());
        QVERIFY(!QFile::exists(out));
        const QString csvOut = dir.filePath(QStringLiteral("sweep.csv"));
        r = plotSweep(with(
            {"--out", csvOut.toStdString(), "--plot", "m", "--x", "duration", "--plot-out", a}));
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.find("sweep: --plot-out " + a + ": is the input file " + s) == 0, r.err.c_str());
        QVERIFY(!QFile::exists(csvOut));
        QCOMPARE(contentOf(scenario), scenarioNamed("in"));
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
    /// Runs the open scenario of @p w to its end (the exports need a run).
    static void runToEnd(MainWindow& w)
    {
        QSignalSpy finished(w.controller(), &schedlab::ui::SimulationController::finished);
        w.controller()->runToEnd();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kUpperBoundMs);
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestFileSafety)
#include "tst_filesafety.moc"
