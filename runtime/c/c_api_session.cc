// TF_SessionOptions, TF_Session (the session half of the graph refcount),
// runs, partial runs and device lists.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/config.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/common/session.h"
#include "runtime/env/real/process_env.h"

namespace stepflow {
namespace c_api {
namespace {

absl::Status OutputName(const TF_Output& out, const char* what, int i,
                        std::string* name) {
  if (out.oper == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", i, " has no operation (oper is NULL)"));
  }
  *name = absl::StrCat(ToNode(out.oper)->name(), ":", out.index);
  return absl::OkStatus();
}

// Converts the C arguments of a run into Session arguments.
absl::Status ConvertRunArgs(const TF_Output* inputs,
                            TF_Tensor* const* input_values, int ninputs,
                            const TF_Output* outputs, int noutputs,
                            const TF_Operation* const* target_opers,
                            int ntargets, Session::FeedList* feeds,
                            std::vector<std::string>* fetches,
                            std::vector<std::string>* targets) {
  if (ninputs < 0 || noutputs < 0 || ntargets < 0) {
    return absl::InvalidArgumentError(
        "negative number of inputs/outputs/targets");
  }
  if ((ninputs > 0 && (inputs == nullptr || input_values == nullptr)) ||
      (noutputs > 0 && outputs == nullptr) ||
      (ntargets > 0 && target_opers == nullptr)) {
    return absl::InvalidArgumentError("missing input, output or target array");
  }
  for (int i = 0; i < ninputs; ++i) {
    std::string name;
    absl::Status s = OutputName(inputs[i], "input", i, &name);
    if (!s.ok()) return s;
    if (input_values[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " ('", name, "') has no value"));
    }
    Tensor t;
    s = TensorFromC(*input_values[i], &t);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("feeding '", name, "': ", s.message()));
    }
    feeds->emplace_back(std::move(name), std::move(t));
  }
  if (fetches != nullptr) {
    for (int i = 0; i < noutputs; ++i) {
      std::string name;
      absl::Status s = OutputName(outputs[i], "output", i, &name);
      if (!s.ok()) return s;
      fetches->push_back(std::move(name));
    }
  }
  if (targets != nullptr) {
    for (int i = 0; i < ntargets; ++i) {
      if (target_opers[i] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("target ", i, " is NULL"));
      }
      targets->push_back(ToNode(target_opers[i])->name());
    }
  }
  return absl::OkStatus();
}

absl::Status SessionRun(TF_Session* session, const TF_Buffer* run_options,
                        const TF_Output* inputs, TF_Tensor* const* input_values,
                        int ninputs, const TF_Output* outputs,
                        TF_Tensor** output_values, int noutputs,
                        const TF_Operation* const* target_opers, int ntargets,
                        TF_Buffer* run_metadata) {
  if (session == nullptr) {
    return absl::InvalidArgumentError("TF_SessionRun: session is NULL");
  }
  if (noutputs > 0 && output_values == nullptr) {
    return absl::InvalidArgumentError("TF_SessionRun: output_values is NULL");
  }
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  absl::Status s = ExtendSessionGraph(session);
  if (!s.ok()) return s;

  Session::FeedList feeds;
  std::vector<std::string> fetches, targets;
  s = ConvertRunArgs(inputs, input_values, ninputs, outputs, noutputs,
                     target_opers, ntargets, &feeds, &fetches, &targets);
  if (!s.ok()) return s;
  return RunStep(session->session.get(), run_options, feeds, fetches, targets,
                 run_metadata, output_values, noutputs);
}

}  // namespace

