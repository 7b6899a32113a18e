#include "runtime/kernels/tensor_array.h"

#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/element_copy.h"

namespace stepflow {
namespace {

// a += b elementwise for the number types; false for others.
bool AddInto(Tensor* a, const Tensor& b) {
  bool ok = false;
  SF_SWITCH_ALL_TYPES(a->dtype(),
                      {
                        if constexpr (!std::is_same_v<T, bool> &&
                                      !std::is_same_v<T, std::string>) {
                          a->flat<T>() += b.flat<T>();
                          ok = true;
                        }
                      },
                      {});
  return ok;
}

}  // namespace

TensorArray::TensorArray(std::string name, const Options& options)
    : name_(std::move(name)), options_(options) {
  elements_.resize(options.size > 0 ? options.size : 0);
}

absl::Status TensorArray::Error(const std::string& what) const {
  return absl::InvalidArgumentError(
      absl::StrCat("TensorArray ", name_, ": ", what));
}

absl::Status TensorArray::CheckOpen() const {
  if (!closed_) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("TensorArray ", name_, " has already been closed."));
}

absl::Status TensorArray::Write(OpKernelContext* ctx, int32_t index,
                                const Tensor& value) {
  absl::MutexLock l(&mu_);
  return LockedWrite(ctx, index, value);
}

absl::Status TensorArray::WriteMany(OpKernelContext* ctx,
                                    const std::vector<int32_t>& indices,
                                    const std::vector<Tensor>& values) {
  absl::MutexLock l(&mu_);
  for (size_t i = 0; i < indices.size(); ++i) {
    absl::Status s = LockedWrite(ctx, indices[i], values[i]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status TensorArray::LockedWrite(OpKernelContext* ctx, int32_t index,
                                      const Tensor& value) {
  absl::Status s = CheckOpen();
  if (!s.ok()) return s;
  const size_t at = static_cast<size_t>(index);
  if (index < 0 || (!options_.dynamic_size && at >= elements_.size())) {
    return Error(absl::StrCat(
        "Tried to write to index ", index,
        " but array is not resizeable and size is: ", elements_.size()));
  }
  if (at >= elements_.size()) elements_.resize(at + 1);
  const std::string where =
      absl::StrCat("Could not write to TensorArray index ", index);
  if (value.dtype() != options_.dtype) {
    return Error(absl::StrCat(
        where, " because the value dtype is ", DataTypeString(value.dtype()),
        " but TensorArray dtype is ", DataTypeString(options_.dtype), "."));
  }
  if (!options_.element_shape.IsCompatibleWith(value.shape())) {
    return Error(absl::StrCat(
        where, " because the value shape is ", value.shape().DebugString(),
        " which is incompatible with the TensorArray's inferred element "
        "shape: ",
        options_.element_shape.DebugString(),
        " (consider setting infer_shape=False)."));
  }
  if (options_.identical_element_shapes &&
      !options_.element_shape.IsFullyDefined()) {
    options_.element_shape = PartialTensorShape(value.shape().dim_sizes());
  }
  Element& e = elements_[at];
  if (e.read) {
    return Error(absl::StrCat(where, " because it has already been read."));
  }
  if (!options_.multiple_writes_aggregate && e.written) {
    return Error(
        absl::StrCat(where, " because it has already been written to."));
  }
  if (e.written) return Aggregate(ctx, &e, value);
  e.tensor = value;
  e.shape = value.shape();
  e.written = true;
  return absl::OkStatus();
}

absl::Status TensorArray::Aggregate(OpKernelContext* ctx, Element* e,
                                    const Tensor& value) {
  if (value.shape() != e->shape) {
    return Error(absl::StrCat(
        "Could not aggregate to TensorArray index because the existing shape "
        "is ",
        e->shape.DebugString(), " but the new input shape is ",
        value.shape().DebugString(), "."));
  }
  if (!e->tensor.IsInitialized() || e->tensor.NumElements() == 0) {
    // Only a shape so far: zeros plus the value is the value.
    e->tensor = value;
    return absl::OkStatus();
  }
  if (!e->local_copy) {
    Tensor sum;
    absl::Status s = ctx->allocate_temp(options_.dtype, e->shape, &sum);
    if (!s.ok()) return s;
    CopyElements(e->tensor, 0, &sum, 0, sum.NumElements());
    e->tensor = std::move(sum);
    e->local_copy = true;
  }
  if (!AddInto(&e->tensor, value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name_, " cannot aggregate values of type ",
                     DataTypeString(options_.dtype)));
  }
  gradients_disallowed_ = true;
  return absl::OkStatus();
}

absl::Status TensorArray::Read(OpKernelContext* ctx, int32_t index,
                               Tensor* value) {
  absl::MutexLock l(&mu_);
  return LockedRead(ctx, index, value);
}

absl::Status TensorArray::ReadMany(OpKernelContext* ctx,
                                   const std::vector<int32_t>& indices,
                                   std::vector<Tensor>* values) {
  absl::MutexLock l(&mu_);
  values->clear();
  values->reserve(indices.size());
  for (int32_t index : indices) {
    Tensor t;
    absl::Status s = LockedRead(ctx, index, &t);
    if (!s.ok()) return s;
    values->push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::LockedRead(OpKernelContext* ctx, int32_t index,
                                     Tensor* value) {
  absl::Status s = CheckOpen();
  if (!s.ok()) return s;
  const bool is_grad = options_.is_grad;
  const size_t at = static_cast<size_t>(index);
  if (index < 0 || (!is_grad && at >= elements_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tried to read from index ", index,
                     " but array size is: ", elements_.size()));
  }
  if ((is_grad && (at >= elements_.size() || !elements_[at].written)) ||
      (!is_grad && !elements_[at].written)) {
    // Nothing written: zeros of the known element shape.
    TensorShape shape;
    if (is_grad && at < elements_.size() && elements_[at].shape.dims() > 0) {
      shape = elements_[at].shape;
    } else if (!options_.element_shape.IsFullyDefined()) {
      return Error(absl::StrCat(
          "Could not read from TensorArray index ", index,
          ".  Furthermore, the element shape is not fully defined: ",
          options_.element_shape.DebugString(),
          ".  It is possible you are working with a resizeable TensorArray "
          "and stop_gradients is not allowing the gradients to be written.  "
          "If you set the full element_shape property on the forward "
          "TensorArray, the proper all-zeros tensor will be returned instead "
          "of incurring this error."));
    } else {
      shape = ToTensorShape(options_.element_shape);
    }
    const size_t first = at < elements_.size() ? at : elements_.size();
    if (at >= elements_.size()) elements_.resize(at + 1);
    for (size_t i = first; i <= at; ++i) {
      if (i != at && elements_[i].written) continue;
      elements_[i].shape = shape;
      elements_[i].written = true;
    }
  }
  Element& e = elements_[at];
  if (e.cleared) {
    return Error(absl::StrCat("Could not read index ", index,
                              " twice because it was cleared after a previous "
                              "read (perhaps try setting clear_after_read = "
                              "false?)."));
  }
  if (!e.tensor.IsInitialized() || e.tensor.NumElements() == 0) {
    // Only a shape: zeros.
    Tensor zeros;
    s = ctx->allocate_temp(options_.dtype, e.shape, &zeros);
    if (!s.ok()) return s;
    if (zeros.NumElements() > 0 && !SetZeros(&zeros)) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray ", name_, " cannot make zeros of type ",
                       DataTypeString(options_.dtype)));
    }
    e.tensor = std::move(zeros);
  }
  *value = e.tensor;
  if (options_.clear_after_read) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  e.read = true;
  return absl::OkStatus();
}

