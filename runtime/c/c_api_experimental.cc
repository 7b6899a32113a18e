// The experimental C API subset (c_api_experimental.h) not covered by its
// own files (c_api_attr_builder.cc, c_api_checkpoint_reader.cc,
// c_api_function.cc), and TF_TensorFromProto.
//
// XLA: stepflow has no XLA compiler. The switches keep their values with
// TensorFlow's defaults (lazy compilation on, CPU global JIT off, auto-JIT
// off, constant folding on) so programs that set and read them behave the
// same; nothing is compiled. Named-tensor queues run the session's
// "fifo_queue_enqueue_<id>" / "fifo_queue_dequeue_<id>" nodes as
// TensorFlow's do.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/text_format.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/env/real/unused_port.h"
#include "runtime/framework/op.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "tensorflow/c/c_api_experimental.h"

using stepflow::c_api::Set;

namespace {

// The XLA switches' process-wide values, with TensorFlow's defaults.
struct XlaSwitchValues {
  std::atomic<bool> lazy_compilation{true};
  std::atomic<bool> cpu_global_jit{false};
  std::atomic<bool> auto_jit{false};
  std::atomic<int> min_cluster_size{4};
  std::atomic<bool> constant_folding_disabled{false};
};

XlaSwitchValues& XlaSwitches() {
  static XlaSwitchValues values;
  return values;
}

}  // namespace

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

unsigned char TF_SetXlaEnableLazyCompilation(unsigned char enable) {
  return XlaSwitches().lazy_compilation.exchange(enable != 0);
}

unsigned char TF_SetTfXlaCpuGlobalJit(unsigned char enable) {
  return XlaSwitches().cpu_global_jit.exchange(enable != 0);
}

void TF_SetXlaAutoJitMode(const char* mode) {
  // TensorFlow's modes: "", "OFF" and "ON"... spellings of the global JIT
  // level; anything but off turns auto-clustering on.
  const std::string m = mode == nullptr ? "" : mode;
  XlaSwitches().auto_jit.store(!m.empty() && m != "OFF" && m != "0" &&
                               m != "-1");
}

unsigned char TF_GetXlaAutoJitEnabled() {
  return XlaSwitches().auto_jit.load();
}

void TF_SetXlaMinClusterSize(int size) {
  XlaSwitches().min_cluster_size.store(size);
}

unsigned char TF_GetXlaConstantFoldingDisabled() {
  return XlaSwitches().constant_folding_disabled.load();
}

void TF_SetXlaConstantFoldingDisabled(unsigned char should_enable) {
  XlaSwitches().constant_folding_disabled.store(should_enable != 0);
}

TF_Tensor* TF_DequeueNamedTensor(TF_Session* session, int tensor_id,
                                 TF_Status* status) {
  if (session == nullptr) {
    Set(status,
        absl::InvalidArgumentError("TF_DequeueNamedTensor: NULL session"));
    return nullptr;
  }
  const std::string fetch = absl::StrCat("fifo_queue_dequeue_", tensor_id);
  std::vector<stepflow::Tensor> out;
  absl::Status s = stepflow::c_api::ExtendSessionGraph(session);
  if (s.ok()) s = session->session->Run({}, {fetch}, {}, &out);
  TF_Tensor* result = nullptr;
  if (s.ok()) s = stepflow::c_api::TensorToC(out[0], &result);
  Set(status, s);
  return s.ok() ? result : nullptr;
}

void TF_EnqueueNamedTensor(TF_Session* session, int tensor_id,
                           TF_Tensor* tensor, TF_Status* status) {
  if (session == nullptr || tensor == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_EnqueueNamedTensor: NULL session or tensor"));
    return;
  }
  stepflow::Tensor value;
  absl::Status s = stepflow::c_api::TensorFromC(*tensor, &value);
  if (s.ok()) s = stepflow::c_api::ExtendSessionGraph(session);
  std::vector<stepflow::Tensor> out;
  if (s.ok()) {
    s = session->session->Run(
        {{absl::StrCat("arg_tensor_enqueue_", tensor_id), value}}, {},
        {absl::StrCat("fifo_queue_enqueue_", tensor_id)}, &out);
  }
  Set(status, s);
}

