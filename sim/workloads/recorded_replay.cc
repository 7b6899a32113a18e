#include "sim/workloads/recorded_replay.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/message.h"
#include "runtime/distributed/call_outcome.h"
#include "runtime/distributed/methods.h"
#include "runtime/env/notification.h"
#include "runtime/framework/fnv64.h"
#include "sim/env/sim_env.h"
#include "sim/workloads/sim_cluster.h"

namespace stepflow {
namespace {

constexpr char kNoAnswer[] = "<no answer>";
// Every message's latency (loopback-like, see BuildCluster).
constexpr int64_t kLatencyNanos = 50 * 1000;
// After the last recorded item, how long the replay waits for answers.
constexpr int64_t kDrainNanos = int64_t{120} * 1000 * 1000 * 1000;

// One thing the replay does: a client call or a fault.
struct Item {
  int64_t start = 0;
  int64_t end = 0;
  int call = -1;           // Index into run.calls, or
  int fault = -1;          // into run.faults.
  std::vector<int> after;  // Items that ended before this one started.
  bool issued = false;
  bool done = false;
  bool timer = false;  // A wake-up at `start` is pending.
};

class RecordedReplay {
 public:
  RecordedReplay(const RecordedRun& run, const RecordedReplayOptions& options,
                 RecordedReplayResult* result)
      : run_(run), result_(result), sim_(options.seed, LoopOptions(run)) {}

  absl::Status Run();

 private:
  static SimEventLoop::Options LoopOptions(const RecordedRun& run) {
    SimEventLoop::Options o;
    o.task = "replay";
    int64_t last = 0;
    for (const RecordedCall& c : run.calls) last = std::max(last, c.end_nanos);
    for (const RecordedFault& f : run.faults) last = std::max(last, f.at_nanos);
    o.max_virtual_nanos = last + 2 * kDrainNanos;
    return o;
  }

  absl::Status BuildCluster();
  void BuildItems();
  void Pump();
  void Issue(int k);
  void Call(int k);
  void Fault(int k);
  void Finish(int k);
  // The counted answers after which the pending crash of `task` comes
  // (-1: none pending, or its count unknown).
  int64_t CrashAnswersAwaited(const std::string& task) const;
  // Whether `fault` is a crash whose task has given as many answers as its
  // recorded incarnation did (it then comes before its recorded time).
  bool CrashPointReached(const RecordedFault& fault) const;
  // The recorded handles in `request` replaced by the replay's.
  void TranslateHandles(google::protobuf::Message* request) const;

