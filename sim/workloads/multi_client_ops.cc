// MultiClientRunner's client ops: each plan op as C API calls on the
// client's graphs and sessions (see multi_client_runner.h).
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/c/c_api_extension.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/framework/tensor_id.h"
#include "sim/workloads/multi_client_runner.h"
#include "testing/reference_call.h"

namespace stepflow {
namespace {

// The fetched values of a TF_SessionRun / TF_SessionPRun as Tensors, in
// order: int32 and float scalars by value, anything else as an empty
// Tensor (the checker reports its type). Deletes the TF_Tensors.
std::vector<Tensor> TakeScalarResults(std::vector<TF_Tensor*>* outputs) {
  std::vector<Tensor> results;
  for (TF_Tensor* t : *outputs) {
    if (t == nullptr) continue;
    const bool scalar = TF_TensorElementCount(t) == 1;
    if (scalar && TF_TensorType(t) == TF_INT32) {
      int32_t v;
      std::memcpy(&v, TF_TensorData(t), sizeof(v));
      results.push_back(Tensor::Scalar<int32_t>(v));
    } else if (scalar && TF_TensorType(t) == TF_FLOAT) {
      float v;
      std::memcpy(&v, TF_TensorData(t), sizeof(v));
      results.push_back(Tensor::Scalar<float>(v));
    } else {
      results.push_back(Tensor());
    }
    TF_DeleteTensor(t);
  }
  outputs->clear();
  return results;
}

std::pair<std::string, int> SplitEndpoint(const std::string& endpoint) {
  const size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) return {endpoint, 0};
  return {endpoint.substr(0, colon), std::atoi(endpoint.c_str() + colon + 1)};
}

}  // namespace

