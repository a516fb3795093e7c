// SPDX-License-Identifier: GPL-2.0-or-later
// core/base/args.h: the argument reader every command-line front end uses. Each case walks a
// hand-written command line and compares what a small command made of it (options, flags,
// positionals) with what the conventions in args.h say it must be.
#include "core/base/args.h"

#include <QTest>

#include <string>
#include <vector>

using namespace schedlab;

namespace {

// A command with a value option --out (last one wins), a repeatable --variant, a flag --quiet;
// it stops at the first error, as the front ends do.
struct Parsed
{
    std::string out;
    std::vector<std::string> variants;
    bool quiet = false;
    std::vector<std::string> files;
    std::string error;
};

Parsed parse(const std::vector<std::string>& args)
{
    Parsed p;
    ArgReader r(args, 1); // args[0] is the command word
    while (r.next()) {
        std::string v;
        if (r.flag("--quiet")) {
            p.quiet = true;
        } else if (r.option("--out")) {
            if (!r.value(p.out)) {
                p.error = r.error();
                break;
            }
        } else if (r.option("--variant")) {
            if (!r.value(v)) {
                p.error = r.error();
                break;
            }
            p.variants.push_back(v);
        } else if (r.isOption()) {
            p.error = "unknown option " + r.word();
            break;
        } else {
            p.files.push_back(r.word());
        }
    }
    return p;
}

using Words = std::vector<std::string>;

} // namespace

class TestArgs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void optionsFlagsAndPositionals();
    void missingValue();
    void unknownOption();
    void equalsForm();
    void repeatedOptions();
    void endOfOptions();
    void valueIsTakenAsWritten();
    void startIndexAndName();
};

void TestArgs::optionsFlagsAndPositionals()
{
    const Parsed p = parse({"run", "a.json", "--out", "m.json", "--quiet", "b.json"});
    QCOMPARE(p.error, std::string());
    QCOMPARE(p.out, std::string("m.json"));
    QVERIFY(p.quiet);
    QCOMPARE(p.files, (Words{"a.json", "b.json"}));
}

void TestArgs::missingValue()
{
    // At the end of the line, and as "--out=" with nothing after '='.
    QCOMPARE(parse({"run", "a.json", "--out"}).error, std::string("--out needs a value"));
    QCOMPARE(parse({"run", "--out="}).error, std::string("--out needs a value"));
    QCOMPARE(parse({"run", "--variant"}).error, std::string("--variant needs a value"));
    // The error stops the command before it reads on: a.json was not taken.
    QCOMPARE(parse({"run", "--variant=", "a.json"}).files, Words{});
}

void TestArgs::unknownOption()
{
    QCOMPARE(parse({"run", "--outt", "x"}).error, std::string("unknown option --outt"));
    QCOMPARE(parse({"run", "-q"}).error, std::string("unknown option -q"));
    // A flag matches only as the whole word: "--quiet=1" is not --quiet.
    QCOMPARE(parse({"run", "--quiet=1"}).error, std::string("unknown option --quiet=1"));
    // A longer name that starts with a known one is not that option.
    QCOMPARE(parse({"run", "--output=x"}).error, std::string("unknown option --output=x"));
    // "-" alone is a positional (standard input or output), not an option.
    const Parsed p = parse({"run", "-"});
    QCOMPARE(p.error, std::string());
    QCOMPARE(p.files, Words{"-"});
}

void TestArgs::equalsForm()
{
    const Parsed p = parse({"run", "--out=m.json", "a.json", "--variant=profile=6.6"});
    QCOMPARE(p.error, std::string());
    QCOMPARE(p.out, std::string("m.json"));
    // Only the first '=' separates: the value keeps its own.
    QCOMPARE(p.variants, Words{"profile=6.6"});
    // The word after "--out=m.json" is not taken as a value.
    QCOMPARE(p.files, Words{"a.json"});
}

void TestArgs::repeatedOptions()
{
    const Parsed p = parse({"compare", "--variant", "NO_PLACE_LAG", "--out", "1",
        "--variant=profile=6.12", "--out=2"});
    QCOMPARE(p.error, std::string());
    QCOMPARE(p.variants, (Words{"NO_PLACE_LAG", "profile=6.12"})); // both, in order
    QCOMPARE(p.out, std::string("2"));                             // the last one
}

void TestArgs::endOfOptions()
{
    const Parsed p = parse({"run", "--quiet", "--", "--out", "-x", "--", "a.json"});
    QCOMPARE(p.error, std::string());
    QVERIFY(p.quiet);
    QCOMPARE(p.out, std::string());
    // Only the first "--" ends the options; a second one is a positional like any other word.
    QCOMPARE(p.files, (Words{"--out", "-x", "--", "a.json"}));

    const Words words{"run", "--", "-x"};
    ArgReader r(words, 1);
    QVERIFY(r.next());
    QVERIFY(r.endOfOptions());
    QVERIFY(!r.isOption());
    QVERIFY(!r.option("-x"));
    QCOMPARE(r.word(), std::string("-x"));
    QVERIFY(!r.next());
}

void TestArgs::valueIsTakenAsWritten()
{
    // The next word is the value even when it starts with '-' or is "--": `--metrics -`
    // writes to stdout, and `--out --` names a file called "--" without ending the options.
    const Parsed p = parse({"run", "--out", "--", "--variant", "-x", "--quiet"});
    QCOMPARE(p.error, std::string());
    QCOMPARE(p.out, std::string("--"));
    QCOMPARE(p.variants, Words{"-x"});
    QVERIFY(p.quiet); // "--" was a value, so --quiet is still an option
}

void TestArgs::startIndexAndName()
{
    const Words words{"sweep", "--param=nice=0,5", "x.json"};
    ArgReader r(words, 1);
    QVERIFY(r.next());
    QCOMPARE(r.index(), size_t(1));
    QCOMPARE(r.name(), std::string("--param"));
    QVERIFY(r.hasValue());
    std::string v;
    QVERIFY(r.value(v));
    QCOMPARE(v, std::string("nice=0,5"));
    // After value() the reader still speaks of the option.
    QVERIFY(r.option("--param"));
    QVERIFY(r.next());
    QCOMPARE(r.index(), size_t(2));
    QCOMPARE(r.name(), std::string("x.json"));
    QVERIFY(!r.hasValue()); // a positional at the end: nothing after it
    QVERIFY(!r.next());
    // An empty line, and a start past the end.
    const Words none;
    ArgReader e(none);
    QVERIFY(!e.next());
    ArgReader past(words, 3);
    QVERIFY(!past.next());
}

QTEST_APPLESS_MAIN(TestArgs)
#include "tst_args.moc"