  const RecordedRun& run_;
  RecordedReplayResult* const result_;
  SimEnv sim_;
  std::unique_ptr<SimCluster> cluster_;
  std::map<std::string, int> worker_index_;
  std::vector<Item> items_;
  int left_ = 0;
  Notification all_done_;
  // Recorded handle -> the replay's.
  std::map<std::string, std::string> handles_;
  // The recorded workers' compared answers (the replayed ones are in
  // result_->worker_answers).
  WorkerAnswers recorded_workers_;
  // Tasks crashed and not yet restarted.
  int tasks_down_ = 0;
  // Since a client call that was in flight at a recorded crash was issued,
  // until the next client call that started after its end is: the
  // recorded end of that call (-1: none such now).
  int64_t interrupted_until_ = -1;
  // Per task, the counted answers (IsCountedWorkerAnswer) its live
  // incarnation gave.
  std::map<std::string, int64_t> answers_;
};

// Worker answers the comparison leaves out: heartbeats (how many follows
// real time), error answers while a crashed task is down, and every answer
// during a client call the crash interrupted, and its clean-up, until the
// next client call — how many calls were in flight at the instant of the
// kill, and how far the interrupted step had got on each task, the
// recording does not know.
bool ComparedWorkerAnswer(const std::string& method, bool ok, bool task_down,
                          bool during_interrupted_call) {
  return IsCountedWorkerAnswer(method) && (ok || !task_down) &&
         !during_interrupted_call;
}

// Whether client call `c` was in flight at a recorded crash.
bool InterruptedByCrash(const RecordedRun& run, const RecordedCall& c) {
  for (const RecordedFault& f : run.faults) {
    if (f.kind == RecordedFault::kCrash && c.start_nanos <= f.at_nanos &&
        f.at_nanos <= c.end_nanos) {
      return true;
    }
  }
  return false;
}

// Whether a worker call that started at `start` did so during a client
// call the crash interrupted, or after it before the next client call (its
// step's clean-up).
bool DuringInterruptedCall(const RecordedRun& run, int64_t start) {
  for (const RecordedCall& c : run.calls) {
    if (c.start_nanos > start || !InterruptedByCrash(run, c)) continue;
    int64_t until = std::numeric_limits<int64_t>::max();
    for (const RecordedCall& next : run.calls) {
      if (next.start_nanos > c.end_nanos)
        until = std::min(until, next.start_nanos);
    }
    if (start < until) return true;
  }
  return false;
}

// Whether [start, end] meets a recorded crash window (crash to restart).
bool MeetsCrashWindow(const RecordedRun& run, int64_t start, int64_t end) {
  for (size_t i = 0; i < run.faults.size(); ++i) {
    const RecordedFault& crash = run.faults[i];
    if (crash.kind != RecordedFault::kCrash) continue;
    int64_t restart = std::numeric_limits<int64_t>::max();
    for (size_t j = i + 1; j < run.faults.size(); ++j) {
      if (run.faults[j].kind == RecordedFault::kRestart &&
          run.faults[j].task == crash.task) {
        restart = run.faults[j].at_nanos;
        break;
      }
    }
    if (end >= crash.at_nanos && start <= restart) return true;
  }
  return false;
}

absl::Status RecordedReplay::BuildCluster() {
  if (run_.tasks.empty() || run_.tasks.size() > 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("the simulator hosts 1..8 tasks; the recording has ",
                     run_.tasks.size()));
  }
  SimClusterOptions co;
  co.cpus.clear();
  for (const std::string& t : run_.tasks) {
    worker_index_[t] = static_cast<int>(co.worker_tasks.size());
    co.worker_tasks.push_back(t);
    co.cpus.push_back(std::max(1, run_.cpus.at(t)));
  }
  auto option = [this](const char* key) -> int64_t {
    auto it = run_.options.find(key);
    return it == run_.options.end() ? 0 : it->second;
  };
  // Loopback-like: every message takes the same short time, so what a
  // real cluster learns at once (a dead task refuses a connection) comes
  // before what takes several hops, as it did in the recorded run.
  co.network.min_latency_nanos = kLatencyNanos;
  co.network.tail_scale_nanos = 0;
  co.network.max_extra_latency_nanos = 0;
  co.master.task = run_.master_task;
  co.master.session_gc_nanos = option("session_gc_ns");
  co.master.health_check_interval_nanos = option("health_check_interval_ns");
  if (option("health_check_max_missed") > 0) {
    co.master.health_check_max_missed =
        static_cast<int>(option("health_check_max_missed"));
  }
  co.worker.session_lease_nanos = option("session_lease_ns");
  co.on_worker_answer = [this](const std::string& task,
                               const std::string& method,
                               const absl::Status& s) {
    // The recorded incarnation died after as many answers: this answer is
    // on its way, the crash may come now.
    if (IsCountedWorkerAnswer(method) &&
        ++answers_[task] == CrashAnswersAwaited(task)) {
      Pump();
    }
    if (!ComparedWorkerAnswer(method, s.ok(), tasks_down_ > 0,
                              interrupted_until_ >= 0)) {
      return;
    }
    ++result_->worker_answers[{
        task, method,
        absl::StrCat("code=", absl::StatusCodeToString(s.code()))}];
  };
  return SimCluster::Create(&sim_, co, &cluster_);
}

void RecordedReplay::BuildItems() {
  for (size_t i = 0; i < run_.calls.size(); ++i) {
    Item it;
    it.start = run_.calls[i].start_nanos;
    it.end = std::max(it.start, run_.calls[i].end_nanos);
    it.call = static_cast<int>(i);
    items_.push_back(it);
  }
  for (size_t i = 0; i < run_.faults.size(); ++i) {
    Item it;
    it.start = it.end = run_.faults[i].at_nanos;
    it.fault = static_cast<int>(i);
    items_.push_back(it);
  }
  // Recorded start order; a fault before a call that starts with it.
  std::stable_sort(items_.begin(), items_.end(),
                   [](const Item& a, const Item& b) {
                     if (a.start != b.start) return a.start < b.start;
                     return a.fault >= 0 && b.fault < 0;
                   });
  for (size_t k = 0; k < items_.size(); ++k) {
    for (size_t j = 0; j < k; ++j) {
      // Faults are instants: one at the same time as a call's start still
      // comes first (sorted above).
      if (items_[j].end < items_[k].start ||
          (items_[j].fault >= 0 && items_[j].end <= items_[k].start)) {
        items_[k].after.push_back(static_cast<int>(j));
      }
    }
  }
  left_ = static_cast<int>(items_.size());
}

int64_t RecordedReplay::CrashAnswersAwaited(const std::string& task) const {
  for (const Item& it : items_) {
    if (it.fault < 0 || it.issued) continue;
    const RecordedFault& f = run_.faults[it.fault];
    if (f.task == task) {
      return f.kind == RecordedFault::kCrash ? f.answers : -1;
    }
  }
  return -1;
}

bool RecordedReplay::CrashPointReached(const RecordedFault& fault) const {
  if (fault.kind != RecordedFault::kCrash || fault.answers < 0) return false;
  auto it = answers_.find(fault.task);
  return (it == answers_.end() ? 0 : it->second) >= fault.answers;
}

void RecordedReplay::Pump() {
  for (size_t k = 0; k < items_.size(); ++k) {
    Item& it = items_[k];
    if (it.issued) continue;
    bool ready = true;
    for (int j : it.after) {
      if (!items_[j].done) {
        ready = false;
        break;
      }
    }
    if (!ready) continue;
    const int64_t now = sim_.loop.NowNanos();
    if (it.fault >= 0 && CrashPointReached(run_.faults[it.fault])) {
      Issue(static_cast<int>(k));
      continue;
    }
    if (now < it.start) {
      if (!it.timer) {
        it.timer = true;
        sim_.loop.ScheduleAfterLabeled(it.start - now, "recorded item",
                                       [this] { Pump(); });
      }
      continue;
    }
    Issue(static_cast<int>(k));
  }
}

void RecordedReplay::Issue(int k) {
  items_[k].issued = true;
  if (items_[k].call >= 0) {
    Call(k);
  } else {
    Fault(k);
  }
}

void RecordedReplay::TranslateHandles(
    google::protobuf::Message* request) const {
  ForEachRequestHandle(request, [this](std::string* handle) {
    auto it = handles_.find(*handle);
    if (it != handles_.end()) *handle = it->second;
  });
}

void RecordedReplay::Call(int k) {
  const RecordedCall& c = run_.calls[items_[k].call];
  std::unique_ptr<google::protobuf::Message> request;
  std::shared_ptr<google::protobuf::Message> response;
  {
    std::unique_ptr<google::protobuf::Message> resp;
    absl::Status s = NewRequestAndResponse(c.method, &request, &resp);
    if (s.ok() && !request->ParseFromString(c.request)) {
      s = absl::DataLossError("the recorded request does not parse");
    }
    if (!s.ok()) {
      result_->replayed[items_[k].call] =
          absl::StrCat(c.method, " <not replayable: ", s.message(), ">");
      Finish(k);
      return;
    }
    response = std::move(resp);
  }
  TranslateHandles(request.get());
  if (interrupted_until_ >= 0 && c.start_nanos > interrupted_until_) {
    interrupted_until_ = -1;
  }
  if (InterruptedByCrash(run_, c)) {
    interrupted_until_ = std::max(interrupted_until_, c.end_nanos);
  }
  CallOptions options;  // The recorded client's deadlines are not known.
  cluster_->client_env()->transport->Call(
      SimCluster::kMasterTask, c.method, *request, response.get(), options,
      [this, k, response](const absl::Status& s) {
        const RecordedCall& c = run_.calls[items_[k].call];
        std::string& outcome = result_->outcomes[items_[k].call];
        outcome = DescribeCallOutcome(c.method, s, *response);
        result_->replayed[items_[k].call] =
            absl::StrCat(c.method, " ", outcome);
        if (s.ok() && !c.handle.empty()) {
          handles_[c.handle] = CallResultHandle(c.method, *response);
        }
        Finish(k);
      });
}

void RecordedReplay::Fault(int k) {
  const RecordedFault& f = run_.faults[items_[k].fault];
  sim_.loop.Trace(
      SIM_FAULT, f.task,
      {{"fault", f.kind == RecordedFault::kCrash ? "crash" : "restart"},
       {"source", "recording"}});
  auto w = worker_index_.find(f.task);
  const bool master = f.task == run_.master_task;
  if (f.kind == RecordedFault::kCrash) {
    ++tasks_down_;
    answers_[f.task] = 0;
    if (w != worker_index_.end()) cluster_->CrashWorker(w->second);
    if (master) cluster_->CrashMaster();
  } else {
    tasks_down_ = std::max(0, tasks_down_ - 1);
    if (w != worker_index_.end())
      cluster_->RestartWorker(w->second).IgnoreError();
    if (master) cluster_->RestartMaster().IgnoreError();
  }
  ++result_->faults_applied;
  Finish(k);
}

void RecordedReplay::Finish(int k) {
  items_[k].done = true;
  if (--left_ == 0) {
    all_done_.Notify();
    return;
  }
  Pump();
}

absl::Status RecordedReplay::Run() {
  if (run_.calls.empty()) {
    return absl::InvalidArgumentError("the recording holds no client call");
  }
  absl::Status s = BuildCluster();
  if (!s.ok()) return s;
  result_->recorded.clear();
  for (const RecordedCall& c : run_.calls)
    result_->recorded.push_back(c.Describe());
  result_->replayed.assign(run_.calls.size(), "");
  result_->outcomes.assign(run_.calls.size(), kNoAnswer);
  for (size_t i = 0; i < run_.calls.size(); ++i) {
    result_->replayed[i] = absl::StrCat(run_.calls[i].method, " ", kNoAnswer);
  }
  result_->worker_calls_recorded =
      static_cast<int64_t>(run_.worker_calls.size());
  for (const RecordedCall& c : run_.worker_calls) {
    const std::string code = c.outcome.substr(0, c.outcome.find(' '));
    if (!ComparedWorkerAnswer(
            c.method, code == "code=OK",
            MeetsCrashWindow(run_, c.start_nanos, c.end_nanos),
            DuringInterruptedCall(run_, c.start_nanos))) {
      continue;
    }
    ++recorded_workers_[{c.task, c.method, code}];
  }
  BuildItems();
  bool failed = false;
  sim_.loop.set_failure_handler([this, &failed](const SimFailure&) {
    failed = true;
    sim_.loop.AllowTeardown(1000000, kDrainNanos);
  });
  sim_.loop.Schedule([this] { Pump(); });
  if (!failed) sim_.loop.RunUntilNotified(&all_done_, "recorded calls");
  result_->rpcs = cluster_->network()->stats().calls;
  result_->virtual_nanos = sim_.loop.NowNanos();
  result_->events_run = sim_.loop.events_run();
  cluster_.reset();
  result_->client_calls = static_cast<int64_t>(run_.calls.size());
  if (!run_.worker_calls.empty()) {  // Else the workers were not recorded.
    std::set<WorkerAnswers::key_type> keys;
    for (const auto& [key, n] : recorded_workers_) keys.insert(key);
    for (const auto& [key, n] : result_->worker_answers) keys.insert(key);
    for (const auto& key : keys) {
      const std::string line =
          absl::StrCat("worker-side: ", std::get<0>(key), " ", std::get<1>(key),
                       " ", std::get<2>(key), " x");
      auto r = recorded_workers_.find(key);
      auto p = result_->worker_answers.find(key);
      result_->recorded.push_back(
          absl::StrCat(line, r == recorded_workers_.end() ? 0 : r->second));
      result_->replayed.push_back(absl::StrCat(
          line, p == result_->worker_answers.end() ? 0 : p->second));
    }
  }
  result_->divergence_index = -1;
  Fnv64 h;
  for (size_t i = 0; i < result_->replayed.size(); ++i) {
    h.UpdateString(result_->replayed[i]);
    if (result_->divergence_index < 0 &&
        result_->replayed[i] != result_->recorded[i]) {
      result_->divergence_index = static_cast<int64_t>(i);
    }
  }
  result_->hash = h.value();
  return absl::OkStatus();
}

}  // namespace

