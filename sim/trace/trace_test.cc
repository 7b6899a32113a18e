// Trace records: canonical hashing, file round trips, damaged files.
#include "sim/trace/trace.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "sim/env/event_loop.h"
#include "sim/env/sim_random.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpPath;

TraceEvent Ev(int64_t t, uint64_t seq, SimEventKind kind, TraceFields fields,
              uint64_t digest = 0) {
  TraceEvent e;
  e.time_nanos = t;
  e.sequence = seq;
  e.kind = kind;
  e.task = "local";
  e.fields = std::move(fields);
  e.payload_digest = digest;
  return e;
}

std::vector<TraceEvent> Sample() {
  return {Ev(0, 1, SIM_SCHEDULER_PICK, {{"label", ""}, {"ties", "3"}}, 0xabc),
          Ev(5, 1, SIM_KERNEL_START, {{"node", "a"}, {"device", "CPU:1"}}, 42),
          Ev(7, 9, SIM_TIMER_FIRE, {{"label", "deadline"}}),
          Ev(7, 0, SIM_STEP_DONE, {{"step", "0"}, {"status", "OK"}}, 7)};
}

uint64_t HashOf(const std::vector<TraceEvent>& events) {
  TraceRecorder r;
  for (const TraceEvent& e : events) r.Record(e);
  return r.hash();
}

TEST(TraceTest, EmptyTraceHashIsTheOffsetBasis) {
  TraceRecorder r;
  EXPECT_EQ(r.hash(), Fnv64::kOffsetBasis);
  EXPECT_EQ(r.event_count(), 0u);
}

TEST(TraceTest, HashIsPinnedForAKnownSequence) {
  // The canonical encoding is part of the trace format; this value changes
  // only if the encoding does (which invalidates recorded traces). It was
  // computed by an independent implementation of the encoding documented in
  // trace.h, not by this code.
  EXPECT_EQ(HashOf(Sample()), 0xf0528d3fcb6032bfULL);
}

TEST(TraceTest, EveryPartOfAnEventIsHashed) {
  const uint64_t base = HashOf(Sample());
  EXPECT_EQ(HashOf(Sample()), base);
  std::vector<std::vector<TraceEvent>> variants(8, Sample());
  variants[0][1].time_nanos = 6;
  variants[1][1].sequence = 2;
  variants[2][1].kind = SIM_KERNEL_DONE;
  variants[3][1].task = "other";
  variants[4][1].fields[0].second = "b";
  variants[5][1].fields[0].first = "nodes";
  std::swap(variants[6][1].fields[0], variants[6][1].fields[1]);  // Order.
  variants[7][1].payload_digest = 43;
  for (size_t i = 0; i < variants.size(); ++i) {
    EXPECT_NE(HashOf(variants[i]), base) << "variant " << i;
  }
  // Event order matters too.
  std::vector<TraceEvent> swapped = Sample();
  std::swap(swapped[0], swapped[1]);
  EXPECT_NE(HashOf(swapped), base);
  // Field boundaries are unambiguous.
  EXPECT_NE(HashOf({Ev(0, 0, SIM_NOTE, {{"ab", "c"}})}),
            HashOf({Ev(0, 0, SIM_NOTE, {{"a", "bc"}})}));
}

TEST(TraceTest, ObserverAndKeptEvents) {
  TraceRecorder::Options o;
  o.keep_events = true;
  int seen = 0;
  o.observer = [&seen](const TraceEvent&) { ++seen; };
  TraceRecorder r(o);
  for (const TraceEvent& e : Sample()) r.Record(e);
  EXPECT_EQ(seen, 4);
  EXPECT_EQ(r.events(), Sample());
  EXPECT_EQ(r.event_count(), 4u);
}