absl::Status TensorArray::Size(int32_t* size) {
  absl::MutexLock l(&mu_);
  absl::Status s = CheckOpen();
  if (s.ok()) *size = static_cast<int32_t>(elements_.size());
  return s;
}

absl::Status TensorArray::PackOrConcatSize(int32_t* size) {
  absl::MutexLock l(&mu_);
  absl::Status s = CheckOpen();
  if (s.ok()) {
    *size = options_.is_grad ? options_.marked_size
                             : static_cast<int32_t>(elements_.size());
  }
  return s;
}

absl::Status TensorArray::MarkedSize(int32_t* size) {
  absl::MutexLock l(&mu_);
  absl::Status s = CheckOpen();
  if (s.ok()) *size = options_.marked_size;
  return s;
}

absl::Status TensorArray::SetMarkedSize(int32_t size) {
  absl::MutexLock l(&mu_);
  absl::Status s = CheckOpen();
  if (s.ok() && !options_.is_grad) options_.marked_size = size;
  return s;
}

absl::Status TensorArray::SetElemShape(const PartialTensorShape& candidate) {
  absl::MutexLock l(&mu_);
  PartialTensorShape merged;
  absl::Status s =
      MergePartialShapes(options_.element_shape, candidate, &merged);
  if (s.ok()) options_.element_shape = merged;
  return s;
}

PartialTensorShape TensorArray::ElemShape() {
  absl::MutexLock l(&mu_);
  return options_.element_shape;
}

bool TensorArray::HasDynamicSize() {
  absl::MutexLock l(&mu_);
  return options_.dynamic_size;
}

void TensorArray::DisableDynamicSize() {
  absl::MutexLock l(&mu_);
  options_.dynamic_size = false;
}

bool TensorArray::GradientsAllowed() {
  absl::MutexLock l(&mu_);
  return !gradients_disallowed_;
}

absl::Status TensorArray::CopyShapesFrom(TensorArray* forward,
                                         const TensorShape& prepend) {
  // Two arrays: lock in a fixed (address) order, never observable.
  absl::Mutex* first = &mu_;
  absl::Mutex* second = &forward->mu_;
  if (second < first) std::swap(first, second);
  absl::MutexLock l1(first);
  absl::MutexLock l2(second);
  absl::Status s = CheckOpen();
  if (!s.ok()) return s;
  s = forward->CheckOpen();
  if (!s.ok()) return s;
  if (elements_.size() != forward->elements_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray sizes do not match during CopyShapesFrom: ", name_,
        " has size ", elements_.size(), " but rhs ", forward->name_,
        " has size ", forward->elements_.size()));
  }
  for (size_t i = 0; i < elements_.size(); ++i) {
    const Element& f = forward->elements_[i];
    if (!f.written) continue;
    TensorShape shape = prepend;
    for (int64_t d : f.shape.dim_sizes()) shape.AddDim(d);
    elements_[i].shape = shape;
    elements_[i].written = true;
  }
  return absl::OkStatus();
}

void TensorArray::ClearAndMarkClosed() {
  absl::MutexLock l(&mu_);
  elements_.clear();
  closed_ = true;
}

std::string TensorArray::DebugString() const {
  absl::MutexLock l(&mu_);
  return absl::StrCat("TensorArray ", name_, " of ",
                      DataTypeString(options_.dtype), " size ",
                      elements_.size(), closed_ ? " (closed)" : "");
}

}  // namespace stepflow