absl::Status ReplayRecordedRun(const RecordedRun& run,
                               const RecordedReplayOptions& options,
                               RecordedReplayResult* result) {
  *result = RecordedReplayResult();
  ScopedPlantedBug bug(options.planted_bug);
  RecordedReplay replay(run, options, result);
  return replay.Run();
}

std::string DescribeRecordedRun(const RecordedRun& run, bool worker_calls) {
  struct Line {
    int64_t at;
    std::string text;
  };
  std::vector<Line> lines;
  auto call_line = [](const char* who, const RecordedCall& c) {
    return absl::StrFormat("%.6fs-%.6fs %s %s %s", c.start_nanos / 1e9,
                           c.end_nanos / 1e9, who, c.task, c.Describe());
  };
  for (const RecordedCall& c : run.calls) {
    lines.push_back({c.start_nanos, call_line("client", c)});
  }
  if (worker_calls) {
    for (const RecordedCall& c : run.worker_calls) {
      lines.push_back({c.start_nanos, call_line("  peer", c)});
    }
  }
  for (const RecordedFault& f : run.faults) {
    lines.push_back(
        {f.at_nanos,
         absl::StrFormat("%.6fs FAULT %s", f.at_nanos / 1e9, f.Describe())});
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line& a, const Line& b) { return a.at < b.at; });
  std::string out;
  for (const Line& l : lines) absl::StrAppend(&out, l.text, "\n");
  return out;
}

