// SimEventLoop: the simulator's Clock and Scheduler — a single-threaded,
// deterministic discrete-event loop over virtual time.
//
// Time is virtual nanoseconds, starting at 0; it moves only when the loop
// runs an event scheduled later than now (or RunFor() advances it). The
// queue is ordered by (time, sequence number), sequence numbers counting up
// from 1 in request order. Schedule() enqueues at now + scheduling latency
// (+ a random jitter, both 0 by default); ScheduleAfter(d) at now + d. When
// several events are due at the same earliest time the loop picks one
// uniformly with its Random (the SimRandom "scheduler" stream), so
// different seeds explore different interleavings; with
// randomize_ties = false it runs them in sequence order (pure FIFO).
//
// Closures run inline on the thread driving the loop, one at a time, never
// nested: Step/RunFor/RunUntilIdle/WaitFor called from inside a running
// event is reported as kReentrantCall and does nothing. The one exception
// is Options::allow_nested_waits: WaitFor (RunUntilNotified) from inside an
// event then runs further events nested on the same stack until its
// notification fires, saving and restoring the running event's bookkeeping
// (current_sequence() is the innermost running event). This lets several
// simulated clients each block in Session::Run from inside their own events
// while their steps overlap. A nested wait returns only when everything
// nested above it has returned (stack order); the queue order, ties and
// hence the whole run stay deterministic.
//
// Failures never hang. WaitFor(n) runs events until n is notified; if the
// queue runs dry first (deadlock), or an event/virtual-time budget is
// exceeded, the loop builds a SimFailure (what was being waited for, what
// is still pending, the last events run, the virtual time) and hands it to
// the failure handler. The default handler prints it to stderr and aborts —
// returning from WaitFor with `n` unnotified would let a caller like
// Session::Run read state that its executors still own. A test may install
// a handler that records instead. After a deadlock, if the handler queued
// new events (typically by closing the sessions, which cancels their
// steps), the wait goes on running them — a few times at most — so the
// waiter can unwind normally; otherwise WaitFor returns with `n` still
// unnotified, which is only safe when the caller owns everything the
// pending work touches.
//
// Tracing: with a recorder attached every pick (SIM_SCHEDULER_PICK), timer
// fire (SIM_TIMER_FIRE), timer cancel and failure is recorded: time, the
// event's sequence number, its label and the number of same-time candidates
// it was chosen from; the payload digest is FNV-1a of the closure's type
// name (stable for a given binary), so a different closure running shows
// up even without labels. Other components record through Trace(), which
// stamps the current time and the running event's sequence number.
//
// Ownership: `random` and the recorder are borrowed. Pending closures are
// destroyed, not run, when the loop is destroyed.
// Thread-safety: none — one thread only. The first thread that calls any
// method owns the loop; any call from another thread aborts with a message
// (checked in every build: a simulation that silently went multi-threaded
// would no longer be deterministic).
#ifndef STEPFLOW_SIM_EVENT_LOOP_H_
#define STEPFLOW_SIM_EVENT_LOOP_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/env/clock.h"
#include "runtime/env/notification.h"
#include "runtime/env/random.h"
#include "runtime/env/scheduler.h"
#include "sim/trace/trace.h"

namespace stepflow {

struct SimFailure {
  enum class Kind {
    kDeadlock,       // WaitFor: nothing left to run, still not notified.
    kEventBudget,    // Options::max_events events have run.
    kTimeBudget,     // The next event is past Options::max_virtual_nanos.
    kReentrantCall,  // A run/wait method was called from inside an event.
  };
  Kind kind = Kind::kDeadlock;
  int64_t now_nanos = 0;
  uint64_t events_run = 0;
  // What the interrupted call was doing ("WaitFor(<label>)", "RunUntilIdle").
  std::string waiter;
  // Pending events, earliest first: "t=<ns> seq=<n> timer|closure <label>".
  std::vector<std::string> pending;
  size_t num_pending = 0;  // May exceed pending.size() (the list is capped).
  // The last events run, oldest first.
  std::vector<std::string> recent;
  // Everything above as one readable message.
  std::string message;
};

const char* SimFailureKindName(SimFailure::Kind kind);

class SimEventLoop : public Clock, public Scheduler {
 public:
  struct Options {
    // Added to every Schedule() (not ScheduleAfter()).
    int64_t schedule_latency_nanos = 0;
    // Schedule() adds a further uniform [0, jitter] drawn from the random.
    int64_t schedule_jitter_nanos = 0;
    // Choose among same-time events with the random (else FIFO).
    bool randomize_ties = true;
    // Let WaitFor run events nested when called from inside an event
    // (instead of reporting kReentrantCall). Step/RunFor/RunUntilIdle stay
    // non-reentrant.
    bool allow_nested_waits = false;
    // Budgets (0 = unlimited). Exceeding one is a SimFailure.
    uint64_t max_events = 100000000;
    int64_t max_virtual_nanos = int64_t{24} * 3600 * 1000000000;
    // How many recently run events a failure report lists.
    size_t recent_history = 16;
    // How many pending events a failure report lists.
    size_t max_pending_listed = 32;
    // The task name on the loop's own trace records.
    std::string task = "sim";
  };
  using FailureHandler = std::function<void(const SimFailure&)>;

