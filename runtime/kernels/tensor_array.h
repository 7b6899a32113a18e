// TensorArray: the per-step resource behind TensorArrayV3 and its ops, a
// vector of tensors of one dtype that a step writes and reads element by
// element (TensorFlow's semantics, which tf.TensorArray and the gradients
// of dynamic_rnn / while loops rely on).
//
// Each element is unwritten, written (a value, or for a gradient array only
// a shape, read as zeros) or cleared (read once with clear_after_read).
// A forward array refuses a second write to an element; a gradient array
// (made by TensorArrayGradV3) adds a second write into the first. Reading
// an unwritten element gives zeros when the element shape is fully known
// (a gradient array reads zeros of the forward element's shape). A closed
// array refuses everything but Close.
//
// Ownership: the step container holds one reference (ResourceMgr); kernels
// hold another while they use it. Thread-safety: every method locks the
// array's mutex; values are shared (not copied) on read and write.
// Errors are InvalidArgument with TensorFlow's messages ("TensorArray
// foo_0: Could not write to TensorArray index 3 because it has already been
// written to."), also for adding or zero-filling a dtype that has no sum or
// zero (strings, bool).
#ifndef STEPFLOW_RUNTIME_KERNELS_TENSOR_ARRAY_H_
#define STEPFLOW_RUNTIME_KERNELS_TENSOR_ARRAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace stepflow {

// Resource type recorded in TensorArray handles.
inline constexpr char kTensorArrayTypeName[] = "stepflow::TensorArray";

class TensorArray : public ResourceBase {
 public:
  struct Options {
    DataType dtype = DT_INVALID;
    int32_t size = 0;
    PartialTensorShape element_shape;
    bool identical_element_shapes = false;
    bool dynamic_size = false;
    bool multiple_writes_aggregate = false;  // Gradient arrays.
    bool is_grad = false;
    int32_t marked_size = -1;
    bool clear_after_read = true;
  };
  // `name` is the array's unique name (its handle's name), used in errors.
  TensorArray(std::string name, const Options& options);

  DataType dtype() const { return options_.dtype; }
  const std::string& name() const { return name_; }

  // Writes (or, for a gradient array, adds into) element `index`; `ctx`
  // allocates the sum. Errors above.
  absl::Status Write(OpKernelContext* ctx, int32_t index, const Tensor& value);
  // Writes values[i] to indices[i] in order, stopping at the first error.
  absl::Status WriteMany(OpKernelContext* ctx,
                         const std::vector<int32_t>& indices,
                         const std::vector<Tensor>& values);
  // The value of element `index` (zeros, allocated through `ctx`, for an
  // element that only has a shape).
  absl::Status Read(OpKernelContext* ctx, int32_t index, Tensor* value);
  absl::Status ReadMany(OpKernelContext* ctx,
                        const std::vector<int32_t>& indices,
                        std::vector<Tensor>* values);

  // The number of elements.
  absl::Status Size(int32_t* size);
  // What Concat reads: the size, or for a gradient array the marked size.
  absl::Status PackOrConcatSize(int32_t* size);
  absl::Status MarkedSize(int32_t* size);
  // Records the size a split wrote (ignored by gradient arrays).
  absl::Status SetMarkedSize(int32_t size);

  // Narrows the element shape with `candidate` (MergePartialShapes).
  absl::Status SetElemShape(const PartialTensorShape& candidate);
  PartialTensorShape ElemShape();
  bool HasIdenticalElementShapes() const {
    return options_.identical_element_shapes;
  }
  bool HasDynamicSize();
  void DisableDynamicSize();
  // False once a gradient array aggregated two writes.
  bool GradientsAllowed();

  // Gives every element written in `forward` this array's element a shape
  // (`prepend` + the forward element's shape), marking it written: reads
  // give zeros until a value is added. InvalidArgument if the sizes differ
  // or either array is closed.
  absl::Status CopyShapesFrom(TensorArray* forward, const TensorShape& prepend);

  // Drops every value and refuses all later uses.
  void ClearAndMarkClosed();

  std::string DebugString() const override;

 private:
  struct Element {
    Tensor tensor;
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
    bool local_copy = false;  // `tensor` is this array's own sum buffer.
  };

  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LockedWrite(OpKernelContext* ctx, int32_t index,
                           const Tensor& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LockedRead(OpKernelContext* ctx, int32_t index, Tensor* value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Aggregate(OpKernelContext* ctx, Element* e, const Tensor& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Error(const std::string& what) const;

  const std::string name_;
  mutable absl::Mutex mu_;
  // dtype, identical_element_shapes, multiple_writes_aggregate, is_grad
  // and clear_after_read never change; the rest is guarded by mu_.
  Options options_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool gradients_disallowed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Element> elements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TENSOR_ARRAY_H_
