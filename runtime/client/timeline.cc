#include "runtime/client/timeline.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "proto/types.pb.h"

namespace stepflow {
namespace {

struct Slice {
  int64_t start = 0;  // ns, absolute as recorded.
  int64_t end = 0;
  std::string node;
  std::string op;
  std::string inputs;
  std::string outputs;
  // Transfer bracket (rendezvous ops only).
  bool is_send = false;
  bool is_recv = false;
  std::string transfer;  // "tensor from to".
  bool client_terminated = false;
  int pid = 0;
  int tid = 0;
};

std::string ShapeString(const NodeOutput& out) {
  const TensorDescription& d = out.tensor_description();
  std::string dtype = DataType_Name(d.dtype());
  if (absl::StartsWith(dtype, "DT_")) dtype = dtype.substr(3);
  absl::AsciiStrToLower(&dtype);
  std::vector<std::string> dims;
  for (const auto& dim : d.shape().dim())
    dims.push_back(absl::StrCat(dim.size()));
  return absl::StrCat(dtype, "[", absl::StrJoin(dims, ","), "]");
}

// Splits "<name> = <op>(<inputs>)[ [tensor=.. from=.. to=..]]".
void ParseLabel(const std::string& label, Slice* s) {
  const size_t eq = label.find(" = ");
  if (eq == std::string::npos) return;
  const size_t open = label.find('(', eq);
  if (open == std::string::npos) return;
  s->op = label.substr(eq + 3, open - eq - 3);
  const size_t bracket = label.find(" [tensor=", open);
  const size_t close =
      label.rfind(')', bracket == std::string::npos ? label.size() : bracket);
  if (close != std::string::npos && close > open) {
    s->inputs = label.substr(open + 1, close - open - 1);
  }
  if (bracket != std::string::npos && label.back() == ']') {
    s->transfer = label.substr(bracket + 2, label.size() - bracket - 3);
    if (absl::EndsWith(s->transfer, " client")) {
      // Its other end is the client: nothing in the step to pair with.
      s->client_terminated = true;
      return;
    }
    s->is_send = s->op == "_Send" || s->op == "_HostSend";
    s->is_recv = s->op == "_Recv" || s->op == "_HostRecv";
  }
}

std::string Micros(int64_t nanos) {
  return absl::StrFormat("%.3f", static_cast<double>(nanos) / 1000.0);
}

bool EarlierSlice(const Slice* a, const Slice* b) {
  return std::tie(a->start, a->node) < std::tie(b->start, b->node);
}

}  // namespace

std::string JsonEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {

// Each device's kernels as slices, devices in name order.
absl::Status CollectSlices(const StepStats& step_stats,
                           std::map<std::string, std::vector<Slice>>* out) {
  for (const DeviceStepStats& dev : step_stats.dev_stats()) {
    for (const NodeExecStats& n : dev.node_stats()) {
      Slice s;
      s.node = n.node_name();
      s.start = n.all_start_nanos() != 0 ? n.all_start_nanos()
                                         : n.all_start_micros() * 1000;
      const int64_t rel = n.all_end_rel_nanos() != 0
                              ? n.all_end_rel_nanos()
                              : n.all_end_rel_micros() * 1000;
      if (rel < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Node '", n.node_name(), "' on ", dev.device(),
            " ends before it starts (all_end_rel = ", rel, " ns)"));
      }
      s.end = s.start + rel;
      ParseLabel(n.timeline_label(), &s);
      if (s.op.empty()) s.op = n.node_name();
      std::vector<std::string> outs;
      for (const NodeOutput& o : n.output()) outs.push_back(ShapeString(o));
      s.outputs = absl::StrJoin(outs, ", ");
      (*out)[dev.device()].push_back(std::move(s));
    }
  }
  return absl::OkStatus();
}

// The earliest start of any slice (the trace's time zero).
int64_t Origin(const std::map<std::string, std::vector<Slice>>& by_device) {
  int64_t origin = 0;
  bool have_origin = false;
  for (const auto& [device, slices] : by_device) {
    for (const Slice& s : slices) {
      if (!have_origin || s.start < origin) origin = s.start;
      have_origin = true;
    }
  }
  return origin;
}