void TF_InitMain(const char* usage, int* argc, char*** argv) {
  // stepflow's library reads no command-line flags: argv is left as is.
  (void)usage;
  (void)argc;
  (void)argv;
}

int TF_PickUnusedPortOrDie(void) {
  absl::StatusOr<int> port = stepflow::PickUnusedPort();
  if (!port.ok()) {
    std::fprintf(stderr, "TF_PickUnusedPortOrDie: %s\n",
                 port.status().ToString().c_str());
    std::abort();
  }
  return *port;
}

void TF_ImportGraphDefOptionsSetValidateColocationConstraints(
    TF_ImportGraphDefOptions* opts, unsigned char enable) {
  if (opts != nullptr) opts->validate_colocation_constraints = enable != 0;
}

TF_Library* TF_LoadPluggableDeviceLibrary(const char* library_filename,
                                          TF_Status* status) {
  Set(status, absl::UnimplementedError(absl::StrCat(
                  "loading pluggable device libraries is not supported (",
                  library_filename == nullptr ? "" : library_filename, ")")));
  return nullptr;
}

void TF_DeletePluggableDeviceLibraryHandle(TF_Library* lib_handle) {
  // TF_LoadPluggableDeviceLibrary never returns a handle.
  (void)lib_handle;
}

TF_ShapeAndTypeList* TF_NewShapeAndTypeList(int num_shapes) {
  if (num_shapes < 0) return nullptr;
  auto* list = new TF_ShapeAndTypeList;
  list->num_items = num_shapes;
  list->items = new TF_ShapeAndType[num_shapes]();
  return list;
}

void TF_ShapeAndTypeListSetShape(TF_ShapeAndTypeList* shape_list, int index,
                                 const int64_t* dims, int num_dims) {
  if (shape_list == nullptr || index < 0 || index >= shape_list->num_items ||
      num_dims < 0 || (num_dims > 0 && dims == nullptr)) {
    return;
  }
  TF_ShapeAndType& item = shape_list->items[index];
  delete[] item.dims;
  item.num_dims = num_dims;
  item.dims = new int64_t[num_dims];
  std::memcpy(item.dims, dims, num_dims * sizeof(int64_t));
}

void TF_ShapeAndTypeListSetUnknownShape(TF_ShapeAndTypeList* shape_list,
                                        int index) {
  if (shape_list == nullptr || index < 0 || index >= shape_list->num_items) {
    return;
  }
  TF_ShapeAndType& item = shape_list->items[index];
  delete[] item.dims;
  item.dims = nullptr;
  item.num_dims = -1;
}

void TF_ShapeAndTypeListSetDtype(TF_ShapeAndTypeList* shape_list, int index,
                                 TF_DataType dtype) {
  if (shape_list == nullptr || index < 0 || index >= shape_list->num_items) {
    return;
  }
  shape_list->items[index].dtype = dtype;
}

void TF_DeleteShapeAndTypeList(TF_ShapeAndTypeList* shape_list) {
  if (shape_list == nullptr) return;
  for (int i = 0; i < shape_list->num_items; ++i) {
    delete[] shape_list->items[i].dims;
  }
  delete[] shape_list->items;
  delete shape_list;
}

void TF_DeleteShapeAndTypeListArray(TF_ShapeAndTypeList** shape_list_array,
                                    int num_items) {
  if (shape_list_array == nullptr) return;
  for (int i = 0; i < num_items; ++i) {
    TF_DeleteShapeAndTypeList(shape_list_array[i]);
  }
  // The array itself was malloc'd by the caller (TensorFlow frees it too).
  std::free(shape_list_array);
}

}  // extern "C"
