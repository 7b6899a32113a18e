#include "sim/env/event_loop.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/trace/digest.h"

namespace stepflow {
namespace {

// Identifies the calling thread by the address of a thread-local; used only
// to check single-threaded use, never to decide behaviour.
const void* CurrentThreadToken() {
  static thread_local const char token = 0;
  return &token;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}

// Shortens a demangled name for reports: "(anonymous namespace)" becomes
// "(anon)" and every non-empty parameter list "(...)", so
// "ns::Executor::Run(std::vector<...> const&, ...)::{lambda()#2}" reads
// "ns::Executor::Run(...)::{lambda()#2}".
std::string CompactName(const std::string& name) {
  static constexpr char kAnon[] = "(anonymous namespace)";
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '(') {
      out.push_back(name[i]);
      continue;
    }
    if (name.compare(i, sizeof(kAnon) - 1, kAnon) == 0) {
      out += "(anon)";
      i += sizeof(kAnon) - 2;
      continue;
    }
    int depth = 0;
    size_t j = i;
    for (; j < name.size(); ++j) {
      if (name[j] == '(') ++depth;
      if (name[j] == ')' && --depth == 0) break;
    }
    out += j == i + 1 ? "()" : "(...)";
    i = j;
  }
  return out;
}

std::string Demangle(const char* name) {
  if (name == nullptr) return "?";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return name;
  return CompactName(out.get());
}

const char* TypeName(const Scheduler::Closure& fn) {
  return fn.target_type().name();
}

void DefaultFailureHandler(const SimFailure& failure) {
  std::fprintf(stderr, "%s\n", failure.message.c_str());
  std::fflush(stderr);
  std::abort();
}

// The digest a scheduled closure's trace event carries: of its label, never
// of its C++ type. A closure's type name changes whenever the code that
// makes it is renamed or moved, and every trace written before such a
// change would then fail to replay.
uint64_t ClosureDigest(const std::string& label) { return Fnv1a64(label); }

}  // namespace

const char* SimFailureKindName(SimFailure::Kind kind) {
  switch (kind) {
    case SimFailure::Kind::kDeadlock:
      return "deadlock";
    case SimFailure::Kind::kEventBudget:
      return "event budget exceeded";
    case SimFailure::Kind::kTimeBudget:
      return "virtual time budget exceeded";
    case SimFailure::Kind::kReentrantCall:
      return "reentrant call";
  }
  return "unknown";
}

SimEventLoop::SimEventLoop(Random* random, const Options& options)
    : random_(random), options_(options), handler_(DefaultFailureHandler) {
  if (random_ == nullptr &&
      (options_.randomize_ties || options_.schedule_jitter_nanos > 0)) {
    std::fprintf(stderr,
                 "SimEventLoop: a Random is required for randomize_ties or "
                 "schedule_jitter_nanos\n");
    std::abort();
  }
}

SimEventLoop::~SimEventLoop() {
  // Destroying a closure may release state whose destructor schedules more
  // work; drop that too.
  while (!queue_.empty()) {
    std::map<int64_t, std::deque<Event>> doomed;
    doomed.swap(queue_);
    timer_times_.clear();
    num_pending_ = 0;
    doomed.clear();
  }
}

void SimEventLoop::CheckThread() const {
  const void* me = CurrentThreadToken();
  if (owner_thread_ == nullptr) {
    owner_thread_ = me;
    return;
  }
  if (owner_thread_ != me) {
    std::fprintf(stderr,
                 "SimEventLoop used from a second thread (at virtual time %lld "
                 "ns, after %llu events): the simulator is single-threaded; "
                 "something created a real thread.\n",
                 static_cast<long long>(now_),
                 static_cast<unsigned long long>(events_run_));
    std::fflush(stderr);
    std::abort();
  }
}

int64_t SimEventLoop::NowNanos() const {
  CheckThread();
  return now_;
}

