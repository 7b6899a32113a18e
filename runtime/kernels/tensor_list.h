// TensorList: the Variant payload of TensorFlow's list ops (TensorList*),
// an immutable vector of tensors of one element dtype with a partial
// element shape. An element may be unset (an uninitialized Tensor), which
// reads as zeros of the element shape once that shape is known.
//
// Lists are values: ops that change a list build a new TensorList sharing
// the old one's element tensors (never their buffers' contents), so a list
// fed to two ops is never changed under either.
#ifndef STEPFLOW_RUNTIME_KERNELS_TENSOR_LIST_H_
#define STEPFLOW_RUNTIME_KERNELS_TENSOR_LIST_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"
#include "runtime/framework/variant.h"

namespace stepflow {

struct TensorList : public VariantPayload {
  std::vector<Tensor> tensors;
  PartialTensorShape element_shape;
  DataType element_dtype = DT_INVALID;
  int max_num_elements = -1;

  std::string TypeName() const override { return "tensorflow::TensorList"; }
  std::string DebugString() const override {
    return absl::StrCat("TensorList<", DataTypeString(element_dtype), " ",
                        element_shape.DebugString(), " x", tensors.size(), ">");
  }
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TENSOR_LIST_H_
