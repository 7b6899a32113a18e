// TF_DeprecatedSession: TensorFlow's older session interface, with no
// TF_Graph: GraphDefs are sent with TF_ExtendGraph and feeds, fetches and
// targets are named by string ("name" or "name:index").
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow {
namespace c_api {
namespace {

absl::Status Names(const char** names, int n, const char* what,
                   std::vector<std::string>* out) {
  if (n < 0 || (n > 0 && names == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("bad ", what, " list"));
  }
  for (int i = 0; i < n; ++i) {
    if (names[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " name ", i, " is NULL"));
    }
    out->push_back(names[i]);
  }
  return absl::OkStatus();
}

absl::Status Feeds(const char** input_names, TF_Tensor** inputs, int ninputs,
                   Session::FeedList* feeds) {
  std::vector<std::string> names;
  absl::Status s = Names(input_names, ninputs, "input", &names);
  if (!s.ok()) return s;
  if (ninputs > 0 && inputs == nullptr) {
    return absl::InvalidArgumentError("input tensors are NULL");
  }
  for (int i = 0; i < ninputs; ++i) {
    if (inputs[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", names[i], "' has no value"));
    }
    Tensor t;
    s = TensorFromC(*inputs[i], &t);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("feeding '", names[i], "': ", s.message()));
    }
    feeds->emplace_back(names[i], std::move(t));
  }
  return absl::OkStatus();
}

absl::Status Run(TF_DeprecatedSession* s, const TF_Buffer* run_options,
                 const char** input_names, TF_Tensor** inputs, int ninputs,
                 const char** output_names, TF_Tensor** outputs, int noutputs,
                 const char** target_oper_names, int ntargets,
                 TF_Buffer* run_metadata) {
  if (s == nullptr) return absl::InvalidArgumentError("session is NULL");
  if (noutputs > 0 && outputs == nullptr) {
    return absl::InvalidArgumentError("outputs is NULL");
  }
  for (int i = 0; i < noutputs; ++i) outputs[i] = nullptr;
  Session::FeedList feeds;
  std::vector<std::string> fetches, targets;
  absl::Status st = Feeds(input_names, inputs, ninputs, &feeds);
  if (st.ok()) st = Names(output_names, noutputs, "output", &fetches);
  if (st.ok()) st = Names(target_oper_names, ntargets, "target", &targets);
  if (!st.ok()) return st;
  return RunStep(s->session.get(), run_options, feeds, fetches, targets,
                 run_metadata, outputs, noutputs);
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_DeprecatedSession* TF_NewDeprecatedSession(const TF_SessionOptions* opts,
                                              TF_Status* status) {
  if (opts == nullptr) {
    Set(status, absl::InvalidArgumentError("session options are NULL"));
    return nullptr;
  }
  std::unique_ptr<stepflow::Session> session;
  absl::Status s = stepflow::c_api::NewRuntimeSession(*opts, &session);
  if (!s.ok()) {
    Set(status, std::move(s));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return new TF_DeprecatedSession{std::move(session)};
}

void TF_CloseDeprecatedSession(TF_DeprecatedSession* s, TF_Status* status) {
  if (s == nullptr) {
    Set(status, absl::InvalidArgumentError("session is NULL"));
    return;
  }
  Set(status, s->session->Close());
}

void TF_DeleteDeprecatedSession(TF_DeprecatedSession* s, TF_Status* status) {
  Set(status, absl::OkStatus());
  delete s;
}

void TF_Reset(const TF_SessionOptions* opt, const char** containers,
              int ncontainers, TF_Status* status) {
  std::vector<std::string> names;
  absl::Status s =
      stepflow::c_api::Names(containers, ncontainers, "container", &names);
  if (s.ok() && opt == nullptr) {
    s = absl::InvalidArgumentError("session options are NULL");
  }
  std::unique_ptr<stepflow::Session> session;
  if (s.ok()) s = stepflow::c_api::NewRuntimeSession(*opt, &session);
  if (s.ok()) s = session->Reset(names);
  if (session != nullptr) session->Close().IgnoreError();
  Set(status, std::move(s));
}

void TF_ExtendGraph(TF_DeprecatedSession* s, const void* proto,
                    size_t proto_len, TF_Status* status) {
  if (s == nullptr || (proto == nullptr && proto_len > 0)) {
    Set(status, absl::InvalidArgumentError("TF_ExtendGraph: bad arguments"));
    return;
  }
  stepflow::GraphDef gdef;
  absl::Status st = stepflow::ParseGraphDefFromBinary(
      absl::string_view(static_cast<const char*>(proto), proto_len), &gdef);
  if (st.ok()) st = s->session->Extend(gdef);
  Set(status, std::move(st));
}

void TF_Run(TF_DeprecatedSession* s, const TF_Buffer* run_options,
            const char** input_names, TF_Tensor** inputs, int ninputs,
            const char** output_names, TF_Tensor** outputs, int noutputs,
            const char** target_oper_names, int ntargets,
            TF_Buffer* run_metadata, TF_Status* status) {
  Set(status, stepflow::c_api::Run(s, run_options, input_names, inputs, ninputs,
                                   output_names, outputs, noutputs,
                                   target_oper_names, ntargets, run_metadata));
}

void TF_PRunSetup(TF_DeprecatedSession* s, const char** input_names,
                  int ninputs, const char** output_names, int noutputs,
                  const char** target_oper_names, int ntargets,
                  const char** handle, TF_Status* status) {
  if (handle != nullptr) *handle = nullptr;
  if (s == nullptr || handle == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_PRunSetup: session and handle are required"));
    return;
  }
  std::vector<std::string> inputs, outputs, targets;
  absl::Status st =
      stepflow::c_api::Names(input_names, ninputs, "input", &inputs);
  if (st.ok()) {
    st = stepflow::c_api::Names(output_names, noutputs, "output", &outputs);
  }
  if (st.ok()) {
    st =
        stepflow::c_api::Names(target_oper_names, ntargets, "target", &targets);
  }
  std::string new_handle;
  if (st.ok())
    st = s->session->PRunSetup(inputs, outputs, targets, &new_handle);
  if (st.ok()) {
    char* buf = new char[new_handle.size() + 1];
    std::memcpy(buf, new_handle.c_str(), new_handle.size() + 1);
    *handle = buf;
  }
  Set(status, std::move(st));
}

void TF_PRun(TF_DeprecatedSession* s, const char* handle,
             const char** input_names, TF_Tensor** inputs, int ninputs,
             const char** output_names, TF_Tensor** outputs, int noutputs,
             const char** target_oper_names, int ntargets, TF_Status* status) {
  (void)target_oper_names;
  (void)ntargets;
  if (s == nullptr || handle == nullptr ||
      (noutputs > 0 && outputs == nullptr)) {
    Set(status, absl::InvalidArgumentError(
                    "TF_PRun: session, handle and outputs are required"));
    return;
  }
  for (int i = 0; i < noutputs; ++i) outputs[i] = nullptr;
  stepflow::Session::FeedList feeds;
  std::vector<std::string> fetches;
  absl::Status st =
      stepflow::c_api::Feeds(input_names, inputs, ninputs, &feeds);
  if (st.ok()) {
    st = stepflow::c_api::Names(output_names, noutputs, "output", &fetches);
  }
  std::vector<stepflow::Tensor> results;
  if (st.ok()) st = s->session->PRun(handle, feeds, fetches, &results);
  if (st.ok()) st = stepflow::c_api::ExportOutputs(results, outputs, noutputs);
  Set(status, std::move(st));
}

TF_DeviceList* TF_DeprecatedSessionListDevices(TF_DeprecatedSession* session,
                                               TF_Status* status) {
  if (session == nullptr) {
    Set(status, absl::InvalidArgumentError("session is NULL"));
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

}  // extern "C"