uint64_t SimEventLoop::Enqueue(int64_t time, bool is_timer,
                               absl::string_view label, Closure fn) {
  Event e;
  e.seq = next_seq_++;
  e.time = time;
  e.is_timer = is_timer;
  e.label = std::string(label);
  e.type_name = TypeName(fn);
  e.fn = std::move(fn);
  const uint64_t seq = e.seq;
  if (is_timer) timer_times_[seq] = time;
  queue_[time].push_back(std::move(e));
  ++num_pending_;
  return seq;
}

void SimEventLoop::Schedule(Closure fn) { ScheduleLabeled("", std::move(fn)); }

void SimEventLoop::ScheduleLabeled(absl::string_view label, Closure fn) {
  CheckThread();
  int64_t delay = options_.schedule_latency_nanos;
  if (options_.schedule_jitter_nanos > 0) {
    delay = SaturatingAdd(
        delay, static_cast<int64_t>(random_->Uniform(
                   static_cast<uint64_t>(options_.schedule_jitter_nanos) + 1)));
  }
  Enqueue(SaturatingAdd(now_, delay < 0 ? 0 : delay), /*is_timer=*/false, label,
          std::move(fn));
}

Scheduler::TimerId SimEventLoop::ScheduleAfter(int64_t delay_nanos,
                                               Closure fn) {
  return ScheduleAfterLabeled(delay_nanos, "", std::move(fn));
}

Scheduler::TimerId SimEventLoop::ScheduleAfterLabeled(int64_t delay_nanos,
                                                      absl::string_view label,
                                                      Closure fn) {
  CheckThread();
  return Enqueue(SaturatingAdd(now_, delay_nanos < 0 ? 0 : delay_nanos),
                 /*is_timer=*/true, label, std::move(fn));
}

bool SimEventLoop::CancelTimer(TimerId id) {
  CheckThread();
  auto t = timer_times_.find(id);
  if (t == timer_times_.end()) return false;
  const int64_t time = t->second;
  timer_times_.erase(t);
  auto bucket = queue_.find(time);
  if (bucket == queue_.end()) return false;  // Unreachable: kept in sync.
  std::deque<Event>& events = bucket->second;
  for (auto it = events.begin(); it != events.end(); ++it) {
    if (it->seq != id) continue;
    Event doomed = std::move(*it);
    events.erase(it);
    if (events.empty()) queue_.erase(bucket);
    --num_pending_;
    if (recorder_ != nullptr) {
      TraceEvent te;
      te.time_nanos = now_;
      te.sequence = id;
      te.kind = SIM_TIMER_CANCEL;
      te.task = options_.task;
      te.fields = {{"label", doomed.label}, {"due", absl::StrCat(time)}};
      te.payload_digest = ClosureDigest(doomed.label);
      recorder_->Record(std::move(te));
    }
    return true;  // `doomed` (and its captures) destroyed here.
  }
  return false;
}

void SimEventLoop::WaitFor(Notification* n) {
  const std::string waiter = wait_labels_.empty()
                                 ? std::string("a Notification")
                                 : wait_labels_.back();
  RunUntilNotified(n, waiter);
}

bool SimEventLoop::MayRun(const char* what) {
  CheckThread();
  if (in_event()) {
    Fail(SimFailure::Kind::kReentrantCall,
         absl::StrCat(what, " called from inside event seq=", current_seq_));
    return false;
  }
  return true;
}

bool SimEventLoop::CanRunNextEvent(const std::string& waiter) {
  SimFailure::Kind kind;
  if (options_.max_events > 0 &&
      events_run_ >= options_.max_events + extra_events_) {
    kind = SimFailure::Kind::kEventBudget;
  } else if (options_.max_virtual_nanos > 0 && !queue_.empty() &&
             queue_.begin()->first >
                 SaturatingAdd(options_.max_virtual_nanos, extra_nanos_)) {
    kind = SimFailure::Kind::kTimeBudget;
  } else {
    return true;
  }
  teardown_allowed_ = false;
  Fail(kind, waiter);
  const bool go_on = teardown_allowed_;  // The handler called AllowTeardown.
  teardown_allowed_ = false;
  return go_on;
}

