// The experimental C API subset (c_api_experimental.h) and
// TF_TensorFromProto.
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/text_format.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/op.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "tensorflow/c/c_api_experimental.h"

using stepflow::c_api::Set;

extern "C" {

void TF_EnableXLACompilation(TF_SessionOptions* options, unsigned char enable) {
  (void)options;
  (void)enable;
}

TF_Buffer* TF_CreateConfig(unsigned char enable_xla_compilation,
                           unsigned char gpu_memory_allow_growth,
                           unsigned int num_cpu_devices) {
  (void)enable_xla_compilation;
  stepflow::ConfigProto config;
  config.mutable_gpu_options()->set_allow_growth(gpu_memory_allow_growth != 0);
  if (num_cpu_devices > 0) {
    (*config.mutable_device_count())["CPU"] =
        static_cast<int32_t>(num_cpu_devices);
  }
  TF_Buffer* buffer = TF_NewBuffer();
  stepflow::c_api::SetBufferBytes(config.SerializeAsString(), buffer);
  return buffer;
}

TF_Buffer* TF_CreateRunOptions(unsigned char enable_full_trace) {
  stepflow::RunOptions options;
  if (enable_full_trace != 0) {
    options.set_trace_level(stepflow::RunOptions::FULL_TRACE);
  }
  TF_Buffer* buffer = TF_NewBuffer();
  stepflow::c_api::SetBufferBytes(options.SerializeAsString(), buffer);
  return buffer;
}

const char* TF_GraphDebugString(TF_Graph* graph, size_t* len) {
  std::string text;
  if (graph != nullptr) {
    stepflow::GraphDef gdef;
    {
      absl::MutexLock l(&graph->mu);
      graph->graph.ToGraphDef(&gdef);
    }
    google::protobuf::TextFormat::PrintToString(gdef, &text);
  }
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) {
    if (len != nullptr) *len = 0;
    return nullptr;
  }
  std::memcpy(out, text.c_str(), text.size() + 1);
  if (len != nullptr) *len = text.size();
  return out;
}

void TF_MakeInternalErrorStatus(TF_Status* status, const char* errMsg) {
  Set(status, absl::InternalError(errMsg == nullptr ? "" : errMsg));
}

int TF_OpIsStateful(const char* op_type, TF_Status* status) {
  if (op_type == nullptr) {
    Set(status, absl::InvalidArgumentError("op_type is NULL"));
    return 0;
  }
  const stepflow::OpDef* op_def = nullptr;
  absl::Status s = stepflow::OpRegistry::Global()->LookUp(op_type, &op_def);
  if (!s.ok()) {
    Set(status, std::move(s));
    return 0;
  }
  Set(status, absl::OkStatus());
  return op_def->is_stateful() ? 1 : 0;
}

void TF_TensorFromProto(const TF_Buffer* from, TF_Tensor* to,
                        TF_Status* status) {
  stepflow::TensorProto proto;
  if (from == nullptr || to == nullptr ||
      (from->data == nullptr && from->length > 0) ||
      !proto.ParseFromArray(from->data, static_cast<int>(from->length))) {
    Set(status, absl::InvalidArgumentError(
                    "TF_TensorFromProto: unparseable TensorProto (or NULL "
                    "argument)"));
    return;
  }
  stepflow::Tensor t;
  absl::Status s = stepflow::TensorFromProto(proto, &t);
  TF_Tensor* converted = nullptr;
  if (s.ok()) s = stepflow::c_api::TensorToC(t, &converted);
  if (!s.ok()) {
    Set(status, std::move(s));
    return;
  }
  to->dtype = converted->dtype;
  to->dims = std::move(converted->dims);
  to->storage = std::move(converted->storage);
  delete converted;
  Set(status, absl::OkStatus());
}

}  // extern "C"