std::string DescribeRecordedReplay(const RecordedRun& run,
                                   const RecordedReplayResult& r) {
  std::string out =
      absl::StrCat("recorded run: ", run.tasks.size(), " tasks, master ",
                   run.master_task, ", ", run.calls.size(), " client calls, ",
                   run.worker_calls.size(), " worker calls, ",
                   run.faults.size(), " faults (", run.files, " files)\n");
  for (const RecordedFault& f : run.faults) {
    absl::StrAppend(&out, absl::StrFormat("  fault at %.3fs: %s\n",
                                          f.at_nanos / 1e9, f.Describe()));
  }
  if (r.divergence_index >= 0) {
    const size_t i = static_cast<size_t>(r.divergence_index);
    absl::StrAppend(
        &out, "DEPARTS at event ", i, " of ", r.recorded.size(),
        i < static_cast<size_t>(r.client_calls) && i < run.calls.size()
            ? absl::StrFormat(" (client call %d, recorded at %.6fs-%.6fs)", i,
                              run.calls[i].start_nanos / 1e9,
                              run.calls[i].end_nanos / 1e9)
            : " (worker-side answers)",
        "\n  recorded: ", r.recorded[i], "\n  replayed: ", r.replayed[i], "\n");
  } else {
    absl::StrAppend(
        &out, "replays identically: ", r.recorded.size(), " events (",
        r.client_calls, " client calls with their outcomes, ",
        r.recorded.size() - r.client_calls, " worker-side answer counts)\n");
  }
  absl::StrAppend(
      &out, absl::StrFormat("simulated: %d network calls, %d events, %.3fs "
                            "virtual, %d faults applied, hash=%016x\n",
                            r.rpcs, r.events_run, r.virtual_nanos / 1e9,
                            r.faults_applied, r.hash));
  return out;
}

}  // namespace stepflow