absl::Status MultiClientRunner::Output(const GraphState& g,
                                       const std::string& endpoint,
                                       TF_Output* out) const {
  auto [node, index] = SplitEndpoint(endpoint);
  auto it = g.ops.find(node);
  if (it == g.ops.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "endpoint '", endpoint, "' names no node of graph ", g.spec->name()));
  }
  out->oper = it->second;
  out->index = index;
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoImport(const SimOp& op,
                                         const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  if (!g.created || g.delete_requested) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": graph ", op.graph(), " does not exist"));
  }
  GraphDef applied = op.graph_def();
  absl::Status s = multi_client::ApplyFaults(op.faults(), &applied);
  if (!s.ok()) return s;
  std::string bytes;
  applied.SerializeToString(&bytes);
  TF_Buffer* buffer = TF_NewBufferFromString(bytes.data(), bytes.size());
  CStatus status;
  TF_GraphImportGraphDef(g.graph, buffer, nullptr, status.get());
  TF_DeleteBuffer(buffer);
  checker_.CheckErrorCode(where, status.status());
  if (!status.status().ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": importing a valid graph failed: ",
                                 status.status().ToString()));
    return absl::OkStatus();
  }
  g.nodes.mutable_library()->MergeFrom(applied.library());
  for (const NodeDef& n : applied.node()) {
    *g.nodes.add_node() = n;
    if (graph_testing::IsReferenceCallSite(n, g.nodes.library())) {
      ++result_->function_calls;
    }
    TF_Operation* oper = TF_GraphOperationByName(g.graph, n.name().c_str());
    if (oper == nullptr) {
      checker_.Report(kInvariantValues,
                      absl::StrCat(where, ": imported node ", n.name(),
                                   " is not in the graph"));
      continue;
    }
    g.ops[n.name()] = oper;
  }
  for (const SimFault& f : op.faults()) {
    if (f.kind() == SimFault::FAILING_KERNEL) {
      checker_.AllowErrorCode(static_cast<absl::StatusCode>(f.code()));
    }
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoNewSession(const SimOp& op,
                                             const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  if (!g.created || g.delete_requested || sessions_.count(op.session()) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": graph ", op.graph(), " is gone or session ",
                     op.session(), " exists"));
  }
  SessionState& s = sessions_[op.session()];
  s.name = op.session();
  s.graph = op.graph();
  s.stats = std::make_shared<RendezvousStats>();
  TF_SessionOptions* opts = TF_NewSessionOptions();
  ConfigProto config;
  (*config.mutable_device_count())["CPU"] = g.spec->num_devices();
  const std::string config_bytes = config.SerializeAsString();
  CStatus status;
  TF_SetConfig(opts, config_bytes.data(), config_bytes.size(), status.get());
  if (!status.status().ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": TF_SetConfig failed: ",
                                 status.status().ToString()));
  }
  SetSessionOptionsEnv(opts, &sim_->env);
  SetSessionOptionsRendezvousFactory(
      opts, NewTracedRendezvousFactory(&sim_->loop, s.name, s.stats));
  s.session = TF_NewSession(g.graph, opts, status.get());
  TF_DeleteSessionOptions(opts);
  checker_.CheckErrorCode(where, status.status());
  if (s.session == nullptr) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": TF_NewSession failed: ",
                                 status.status().ToString()));
    s.deleted = true;
    return absl::OkStatus();
  }
  ++g.live_sessions;
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoRun(int index, const SimOp& op,
                                      const std::string& where) {
  auto sit = sessions_.find(op.session());
  if (sit == sessions_.end() || sit->second.deleted) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": session ", op.session(), " does not exist"));
  }
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  RunCall call;
  // Resolve every endpoint before allocating anything.
  absl::Status resolved = ResolveRun(g, op, &call);
  if (!resolved.ok()) return resolved;
  MakeRunFeeds(op, &call);
  const bool closed_at_start = s.closed;
  std::vector<Tensor> results;
  RunMetadata metadata;
  const absl::Status run_status =
      CallSessionRun(op, where, &s, &call, &results, &metadata);
  RecordStep(op, index, run_status, results);
  checker_.CheckErrorCode(where, run_status);
  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, run_status);
    return absl::OkStatus();
  }

  StepExpectation expect;
  absl::Status known = RunExpectation(g, s, op, call, where, &expect);
  if (!known.ok()) return known;
  expect.timeout_set = op.timeout_ms() > 0;
  expect.closed_during_step = s.closed;
  checker_.CheckStep(where, expect, run_status, results);
  if (g.spec->kind() == SimGraph::TRAINING) {
    UpdateTrainingState(g, op, run_status, &s);
  }
  if (run_status.ok() && op.output_partition_graphs()) {
    CheckRunPruning(g, op, metadata, where);
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::ResolveRun(const GraphState& g, const SimOp& op,
                                           RunCall* call) const {
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    call->outputs.push_back(out);
  }
  for (const std::string& t : op.targets()) {
    TF_Output out;
    absl::Status st = Output(g, t, &out);
    if (!st.ok()) return st;
    call->targets.push_back(out.oper);
  }
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    call->inputs.push_back(out);
  }
  return absl::OkStatus();
}

void MultiClientRunner::MakeRunFeeds(const SimOp& op, RunCall* call) {
  for (const SimFeed& f : op.feeds()) {
    const bool is_int = f.dtype() == DT_INT32;
    TF_Tensor* t =
        TF_AllocateTensor(is_int ? TF_INT32 : TF_FLOAT, nullptr, 0, 4);
    if (is_int) {
      const int32_t v = f.int_value();
      std::memcpy(TF_TensorData(t), &v, 4);
      call->fed_n = v;
    } else {
      const float v = f.float_value();
      std::memcpy(TF_TensorData(t), &v, 4);
      call->float_feeds[f.name()] = v;
    }
    call->input_values.push_back(t);
  }
}