  // `random` breaks ties and draws jitter; it may be null only when neither
  // is enabled.
  SimEventLoop(Random* random, const Options& options);
  explicit SimEventLoop(Random* random) : SimEventLoop(random, Options()) {}
  ~SimEventLoop() override;
  SimEventLoop(const SimEventLoop&) = delete;
  SimEventLoop& operator=(const SimEventLoop&) = delete;

  // Clock.
  int64_t NowNanos() const override;

  // Scheduler.
  void Schedule(Closure fn) override;
  TimerId ScheduleAfter(int64_t delay_nanos, Closure fn) override;
  bool CancelTimer(TimerId id) override;
  void WaitFor(Notification* n) override;
  int NumThreads() const override { return 1; }

  // As Schedule/ScheduleAfter, with a label for traces and reports.
  void ScheduleLabeled(absl::string_view label, Closure fn);
  TimerId ScheduleAfterLabeled(int64_t delay_nanos, absl::string_view label,
                               Closure fn);

  // Runs events until `n` is notified. True if it was; false after a
  // failure was reported. `waiter` describes the wait in reports.
  bool RunUntilNotified(Notification* n, absl::string_view waiter);
  // Runs the next event (moving time to it). False if there was none, or on
  // a reported failure.
  bool Step();
  // Runs events until none is left. Returns how many ran.
  uint64_t RunUntilIdle();
  // Runs every event due within the next `nanos`, then sets the clock to
  // now + nanos. Returns how many ran.
  uint64_t RunFor(int64_t nanos);

  // For a failure handler reporting a budget failure: lets the loop run up
  // to `extra_events` more events and `extra_nanos` more virtual time past
  // its budgets, so work the handler cancelled (closed sessions) can
  // unwind, and the interrupted call goes on instead of returning. Without
  // it, a budget failure stops the world where it is.
  void AllowTeardown(uint64_t extra_events, int64_t extra_nanos);

  // Replaces the failure handler (null restores the default: print, abort).
  void set_failure_handler(FailureHandler handler);
  // Attaches a recorder (borrowed; null detaches).
  void set_recorder(TraceRecorder* recorder) { recorder_ = recorder; }
  TraceRecorder* recorder() const { return recorder_; }

  // Records an event stamped with the current time and the running event's
  // sequence number (0 outside events). No-op without a recorder. Keys and
  // string values are borrowed for the call only; integer values are
  // recorded in decimal, as absl::StrCat writes them.
  void Trace(SimEventKind kind, absl::string_view task,
             std::initializer_list<TraceFieldRef> fields,
             uint64_t payload_digest = 0) {
    Trace(kind, task, absl::MakeConstSpan(fields.begin(), fields.size()),
          payload_digest);
  }
  void Trace(SimEventKind kind, absl::string_view task,
             absl::Span<const TraceFieldRef> fields,
             uint64_t payload_digest = 0);
  void Trace(SimEventKind kind, absl::string_view task,
             const TraceFields& fields, uint64_t payload_digest = 0);

  // Describes the next WaitFor() in failure reports while in scope
  // (nestable; the innermost label wins).
  class ScopedWaitLabel {
   public:
    ScopedWaitLabel(SimEventLoop* loop, std::string label);
    ~ScopedWaitLabel();
    ScopedWaitLabel(const ScopedWaitLabel&) = delete;
    ScopedWaitLabel& operator=(const ScopedWaitLabel&) = delete;

