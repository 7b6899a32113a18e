#include "sim/trace/replay.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/sim_trace.pb.h"

namespace stepflow {
namespace {

SimTraceHeader ToProto(const TraceHeader& h) {
  SimTraceHeader p;
  p.set_format(kSimPlanFormat);
  p.set_seed(h.seed);
  p.set_workload(h.workload);
  p.set_workload_name(h.workload_name);
  p.set_plan(h.plan);
  for (const auto& [key, value] : h.params) {
    SimTraceField* f = p.add_params();
    f->set_key(key);
    f->set_value(value);
  }
  return p;
}

TraceHeader FromProto(const SimTraceHeader& p) {
  TraceHeader h;
  h.seed = p.seed();
  h.workload = p.workload();
  h.workload_name = p.workload_name();
  h.plan = p.plan();
  for (const SimTraceField& f : p.params())
    h.params.emplace_back(f.key(), f.value());
  return h;
}

// A plan file's header, or NotFound/DataLoss.
absl::Status ReadPlanFile(const std::string& path, TraceHeader* header) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    return absl::NotFoundError(absl::StrCat("Cannot open ", path));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  SimTraceHeader p;
  if (!p.ParseFromString(buffer.str()) || p.format() != kSimPlanFormat) {
    return absl::DataLossError(absl::StrCat(
        path, " is neither a stepflow simulation trace nor a plan file"));
  }
  *header = FromProto(p);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSpecFile(const std::string& path, const SimRunSpec& spec,
                           const std::string& plan) {
  const SimTraceHeader p = ToProto(SpecTraceHeader(spec, plan));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.is_open()) {
    return absl::UnavailableError(absl::StrCat("Cannot create ", path));
  }
  if (!p.SerializeToOstream(&out)) {
    return absl::DataLossError(absl::StrCat("Writing ", path, " failed"));
  }
  out.close();
  if (out.fail()) {
    return absl::DataLossError(absl::StrCat("Writing ", path, " failed"));
  }
  return absl::OkStatus();
}

absl::Status ReadSpecFile(const std::string& path, SimRunSpec* spec,
                          bool* is_trace) {
  std::unique_ptr<TraceReader> reader;
  absl::Status s = TraceReader::Open(path, &reader);
  TraceHeader header;
  if (s.ok()) {
    *is_trace = true;
    header = reader->header();
  } else if (absl::IsDataLoss(s)) {
    *is_trace = false;
    s = ReadPlanFile(path, &header);
    if (!s.ok()) return s;
  } else {
    return s;
  }
  return SpecFromTraceHeader(header, spec);
}

absl::Status Replay(const std::string& path, ReplayReport* report) {
  *report = ReplayReport();
  bool is_trace = false;
  absl::Status s = ReadSpecFile(path, &report->spec, &is_trace);
  if (!s.ok()) return s;
  SimRunConfig config;
  if (!is_trace) return RunSimulation(report->spec, config, &report->result);

  report->compared = true;
  std::vector<TraceEvent> recorded;
  {
    std::unique_ptr<TraceReader> reader;
    s = TraceReader::Open(path, &reader);
    if (!s.ok()) return s;
    TraceEvent e;
    while (reader->Next(&e)) recorded.push_back(std::move(e));
    if (!reader->status().ok()) return reader->status();
    report->recorded_events = reader->event_count();
    report->recorded_hash = reader->hash();
    report->recorded_has_footer = reader->has_footer();
  }
  config.keep_events = true;
  s = RunSimulation(report->spec, config, &report->result);
  if (!s.ok()) return s;
  const std::vector<TraceEvent>& replayed = report->result.events;
  // A run that died before its footer is compared over what it recorded.
  std::vector<TraceEvent> prefix;
  const std::vector<TraceEvent>* mine = &replayed;
  if (!report->recorded_has_footer && replayed.size() > recorded.size()) {
    prefix.assign(replayed.begin(), replayed.begin() + recorded.size());
    mine = &prefix;
  }
  report->divergence_index = FirstDivergence(recorded, *mine);
  if (report->divergence_index >= 0) {
    const size_t i = static_cast<size_t>(report->divergence_index);
    report->recorded_event =
        i < recorded.size() ? recorded[i].DebugString() : "<end of trace>";
    report->replayed_event =
        i < mine->size() ? (*mine)[i].DebugString() : "<end of trace>";
  }
  return absl::OkStatus();
}

std::string DescribeReplay(const ReplayReport& r) {
  std::string out = absl::StrCat(
      "replay: workload=", r.spec.workload, " seed=", r.spec.seed,
      r.spec.options.empty() ? "" : " options=", FormatOptions(r.spec.options),
      r.spec.planted_bug == PlantedBug::kNone
          ? ""
          : absl::StrCat(" planted_bug=", PlantedBugName(r.spec.planted_bug)),
      r.spec.plan.empty() ? ""
                          : absl::StrCat(" plan=", r.spec.plan.size(), "B"),
      "\n");
  if (r.compared && r.divergence_index >= 0) {
    absl::StrAppend(&out, "DIVERGED at event ", r.divergence_index,
                    " (recorded ", r.recorded_events, " events, replayed ",
                    r.result.trace_events, ")\n  recorded: ", r.recorded_event,
                    "\n  replayed: ", r.replayed_event, "\n");
    return out;
  }
  if (r.compared) {
    absl::StrAppend(
        &out, "identical: ", r.result.trace_events, " events",
        r.recorded_has_footer ? "" : " (recorded run has no footer: prefix)",
        "\n");
  }
  absl::StrAppend(&out,
                  absl::StrFormat("hash=%016x events=%d\n", r.result.trace_hash,
                                  r.result.trace_events));
  if (r.result.failures.empty()) {
    absl::StrAppend(&out, "no invariant failures\n");
  }
  for (const SimInvariantFailure& f : r.result.failures) {
    absl::StrAppend(&out, "FAILURE [", f.invariant, "] ", f.detail, "\n");
  }
  return out;
}

}  // namespace stepflow