absl::Status MultiClientRunner::CallSessionRun(const SimOp& op,
                                               const std::string& where,
                                               SessionState* s, RunCall* call,
                                               std::vector<Tensor>* results,
                                               RunMetadata* metadata) {
  RunOptions run_options;
  run_options.set_timeout_in_ms(op.timeout_ms());
  run_options.set_output_partition_graphs(op.output_partition_graphs());
  std::string options_bytes;
  run_options.SerializeToString(&options_bytes);
  TF_Buffer* options_buffer =
      TF_NewBufferFromString(options_bytes.data(), options_bytes.size());
  TF_Buffer* metadata_buffer =
      op.output_partition_graphs() ? TF_NewBuffer() : nullptr;
  std::vector<TF_Tensor*> output_values(call->outputs.size(), nullptr);

  if (runs_waiting_ > 0) ++result_->overlapping_steps;
  ++runs_waiting_;
  ++s->in_flight;
  CStatus status;
  {
    SimEventLoop::ScopedWaitLabel label(&sim_->loop, where);
    TF_SessionRun(s->session, options_buffer, call->inputs.data(),
                  call->input_values.data(),
                  static_cast<int>(call->inputs.size()), call->outputs.data(),
                  output_values.data(), static_cast<int>(call->outputs.size()),
                  call->targets.data(), static_cast<int>(call->targets.size()),
                  metadata_buffer, status.get());
  }
  --s->in_flight;
  --runs_waiting_;

  *results = TakeScalarResults(&output_values);
  for (TF_Tensor* t : call->input_values) TF_DeleteTensor(t);
  call->input_values.clear();
  TF_DeleteBuffer(options_buffer);
  if (metadata_buffer != nullptr) {
    if (metadata_buffer->data != nullptr) {
      metadata->ParseFromArray(metadata_buffer->data,
                               static_cast<int>(metadata_buffer->length));
    }
    TF_DeleteBuffer(metadata_buffer);
  }
  return status.status();
}

absl::Status MultiClientRunner::DoPRunSetup(const SimOp& op,
                                            const std::string& where) {
  auto sit = sessions_.find(op.session());
  if (sit == sessions_.end() || sit->second.deleted ||
      pruns_.count(op.prun()) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": session ",
                                                   op.session(), " is gone or ",
                                                   op.prun(), " exists"));
  }
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  PRunState& p = pruns_[op.prun()];
  p.session = s.name;
  std::vector<TF_Output> inputs, outputs;
  std::vector<const TF_Operation*> targets;
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    inputs.push_back(out);
  }
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    outputs.push_back(out);
    p.declared_fetches.insert(CanonicalTensorName(f));
  }
  for (const std::string& t : op.targets()) {
    TF_Output out;
    absl::Status st = Output(g, t, &out);
    if (!st.ok()) return st;
    targets.push_back(out.oper);
    p.targets.push_back(t);
  }
  const bool closed_at_start = s.closed;
  CStatus status;
  TF_SessionPRunSetup(s.session, inputs.data(), static_cast<int>(inputs.size()),
                      outputs.data(), static_cast<int>(outputs.size()),
                      targets.data(), static_cast<int>(targets.size()),
                      &p.handle, status.get());
  const absl::Status setup_status = status.status();
  checker_.CheckErrorCode(where, setup_status);
  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, setup_status);
  } else if (!setup_status.ok()) {
    checker_.Report(kInvariantValues,
                    absl::StrCat(where, ": partial run setup failed: ",
                                 setup_status.ToString()));
  }
  if (setup_status.ok()) {
    ++s.open_pruns;
  } else {
    p.failed = true;
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::DoPRun(int index, const SimOp& op,
                                       const std::string& where) {
  auto pit = pruns_.find(op.prun());
  auto sit = sessions_.find(op.session());
  if (pit == pruns_.end() || sit == sessions_.end() || sit->second.deleted) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": partial run ", op.prun(), " or its session is gone"));
  }
  PRunState& p = pit->second;
  SessionState& s = sit->second;
  GraphState& g = graphs_.at(s.graph);
  if (p.handle == nullptr) {
    return absl::OkStatus();  // Setup failed: nothing to do.
  }
  RunCall call;
  absl::Status prepared = PreparePRun(g, op, &call);
  if (!prepared.ok()) return prepared;
  const bool closed_at_start = s.closed;
  const bool failed_before = p.failed;
  std::vector<Tensor> results;
  const absl::Status run_status =
      CallSessionPRun(where, p, &s, &call, &results);
  for (const SimFeed& f : op.feeds()) p.fed[f.name()] = f.float_value();
  RecordStep(op, index, run_status, results);
  checker_.CheckErrorCode(where, run_status);
  if (closed_at_start) {
    checker_.CheckClosedSessionStep(where, run_status);
  } else {
    StepExpectation expect = PRunExpectation(g, p, op, failed_before, where);
    expect.closed_during_step = s.closed;
    checker_.CheckStep(where, expect, run_status, results);
  }
  UpdatePRunState(op, run_status, &p, &s);
  return absl::OkStatus();
}