   private:
    SimEventLoop* const loop_;
  };

  // Introspection.
  size_t NumPending() const { return num_pending_; }
  size_t NumPendingTimers() const { return timer_slots_.size(); }
  uint64_t events_run() const { return events_run_; }
  // Sequence number of the running event (0 outside events).
  uint64_t current_sequence() const { return current_seq_; }
  bool in_event() const { return current_seq_ != 0; }
  uint64_t failures_reported() const { return failures_reported_; }
  // How many events are running on the stack (0 outside events; above 1
  // only inside nested waits).
  int event_depth() const { return event_depth_; }
  // Pending events, earliest first, as in SimFailure::pending (uncapped).
  std::vector<std::string> DescribePending() const;
  const Options& options() const { return options_; }

 private:
  // A pending event, in slots_. A free slot has seq 0.
  struct Event {
    uint64_t seq = 0;
    int64_t time = 0;
    bool is_timer = false;
    std::string label;                // Explicit label; may be empty.
    const char* type_name = nullptr;  // fn.target_type().name().
    Closure fn;
  };
  // An event of later_: stale (skipped) once slots_[slot] no longer holds
  // `seq` (a cancelled timer).
  struct LaterEntry {
    int64_t time;
    uint64_t seq;
    uint32_t slot;
  };
  struct LaterAfter {  // Orders later_ as a min-heap on (time, seq).
    bool operator()(const LaterEntry& a, const LaterEntry& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  struct RecentEvent {
    uint64_t seq = 0;
    int64_t time = 0;
    bool is_timer = false;
    std::string label;
    const char* type_name = nullptr;
  };

  void CheckThread() const;
  uint64_t Enqueue(int64_t time, bool is_timer, absl::string_view label,
                   Closure fn);
  // Pops stale entries off the top of later_.
  void DropStaleLater();
  // The earliest pending event's due time; only with num_pending_ > 0.
  int64_t EarliestTime();
  // Budgets and reentrancy; reports and returns false when the loop must
  // not run another event for `what`.
  bool MayRun(const char* what);
  bool CanRunNextEvent(const std::string& waiter);
  // Pops and runs the earliest event (a random one among ties).
  void RunNext();
  // Pending events' slots, earliest first.
  std::vector<uint32_t> PendingInOrder() const;
  void Fail(SimFailure::Kind kind, const std::string& waiter);
  static std::string Describe(uint64_t seq, int64_t time, bool is_timer,
                              const std::string& label, const char* type_name);

  Random* const random_;
  const Options options_;
  FailureHandler handler_;
  TraceRecorder* recorder_ = nullptr;

  int64_t now_ = 0;
  // Budget extensions granted by AllowTeardown().
  uint64_t extra_events_ = 0;
  int64_t extra_nanos_ = 0;
  bool teardown_allowed_ = false;  // Set by AllowTeardown(), read once.
  uint64_t next_seq_ = 1;
  uint64_t current_seq_ = 0;
  int event_depth_ = 0;
  uint64_t events_run_ = 0;
  uint64_t failures_reported_ = 0;
  // The pending events live in slots_ (a deque, so that scheduling from
  // inside a trace observer never moves the event being recorded), reused
  // through free_slots_. The queue is the earliest time's events once
  // RunNext opened that time (due_: slots in sequence order, all due at
  // due_time_ == now_) and a min-heap of every later one (later_). While
  // due_ is non-empty no live entry of later_ is due at due_time_ or
  // before, so due_ holds every candidate of the next pick.
  std::deque<Event> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> due_;
  int64_t due_time_ = 0;
  std::vector<LaterEntry> later_;
  size_t num_pending_ = 0;
  absl::flat_hash_map<TimerId, uint32_t> timer_slots_;  // Pending timers.
  // The last events run: a ring of up to options_.recent_history entries,
  // the oldest at recent_next_ once full.
  std::vector<RecentEvent> recent_;
  size_t recent_next_ = 0;
  std::vector<std::string> wait_labels_;
  mutable const void* owner_thread_ = nullptr;
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_EVENT_LOOP_H_