// One process lane per device, overlapping kernels packed into rows
// (threads); appends the events and the placed slices to `all`.
void EmitDeviceLanes(std::map<std::string, std::vector<Slice>>* by_device,
                     int64_t origin, std::vector<std::string>* events,
                     std::vector<Slice*>* all, TimelineSummary* sum) {
  int pid = 0;
  for (auto& [device, slices] : *by_device) {
    if (slices.empty()) continue;
    ++pid;
    ++sum->lanes;
    events->push_back(absl::StrCat(R"({"ph":"M","name":"process_name","pid":)",
                                   pid, R"(,"args":{"name":")",
                                   JsonEscape(device), R"("}})"));
    events->push_back(
        absl::StrCat(R"({"ph":"M","name":"process_sort_index","pid":)", pid,
                     R"(,"args":{"sort_index":)", pid, "}}"));
    std::vector<Slice*> order;
    for (Slice& s : slices) order.push_back(&s);
    std::sort(order.begin(), order.end(), EarlierSlice);
    std::vector<int64_t> row_end;
    for (Slice* s : order) {
      size_t row = 0;
      while (row < row_end.size() && row_end[row] > s->start) ++row;
      if (row == row_end.size()) row_end.push_back(s->end);
      row_end[row] = s->end;
      s->pid = pid;
      s->tid = static_cast<int>(row);
      all->push_back(s);
    }
    for (size_t row = 0; row < row_end.size(); ++row) {
      events->push_back(absl::StrCat(
          R"({"ph":"M","name":"thread_name","pid":)", pid, R"(,"tid":)", row,
          R"(,"args":{"name":"ops #)", row, R"("}})"));
    }
    for (const Slice* s : order) {
      ++sum->kernels;
      events->push_back(absl::StrCat(
          R"({"ph":"X","cat":"Op","name":")", JsonEscape(s->op), R"(","pid":)",
          s->pid, R"(,"tid":)", s->tid, R"(,"ts":)", Micros(s->start - origin),
          R"(,"dur":)", Micros(s->end - s->start), R"(,"args":{"name":")",
          JsonEscape(s->node), R"(","op":")", JsonEscape(s->op),
          R"(","inputs":")", JsonEscape(s->inputs), R"(","outputs":")",
          JsonEscape(s->outputs), R"("}})"));
    }
  }
}

// Pairs transfers, the k-th send with the k-th recv of the same (tensor,
// from, to), as flow arrows.
void EmitTransferFlows(const std::vector<Slice*>& all, int64_t origin,
                       std::vector<std::string>* events, TimelineSummary* sum) {
  std::map<std::string, std::vector<Slice*>> sends, recvs;
  for (Slice* s : all) {
    if (s->is_send) sends[s->transfer].push_back(s);
    if (s->is_recv) recvs[s->transfer].push_back(s);
  }
  std::set<std::string> keys;
  for (const auto& [k, v] : sends) keys.insert(k);
  for (const auto& [k, v] : recvs) keys.insert(k);
  int flow_id = 0;
  for (const std::string& key : keys) {
    std::vector<Slice*>& s = sends[key];
    std::vector<Slice*>& r = recvs[key];
    std::sort(s.begin(), s.end(), EarlierSlice);
    std::sort(r.begin(), r.end(), EarlierSlice);
    const size_t pairs = std::min(s.size(), r.size());
    sum->unpaired_transfers +=
        static_cast<int>(s.size() + r.size() - 2 * pairs);
    const std::string tensor = key.substr(0, key.find(' '));
    for (size_t i = 0; i < pairs; ++i) {
      ++flow_id;
      ++sum->flows;
      const std::string name = JsonEscape(tensor.substr(tensor.find('=') + 1));
      events->push_back(absl::StrCat(
          R"({"ph":"s","cat":"DataFlow","name":")", name, R"(","id":)", flow_id,
          R"(,"pid":)", s[i]->pid, R"(,"tid":)", s[i]->tid, R"(,"ts":)",
          Micros(s[i]->start - origin), "}"));
      events->push_back(absl::StrCat(
          R"({"ph":"f","bp":"e","cat":"DataFlow","name":")", name, R"(","id":)",
          flow_id, R"(,"pid":)", r[i]->pid, R"(,"tid":)", r[i]->tid,
          R"(,"ts":)", Micros(r[i]->start - origin), "}"));
    }
  }
}

}  // namespace

absl::Status StepStatsToChromeTrace(const StepStats& step_stats,
                                    const std::string& title, std::string* json,
                                    TimelineSummary* summary) {
  std::map<std::string, std::vector<Slice>> by_device;
  absl::Status s = CollectSlices(step_stats, &by_device);
  if (!s.ok()) return s;
  const int64_t origin = Origin(by_device);
  TimelineSummary sum;
  std::vector<std::string> events;
  std::vector<Slice*> all;
  EmitDeviceLanes(&by_device, origin, &events, &all, &sum);
  EmitTransferFlows(all, origin, &events, &sum);
  *json = absl::StrCat(R"({"displayTimeUnit":"ns","otherData":{"title":")",
                       JsonEscape(title), R"("},"traceEvents":[)", "\n",
                       absl::StrJoin(events, ",\n"), "\n]}\n");
  if (summary != nullptr) *summary = sum;
  return absl::OkStatus();
}

}  // namespace stepflow
