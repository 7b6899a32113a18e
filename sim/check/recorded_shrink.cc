#include "sim/check/recorded_shrink.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/message.h"
#include "runtime/distributed/methods.h"
#include "sim/workloads/recorded_replay.h"

namespace stepflow {
namespace {

// The handles a recorded request names (session, partial run, callable).
std::vector<std::string> NamedHandles(const RecordedCall& c) {
  std::vector<std::string> out;
  std::unique_ptr<google::protobuf::Message> request, response;
  if (!NewRequestAndResponse(c.method, &request, &response).ok() ||
      !request->ParseFromString(c.request)) {
    return out;
  }
  ForEachRequestHandle(request.get(),
                       [&out](std::string* handle) { out.push_back(*handle); });
  return out;
}

RecordedRun Subset(const RecordedRun& run, const std::vector<int>& keep) {
  RecordedRun out = run;
  out.calls.clear();
  for (int i : keep) out.calls.push_back(run.calls[i]);
  return out;
}

class Shrinker {
 public:
  Shrinker(const RecordedRun& run, PlantedBug bug, int max_runs,
           RecordedShrinkResult* result)
      : run_(run), bug_(bug), max_runs_(max_runs), result_(result) {}

  // Whether the calls at `keep` (well-formed) fail; fills *index, *ref and
  // *bugged with the first departure when they do.
  absl::Status Fails(const std::vector<int>& keep, bool* fails,
                     int64_t* index = nullptr, std::string* ref = nullptr,
                     std::string* bugged = nullptr) {
    *fails = false;
    if (keep.empty()) return absl::OkStatus();
    const RecordedRun candidate = Subset(run_, keep);
    RecordedReplayOptions o;
    RecordedReplayResult clean, with_bug;
    absl::Status s = ReplayRecordedRun(candidate, o, &clean);
    if (!s.ok()) return s;
    o.planted_bug = bug_;
    s = ReplayRecordedRun(candidate, o, &with_bug);
    if (!s.ok()) return s;
    result_->runs += 2;
    reference_outcomes_ = clean.outcomes;
    reference_workers_ = clean.worker_answers;
    const size_t n = std::max(clean.replayed.size(), with_bug.replayed.size());
    for (size_t i = 0; i < n; ++i) {
      const std::string none = "<none>";
      const std::string& a =
          i < clean.replayed.size() ? clean.replayed[i] : none;
      const std::string& b =
          i < with_bug.replayed.size() ? with_bug.replayed[i] : none;
      if (a != b) {
        *fails = true;
        if (index != nullptr) *index = static_cast<int64_t>(i);
        if (ref != nullptr) *ref = a;
        if (bugged != nullptr) *bugged = b;
        break;
      }
    }
    return absl::OkStatus();
  }

  bool OutOfRuns() const { return result_->runs + 2 > max_runs_; }
  // The bug-free outcomes of the last candidate tried.
  const std::vector<std::string>& reference_outcomes() const {
    return reference_outcomes_;
  }
  const WorkerAnswers& reference_workers() const { return reference_workers_; }

 private:
  const RecordedRun& run_;
  const PlantedBug bug_;
  const int max_runs_;
  RecordedShrinkResult* const result_;
  std::vector<std::string> reference_outcomes_;
  WorkerAnswers reference_workers_;
};

}  // namespace

std::vector<int> WellFormedCalls(const RecordedRun& run,
                                 const std::vector<int>& keep) {
  std::set<std::string> created_anywhere;
  for (const RecordedCall& c : run.calls) {
    if (!c.handle.empty()) created_anywhere.insert(c.handle);
  }
  std::set<std::string> created;
  std::vector<int> out;
  for (int i : keep) {
    const RecordedCall& c = run.calls[i];
    bool ok = true;
    for (const std::string& h : NamedHandles(c)) {
      if (created_anywhere.count(h) > 0 && created.count(h) == 0) ok = false;
    }
    if (!ok) continue;
    out.push_back(i);
    if (!c.handle.empty()) created.insert(c.handle);
  }
  return out;
}

absl::Status ShrinkRecordedRun(const RecordedRun& run, PlantedBug bug,
                               int max_runs, RecordedShrinkResult* result) {
  *result = RecordedShrinkResult();
  result->original_calls = static_cast<int>(run.calls.size());
  if (bug == PlantedBug::kNone) {
    return absl::InvalidArgumentError("shrinking needs a planted bug");
  }
  Shrinker shrinker(run, bug, max_runs, result);
  std::vector<int> current;
  for (size_t i = 0; i < run.calls.size(); ++i)
    current.push_back(static_cast<int>(i));
  bool fails = false;
  absl::Status s = shrinker.Fails(current, &fails);
  if (!s.ok()) return s;
  if (!fails) {
    return absl::InvalidArgumentError(
        absl::StrCat("the recorded run does not fail with planted bug ",
                     PlantedBugName(bug), ": nothing to shrink"));
  }
  // ddmin over the calls.
  size_t n = 2;
  while (current.size() >= 2) {
    if (shrinker.OutOfRuns()) {
      result->hit_run_limit = true;
      break;
    }
    const size_t chunk = (current.size() + n - 1) / n;
    bool reduced = false;
    for (size_t start = 0; start < current.size() && !reduced; start += chunk) {
      if (shrinker.OutOfRuns()) break;
      std::vector<int> rest;
      for (size_t i = 0; i < current.size(); ++i) {
        if (i < start || i >= start + chunk) rest.push_back(current[i]);
      }
      rest = WellFormedCalls(run, rest);
      if (rest.empty() || rest.size() >= current.size()) continue;
      s = shrinker.Fails(rest, &fails);
      if (!s.ok()) return s;
      if (fails) {
        current = rest;
        n = std::max<size_t>(n - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (n >= current.size()) break;
    n = std::min(n * 2, current.size());
  }
  s = shrinker.Fails(current, &fails, &result->departure_index,
                     &result->reference, &result->with_bug);
  if (!s.ok()) return s;
  // The reduced run records what its calls and the workers answer without
  // the bug (the original answers belong to the whole run): it replays
  // identically without the bug and departs with it.
  result->run = Subset(run, current);
  for (size_t i = 0; i < result->run.calls.size(); ++i) {
    result->run.calls[i].outcome = shrinker.reference_outcomes()[i];
  }
  result->run.worker_calls.clear();
  for (const auto& [key, n] : shrinker.reference_workers()) {
    RecordedCall c;
    std::tie(c.task, c.method, c.outcome) = key;
    result->run.worker_calls.insert(result->run.worker_calls.end(), n, c);
  }
  return absl::OkStatus();
}

}  // namespace stepflow
