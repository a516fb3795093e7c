// SPDX-License-Identifier: GPL-2.0-or-later
// The compact form of kept records (core/record/compactrecords.h): every record decodes to its
// exact 48 bytes, for every kind and edge values (extreme times, negative and saturated lag,
// vruntime wrapping past 2^64, huge and negative entity ids, unknown kinds); encoded sizes
// counted by hand; a Recording reads back what was appended, across the compact part and the
// last records, and streams all of it in order.
#include <QTest>

#ifndef Q_MOC_RUN
#include "core/record/compactrecords.h"
#include "core/record/recording.h"
#endif

#include <array>
#include <cstring>
#include <limits>
#include <vector>

using namespace schedlab;

namespace {

bool sameBytes(const Record& a, const Record& b)
{
    return std::memcmp(&a, &b, sizeof(Record)) == 0;
}

/// A record with every payload byte set from @p seed (a simple byte pattern, no randomness).
Record patterned(
    RecordKind kind, int64_t time, int32_t entity, uint16_t cpu, uint8_t flags, uint8_t seed)
{
    Record r;
    r.time = time;
    r.entity = {entity};
    r.cpu = cpu;
    r.kind = kind;
    r.flags = flags;
    auto* p = reinterpret_cast<uint8_t*>(&r.payload);
    for (size_t i = 0; i < sizeof(r.payload); ++i)
        p[i] = static_cast<uint8_t>(seed * 37 + i * 11);
    return r;
}

/// Encodes @p r against @p base and decodes it back.
Record roundTrip(const Record& r, int64_t base, size_t* length = nullptr)
{
    std::array<uint8_t, CompactRecords::kMaxRecordBytes> buffer{};
    const size_t n = CompactRecords::encode(r, base, buffer.data());
    if (length)
        *length = n;
    if (n > CompactRecords::kMaxRecordBytes)
        qFatal("encoded %zu bytes", n);
    return CompactRecords::decodeOne(buffer.data(), base);
}

class SinkAll : public RecordSink
{
public:
    void consume(const Record* records, size_t count, const Recording&) override
    {
        got.insert(got.end(), records, records + count);
    }
    std::vector<Record> got;
};

} // namespace