void SimEventLoop::AllowTeardown(uint64_t extra_events, int64_t extra_nanos) {
  extra_events_ += extra_events;
  extra_nanos_ = SaturatingAdd(extra_nanos_, extra_nanos < 0 ? 0 : extra_nanos);
  teardown_allowed_ = true;
}

// How many times one wait goes on after its failure handler queued work.
constexpr int kMaxDeadlockRecoveries = 4;

bool SimEventLoop::RunUntilNotified(Notification* n, absl::string_view waiter) {
  const std::string what = absl::StrCat("WaitFor(", waiter, ")");
  CheckThread();
  if (!options_.allow_nested_waits && !MayRun(what.c_str())) return false;
  int recoveries = 0;
  while (!n->HasBeenNotified()) {
    if (queue_.empty()) {
      Fail(SimFailure::Kind::kDeadlock, what);
      // A handler may cancel the stuck work (close sessions), which queues
      // the events that let `n` complete: run them rather than return
      // with `n` unnotified. Bounded, in case a handler always queues.
      if (!queue_.empty() && ++recoveries <= kMaxDeadlockRecoveries) continue;
      return false;
    }
    if (!CanRunNextEvent(what)) return false;
    RunNext();
  }
  return true;
}

bool SimEventLoop::Step() {
  if (!MayRun("Step()")) return false;
  if (queue_.empty() || !CanRunNextEvent("Step()")) return false;
  RunNext();
  return true;
}

uint64_t SimEventLoop::RunUntilIdle() {
  if (!MayRun("RunUntilIdle()")) return 0;
  uint64_t ran = 0;
  while (!queue_.empty()) {
    if (!CanRunNextEvent("RunUntilIdle()")) break;
    RunNext();
    ++ran;
  }
  return ran;
}

uint64_t SimEventLoop::RunFor(int64_t nanos) {
  const std::string what = absl::StrCat("RunFor(", nanos, ")");
  if (!MayRun(what.c_str())) return 0;
  const int64_t deadline = SaturatingAdd(now_, nanos < 0 ? 0 : nanos);
  uint64_t ran = 0;
  while (!queue_.empty() && queue_.begin()->first <= deadline) {
    if (!CanRunNextEvent(what)) return ran;
    RunNext();
    ++ran;
  }
  if (deadline > now_) now_ = deadline;
  return ran;
}

void SimEventLoop::RunNext() {
  auto bucket = queue_.begin();
  std::deque<Event>& events = bucket->second;
  const size_t ties = events.size();
  size_t index = 0;
  if (options_.randomize_ties && ties > 1) {
    index = static_cast<size_t>(random_->Uniform(ties));
  }
  Event e = std::move(events[index]);
  events.erase(events.begin() + static_cast<std::ptrdiff_t>(index));
  if (events.empty()) queue_.erase(bucket);
  --num_pending_;
  if (e.is_timer) timer_times_.erase(e.seq);
  if (e.time > now_) now_ = e.time;

  if (recorder_ != nullptr) {
    TraceEvent te;
    te.time_nanos = now_;
    te.sequence = e.seq;
    te.kind = e.is_timer ? SIM_TIMER_FIRE : SIM_SCHEDULER_PICK;
    te.task = options_.task;
    te.fields = {{"label", e.label}, {"ties", absl::StrCat(ties)}};
    te.payload_digest = ClosureDigest(e.label);
    recorder_->Record(std::move(te));
  }
  if (options_.recent_history > 0) {
    if (recent_.size() == options_.recent_history) recent_.pop_front();
    recent_.push_back(
        RecentEvent{e.seq, e.time, e.is_timer, e.label, e.type_name});
  }

  ++events_run_;
  // Saved and restored so that a nested wait (allow_nested_waits) hands the
  // outer event its bookkeeping back.
  const uint64_t outer_seq = current_seq_;
  current_seq_ = e.seq;
  ++event_depth_;
  e.fn();
  --event_depth_;
  current_seq_ = outer_seq;
}

