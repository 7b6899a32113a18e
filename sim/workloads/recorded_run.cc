#include "sim/workloads/recorded_run.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "runtime/distributed/call_recorder.h"

namespace stepflow {
namespace {

constexpr char kCpusPrefix[] = "cpus@";
constexpr const char* kOptionKeys[] = {
    "session_gc_ns", "health_check_interval_ns", "health_check_max_missed",
    "session_lease_ns"};

int64_t IntOr(const std::string& text, int64_t fallback) {
  int64_t v = 0;
  return absl::SimpleAtoi(text, &v) ? v : fallback;
}

// One file's header and records.
struct RecordingFile {
  std::string path;
  TraceHeader header;
  std::vector<TraceEvent> events;
  bool merged = false;
  std::string task;
  int64_t start = 0;  // Wall nanoseconds (0 for a merged file).
};

absl::Status ReadRecording(const std::string& path, RecordingFile* file) {
  std::unique_ptr<TraceReader> reader;
  absl::Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  file->path = path;
  file->header = reader->header();
  if (!IsRecordedHeader(file->header)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is a simulation trace, not a recorded run"));
  }
  TraceEvent e;
  while (reader->Next(&e)) file->events.push_back(std::move(e));
  // A server killed while writing leaves its last record cut off: what
  // came before it is the recording.
  if (!reader->status().ok() && !absl::IsDataLoss(reader->status())) {
    return reader->status();
  }
  file->merged = file->header.Param("merged") == "1";
  file->task = file->header.Param("task");
  const std::string unix_start = file->header.Param("start_unix_ns");
  file->start = IntOr(
      unix_start.empty() ? file->header.Param("start_clock_ns") : unix_start,
      0);
  if (!file->merged && file->task.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the recording names no task"));
  }
  return absl::OkStatus();
}

RecordedCall CallFromEvent(const TraceEvent& e, int64_t file_start) {
  RecordedCall c;
  c.start_nanos = file_start + e.time_nanos;
  c.end_nanos = file_start + IntOr(e.Field("end_ns"), e.time_nanos);
  c.task = e.task;
  c.method = e.Field("method");
  c.outcome = e.Field("outcome");
  c.handle = e.Field("handle");
  c.request = e.payload;
  c.request_digest = e.payload_digest;
  return c;
}

TraceEvent EventFromCall(const RecordedCall& c) {
  TraceEvent e;
  e.time_nanos = c.start_nanos;
  e.kind = SIM_RPC_DONE;
  e.task = c.task;
  e.fields = {{"method", c.method},
              {"outcome", c.outcome},
              {"end_ns", absl::StrCat(c.end_nanos)}};
  if (!c.handle.empty()) e.fields.push_back({"handle", c.handle});
  e.payload_digest = c.request_digest;
  e.payload = c.request;
  return e;
}

void AddOptions(const TraceHeader& header, RecordedRun* run) {
  for (const char* key : kOptionKeys) {
    const std::string v = header.Param(key);
    int64_t n = 0;
    if (absl::SimpleAtoi(v, &n)) run->options[key] = n;
  }
}

// When the process whose last answer was at `last_end` died (it was
// restarted at `restart`): the first instant after that answer when no
// client call was in flight — a kill between steps — unless a call in
// flight then failed (the process died under it): then right after the
// answer. Never later than the restart.
int64_t CrashTime(const std::vector<RecordedCall>& calls, int64_t last_end,
                  int64_t restart) {
  int64_t at = last_end + 1;
  bool moved = true;
  while (moved && at < restart) {
    moved = false;
    for (const RecordedCall& c : calls) {
      if (c.start_nanos > at || c.end_nanos < at) continue;
      if (!absl::StartsWith(c.outcome, "code=OK")) return at;
      at = c.end_nanos + 1;
      moved = true;
    }
  }
  return std::min(at, restart);
}

}  // namespace

std::string RecordedCall::Describe() const {
  return absl::StrCat(method, " ", outcome);
}

std::string RecordedFault::Describe() const {
  return absl::StrCat(kind == kCrash ? "crash " : "restart ", task);
}

void ForEachRequestHandle(google::protobuf::Message* request,
                          const std::function<void(std::string*)>& visit) {
  const google::protobuf::Descriptor* d = request->GetDescriptor();
  const google::protobuf::Reflection* r = request->GetReflection();
  for (const char* name : {"session_handle", "partial_run_handle"}) {
    const google::protobuf::FieldDescriptor* f = d->FindFieldByName(name);
    if (f == nullptr || f->is_repeated() ||
        f->type() != google::protobuf::FieldDescriptor::TYPE_STRING) {
      continue;
    }
    std::string handle = r->GetString(*request, f);
    visit(&handle);
    r->SetString(request, f, handle);
  }
  const google::protobuf::FieldDescriptor* f = d->FindFieldByName("handle");
  if (f != nullptr && !f->is_repeated() &&
      f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT64) {
    std::string handle = absl::StrCat(r->GetInt64(*request, f));
    visit(&handle);
    int64_t value = 0;
    if (absl::SimpleAtoi(handle, &value)) r->SetInt64(request, f, value);
  }
}

bool IsCountedWorkerAnswer(absl::string_view method) {
  return absl::StartsWith(method, "WorkerService/") &&
         method != "WorkerService/GetStatus";
}

bool IsRecordedHeader(const TraceHeader& header) {
  return header.workload_name == kRecordedWorkload;
}

absl::Status LoadRecordedRun(const std::vector<std::string>& paths,
                             RecordedRun* run) {
  *run = RecordedRun();
  if (paths.empty()) {
    return absl::InvalidArgumentError("a recorded run needs its recordings");
  }
  std::vector<RecordingFile> files(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::Status s = ReadRecording(paths[i], &files[i]);
    if (!s.ok()) return s;
  }
  run->files = static_cast<int>(files.size());
  std::set<std::string> tasks;
  // Per task, its incarnations' files.
  std::map<std::string, std::vector<const RecordingFile*>> incarnations;
  for (const RecordingFile& f : files) {
    for (absl::string_view t :
         absl::StrSplit(f.header.Param("cluster"), ',', absl::SkipEmpty())) {
      tasks.insert(std::string(t));
    }
    if (f.merged) {
      for (const auto& [key, value] : f.header.params) {
        if (absl::StartsWith(key, kCpusPrefix)) {
          run->cpus[key.substr(strlen(kCpusPrefix))] =
              static_cast<int>(IntOr(value, 1));
        }
      }
      run->master_task = f.header.Param("master");
      AddOptions(f.header, run);
      for (const TraceEvent& e : f.events) {
        if (e.kind == SIM_FAULT) {
          RecordedFault fault;
          fault.at_nanos = e.time_nanos;
          fault.kind = e.Field("fault") == "restart" ? RecordedFault::kRestart
                                                     : RecordedFault::kCrash;
          fault.task = e.task;
          fault.answers = IntOr(e.Field("answers"), -1);
          run->faults.push_back(fault);
          continue;
        }
        RecordedCall c = CallFromEvent(e, 0);
        (absl::StartsWith(c.method, "MasterService/") ? run->calls
                                                      : run->worker_calls)
            .push_back(std::move(c));
      }
      continue;
    }
    tasks.insert(f.task);
    run->cpus[f.task] = static_cast<int>(IntOr(f.header.Param("cpus"), 1));
    incarnations[f.task].push_back(&f);
  }
  // One timeline: the earliest recording's start is 0.
  int64_t base = 0;
  bool have_base = false;
  for (const RecordingFile& f : files) {
    if (f.merged) continue;
    if (!have_base || f.start < base) base = f.start;
    have_base = true;
  }
  // (last answer of the earlier incarnation, (its answers, the restart)).
  std::vector<std::pair<int64_t, std::pair<int64_t, RecordedFault>>> restarts;
  for (auto& [task, list] : incarnations) {
    std::sort(list.begin(), list.end(),
              [](const RecordingFile* a, const RecordingFile* b) {
                return a->start < b->start;
              });
    for (size_t k = 0; k < list.size(); ++k) {
      const RecordingFile& f = *list[k];
      int64_t last_end = f.start - base;
      int64_t answers = 0;
      for (const TraceEvent& e : f.events) {
        RecordedCall c = CallFromEvent(e, f.start - base);
        last_end = std::max(last_end, c.end_nanos);
        if (IsCountedWorkerAnswer(c.method)) ++answers;
        if (absl::StartsWith(c.method, "MasterService/")) {
          if (run->master_task.empty()) {
            run->master_task = c.task;
            AddOptions(f.header, run);
          }
          run->calls.push_back(std::move(c));
        } else {
          run->worker_calls.push_back(std::move(c));
        }
      }
      if (k + 1 < list.size()) {
        RecordedFault up;
        up.kind = RecordedFault::kRestart;
        up.task = task;
        up.at_nanos = list[k + 1]->start - base;
        restarts.push_back({last_end, {answers, up}});
      }
    }
  }
  for (const auto& [last_end, restart] : restarts) {
    const auto& [answers, up] = restart;
    RecordedFault crash = up;
    crash.kind = RecordedFault::kCrash;
    crash.answers = answers;
    crash.at_nanos = CrashTime(run->calls, last_end, up.at_nanos);
    run->faults.push_back(crash);
    run->faults.push_back(up);
  }
  for (const RecordedCall& c : run->calls) {
    if (c.task != run->master_task) {
      return absl::InvalidArgumentError(
          absl::StrCat("client calls were served by ", run->master_task,
                       " and by ", c.task, ": a replay drives one master"));
    }
  }
  run->tasks.assign(tasks.begin(), tasks.end());
  for (const std::string& t : run->tasks) {
    if (run->cpus.count(t) == 0) run->cpus[t] = 1;
  }
  if (!run->master_task.empty() && tasks.count(run->master_task) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the master ", run->master_task, " is not in the recorded cluster"));
  }
  auto by_time = [](const RecordedCall& a, const RecordedCall& b) {
    return a.start_nanos != b.start_nanos ? a.start_nanos < b.start_nanos
                                          : a.end_nanos < b.end_nanos;
  };
  std::stable_sort(run->calls.begin(), run->calls.end(), by_time);
  std::stable_sort(run->worker_calls.begin(), run->worker_calls.end(), by_time);
  std::stable_sort(run->faults.begin(), run->faults.end(),
                   [](const RecordedFault& a, const RecordedFault& b) {
                     return a.at_nanos < b.at_nanos;
                   });
  return absl::OkStatus();
}

absl::Status WriteRecordedRun(const std::string& path, const RecordedRun& run) {
  TraceHeader header;
  header.workload_name = kRecordedWorkload;
  header.workload =
      absl::StrCat("recorded run of ", run.tasks.size(), " tasks (merged)");
  header.params = {{"merged", "1"},
                   {"cluster", absl::StrJoin(run.tasks, ",")},
                   {"master", run.master_task}};
  for (const auto& [task, n] : run.cpus) {
    header.params.push_back({absl::StrCat(kCpusPrefix, task), absl::StrCat(n)});
  }
  for (const auto& [key, value] : run.options) {
    header.params.push_back({key, absl::StrCat(value)});
  }
  std::vector<TraceEvent> events;
  for (const RecordedCall& c : run.calls) events.push_back(EventFromCall(c));
  for (const RecordedCall& c : run.worker_calls)
    events.push_back(EventFromCall(c));
  for (const RecordedFault& f : run.faults) {
    TraceEvent e;
    e.time_nanos = f.at_nanos;
    e.kind = SIM_FAULT;
    e.task = f.task;
    e.fields = {
        {"fault", f.kind == RecordedFault::kCrash ? "crash" : "restart"}};
    if (f.answers >= 0) {
      e.fields.push_back({"answers", absl::StrCat(f.answers)});
    }
    events.push_back(std::move(e));
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const TraceEvent& a, const TraceEvent& b) {
                     return a.time_nanos < b.time_nanos;
                   });
  TraceRecorder recorder;
  absl::Status s = recorder.OpenFile(path, header);
  if (!s.ok()) return s;
  for (TraceEvent& e : events) recorder.Record(std::move(e));
  return recorder.Close();
}

}  // namespace stepflow
