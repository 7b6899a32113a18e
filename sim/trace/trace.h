// Simulation traces: canonical event records, a rolling hash over them, and
// a compact on-disk form.
//
// A TraceEvent is {virtual time, sequence, kind, task, ordered key/value
// fields, payload digest}. Its canonical bytes (below) feed a rolling
// 64-bit FNV-1a hash: the hash after N events is FNV-1a over the
// concatenated canonical bytes of events 1..N. Two runs with the same seed
// must produce the same hash; the first event at which two traces differ
// is where their executions diverged. Records must never contain pointer
// values, thread ids, wall-clock time or anything else that differs between
// processes.
//
// Canonical bytes of one event (integers little-endian, strings prefixed
// by their 64-bit length): time_nanos, sequence, kind, task, number of
// fields, then each key and value, then payload_digest
// (sim/trace/trace_record_view.h: HashTraceRecord). The simulator records
// borrowed TraceRecordViews; the recorder builds a TraceEvent from one only
// when it keeps, writes or hands out the event.
//
// File form: length-delimited SimTraceRecord protos (proto/sim_trace.proto):
// one header, the events, one footer {event count, hash}. A run that dies
// before Close() leaves a file without a footer; TraceReader still returns
// its events (flush with Flush() before aborting to keep the last ones).
//
// Thread-safety: TraceRecorder and TraceReader are not thread-safe; the
// simulator uses them from its one thread.
#ifndef STEPFLOW_SIM_TRACE_H_
#define STEPFLOW_SIM_TRACE_H_

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "proto/sim_trace.pb.h"
#include "sim/trace/digest.h"
#include "sim/trace/trace_record_view.h"

namespace stepflow {

using TraceFields = std::vector<std::pair<std::string, std::string>>;

// Views of `fields` (borrowed: valid while `fields` is unchanged).
absl::InlinedVector<TraceFieldRef, 8> TraceFieldRefs(const TraceFields& fields);

struct TraceEvent {
  int64_t time_nanos = 0;
  uint64_t sequence = 0;
  SimEventKind kind = SIM_EVENT_UNKNOWN;
  std::string task;
  TraceFields fields;
  uint64_t payload_digest = 0;
  // A recorded call's request bytes (proto field `payload`): carried to and
  // from files but outside the canonical form, the hash and ==.
  std::string payload;

  // Feeds the canonical bytes of this event into `h`.
  void HashInto(Fnv64* h) const;
  // One line: "t=<ns> seq=<n> <KIND> task=<t> k=v k=v digest=<hex>".
  std::string DebugString() const;
  // The value of field `key`, or "" if absent.
  std::string Field(const std::string& key) const;

  void ToProto(SimTraceEvent* proto) const;
  static TraceEvent FromProto(const SimTraceEvent& proto);
  // Owns copies of everything `view` borrows.
  static TraceEvent FromView(const TraceRecordView& view);

  bool operator==(const TraceEvent& o) const;
  bool operator!=(const TraceEvent& o) const { return !(*this == o); }
};

// What a replay needs: the workload's name, the seed, its options as
// key/value params and, for plan-driven workloads, the serialized plan.
// `workload` is a human-readable one-line description.
struct TraceHeader {
  uint64_t seed = 0;
  std::string workload;
  TraceFields params;
  std::string workload_name;
  std::string plan;

  // The value of param `key`, or "" if absent.
  std::string Param(const std::string& key) const;
};

inline constexpr char kSimTraceFormat[] = "stepflow.sim_trace.v1";

class TraceRecorder {
 public:
  struct Options {
    // Keep every event in memory (events()); for tests and small runs.
    bool keep_events = false;
    // Called with every event as it is recorded (after hashing).
    std::function<void(const TraceEvent&)> observer;
    // Called with every event as it is recorded (after hashing, before
    // `observer`), borrowed: unlike `observer` it needs no TraceEvent built
    // for records that arrive as views. The view is valid during the call
    // only.
    std::function<void(const TraceRecordView&)> view_observer;
  };

  TraceRecorder() : TraceRecorder(Options()) {}
  explicit TraceRecorder(const Options& options) : options_(options) {}
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;
  // Closes the file if one is open (errors are dropped; call Close()).
  ~TraceRecorder();

  // Streams every event to `path` (created or truncated), after writing
  // `header`. Must come before the first Record(), at most once
  // (FailedPrecondition otherwise); Unavailable if the file cannot be
  // created.
  absl::Status OpenFile(const std::string& path, const TraceHeader& header);

  void Record(TraceEvent event);
  // The same record, borrowed for the call: hashed without copying; a
  // TraceEvent is built only for a file, `observer` or keep_events.
  void Record(const TraceRecordView& record);

  // Rolling hash over every event recorded so far (FNV-1a offset basis
  // when there are none).
  uint64_t hash() const { return hash_.value(); }
  uint64_t event_count() const { return event_count_; }
  // Every event recorded, in order (empty unless options.keep_events).
  const std::vector<TraceEvent>& events() const { return events_; }

  // Pushes buffered records to the file (no-op without one).
  void Flush();
  // Writes the footer and closes the file. OK without a file. Errors: a
  // write failed at any point.
  absl::Status Close();

 private:
  // Writes, observes (`observer`) and keeps a hashed event.
  void Deliver(TraceEvent event);

  const Options options_;
  Fnv64 hash_;
  uint64_t event_count_ = 0;
  std::vector<TraceEvent> events_;
  std::unique_ptr<std::ofstream> out_;
  std::string path_;
  bool write_failed_ = false;
};

class TraceReader {
 public:
  // Opens `path` and reads its header. NotFound if it cannot be opened;
  // DataLoss if it does not start with a stepflow trace header.
  static absl::Status Open(const std::string& path,
                           std::unique_ptr<TraceReader>* reader);

  const TraceHeader& header() const { return header_; }

  // Reads the next event into `*event`. False at the end of the events;
  // then status() says whether the file was well formed.
  bool Next(TraceEvent* event);

  // OK so far / at a clean end. DataLoss for a truncated or corrupt record,
  // records after the footer, or a footer whose count or hash disagrees
  // with the events read.
  const absl::Status& status() const { return status_; }
  // Whether the footer was reached (false for the trace of a run that died).
  bool has_footer() const { return has_footer_; }
  // Rolling hash and count over the events read so far.
  uint64_t hash() const { return hash_.value(); }
  uint64_t event_count() const { return event_count_; }

  // Reads a whole file. Fails with the reader's status; a missing footer
  // is not an error (see has_footer()).
  static absl::Status ReadAll(const std::string& path, TraceHeader* header,
                              std::vector<TraceEvent>* events, uint64_t* hash);

 private:
  TraceReader() = default;
  struct Impl;

  std::shared_ptr<Impl> impl_;
  TraceHeader header_;
  absl::Status status_;
  bool has_footer_ = false;
  bool done_ = false;
  Fnv64 hash_;
  uint64_t event_count_ = 0;
};

// Index of the first event at which `a` and `b` differ (min size if one is
// a prefix of the other); -1 if they are identical.
int64_t FirstDivergence(const std::vector<TraceEvent>& a,
                        const std::vector<TraceEvent>& b);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_TRACE_H_
