#include "runtime/kernels/kernel_util.h"

#include <limits>

#include "runtime/framework/node_def_util.h"

namespace stepflow {

absl::Status IndexTensorToVector(const OpKernel& kernel, const Tensor& t,
                                 std::vector<int64_t>* out) {
  out->clear();
  const int64_t n = t.NumElements();
  out->reserve(n);
  if (t.dtype() == DT_INT32) {
    const int32_t* p = t.base<int32_t>();
    for (int64_t i = 0; i < n; ++i) out->push_back(p[i]);
  } else if (t.dtype() == DT_INT64) {
    const int64_t* p = t.base<int64_t>();
    for (int64_t i = 0; i < n; ++i) out->push_back(p[i]);
  } else {
    return NodeInvalidArgument(kernel,
                               "Expected an int32 or int64 tensor, got ",
                               DataTypeString(t.dtype()));
  }
  return absl::OkStatus();
}

absl::Status CheckAllocationSize(const OpKernel& kernel,
                                 const TensorShape& shape, DataType dtype) {
  int64_t elem = DataTypeSize(dtype);
  if (elem == 0) elem = 32;  // string / resource objects.
  const int64_t n = shape.num_elements();
  if (n > kMaxTensorBytes / elem) {
    return AttachDef(
        absl::ResourceExhaustedError(absl::StrCat(
            "OOM when allocating tensor with shape ", shape.DebugString(),
            " and type ", DataTypeString(dtype),
            " on CPU: exceeds the per-tensor limit of ", kMaxTensorBytes,
            " bytes")),
        kernel.name());
  }
  return absl::OkStatus();
}

absl::Status MakeOutputShape(const OpKernel& kernel,
                             absl::Span<const int64_t> dims, DataType dtype,
                             TensorShape* out) {
  absl::Status s = TensorShape::BuildTensorShape(dims, out);
  if (!s.ok()) return AttachDef(s, kernel.name());
  return CheckAllocationSize(kernel, *out, dtype);
}

std::vector<DataType> RealNumberTypes() {
  return {DT_FLOAT, DT_DOUBLE, DT_INT32,  DT_INT64,  DT_UINT8, DT_INT16,
          DT_INT8,  DT_UINT16, DT_UINT32, DT_UINT64, DT_HALF,  DT_BFLOAT16};
}

std::vector<DataType> NumberTypes() {
  std::vector<DataType> v = RealNumberTypes();
  v.push_back(DT_COMPLEX64);
  v.push_back(DT_COMPLEX128);
  return v;
}

std::vector<DataType> PodTypes() {
  std::vector<DataType> v = NumberTypes();
  v.push_back(DT_BOOL);
  return v;
}

std::vector<DataType> AllTypes() {
  std::vector<DataType> v = PodTypes();
  v.push_back(DT_STRING);
  return v;
}

}  // namespace stepflow