void SimEventLoop::Trace(SimEventKind kind, absl::string_view task,
                         TraceFields fields, uint64_t payload_digest) {
  if (recorder_ == nullptr) return;
  TraceEvent te;
  te.time_nanos = now_;
  te.sequence = current_seq_;
  te.kind = kind;
  te.task = std::string(task);
  te.fields = std::move(fields);
  te.payload_digest = payload_digest;
  recorder_->Record(std::move(te));
}

std::string SimEventLoop::Describe(uint64_t seq, int64_t time, bool is_timer,
                                   const std::string& label,
                                   const char* type_name) {
  return absl::StrCat(
      "t=", time, " seq=", seq, is_timer ? " timer " : " closure ",
      label.empty() ? "" : absl::StrCat("'", label, "' "), Demangle(type_name));
}

std::vector<std::string> SimEventLoop::DescribePending() const {
  std::vector<std::string> out;
  for (const auto& [time, events] : queue_) {
    for (const Event& e : events) {
      out.push_back(Describe(e.seq, e.time, e.is_timer, e.label, e.type_name));
    }
  }
  return out;
}

void SimEventLoop::Fail(SimFailure::Kind kind, const std::string& waiter) {
  ++failures_reported_;
  SimFailure f;
  f.kind = kind;
  f.now_nanos = now_;
  f.events_run = events_run_;
  f.waiter = waiter;
  f.num_pending = num_pending_;
  for (const auto& [time, events] : queue_) {
    for (const Event& e : events) {
      if (f.pending.size() >= options_.max_pending_listed) break;
      f.pending.push_back(
          Describe(e.seq, e.time, e.is_timer, e.label, e.type_name));
    }
  }
  for (const RecentEvent& r : recent_) {
    f.recent.push_back(
        Describe(r.seq, r.time, r.is_timer, r.label, r.type_name));
  }
  std::string detail;
  switch (kind) {
    case SimFailure::Kind::kDeadlock:
      detail =
          "nothing is left to run and the awaited notification never fired";
      break;
    case SimFailure::Kind::kEventBudget:
      detail = absl::StrCat("more than ", options_.max_events,
                            " events ran (livelock, or raise max_events)");
      break;
    case SimFailure::Kind::kTimeBudget:
      detail = absl::StrCat("the next event is due at t=",
                            queue_.empty() ? 0 : queue_.begin()->first,
                            " ns, past the budget of ",
                            options_.max_virtual_nanos, " ns");
      break;
    case SimFailure::Kind::kReentrantCall:
      detail = "the loop must only be driven from outside its events";
      break;
  }
  f.message = absl::StrCat(
      "SimEventLoop failure: ", SimFailureKindName(kind), ": ", detail,
      "\n  virtual time: ", now_, " ns\n  events run: ", events_run_,
      "\n  waiter: ", waiter, "\n  pending (", num_pending_,
      "):", f.pending.empty() ? " none" : "");
  for (const std::string& p : f.pending)
    absl::StrAppend(&f.message, "\n    ", p);
  if (f.pending.size() < num_pending_) {
    absl::StrAppend(&f.message, "\n    ... and ",
                    num_pending_ - f.pending.size(), " more");
  }
  absl::StrAppend(&f.message, "\n  last events run (oldest first):",
                  f.recent.empty() ? " none" : "");
  for (const std::string& r : f.recent)
    absl::StrAppend(&f.message, "\n    ", r);

  Trace(SIM_FAILURE, options_.task,
        {{"kind", SimFailureKindName(kind)},
         {"waiter", waiter},
         {"pending", absl::StrCat(num_pending_)}});
  if (recorder_ != nullptr) recorder_->Flush();
  handler_(f);
}

void SimEventLoop::set_failure_handler(FailureHandler handler) {
  handler_ =
      handler ? std::move(handler) : FailureHandler(DefaultFailureHandler);
}

SimEventLoop::ScopedWaitLabel::ScopedWaitLabel(SimEventLoop* loop,
                                               std::string label)
    : loop_(loop) {
  loop_->wait_labels_.push_back(std::move(label));
}

SimEventLoop::ScopedWaitLabel::~ScopedWaitLabel() {
  loop_->wait_labels_.pop_back();
}

}  // namespace stepflow