TEST(TraceTest, ViewsHashAndDeliverAsTheEventsTheyDescribe) {
  // The pinned sample, recorded as views: the same hash, and the same
  // events for observers and kept events.
  TraceRecorder::Options o;
  o.keep_events = true;
  std::vector<TraceEvent> observed;
  std::vector<std::string> viewed_nodes;
  o.observer = [&observed](const TraceEvent& e) { observed.push_back(e); };
  o.view_observer = [&viewed_nodes](const TraceRecordView& v) {
    viewed_nodes.push_back(std::string(v.Field("node")));
  };
  TraceRecorder r(o);
  for (const TraceEvent& e : Sample()) {
    const absl::InlinedVector<TraceFieldRef, 8> refs = TraceFieldRefs(e.fields);
    r.Record(TraceRecordView{e.time_nanos, e.sequence, e.kind, e.task, refs,
                             e.payload_digest});
  }
  EXPECT_EQ(r.hash(), HashOf(Sample()));
  EXPECT_EQ(r.events(), Sample());
  EXPECT_EQ(observed, Sample());
  EXPECT_EQ(viewed_nodes, (std::vector<std::string>{"", "a", "", ""}));

  // Integer values read as absl::StrCat writes them.
  const TraceFieldRef ints[] = {{"a", 0},
                                {"b", -7},
                                {"c", int64_t{-9223372036854775807} - 1},
                                {"d", uint64_t{18446744073709551615u}},
                                {"e", size_t{42}},
                                {"f", 1234567890}};
  const std::vector<std::string> want = {
      absl::StrCat(0),
      absl::StrCat(-7),
      absl::StrCat(int64_t{-9223372036854775807} - 1),
      absl::StrCat(uint64_t{18446744073709551615u}),
      absl::StrCat(size_t{42}),
      absl::StrCat(1234567890)};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(ints[i].value.view(), want[i]) << ints[i].key;
    const TraceValue copy = ints[i].value;  // Copies keep their digits.
    EXPECT_EQ(copy.view(), want[i]) << ints[i].key;
  }
}

TEST(TraceTest, FileRoundTrip) {
  const std::string path = TestTmpPath("round_trip.trace");
  TraceRecorder r;
  TraceHeader h;
  h.seed = 1234;
  h.workload = "unit test";
  h.params = {{"steps", "4"}};
  h.workload_name = "multi_client";
  h.plan = std::string("\x08\x01\x00plan bytes", 13);
  ASSERT_TRUE(r.OpenFile(path, h).ok());
  EXPECT_EQ(r.OpenFile(path, h).code(), absl::StatusCode::kFailedPrecondition);
  for (const TraceEvent& e : Sample()) r.Record(e);
  ASSERT_TRUE(r.Close().ok());

  std::unique_ptr<TraceReader> reader;
  ASSERT_TRUE(TraceReader::Open(path, &reader).ok());
  EXPECT_EQ(reader->header().seed, 1234u);
  EXPECT_EQ(reader->header().workload, "unit test");
  EXPECT_EQ(reader->header().params, h.params);
  EXPECT_EQ(reader->header().Param("steps"), "4");
  EXPECT_EQ(reader->header().Param("absent"), "");
  EXPECT_EQ(reader->header().workload_name, "multi_client");
  EXPECT_EQ(reader->header().plan, h.plan);
  std::vector<TraceEvent> back;
  TraceEvent e;
  while (reader->Next(&e)) back.push_back(e);
  EXPECT_TRUE(reader->status().ok()) << reader->status();
  EXPECT_TRUE(reader->has_footer());
  EXPECT_EQ(back, Sample());
  EXPECT_EQ(reader->hash(), r.hash());
  EXPECT_EQ(reader->event_count(), 4u);

  TraceHeader h2;
  std::vector<TraceEvent> all;
  uint64_t hash = 0;
  ASSERT_TRUE(TraceReader::ReadAll(path, &h2, &all, &hash).ok());
  EXPECT_EQ(all, Sample());
  EXPECT_EQ(hash, r.hash());
}

TEST(TraceTest, PayloadTravelsButIsNotCanonical) {
  TraceEvent with = Ev(3, 1, SIM_RPC_DONE, {{"method", "m"}}, 9);
  with.payload = std::string("req\0bytes", 9);
  const TraceEvent without = Ev(3, 1, SIM_RPC_DONE, {{"method", "m"}}, 9);
  Fnv64 a, b;
  with.HashInto(&a);
  without.HashInto(&b);
  EXPECT_EQ(a.value(), b.value());
  EXPECT_EQ(with, without);
  const std::string path = TestTmpPath("payload.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(path, TraceHeader()).ok());
    r.Record(with);
    ASSERT_TRUE(r.Close().ok());
  }
  std::vector<TraceEvent> events;
  ASSERT_TRUE(TraceReader::ReadAll(path, nullptr, &events, nullptr).ok());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].payload, with.payload);
}

