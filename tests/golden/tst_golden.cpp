// SPDX-License-Identifier: GPL-2.0-or-later
// Golden recordings: every shipped scenario, run for the duration listed in golden.list, must
// give exactly the text records checked in as <name>.records (the lines `schedlab-cli run
// --records` writes, within the listed time windows). They guard refactorings: the files are the
// program's own output at the time they were recorded, not hand-checked values
// (tests/golden/README.md). On a mismatch the test writes <name>.actual to its build directory and
// shows `diff -u`. With SCHEDLAB_GOLDEN_UPDATE=1 it rewrites the checked-in files instead
// (`make golden`).
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/base/time.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#endif

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>

#include <string>
#include <vector>

using namespace schedlab;

class TestGolden : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyScenarioIsListed();
    void recording_data();
    void recording();
};

namespace {

const QString kGoldenDir = QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/golden");
const QString kScenarioDir = QStringLiteral(SCHEDLAB_SOURCE_DIR "/scenarios");

struct Entry
{
    QString name;     ///< scenario file name without ".json"
    QString duration; ///< simulated time, as --duration takes it
    QString head;     ///< records before this time are kept ("" = all of them)
    QString tail;     ///< and records from this time on
};

/// golden.list: one "NAME DURATION [HEAD TAIL]" per line; '#' starts a comment.
std::vector<Entry> readList()
{
    std::vector<Entry> entries;
    QFile f(kGoldenDir + QStringLiteral("/golden.list"));
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).section(QLatin1Char('#'), 0, 0);
        const QStringList parts = line.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (parts.isEmpty())
            continue;
        if (parts.size() != 2 && parts.size() != 4)
            qFatal("golden.list: expected \"NAME DURATION [HEAD TAIL]\", got \"%s\"",
                qPrintable(line));
        entries.push_back({parts[0], parts[1], parts.value(2), parts.value(3)});
    }
    return entries;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

void TestGolden::everyScenarioIsListed()
{
    // A new shipped scenario needs its golden recording (add it to golden.list, `make golden`).
    QStringList listed;
    for (const Entry& e : readList())
        listed << e.name + QStringLiteral(".json");
    listed.sort();
    QStringList shipped = QDir(kScenarioDir).entryList({QStringLiteral("*.json")}, QDir::Files);
    shipped.sort();
    QCOMPARE(listed, shipped);
}

void TestGolden::recording_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("duration");
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("tail");
    for (const Entry& e : readList())
        QTest::newRow(qPrintable(e.name)) << e.name << e.duration << e.head << e.tail;
}

void TestGolden::recording()
{
    QFETCH(QString, name);
    QFETCH(QString, duration);
    QFETCH(QString, head);
    QFETCH(QString, tail);
    const QString outDir = QStringLiteral(SCHEDLAB_GOLDEN_OUT);
    QVERIFY(QDir().mkpath(outDir));
    const QString actual = outDir + QLatin1Char('/') + name + QStringLiteral(".actual");
    const QString golden = kGoldenDir + QLatin1Char('/') + name + QStringLiteral(".records");
    QFile::remove(actual);

    // What `schedlab-cli run NAME.json --duration DURATION --records FILE` writes, windowed.
    const std::string scenarioFile =
        (kScenarioDir + QLatin1Char('/') + name + QStringLiteral(".json")).toStdString();
    const LoadResult loaded = loadScenarioFile(scenarioFile);
    QVERIFY2(loaded.ok(), scenarioFile.c_str());
    auto time = [](const QString& text) {
        const std::optional<Nanoseconds> t = parseDuration(text.toStdString());
        if (!t)
            qFatal("golden.list: bad duration \"%s\"", qPrintable(text));
        return t->count();
    };
    RunOptions options;
    options.duration = Nanoseconds(time(duration));
    const int64_t headEnd = head.isEmpty() ? options.duration->count() + 1 : time(head);
    const int64_t tailStart = tail.isEmpty() ? headEnd : time(tail);
    Simulation sim(*loaded.scenario, options);
    sim.run();
    QVERIFY(sim.stopReason().empty());
    QVERIFY(sim.invariantViolations().empty());
    {
        std::string text;
        const Recording& rec = sim.recording();
        for (const Record& r : rec.records())
            if (r.time < headEnd || r.time >= tailStart)
                text += formatRecord(r, rec) + '\n';
        QFile f(actual);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(text.data(), static_cast<qint64>(text.size())),
            static_cast<qint64>(text.size()));
    }
    const QByteArray got = readAll(actual);
    QVERIFY(!got.isEmpty());

    if (qEnvironmentVariableIsSet("SCHEDLAB_GOLDEN_UPDATE")) {
        QFile::remove(golden);
        QVERIFY(QFile::copy(actual, golden));
        QFile::remove(actual);
        return;
    }
    const QByteArray want = readAll(golden);
    if (got == want) {
        QFile::remove(actual); // only a mismatch leaves its .actual behind
        return;
    }
    QProcess diff;
    diff.start(QStringLiteral("diff"), {QStringLiteral("-u"), golden, actual});
    diff.waitForFinished(-1);
    QByteArray shown = diff.readAllStandardOutput();
    constexpr int kShown = 20000; // the first differences are the ones that matter
    if (shown.size() > kShown)
        shown = shown.left(kShown) + "\n[... diff cut ...]\n";
    qWarning().noquote() << QString::fromUtf8(shown);
    QFAIL(qPrintable(QStringLiteral("%1 differs from %2 (left in place for inspection); if the "
                                    "change is intended, regenerate with `make golden`")
                         .arg(actual, golden)));
}

QTEST_GUILESS_MAIN(TestGolden)
#include "tst_golden.moc"