class TstCompactRecords : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyKindAndEdgeValuesRoundTrip()
    {
        constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        const int64_t times[] = {0, 1, -1, kMin, kMax, 600'000'000'000};
        const int64_t bases[] = {0, kMin, kMax, 599'999'000'000};
        const int32_t entities[] = {0, 1, -1, std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max(), EntityRef::kGroupBit - 1,
            EntityRef::group(0x3ffff, 0xfff).raw, EntityRef::group(2, 3).raw};
        size_t checked = 0;
        // Every kind the recording knows, one past the last and the largest byte.
        for (int kind = 0; kind <= 255; ++kind) {
            if (kind > static_cast<int>(RecordKind::MaxSlice) + 1 && kind != 255)
                continue;
            for (const int64_t time : times)
                for (const int64_t base : bases)
                    for (const int32_t entity : entities)
                        for (const uint16_t cpu : {uint16_t{0}, uint16_t{127}, uint16_t{0xffff}})
                            for (const uint8_t flags : {uint8_t{0}, uint8_t{0xff}})
                                for (uint8_t seed = 0; seed < 3; ++seed) {
                                    Record r = patterned(static_cast<RecordKind>(kind), time,
                                        entity, cpu, flags, seed);
                                    if (seed == 2) // all payload bytes 0xff
                                        std::memset(&r.payload, 0xff, sizeof(r.payload));
                                    QVERIFY(sameBytes(roundTrip(r, base), r));
                                    ++checked;
                                }
        }
        QCOMPARE(checked, size_t{22} * 6 * 4 * 8 * 3 * 2 * 3);
    }

    void samplesWithEdgeValuesRoundTrip()
    {
        struct Case
        {
            uint64_t vruntime, deadline, avg;
            int32_t vlag;
            uint32_t weight;
            uint8_t flags;
        };
        constexpr uint64_t kTop = std::numeric_limits<uint64_t>::max();
        const Case cases[] = {
            // Queued: vlag = V − v, here negative (the entity is ahead of V).
            {1'000'000'000, 1'003'000'000, 999'999'500, -500, 1048576, Record::kQueued},
            // vruntime about to wrap past 2^64, deadline and V beyond the wrap.
            {kTop - 10, 5, 20, 31, 1024, Record::kQueued | Record::kEligible},
            // Deadline behind vruntime, V far behind: lag saturated at INT32_MIN.
            {kTop, 0, 0, std::numeric_limits<int32_t>::min(), 0xffffffffu,
                Record::kQueued | Record::kVlagSaturated},
            // Saturated high; not queued: the saved vlag has nothing to do with V − v.
            {0, kTop, kTop, std::numeric_limits<int32_t>::max(), 2, Record::kVlagSaturated},
            {123, 456, 789, -123456789, 15, 0},
            {0, 0, 0, 0, 0, 0},
        };
        for (const Case& c : cases) {
            Record r;
            r.time = 42;
            r.entity = EntityRef::group(7, 3);
            r.cpu = 3;
            r.kind = RecordKind::Sample;
            r.flags = c.flags;
            r.payload.sample = {c.vruntime, c.deadline, c.avg, c.vlag, c.weight};
            QVERIFY(sameBytes(roundTrip(r, 0), r));
            QVERIFY(sameBytes(roundTrip(r, std::numeric_limits<int64_t>::max()), r));
        }
        Record pelt;
        pelt.kind = RecordKind::Pelt;
        pelt.payload.pelt = {0xffffffffu, 0, 1024, 1u << 31, 7, 0xfffffffeu,
            std::numeric_limits<int32_t>::min(), -1};
        QVERIFY(sameBytes(roundTrip(pelt, 0), pelt));
    }

    void encodedSizesByHand()
    {
        // A switch from task 3 to task 5 on CPU 1, 1000 ns after the record before it:
        // time delta zig-zag 2000 (2 bytes: ≥ 128, < 16384), entity 3 << 2 = 12 (1), cpu 1 (1),
        // kind and flags (2), mask 0b0001 (1), a = 5 as zig-zag 10 (1): 8 bytes.
        Record sw;
        sw.time = 1'000'001'000;
        sw.entity = EntityRef::task(3);
        sw.cpu = 1;
        sw.kind = RecordKind::Switch;
        sw.payload.generic.a = 5;
        size_t n = 0;
        QVERIFY(sameBytes(roundTrip(sw, 1'000'000'000, &n), sw));
        QCOMPARE(n, size_t{8});
        // To idle: a = −1, zig-zag 1 (1 byte): still 8.
        sw.payload.generic.a = -1;
        QVERIFY(sameBytes(roundTrip(sw, 1'000'000'000, &n), sw));
        QCOMPARE(n, size_t{8});

        // A queued sample of task 7 on CPU 2 at the time of the record before it: delta 0 (1),
        // entity 28 (1),
        // cpu (1), kind and flags (2), vruntime 10^9 (30 bits: 5 bytes), deadline − v =
        // 3 000 000, zig-zag 6 000 000 (23 bits: 4), V − v = −500, zig-zag 999 (2), vlag − (V − v)
        // = 0 (1), weight 2^20 (21 bits: 3): 20 bytes instead of 48.
        Record s;
        s.time = 5;
        s.entity = EntityRef::task(7);
        s.cpu = 2;
        s.kind = RecordKind::Sample;
        s.flags = Record::kQueued | Record::kCurr;
        s.payload.sample = {1'000'000'000, 1'003'000'000, 999'999'500, -500, 1u << 20};
        QVERIFY(sameBytes(roundTrip(s, 5, &n), s));
        QCOMPARE(n, size_t{20});
        // The same entity dequeued with a saved vlag of +500: vlag − (V − v) = 1000, zig-zag
        // 2000 (2 bytes): 21.
        s.flags = 0;
        s.payload.sample.vlag = 500;
        QVERIFY(sameBytes(roundTrip(s, 5, &n), s));
        QCOMPARE(n, size_t{21});

        // The worst case: every field at its longest.
        Record worst = patterned(RecordKind::Spawn, std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int32_t>::min(), 0xffff, 0xff, 0);
        std::memset(&worst.payload, 0x80, sizeof(worst.payload)); // each word negative, huge
        // Time −2^63 against 0: zig-zag 2^64 − 1 (10 bytes); entity −2^31: 4·(2^31 − 1) + 2
        // (33 bits: 5); cpu 65 535 (16 bits: 3); kind and flags (2); mask (1); each word
        // 0x8080…80, zig-zag 0xfefe…feff (64 bits: 10): 10 + 5 + 3 + 2 + 1 + 40 = 61.
        QVERIFY(sameBytes(roundTrip(worst, 0, &n), worst));
        QCOMPARE(n, CompactRecords::kMaxRecordBytes);

        // A group of two switches, 1000 ns apart: its time (zig-zag 2·10^9, 31 bits: 5 bytes),
        // then each record's length byte and its bytes: the first one's delta is 0 (1 byte, so
        // 7 bytes), the second's 8: 5 + 8 + 9 = 22 bytes encoded.
        CompactRecords store;
        Record two[2] = {sw, sw};
        two[0].time = 1'000'000'000;
        two[1].time = 1'000'001'000;
        two[0].payload.generic.a = 5;
        two[1].payload.generic.a = 5;
        store.append(two, 2);
        QCOMPARE(store.encodedBytes(), size_t{22});
        QCOMPARE(store.size(), size_t{2});
        QVERIFY(sameBytes(store.at(0), two[0]));
        QVERIFY(sameBytes(store.at(1), two[1]));
    }

    void entityNumbers()
    {
        // Tasks as 4·i, group entities as 4·(index << 12 | cpu) + 1, negatives as 4·~raw + 2.
        QCOMPARE(CompactRecords::encodeEntity(EntityRef::task(0)), uint64_t{0});
        QCOMPARE(CompactRecords::encodeEntity(EntityRef::task(99)), uint64_t{396});
        QCOMPARE(CompactRecords::encodeEntity(EntityRef::group(1, 3)), uint64_t{4 * 4099 + 1});
        QCOMPARE(CompactRecords::encodeEntity(EntityRef{-1}), uint64_t{2});
        QCOMPARE(CompactRecords::encodeEntity(EntityRef{std::numeric_limits<int32_t>::min()}),
            (uint64_t{0x7fffffff} << 2) + 2);
        for (const int32_t raw : {0, 5, -1, -2, std::numeric_limits<int32_t>::min(),
                 std::numeric_limits<int32_t>::max(), EntityRef::group(5, 4095).raw})
            QCOMPARE(CompactRecords::decodeEntity(CompactRecords::encodeEntity({raw})).raw, raw);
    }

    void recordingReadsBackWhatWasAppended()
    {
        // More records than stay as appended (Recording::kTail), not a multiple of a group,
        // with times that go backwards once (an import may): every one read back exactly, by
        // index, by iteration and by block.
        const size_t count = 3 * Recording::kTail + 37;
        std::vector<Record> appended;
        Recording rec;
        for (size_t i = 0; i < count; ++i) {
            Record r = patterned(static_cast<RecordKind>(i % 21), static_cast<int64_t>(i * 997),
                static_cast<int32_t>(i % 300) - 1, static_cast<uint16_t>(i % 5),
                static_cast<uint8_t>(i), static_cast<uint8_t>(i));
            if (i == 5000)
                r.time = -7;
            if (i % 21 == static_cast<size_t>(RecordKind::Sample))
                r.payload.sample.vlag = static_cast<int32_t>(i) - 1000;
            rec.append(r);
            appended.push_back(r);
        }
        rec.lastRecord().payload.generic.d = 77; // the last one stays writable
        appended.back().payload.generic.d = 77;
        QCOMPARE(rec.records().size(), count);
        QCOMPARE(rec.size(), count);
        QCOMPARE(rec.bytes(), count * 48);
        for (size_t i = 0; i < count; ++i)
            QVERIFY2(sameBytes(rec.records()[i], appended[i]), qPrintable(QString::number(i)));
        size_t i = 0;
        for (const Record& r : rec.records())
            QVERIFY(sameBytes(r, appended[i++]));
        QCOMPARE(i, count);
        std::vector<Record> block(count);
        rec.records().copy(0, count, block.data());
        QVERIFY(std::memcmp(block.data(), appended.data(), count * sizeof(Record)) == 0);
        rec.records().copy(4090, 20, block.data()); // across the compact part's end
        QVERIFY(std::memcmp(block.data(), &appended[4090], 20 * sizeof(Record)) == 0);
        size_t visited = 0;
        forEachRecord(rec, 10, count, [&](const Record& r, const Record* next, size_t at) {
            QVERIFY(sameBytes(r, appended[at]));
            QCOMPARE(next == nullptr, at + 1 == count);
            if (next)
                QVERIFY(sameBytes(*next, appended[at + 1]));
            ++visited;
        });
        QCOMPARE(visited, count - 10);
        QVERIFY(sameBytes(rec.records().back(), appended.back()));
        // A copy reads the same records, and keeps them when the original goes on.
        Recording copy = rec;
        rec.append(appended.front());
        QCOMPARE(copy.records().size(), count);
        const std::vector<Record> copied = copy.records().toVector();
        QVERIFY(std::memcmp(copied.data(), appended.data(), count * sizeof(Record)) == 0);
        copy = rec;
        QCOMPARE(copy.records().size(), count + 1);
        QVERIFY(sameBytes(copy.records()[count], appended.front()));

        // Streamed from here on: the sink gets every record kept so far, in order.
        SinkAll sink;
        rec.streamTo(&sink);
        appended.push_back(appended.front()); // appended after the copy above
        QCOMPARE(sink.got.size(), count + 1);
        QVERIFY(std::memcmp(sink.got.data(), appended.data(), (count + 1) * sizeof(Record)) == 0);
        QCOMPARE(rec.records().size(), size_t{0});
        QCOMPARE(rec.size(), count + 1);
    }
};

QTEST_GUILESS_MAIN(TstCompactRecords)
#include "tst_compactrecords.moc"
