#include "sim/env/event_loop.h"

#include <cxxabi.h>

#include <algorithm>
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
  while (num_pending_ > 0) {
    std::deque<Event> doomed;
    doomed.swap(slots_);
    free_slots_.clear();
    due_.clear();
    later_.clear();
    timer_slots_.clear();
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
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Event& e = slots_[slot];
  const uint64_t seq = next_seq_++;
  e.seq = seq;
  e.time = time;
  e.is_timer = is_timer;
  e.label.assign(label.data(), label.size());
  e.type_name = TypeName(fn);
  e.fn = std::move(fn);
  if (is_timer) timer_slots_[seq] = slot;
  // Times are never before now_, which is due_time_ while due_ is open:
  // an event due then joins the open time, in sequence order.
  if (!due_.empty() && time == due_time_) {
    due_.push_back(slot);
  } else {
    later_.push_back(LaterEntry{time, seq, slot});
    std::push_heap(later_.begin(), later_.end(), LaterAfter());
  }
  ++num_pending_;
  return seq;
}

void SimEventLoop::DropStaleLater() {
  while (!later_.empty() &&
         slots_[later_.front().slot].seq != later_.front().seq) {
    std::pop_heap(later_.begin(), later_.end(), LaterAfter());
    later_.pop_back();
  }
}

int64_t SimEventLoop::EarliestTime() {
  if (!due_.empty()) return due_time_;
  DropStaleLater();
  return later_.front().time;
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
  auto t = timer_slots_.find(id);
  if (t == timer_slots_.end()) return false;
  const uint32_t slot = t->second;
  timer_slots_.erase(t);
  Event& e = slots_[slot];
  const int64_t time = e.time;
  if (!due_.empty() && time == due_time_) {
    auto it = std::find(due_.begin(), due_.end(), slot);
    if (it != due_.end()) due_.erase(it);
  }  // Else its entry in later_ goes stale with the slot.
  Closure doomed = std::move(e.fn);
  e.fn = nullptr;
  e.seq = 0;
  --num_pending_;
  if (recorder_ != nullptr) {
    const TraceFieldRef fields[] = {{"label", e.label}, {"due", time}};
    recorder_->Record(TraceRecordView{now_, id, SIM_TIMER_CANCEL, options_.task,
                                      fields, ClosureDigest(e.label)});
  }
  free_slots_.push_back(slot);
  return true;  // `doomed` (and its captures) destroyed here.
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
  } else if (options_.max_virtual_nanos > 0 && num_pending_ > 0 &&
             EarliestTime() >
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
    if (num_pending_ == 0) {
      Fail(SimFailure::Kind::kDeadlock, what);
      // A handler may cancel the stuck work (close sessions), which queues
      // the events that let `n` complete: run them rather than return
      // with `n` unnotified. Bounded, in case a handler always queues.
      if (num_pending_ > 0 && ++recoveries <= kMaxDeadlockRecoveries) continue;
      return false;
    }
    if (!CanRunNextEvent(what)) return false;
    RunNext();
  }
  return true;
}

bool SimEventLoop::Step() {
  if (!MayRun("Step()")) return false;
  if (num_pending_ == 0 || !CanRunNextEvent("Step()")) return false;
  RunNext();
  return true;
}