absl::Status MultiClientRunner::PreparePRun(const GraphState& g,
                                            const SimOp& op,
                                            RunCall* call) const {
  for (const SimFeed& f : op.feeds()) {
    TF_Output out;
    absl::Status st = Output(g, f.name(), &out);
    if (!st.ok()) return st;
    call->inputs.push_back(out);
  }
  for (const std::string& f : op.fetches()) {
    TF_Output out;
    absl::Status st = Output(g, f, &out);
    if (!st.ok()) return st;
    call->outputs.push_back(out);
  }
  for (const SimFeed& f : op.feeds()) {
    TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, nullptr, 0, 4);
    const float v = f.float_value();
    std::memcpy(TF_TensorData(t), &v, 4);
    call->input_values.push_back(t);
  }
  return absl::OkStatus();
}

absl::Status MultiClientRunner::CallSessionPRun(const std::string& where,
                                                const PRunState& p,
                                                SessionState* s, RunCall* call,
                                                std::vector<Tensor>* results) {
  std::vector<TF_Tensor*> output_values(call->outputs.size(), nullptr);
  if (runs_waiting_ > 0) ++result_->overlapping_steps;
  ++runs_waiting_;
  ++s->in_flight;
  CStatus status;
  {
    SimEventLoop::ScopedWaitLabel label(&sim_->loop, where);
    TF_SessionPRun(s->session, p.handle, call->inputs.data(),
                   call->input_values.data(),
                   static_cast<int>(call->inputs.size()), call->outputs.data(),
                   output_values.data(), static_cast<int>(call->outputs.size()),
                   nullptr, 0, status.get());
  }
  --s->in_flight;
  --runs_waiting_;
  *results = TakeScalarResults(&output_values);
  for (TF_Tensor* t : call->input_values) TF_DeleteTensor(t);
  call->input_values.clear();
  return status.status();
}

void MultiClientRunner::DoDeleteSession(const SimOp& op,
                                        const std::string& where) {
  SessionState& s = sessions_.at(op.session());
  GraphState& g = graphs_.at(s.graph);
  CStatus status;
  TF_DeleteSession(s.session, status.get());
  checker_.CheckErrorCode(where, status.status());
  s.session = nullptr;
  s.deleted = true;
  for (auto& [name, p] : pruns_) {
    if (p.session == s.name && p.handle != nullptr) {
      TF_DeletePRunHandle(p.handle);
      p.handle = nullptr;
    }
  }
  if (--g.live_sessions == 0 && g.delete_requested) g.freed = true;
  // Everything the session had must be gone now.
  s.open_pruns = 0;
  CheckLeaks(s, where);
}

void MultiClientRunner::DoDeleteGraph(const SimOp& op,
                                      const std::string& where) {
  GraphState& g = graphs_.at(op.graph());
  (void)where;
  TF_DeleteGraph(g.graph);
  g.delete_requested = true;
  if (g.live_sessions == 0) g.freed = true;
}

}  // namespace stepflow
