// TF_GetAllRegisteredKernels / TF_GetRegisteredKernelsForOp: the kernel
// registry (runtime/framework/op_kernel.h) as a serialized TensorFlow
// KernelList, sorted by op, each op's kernels in registration order.
//
// KernelList and KernelDef are written field by field with TensorFlow's
// field numbers (tensorflow/core/framework/kernel_def.proto: KernelList
// kernel=1; KernelDef op=1, device_type=2, constraint=3, host_memory_arg=4,
// label=5, priority=6; AttrConstraint name=1, allowed_values=2), the allowed
// types as an AttrValue list. No label is ever set (kernels here have none).
// An op without kernels gives an empty list.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "proto/attr_value.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"
#include "runtime/framework/op_kernel.h"

namespace stepflow {
namespace c_api {
namespace {

using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;

void WriteBytes(int field, const std::string& bytes, CodedOutputStream* out) {
  out->WriteTag((field << 3) | 2);
  out->WriteVarint32(static_cast<uint32_t>(bytes.size()));
  out->WriteString(bytes);
}

std::string Serialize(const std::function<void(CodedOutputStream*)>& write) {
  std::string bytes;
  {
    StringOutputStream stream(&bytes);
    CodedOutputStream out(&stream);
    write(&out);
  }
  return bytes;
}

std::string KernelDefBytes(const KernelDef& def) {
  return Serialize([&def](CodedOutputStream* out) {
    if (!def.op.empty()) WriteBytes(1, def.op, out);
    if (!def.device_type.empty()) WriteBytes(2, def.device_type, out);
    for (const auto& constraint : def.constraints) {
      AttrValue allowed;
      for (DataType t : constraint.second) allowed.mutable_list()->add_type(t);
      WriteBytes(3, Serialize([&](CodedOutputStream* c) {
                   WriteBytes(1, constraint.first, c);
                   WriteBytes(2, allowed.SerializeAsString(), c);
                 }),
                 out);
    }
    for (const std::string& arg : def.host_memory_args) {
      WriteBytes(4, arg, out);
    }
    if (def.priority != 0) {
      out->WriteTag(6 << 3);
      out->WriteVarint64(static_cast<uint64_t>(
          static_cast<int64_t>(def.priority)));  // int32: sign-extended.
    }
  });
}

// The KernelList of the registered kernels of `op` (all if empty).
TF_Buffer* KernelList(const std::string& op) {
  std::string bytes;
  for (const KernelDef& def : KernelRegistry::Global()->ListKernels()) {
    if (!op.empty() && def.op != op) continue;
    bytes += Serialize([&def](CodedOutputStream* out) {
      WriteBytes(1, KernelDefBytes(def), out);
    });
  }
  TF_Buffer* buffer = TF_NewBuffer();
  SetBufferBytes(bytes, buffer);
  return buffer;
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

extern "C" {

TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status) {
  stepflow::c_api::Set(status, absl::OkStatus());
  return stepflow::c_api::KernelList("");
}

TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name, TF_Status* status) {
  if (name == nullptr || name[0] == '\0') {
    stepflow::c_api::Set(
        status,
        absl::InvalidArgumentError("TF_GetRegisteredKernelsForOp: no op name"));
    return nullptr;
  }
  stepflow::c_api::Set(status, absl::OkStatus());
  return stepflow::c_api::KernelList(name);
}

}  // extern "C"
