// Shape inference: what an op's shape function sees and builds
// (TensorFlow's shape_inference::InferenceContext).
//
// A shape is either of unknown rank or a list of dimensions, each known
// (>= 0) or unknown. Shape functions work on handles, pointers to
// immutable Shape/Dimension values owned by a ShapeManager that outlives
// every context using it: copying a handle copies the pointer, so "the
// same unknown dimension" can flow from an input to an output (Merge keeps
// the first of two unknown dimensions, as TensorFlow does).
//
// An InferenceContext is made for one node: its NodeDef and OpDef, one
// shape per data input (unknown for an input not inferred yet, such as a
// loop's back edge), and optionally a ConstantSource that evaluates an
// input's value when the function asks for it (Reshape's shape, Fill's
// dims, a reduction's axes). The function sets every output's shape;
// outputs it leaves unset read as unknown shapes. Errors are
// InvalidArgument with TensorFlow's wording ("Shape must be rank 2 but is
// rank 1", "Dimensions must be equal, but are 2 and 3"); the ShapeRefiner
// adds the node and its input shapes (AttachContext).
//
// Thread-compatible: a context and its manager belong to one thread.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_INFERENCE_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_INFERENCE_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/graph.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace shape_inference {

constexpr int64_t kUnknownDim = -1;
constexpr int32_t kUnknownRank = -1;

class Dimension {
 public:
  explicit Dimension(int64_t value) : value_(value) {}
  int64_t value() const { return value_; }

 private:
  const int64_t value_;
};

class DimensionHandle {
 public:
  DimensionHandle() = default;
  bool IsSet() const { return ptr_ != nullptr; }
  // Same underlying Dimension (not merely equal values).
  bool SameHandle(DimensionHandle d) const { return ptr_ == d.ptr_; }

 private:
  friend class InferenceContext;
  friend class ShapeManager;
  friend class Shape;
  explicit DimensionHandle(const Dimension* d) : ptr_(d) {}
  const Dimension* operator->() const { return ptr_; }
  const Dimension* ptr_ = nullptr;
};

class Shape {
 public:
  Shape() : rank_(kUnknownRank) {}
  explicit Shape(std::vector<DimensionHandle> dims)
      : rank_(static_cast<int32_t>(dims.size())), dims_(std::move(dims)) {}

 private:
  friend class InferenceContext;
  const int32_t rank_;
  const std::vector<DimensionHandle> dims_;
};

class ShapeHandle {
 public:
  ShapeHandle() = default;
  bool IsSet() const { return ptr_ != nullptr; }
  bool SameHandle(ShapeHandle s) const { return ptr_ == s.ptr_; }

 private:
  friend class InferenceContext;
  friend class ShapeManager;
  explicit ShapeHandle(const Shape* s) : ptr_(s) {}
  const Shape* operator->() const { return ptr_; }
  const Shape* ptr_ = nullptr;
};

// A dimension argument given either as a handle or as a value (>= 0, or
// kUnknownDim).
struct DimensionOrConstant {
  DimensionOrConstant(DimensionHandle d) : dim(d) {}  // NOLINT
  DimensionOrConstant(int64_t v) : val(v) {}          // NOLINT
  DimensionHandle dim;
  int64_t val = kUnknownDim;
};

// The shape and dtype of one tensor a resource handle (or variant) refers
// to: a resource variable's value.
struct ShapeAndType {
  ShapeHandle shape;
  DataType dtype = DT_INVALID;
};

// Owns every Shape and Dimension handed out; never frees one before it is
// destroyed. Thread-compatible.
class ShapeManager {
 public:
  ShapeManager() = default;
  ShapeManager(const ShapeManager&) = delete;
  ShapeManager& operator=(const ShapeManager&) = delete;

  ShapeHandle MakeShape(std::vector<DimensionHandle> dims);
  ShapeHandle UnknownShape();
  DimensionHandle MakeDim(int64_t value);

 private:
  std::deque<Shape> shapes_;
  std::deque<Dimension> dims_;
};

// Evaluates a node's inputs when they are constant; the ShapeRefiner
// provides it. Both return null/unset when the value is not known.
class ConstantSource {
 public:
  virtual ~ConstantSource() = default;
  // The value of data input `index`, or null. Valid while the source lives.
  virtual const Tensor* InputTensor(int index) = 0;
  // Input `index` (an int32/int64 vector) read as a shape, as much of it as
  // is known (TensorFlow's ConstantPartialShape): unknown dimensions where
  // elements are unknown or -1. Unset when nothing is known.
  virtual ShapeHandle InputTensorAsShape(int index) = 0;
};