absl::Status ExportOutputs(const std::vector<Tensor>& tensors,
                           TF_Tensor** output_values, int noutputs) {
  if (static_cast<int>(tensors.size()) != noutputs) {
    return absl::InternalError(absl::StrCat("session returned ", tensors.size(),
                                            " outputs for ", noutputs,
                                            " fetches"));
  }
  for (int i = 0; i < noutputs; ++i) {
    absl::Status s = TensorToC(tensors[i], &output_values[i]);
    if (!s.ok()) {
      for (int j = 0; j < i; ++j) {
        TF_DeleteTensor(output_values[j]);
        output_values[j] = nullptr;
      }
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status RunStep(Session* session, const TF_Buffer* run_options,
                     const Session::FeedList& feeds,
                     const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets,
                     TF_Buffer* run_metadata, TF_Tensor** output_values,
                     int noutputs) {
  RunOptions options;
  if (run_options != nullptr && run_options->data != nullptr &&
      !options.ParseFromArray(run_options->data,
                              static_cast<int>(run_options->length))) {
    return absl::InvalidArgumentError("Unparseable RunOptions proto");
  }
  if (run_metadata != nullptr && run_metadata->data != nullptr) {
    return absl::InvalidArgumentError(
        "Passing non-empty run_metadata is invalid.");
  }
  std::vector<Tensor> results;
  RunMetadata metadata;
  absl::Status s = session->Run(options, feeds, fetches, targets, &results,
                                run_metadata != nullptr ? &metadata : nullptr);
  if (!s.ok()) return s;
  if (run_metadata != nullptr) {
    std::string bytes;
    if (!metadata.SerializeToString(&bytes)) {
      return absl::InternalError("could not serialize RunMetadata");
    }
    SetBufferBytes(bytes, run_metadata);
  }
  return ExportOutputs(results, output_values, noutputs);
}

absl::Status NewRuntimeSession(const TF_SessionOptions& opts,
                               std::unique_ptr<Session>* session) {
  SessionOptions options;
  options.target = opts.target;
  options.config = opts.config;
  options.env = opts.env != nullptr ? opts.env : ProcessEnv();
  options.rendezvous_factory = opts.rendezvous_factory;
  return NewSession(options, session);
}

}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_SessionOptions* TF_NewSessionOptions(void) { return new TF_SessionOptions; }

void TF_SetTarget(TF_SessionOptions* options, const char* target) {
  if (options == nullptr) return;
  options->target = target == nullptr ? "" : target;
}

void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                  size_t proto_len, TF_Status* status) {
  if (options == nullptr || (proto == nullptr && proto_len > 0)) {
    Set(status, absl::InvalidArgumentError("TF_SetConfig: bad arguments"));
    return;
  }
  stepflow::ConfigProto config;
  if (!config.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status, absl::InvalidArgumentError("Unparseable ConfigProto"));
    return;
  }
  options->config = std::move(config);
  Set(status, absl::OkStatus());
}

void TF_DeleteSessionOptions(TF_SessionOptions* options) { delete options; }

TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                          TF_Status* status) {
  if (graph == nullptr || opts == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_NewSession: graph and options are required"));
    return nullptr;
  }
  std::unique_ptr<stepflow::Session> session;
  absl::Status s = stepflow::c_api::NewRuntimeSession(*opts, &session);
  if (!s.ok()) {
    Set(status, std::move(s));
    return nullptr;
  }
  auto* result = new TF_Session;
  result->session = std::move(session);
  result->graph = graph;
  {
    absl::MutexLock l(&graph->mu);
    result->id = graph->next_session_id++;
    graph->sessions.emplace(result->id, TF_Graph::SessionEntry());
  }
  Set(status, absl::OkStatus());
  return result;
}

void TF_CloseSession(TF_Session* session, TF_Status* status) {
  if (session == nullptr) {
    Set(status, absl::InvalidArgumentError("TF_CloseSession: session is NULL"));
    return;
  }
  Set(status, session->session->Close());
}

void TF_DeleteSession(TF_Session* session, TF_Status* status) {
  Set(status, absl::OkStatus());
  if (session == nullptr) return;
  // Stop the session before its graph can go away.
  session->session.reset();
  TF_Graph* const graph = session->graph;
  bool free_graph;
  {
    absl::MutexLock l(&graph->mu);
    graph->sessions.erase(session->id);
    free_graph = graph->delete_requested && graph->num_sessions() == 0;
  }
  delete session;
  if (free_graph) delete graph;
}

void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options,
                   const TF_Output* inputs, TF_Tensor* const* input_values,
                   int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets,
                   TF_Buffer* run_metadata, TF_Status* status) {
  Set(status,
      stepflow::c_api::SessionRun(session, run_options, inputs, input_values,
                                  ninputs, outputs, output_values, noutputs,
                                  target_opers, ntargets, run_metadata));
}