uint64_t SimEventLoop::RunUntilIdle() {
  if (!MayRun("RunUntilIdle()")) return 0;
  uint64_t ran = 0;
  while (num_pending_ > 0) {
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
  while (num_pending_ > 0 && EarliestTime() <= deadline) {
    if (!CanRunNextEvent(what)) return ran;
    RunNext();
    ++ran;
  }
  if (deadline > now_) now_ = deadline;
  return ran;
}

void SimEventLoop::RunNext() {
  if (due_.empty()) {
    // Open the earliest time: every live event due then, in sequence order
    // (the heap pops equal times by sequence).
    DropStaleLater();
    due_time_ = later_.front().time;
    while (!later_.empty() && later_.front().time == due_time_) {
      const LaterEntry top = later_.front();
      std::pop_heap(later_.begin(), later_.end(), LaterAfter());
      later_.pop_back();
      if (slots_[top.slot].seq == top.seq) due_.push_back(top.slot);
      DropStaleLater();
    }
  }
  const size_t ties = due_.size();
  size_t index = 0;
  if (options_.randomize_ties && ties > 1) {
    index = static_cast<size_t>(random_->Uniform(ties));
  }
  const uint32_t slot = due_[index];
  due_.erase(due_.begin() + static_cast<std::ptrdiff_t>(index));
  Event& e = slots_[slot];
  --num_pending_;
  const uint64_t seq = e.seq;
  if (e.is_timer) timer_slots_.erase(seq);
  if (e.time > now_) now_ = e.time;

  if (recorder_ != nullptr) {
    const TraceFieldRef fields[] = {{"label", e.label}, {"ties", ties}};
    recorder_->Record(TraceRecordView{
        now_, seq, e.is_timer ? SIM_TIMER_FIRE : SIM_SCHEDULER_PICK,
        options_.task, fields, ClosureDigest(e.label)});
  }
  if (options_.recent_history > 0) {
    if (recent_.size() < options_.recent_history) recent_.emplace_back();
    RecentEvent& r = recent_[recent_next_];
    recent_next_ = (recent_next_ + 1) % options_.recent_history;
    r.seq = seq;
    r.time = e.time;
    r.is_timer = e.is_timer;
    r.label = e.label;
    r.type_name = e.type_name;
  }

  // The slot is free again before the closure runs (which may schedule
  // into it); the closure itself, and its captures, last until it returns.
  Closure fn = std::move(e.fn);
  e.fn = nullptr;
  e.seq = 0;
  free_slots_.push_back(slot);

  ++events_run_;
  // Saved and restored so that a nested wait (allow_nested_waits) hands the
  // outer event its bookkeeping back.
  const uint64_t outer_seq = current_seq_;
  current_seq_ = seq;
  ++event_depth_;
  fn();
  --event_depth_;
  current_seq_ = outer_seq;
}

void SimEventLoop::Trace(SimEventKind kind, absl::string_view task,
                         absl::Span<const TraceFieldRef> fields,
                         uint64_t payload_digest) {
  if (recorder_ == nullptr) return;
  recorder_->Record(
      TraceRecordView{now_, current_seq_, kind, task, fields, payload_digest});
}

void SimEventLoop::Trace(SimEventKind kind, absl::string_view task,
                         const TraceFields& fields, uint64_t payload_digest) {
  if (recorder_ == nullptr) return;
  Trace(kind, task, TraceFieldRefs(fields), payload_digest);
}

std::string SimEventLoop::Describe(uint64_t seq, int64_t time, bool is_timer,
                                   const std::string& label,
                                   const char* type_name) {
  return absl::StrCat(
      "t=", time, " seq=", seq, is_timer ? " timer " : " closure ",
      label.empty() ? "" : absl::StrCat("'", label, "' "), Demangle(type_name));
}

std::vector<uint32_t> SimEventLoop::PendingInOrder() const {
  std::vector<uint32_t> pending;
  for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
    if (slots_[slot].seq != 0) pending.push_back(slot);
  }
  std::sort(pending.begin(), pending.end(), [this](uint32_t a, uint32_t b) {
    const Event& x = slots_[a];
    const Event& y = slots_[b];
    return x.time != y.time ? x.time < y.time : x.seq < y.seq;
  });
  return pending;
}

std::vector<std::string> SimEventLoop::DescribePending() const {
  std::vector<std::string> out;
  for (uint32_t slot : PendingInOrder()) {
    const Event& e = slots_[slot];
    out.push_back(Describe(e.seq, e.time, e.is_timer, e.label, e.type_name));
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
  for (uint32_t slot : PendingInOrder()) {
    if (f.pending.size() >= options_.max_pending_listed) break;
    const Event& e = slots_[slot];
    f.pending.push_back(
        Describe(e.seq, e.time, e.is_timer, e.label, e.type_name));
  }
  for (size_t i = 0; i < recent_.size(); ++i) {  // Oldest first.
    const RecentEvent& r = recent_[(recent_next_ + i) % recent_.size()];
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
      detail = absl::StrCat(
          "the next event is due at t=", num_pending_ == 0 ? 0 : EarliestTime(),
          " ns, past the budget of ", options_.max_virtual_nanos, " ns");
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
         {"pending", num_pending_}});
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