class InferenceContext {
 public:
  // `input_shapes` has one entry per data input (unset entries read as
  // unknown shapes). All pointers are borrowed and must outlive the
  // context; `constants` may be null.
  InferenceContext(const NodeDef* node_def, const OpDef* op_def,
                   absl::Span<const ShapeHandle> input_shapes, int num_outputs,
                   ShapeManager* manager, ConstantSource* constants);
  InferenceContext(const InferenceContext&) = delete;
  InferenceContext& operator=(const InferenceContext&) = delete;

  // Runs `fn` (TensorFlow's Run); the error is the function's, without
  // context (see AttachContext).
  template <typename Fn>
  absl::Status Run(const Fn& fn) {
    return fn(this);
  }
  // `status` with " for '<node summary>' with input shapes: [2], [3]." and
  // any constant inputs the function read appended, TensorFlow's form.
  absl::Status AttachContext(const absl::Status& status) const;

  const NodeDef& node_def() const { return *node_def_; }
  const OpDef& op_def() const { return *op_def_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  ShapeHandle input(int idx) const { return inputs_[idx]; }
  // The shapes of input arg `name` (a list arg gives several). InvalidArgument
  // for an unknown name.
  absl::Status input(absl::string_view name,
                     std::vector<ShapeHandle>* out) const;
  void SetInput(int idx, ShapeHandle s) { inputs_[idx] = s; }
  ShapeHandle output(int idx) const { return outputs_[idx]; }
  void set_output(int idx, ShapeHandle s) { outputs_[idx] = s; }
  // Sets the outputs of output arg `name`; InvalidArgument if the count
  // does not match.
  absl::Status set_output(absl::string_view name,
                          const std::vector<ShapeHandle>& shapes);
  // The first output index of output arg `name` and one past its last.
  absl::Status output_range(absl::string_view name, int* start,
                            int* stop) const;
  absl::Status input_range(absl::string_view name, int* start, int* stop) const;

  // The constant value of input `idx`, or null when it is not known.
  const Tensor* input_tensor(int idx);

  // Resource handles: what the handle at input `idx` refers to (null when
  // unknown), and what output `idx`'s handle refers to.
  const std::vector<ShapeAndType>* input_handle_shapes_and_types(int idx) const;
  void set_input_handle_shapes_and_types(int idx, std::vector<ShapeAndType> v);
  const std::vector<ShapeAndType>* output_handle_shapes_and_types(
      int idx) const;
  void set_output_handle_shapes_and_types(int idx, std::vector<ShapeAndType> v);

  // Attr `name` of the node, else the OpDef's default.
  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const;
  const AttrValue* GetAttr(absl::string_view name) const;

  // Queries.
  static bool RankKnown(ShapeHandle s) { return s.IsSet() && s->rank_ >= 0; }
  static int32_t Rank(ShapeHandle s) {
    return s.IsSet() ? s->rank_ : kUnknownRank;
  }
  static DimensionHandle DimKnownRank(ShapeHandle s, int64_t idx) {
    return s->dims_[idx];
  }
  // Dimension `idx` (negative counts from the end); unknown when the rank
  // is unknown.
  DimensionHandle Dim(ShapeHandle s, int64_t idx);
  static int64_t Value(DimensionOrConstant d) {
    return d.dim.IsSet() ? d.dim->value() : d.val;
  }
  static bool ValueKnown(DimensionOrConstant d) {
    return Value(d) != kUnknownDim;
  }
  static bool FullyDefined(ShapeHandle s);
  // Product of the dimensions; unknown unless fully defined.
  DimensionHandle NumElements(ShapeHandle s);
  std::string DebugString(ShapeHandle s) const;
  std::string DebugString(DimensionHandle d) const;

  // Checks that merge `in` with a constraint, returning the refined value.
  absl::Status WithRank(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  absl::Status WithRankAtLeast(ShapeHandle shape, int64_t rank,
                               ShapeHandle* out);
  absl::Status WithRankAtMost(ShapeHandle shape, int64_t rank,
                              ShapeHandle* out);
  absl::Status WithValue(DimensionHandle dim, int64_t value,
                         DimensionHandle* out);
  // Merges two compatible values (unknowns take the other's value).
  absl::Status Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out);
  absl::Status Merge(DimensionHandle d0, DimensionHandle d1,
                     DimensionHandle* out);
  // Merges the first Rank(prefix) dims of `s` with `prefix`.
  absl::Status MergePrefix(ShapeHandle s, ShapeHandle prefix,
                           ShapeHandle* s_out, ShapeHandle* prefix_out);
  // Whether two shapes may describe the same tensor.
  bool Compatible(ShapeHandle s0, ShapeHandle s1) const;

  // Builders.
  absl::Status Subshape(ShapeHandle s, int64_t start, ShapeHandle* out);
  absl::Status Subshape(ShapeHandle s, int64_t start, int64_t end,
                        ShapeHandle* out);
  absl::Status Subshape(ShapeHandle s, int64_t start, int64_t end,
                        int64_t stride, ShapeHandle* out);
  absl::Status Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out);
  absl::Status ReplaceDim(ShapeHandle s, int64_t dim_index,
                          DimensionHandle new_dim, ShapeHandle* out);
  ShapeHandle MakeShape(std::vector<DimensionHandle> dims);
  ShapeHandle MakeShape(std::initializer_list<DimensionOrConstant> dims);
  ShapeHandle UnknownShape();
  ShapeHandle UnknownShapeOfRank(int64_t rank);
  ShapeHandle Scalar();
  ShapeHandle Vector(DimensionOrConstant dim);
  ShapeHandle Matrix(DimensionOrConstant dim1, DimensionOrConstant dim2);
  DimensionHandle MakeDim(DimensionOrConstant d);
  DimensionHandle UnknownDim();
  absl::Status MakeShapeFromShapeProto(const TensorShapeProto& proto,
                                       ShapeHandle* out);
  absl::Status MakeShapeFromPartialTensorShape(
      const PartialTensorShape& partial, ShapeHandle* out);
  absl::Status MakeShapeFromTensorShape(const TensorShape& shape,
                                        ShapeHandle* out);
  // Input `idx`, a 1-D int32/int64 tensor, read as a shape (-1 elements
  // unknown); a scalar -1 is an unknown shape. As much as is known when
  // the input is only partly constant.
  absl::Status MakeShapeFromShapeTensor(int idx, ShapeHandle* out);
  // The same, but any scalar input is an unknown shape.
  absl::Status MakeShapeFromShapeTensorTreatScalarAsUnknownShape(
      int idx, ShapeHandle* out);
  // A 1-D int32/int64 tensor's values as a shape.
  absl::Status MakeShapeFromTensor(const Tensor* t, ShapeHandle tensor_shape,
                                   ShapeHandle* out);
  // A scalar int32/int64 tensor's value as a dimension (-1 unknown).
  absl::Status MakeDimForScalarInput(int idx, DimensionHandle* out);
  // The int32/int64 scalar `t` holds.
  absl::Status GetScalarFromTensor(const Tensor* t, int64_t* val);
  absl::Status GetScalarFromTensor(const Tensor* t, int64_t idx, int64_t* val);