void TF_SessionPRunSetup(TF_Session* session, const TF_Output* inputs,
                         int ninputs, const TF_Output* outputs, int noutputs,
                         const TF_Operation* const* target_opers, int ntargets,
                         const char** handle, TF_Status* status) {
  if (handle != nullptr) *handle = nullptr;
  if (session == nullptr || handle == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_SessionPRunSetup: session and handle are required"));
    return;
  }
  absl::Status s = stepflow::c_api::ExtendSessionGraph(session);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  std::vector<std::string> input_names, fetches, targets;
  if (ninputs < 0 || (ninputs > 0 && inputs == nullptr)) {
    Set(status, absl::InvalidArgumentError("missing input array"));
    return;
  }
  for (int i = 0; i < ninputs; ++i) {
    std::string name;
    s = stepflow::c_api::OutputName(inputs[i], "input", i, &name);
    if (!s.ok()) {
      Set(status, std::move(s));
      return;
    }
    input_names.push_back(std::move(name));
  }
  stepflow::Session::FeedList no_feeds;
  s = stepflow::c_api::ConvertRunArgs(nullptr, nullptr, 0, outputs, noutputs,
                                      target_opers, ntargets, &no_feeds,
                                      &fetches, &targets);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  std::string new_handle;
  s = session->session->PRunSetup(input_names, fetches, targets, &new_handle);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  char* buf = new char[new_handle.size() + 1];
  std::memcpy(buf, new_handle.c_str(), new_handle.size() + 1);
  *handle = buf;
  Set(status, absl::OkStatus());
}

void TF_SessionPRun(TF_Session* session, const char* handle,
                    const TF_Output* inputs, TF_Tensor* const* input_values,
                    int ninputs, const TF_Output* outputs,
                    TF_Tensor** output_values, int noutputs,
                    const TF_Operation* const* target_opers, int ntargets,
                    TF_Status* status) {
  (void)target_opers;
  (void)ntargets;
  if (session == nullptr || handle == nullptr ||
      (noutputs > 0 && output_values == nullptr)) {
    Set(status, absl::InvalidArgumentError(
                    "TF_SessionPRun: session, handle and output_values are "
                    "required"));
    return;
  }
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  stepflow::Session::FeedList feeds;
  std::vector<std::string> fetches;
  absl::Status s = stepflow::c_api::ConvertRunArgs(
      inputs, input_values, ninputs, outputs, noutputs, nullptr, 0, &feeds,
      &fetches, nullptr);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  std::vector<stepflow::Tensor> results;
  s = session->session->PRun(handle, feeds, fetches, &results);
  if (s.ok())
    s = stepflow::c_api::ExportOutputs(results, output_values, noutputs);
  Set(status, std::move(s));
}

void TF_DeletePRunHandle(const char* handle) { delete[] handle; }

TF_DeviceList* TF_SessionListDevices(TF_Session* session, TF_Status* status) {
  if (session == nullptr) {
    Set(status,
        absl::InvalidArgumentError("TF_SessionListDevices: session is NULL"));
    return nullptr;
  }
  auto list = std::make_unique<TF_DeviceList>();
  absl::Status s = session->session->ListDevices(&list->devices);
  if (!s.ok()) {
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return list.release();
}

void TF_DeleteDeviceList(TF_DeviceList* list) { delete list; }

int TF_DeviceListCount(const TF_DeviceList* list) {
  return list == nullptr ? 0 : static_cast<int>(list->devices.size());
}

}  // extern "C"

namespace {

const stepflow::DeviceAttributes* Device(const TF_DeviceList* list, int index,
                                         TF_Status* status) {
  if (list == nullptr || index < 0 ||
      index >= static_cast<int>(list->devices.size())) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("device index ", index, " out of range [0, ",
                                 TF_DeviceListCount(list), ")")));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return &list->devices[index];
}

}  // namespace

extern "C" {

const char* TF_DeviceListName(const TF_DeviceList* list, int index,
                              TF_Status* status) {
  const stepflow::DeviceAttributes* d = Device(list, index, status);
  return d == nullptr ? nullptr : d->name().c_str();
}

const char* TF_DeviceListType(const TF_DeviceList* list, int index,
                              TF_Status* status) {
  const stepflow::DeviceAttributes* d = Device(list, index, status);
  return d == nullptr ? nullptr : d->device_type().c_str();
}

int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index,
                                 TF_Status* status) {
  const stepflow::DeviceAttributes* d = Device(list, index, status);
  return d == nullptr ? -1 : d->memory_limit();
}

}  // extern "C"

extern "C" {

uint64_t TF_DeviceListIncarnation(const TF_DeviceList* list, int index,
                                  TF_Status* status) {
  const stepflow::DeviceAttributes* d = Device(list, index, status);
  return d == nullptr ? 0 : d->incarnation();
}

}  // extern "C"