TEST(TraceTest, OpenAfterRecordingIsRejected) {
  TraceRecorder r;
  r.Record(Sample()[0]);
  EXPECT_EQ(r.OpenFile(TestTmpPath("late.trace"), TraceHeader()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.OpenFile("/nonexistent-dir/x.trace", TraceHeader()).code(),
            absl::StatusCode::kFailedPrecondition);
  TraceRecorder fresh;
  EXPECT_EQ(fresh.OpenFile("/nonexistent-dir/x.trace", TraceHeader()).code(),
            absl::StatusCode::kUnavailable);
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(TraceTest, DamagedFilesAreDataLoss) {
  const std::string path = TestTmpPath("good.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(path, TraceHeader()).ok());
    for (const TraceEvent& e : Sample()) r.Record(e);
    ASSERT_TRUE(r.Close().ok());
  }
  const std::string good = ReadBytes(path);
  std::vector<TraceEvent> events;

  // A run that died: flushed events, no footer. Readable, not complete.
  const std::string died = TestTmpPath("died.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(died, TraceHeader()).ok());
    r.Record(Sample()[0]);
    r.Record(Sample()[1]);
    r.Flush();
    WriteBytes(TestTmpPath("died_copy.trace"), ReadBytes(died));
  }
  std::unique_ptr<TraceReader> reader;
  ASSERT_TRUE(TraceReader::Open(TestTmpPath("died_copy.trace"), &reader).ok());
  TraceEvent e;
  int n = 0;
  while (reader->Next(&e)) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(reader->status().ok()) << reader->status();
  EXPECT_FALSE(reader->has_footer());

  // Cut in the middle of a record.
  const std::string cut = TestTmpPath("cut.trace");
  WriteBytes(cut, good.substr(0, good.size() - 5));
  EXPECT_EQ(TraceReader::ReadAll(cut, nullptr, &events, nullptr).code(),
            absl::StatusCode::kDataLoss);

  // Junk after the footer.
  const std::string junk = TestTmpPath("junk.trace");
  WriteBytes(junk, good + std::string("\x02\x08\x01", 3));
  absl::Status s = TraceReader::ReadAll(junk, nullptr, &events, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  // A flipped byte inside an event's digest: the footer no longer matches.
  const std::string tampered = TestTmpPath("tampered.trace");
  {
    TraceRecorder r;
    ASSERT_TRUE(r.OpenFile(tampered, TraceHeader()).ok());
    for (const TraceEvent& ev : Sample()) r.Record(ev);
    ASSERT_TRUE(r.Close().ok());
  }
  std::string bytes = ReadBytes(tampered);
  std::string digest_le(8, '\0');
  for (int i = 0; i < 8; ++i)
    digest_le[i] = static_cast<char>((42ULL >> (8 * i)) & 0xff);
  const size_t at = bytes.find(digest_le);
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 1;
  WriteBytes(tampered, bytes);
  s = TraceReader::ReadAll(tampered, nullptr, &events, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("footer"), std::string::npos) << s;

  // Not a trace at all; missing.
  const std::string other = TestTmpPath("other.bin");
  WriteBytes(other, "hello, world");
  EXPECT_EQ(TraceReader::ReadAll(other, nullptr, &events, nullptr).code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(TraceReader::ReadAll(TestTmpPath("missing.trace"), nullptr, &events,
                                 nullptr)
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(TraceTest, FirstDivergence) {
  std::vector<TraceEvent> a = Sample(), b = Sample();
  EXPECT_EQ(FirstDivergence(a, b), -1);
  b[2].fields[0].second = "other";
  EXPECT_EQ(FirstDivergence(a, b), 2);
  b = Sample();
  b.pop_back();
  EXPECT_EQ(FirstDivergence(a, b), 3);
  EXPECT_EQ(a[0].DebugString(),
            "t=0 seq=1 SIM_SCHEDULER_PICK task=local label= ties=3 "
            "digest=0000000000000abc");
}

// The event loop's own records: the same seed gives the same hash.
uint64_t LoopTraceHash(uint64_t seed) {
  SimRandom random(seed);
  SimEventLoop loop(random.Stream("scheduler"));
  TraceRecorder r;
  loop.set_recorder(&r);
  for (int i = 0; i < 6; ++i) {
    loop.ScheduleLabeled(absl::StrCat("c", i), [&loop, i] {
      loop.ScheduleAfterLabeled(i % 2, absl::StrCat("t", i), [] {});
    });
  }
  loop.RunUntilIdle();
  EXPECT_EQ(r.event_count(), 12u);
  return r.hash();
}

TEST(TraceTest, LoopTraceHashIsStablePerSeed) {
  EXPECT_EQ(LoopTraceHash(1), LoopTraceHash(1));
  EXPECT_EQ(LoopTraceHash(2), LoopTraceHash(2));
  EXPECT_NE(LoopTraceHash(1), LoopTraceHash(2));
}

}  // namespace
}  // namespace stepflow