  // Dimension arithmetic (unknown in, unknown out).
  absl::Status Add(DimensionHandle first, DimensionOrConstant second,
                   DimensionHandle* out);
  absl::Status Subtract(DimensionHandle first, DimensionOrConstant second,
                        DimensionHandle* out);
  absl::Status Multiply(DimensionHandle first, DimensionOrConstant second,
                        DimensionHandle* out);
  absl::Status Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                      bool evenly_divisible, DimensionHandle* out);
  absl::Status Min(DimensionHandle first, DimensionOrConstant second,
                   DimensionHandle* out);
  absl::Status Max(DimensionHandle first, DimensionOrConstant second,
                   DimensionHandle* out);

 private:
  absl::Status ShapeTensorToShape(int idx, bool scalar_is_unknown,
                                  ShapeHandle* out);
  absl::Status ArgRange(
      const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
      absl::string_view name, int* start, int* stop) const;

  const NodeDef* const node_def_;
  const OpDef* const op_def_;
  ShapeManager* const manager_;
  ConstantSource* const constants_;
  absl::InlinedVector<ShapeHandle, 4> inputs_;
  absl::InlinedVector<ShapeHandle, 2> outputs_;
  // Which inputs the function read as tensors or shapes (for messages).
  absl::InlinedVector<const Tensor*, 4> requested_tensors_;
  absl::InlinedVector<ShapeHandle, 4> requested_shapes_;
  std::vector<std::vector<ShapeAndType>> input_handle_data_;
  std::vector<std::vector<ShapeAndType>> output_handle_data_;
  std::vector<bool> input_handle_set_, output_handle_set_;
};

// The attr kinds GetAttr reads.
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       int64_t* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       int32_t* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       float* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       bool* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       DataType* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::string* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       TensorShapeProto* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<int64_t>* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<int32_t>* value) const;
template <>
absl::Status InferenceContext::GetAttr(absl::string_view name,
                                       std::vector<DataType>* value) const;
template <>
absl::Status InferenceContext::GetAttr(
    absl::string_view name, std::vector<TensorShapeProto>* value) const;

}  // namespace shape_inference
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_SHAPE_INFERENCE_H_
