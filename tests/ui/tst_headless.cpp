// SPDX-License-Identifier: GPL-2.0-or-later
// The GUI binary run by a script (`schedlab --screenshot out.png scenario.json`, offscreen) never
// waits on a dialog: a missing, malformed or invalid scenario, an output it cannot write and bad
// option values are one message on stderr and exit code 2; a good run writes the picture
// atomically. Timeouts are upper bounds only (a hang fails instead of blocking the suite).
#include "support/guiprocess.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

constexpr int kUpperBoundMs = 120'000;

const char* const kTiny = R"({ "schedlab": 1, "name": "tiny", "duration": "20ms",
  "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] })";

using Run = schedlab::test::GuiRun;

} // namespace

class TestHeadless : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        write(QStringLiteral("tiny.json"), kTiny);
        // Truncated in the middle of the tasks array.
        write(QStringLiteral("truncated.json"), QByteArray(kTiny).left(120));
        write(QStringLiteral("invalid.json"),
            R"({ "schedlab": 1, "name": "invalid", "duration": "20ms",
                 "tasks": [ { "name": "t", "program": [ { "run": "-5ms" } ] } ] })");
        QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("folder.json")));
        write(QStringLiteral("groups.json"),
            R"({ "schedlab": 1, "name": "groups", "duration": "20ms", "machine": { "cpus": 1 },
                 "cgroups": [ { "path": "/A", "cpu.weight": 100 } ],
                 "tasks": [ { "name": "a", "cgroup": "/A", "program": [ { "run": "forever" } ] },
                            { "name": "b", "program": [ { "run": "forever" } ] } ] })");
    }

    void badInputExitsWithTwo_data()
    {
        QTest::addColumn<QStringList>("args");     // {d} = the test's folder
        QTest::addColumn<QStringList>("expected"); // each in stderr
        const QString png = QStringLiteral("{d}/out.png");
        QTest::addRow("missing file") << QStringList{png, QStringLiteral("{d}/missing.json")}
                                      << QStringList{QStringLiteral("missing.json: cannot open")};
        QTest::addRow("malformed JSON")
            << QStringList{png, QStringLiteral("{d}/truncated.json")}
            << QStringList{QStringLiteral("truncated.json"), QStringLiteral("Cannot open")};
        QTest::addRow("invalid value")
            << QStringList{png, QStringLiteral("{d}/invalid.json")}
            << QStringList{QStringLiteral("invalid.json: /tasks/0/program/0/run")};
        QTest::addRow("folder") << QStringList{png, QStringLiteral("{d}/folder.json")}
                                << QStringList{QStringLiteral("folder.json: cannot open")};
        QTest::addRow("missing output folder")
            << QStringList{QStringLiteral("{d}/no/such/dir/out.png"),
                   QStringLiteral("{d}/tiny.json")}
            << QStringList{QStringLiteral("no/such/dir/out.png: cannot write")};
        QTest::addRow("unknown picture format")
            << QStringList{QStringLiteral("{d}/out.xyz"), QStringLiteral("{d}/tiny.json")}
            << QStringList{QStringLiteral("out.xyz: the picture's name must end in .png")};
        QTest::addRow("bad --at") << QStringList{png, QStringLiteral("{d}/tiny.json"),
            QStringLiteral("--at"), QStringLiteral("soon")}
                                  << QStringList{QStringLiteral("--at: \"soon\" is not a time")};
        QTest::addRow("unknown --select")
            << QStringList{png, QStringLiteral("{d}/tiny.json"), QStringLiteral("--select"),
                   QStringLiteral("hog-1,nobody")}
            << QStringList{QStringLiteral("--select: no task \"nobody\"")};
        QTest::addRow("bad --move")
            << QStringList{png, QStringLiteral("{d}/tiny.json"), QStringLiteral("--move"),
                   QStringLiteral("hog-1:/nowhere")}
            << QStringList{QStringLiteral("--move: cannot move hog-1:/nowhere")};
        QTest::addRow("bad --set")
            << QStringList{png, QStringLiteral("{d}/tiny.json"), QStringLiteral("--set"),
                   QStringLiteral("nobody.nice=3")}
            << QStringList{QStringLiteral("--set expects TASK.nice=N"), QStringLiteral("nobody")};
        QTest::addRow("nice out of range")
            << QStringList{png, QStringLiteral("{d}/tiny.json"), QStringLiteral("--set"),
                   QStringLiteral("hog.nice=20")}
            << QStringList{QStringLiteral("--set expects TASK.nice=N")};
        QTest::addRow("bad --weight")
            << QStringList{png, QStringLiteral("{d}/groups.json"), QStringLiteral("--weight"),
                   QStringLiteral("/nope=100")}
            << QStringList{QStringLiteral("--weight expects CGROUP=W"), QStringLiteral("/nope")};
        QTest::addRow("bad --profile") << QStringList{png, QStringLiteral("{d}/tiny.json"),
            QStringLiteral("--profile"), QStringLiteral("9.99")}
                                       << QStringList{QStringLiteral("--profile: ")};
        QTest::addRow("bad --override") << QStringList{png, QStringLiteral("{d}/tiny.json"),
            QStringLiteral("--override"), QStringLiteral("nosuchchoice=1")}
                                        << QStringList{QStringLiteral("--override: ")};
        QTest::addRow("bad --view") << QStringList{png, QStringLiteral("{d}/tiny.json"),
            QStringLiteral("--view"), QStringLiteral("10:5")}
                                    << QStringList{QStringLiteral("--view: expected FROM:TO")};
    }

    void badInputExitsWithTwo()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, expected);
        for (QString& a : args)
            a.replace(QStringLiteral("{d}"), m_dir.path());
        QFile::remove(m_dir.filePath(QStringLiteral("out.png")));
        const Run r = run(QStringList{QStringLiteral("--screenshot")} + args);
        QVERIFY2(r.finished, "schedlab did not exit: is it waiting on a dialog?");
        QCOMPARE(r.exitCode, 2);
        for (const QString& e : expected)
            QVERIFY2(r.err.contains(e), qPrintable(r.err));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("out.png"))));
        QVERIFY(!QFile::exists(args.first()));
    }

    // No display at all (a server, CI): the offscreen platform, not an abort.
    void noDisplayNeeded()
    {
        QProcessEnvironment env = environment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        const Run r = run({QStringLiteral("--screenshot"), m_dir.filePath(QStringLiteral("nd.png")),
                              m_dir.filePath(QStringLiteral("missing.json"))},
            env);
        QVERIFY(r.finished);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("missing.json: cannot open")), qPrintable(r.err));
        // --help and --version only print: no display either.
        const Run help = run({QStringLiteral("--help")}, env);
        QVERIFY(help.finished);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains(QStringLiteral("--screenshot")), qPrintable(help.err));
        for (const char* o : {"--move", "--feature", "--profile", "--override", "--set", "--weight",
                 "--size", "--dpi"})
            QVERIFY2(help.out.contains(QString::fromLatin1(o)), o);
        const Run version = run({QStringLiteral("--version")}, env);
        QVERIFY(version.finished);
        QCOMPARE(version.exitCode, 0);
        QVERIFY2(version.out.contains(QStringLiteral("schedlab")), qPrintable(version.err));
    }

    // An option that only means something with --screenshot is an error without it (not a GUI
    // that silently ignores it), and so is a second file.
    void screenshotOptionsNeedScreenshot()
    {
        const Run select = run({QStringLiteral("--select"), QStringLiteral("hog-1"),
            m_dir.filePath(QStringLiteral("tiny.json"))});
        QVERIFY(select.finished);
        QCOMPARE(select.exitCode, 2);
        QVERIFY2(select.err.contains(QStringLiteral("--select needs --screenshot")),
            qPrintable(select.err));
        const Run two = run({m_dir.filePath(QStringLiteral("tiny.json")),
            m_dir.filePath(QStringLiteral("tiny.json"))});
        QVERIFY(two.finished);
        QCOMPARE(two.exitCode, 2);
    }

    // A good run replaces an existing picture (atomically: a finished file is renamed over it).
    void screenshotWritesThePicture()
    {
        const QString out = m_dir.filePath(QStringLiteral("good.png"));
        write(QStringLiteral("good.png"), "old");
        const Run r = run({QStringLiteral("--screenshot"), out,
            m_dir.filePath(QStringLiteral("tiny.json")), QStringLiteral("--at"),
            QStringLiteral("5"), QStringLiteral("--select"), QStringLiteral("hog-1")});
        QVERIFY(r.finished);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QImage picture(out);
        QCOMPARE(picture.size(), QSize(1500, 950));
    }

    // --size sets the window's size in pixels at 96 dpi, --dpi the picture's resolution: at
    // 192 dpi a 1300x850 window is 2600x1700 pixels, 192 / 0.0254 = 7559 dots per metre.
    void screenshotSizeAndDpi()
    {
        const QString out = m_dir.filePath(QStringLiteral("sized.png"));
        const Run r = run({QStringLiteral("--screenshot"), out,
            m_dir.filePath(QStringLiteral("tiny.json")), QStringLiteral("--size"),
            QStringLiteral("1300x850"), QStringLiteral("--dpi"), QStringLiteral("192")});
        QVERIFY(r.finished);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QImage picture(out);
        QCOMPARE(picture.size(), QSize(2600, 1700));
        QCOMPARE(picture.dotsPerMeterX(), 7559);
        for (const QStringList& bad : {QStringList{QStringLiteral("--size"), QStringLiteral("9x9")},
                 QStringList{QStringLiteral("--size"), QStringLiteral("1300")},
                 QStringList{QStringLiteral("--dpi"), QStringLiteral("2000")}}) {
            const Run b = run(QStringList{QStringLiteral("--screenshot"), out,
                                  m_dir.filePath(QStringLiteral("tiny.json"))}
                + bad);
            QVERIFY(b.finished);
            QCOMPARE(b.exitCode, 2);
            QVERIFY2(b.err.contains(bad.first() + QStringLiteral(": expected")), qPrintable(b.err));
        }
    }

    // --set, --weight, --profile and --override change the run the picture shows: the same
    // path with an edit that changes nothing draws the same picture, a real edit another one.
    void screenshotEditsTheScenario_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("same");  // an edit that changes nothing
        QTest::addColumn<QStringList>("other"); // one that changes the run
        QTest::addRow("--set") << QStringLiteral("groups.json")
                               << QStringList{QStringLiteral("--set"), QStringLiteral("b.nice=0")}
                               << QStringList{QStringLiteral("--set"), QStringLiteral("b.nice=19")};
        // b (root) against /A (group entity of a): nice 19 gives b 15/1039 of the CPU; cpu.weight
        // 100 gives /A 1024 like b, 10000 leaves b about a hundredth.
        QTest::addRow("--weight") << QStringLiteral(
            "groups.json") << QStringList{QStringLiteral("--weight"), QStringLiteral("/A=100")}
                                  << QStringList{
                                         QStringLiteral("--weight"), QStringLiteral("/A=10000")};
    }

    void screenshotEditsTheScenario()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, same);
        QFETCH(QStringList, other);
        const auto shot = [&](const QString& name, const QStringList& extra) {
            const QString out = m_dir.filePath(name);
            const Run r = run(QStringList{QStringLiteral("--screenshot"), out, m_dir.filePath(file),
                                  QStringLiteral("--at"), QStringLiteral("20")}
                + extra);
            [&] {
                QVERIFY(r.finished);
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            }();
            return QImage(out);
        };
        const QImage plain = shot(QStringLiteral("plain.png"), same);
        const QImage again = shot(QStringLiteral("again.png"), same);
        const QImage edited = shot(QStringLiteral("edited.png"), other);
        QVERIFY(!plain.isNull() && !edited.isNull());
        QCOMPARE(again, plain); // deterministic
        QVERIFY(edited != plain);
        // A profile and an override are accepted beside them.
        const Run r = run({QStringLiteral("--screenshot"), m_dir.filePath(QStringLiteral("p.png")),
            m_dir.filePath(file), QStringLiteral("--profile"), QStringLiteral("6.12")});
        QVERIFY(r.finished);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // An existing picture in a folder made read-only stays as it was.
    void readOnlyFolderKeepsTheOldPicture()
    {
        if (geteuid() == 0)
            QSKIP("running as root: a read-only folder does not stop root from writing");
        QTemporaryDir locked;
        const QString out = locked.filePath(QStringLiteral("old.png"));
        {
            QFile f(out);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("old picture");
        }
        QVERIFY(QFile::setPermissions(locked.path(), QFile::ReadOwner | QFile::ExeOwner));
        const Run r =
            run({QStringLiteral("--screenshot"), out, m_dir.filePath(QStringLiteral("tiny.json"))});
        QFile::setPermissions(
            locked.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(r.finished);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(out + QStringLiteral(": cannot write")), qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("old picture"));
    }

private:
    void write(const QString& name, const QByteArray& text)
    {
        QFile f(m_dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
    }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        return env;
    }

    Run run(const QStringList& args) { return run(args, environment()); }

    Run run(const QStringList& args, const QProcessEnvironment& env)
    {
        return schedlab::test::runGuiProcess(args, env, kUpperBoundMs);
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
