// TensorFlow's V1 checkpoint kernels (tensor_slice_table.h): Save and
// SaveSlices write one table file holding the named tensors (SaveSlices:
// each as the slice "<full dims> <slice>" of a larger tensor, tensor_slice.h;
// "" is the whole tensor); Restore and RestoreSlice read a tensor (or a
// slice of it) back from every file matching a glob pattern.
//
// Errors, as TensorFlow's kernels: InvalidArgument for a filename,
// pattern, name or spec that is not a single string, a count of names or
// specs other than the tensors', a spec whose slice shape differs from the
// tensor's (save) or whose full shape differs from the stored one
// (restore), a stored dtype other than `dt`, a slice the files do not
// cover, a uint32 or uint64 tensor to save; Unimplemented for another dtype
// the format does not hold; NotFound for no matching file or an unknown
// tensor; DataLoss for a corrupt file. Save writes the tensors in name
// order, as TensorFlow does, so both write the same bytes. Every
// message names the node. preferred_shard is accepted and unused (every
// matching file is read).
//
// Temporary file names come from the Env's Random when the device has one,
// otherwise from the step id and a per-kernel counter, never from entropy.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_slice.h"
#include "runtime/kernels/tensor_slice_table.h"

namespace stepflow {
namespace {

// Input `i` must hold exactly one string.
absl::Status CheckSingleString(OpKernelContext* ctx, int i, const char* what) {
  const int64_t n = ctx->input(i).NumElements();
  if (n == 1) return absl::OkStatus();
  return NodeInvalidArgument(ctx, "Input ", i, " (", what,
                             ") must be a string scalar; got a tensor of ", n,
                             " elements");
}

// kSlices: SaveSlices (a shapes_and_slices input).
template <bool kSlices>
class SaveOp : public OpKernel {
 public:
  explicit SaveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int fixed = slices_ ? 3 : 2;
    const int64_t n = ctx->num_inputs() - fixed;
    OP_REQUIRES_OK(ctx, CheckSingleString(ctx, 0, "filename"));
    const Tensor& names = ctx->input(1);
    OP_REQUIRES(ctx, names.NumElements() == n,
                NodeInvalidArgument(ctx, "Expected ", n,
                                    " elements in tensor_names, got ",
                                    names.NumElements()));
    if (slices_) {
      OP_REQUIRES(ctx, ctx->input(2).NumElements() == n,
                  NodeInvalidArgument(ctx, "Expected ", n,
                                      " elements in shapes_and_slices, got ",
                                      ctx->input(2).NumElements()));
    }
    // Tensors are added in name order (equal names in input order), as
    // TensorFlow's kernel adds them, so the files are the same bytes.
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return names.flat<std::string>()(a) < names.flat<std::string>()(b);
    });
    TensorSliceTableWriter writer;
    for (int64_t i : order) {
      const std::string& tensor_name = names.flat<std::string>()(i);
      const Tensor& data = ctx->input(fixed + static_cast<int>(i));
      // TensorFlow's kernel takes these dtypes but its writer cannot encode
      // them.
      OP_REQUIRES(
          ctx, data.dtype() != DT_UINT32 && data.dtype() != DT_UINT64,
          NodeInvalidArgument(
              ctx, "Tensor slice serialization not implemented for dtype ",
              static_cast<int>(data.dtype())));
      OP_REQUIRES(
          ctx, SavableInV1(data.dtype()),
          NodeError(absl::StatusCode::kUnimplemented, *this,
                    "Saving data of type ", DataTypeString(data.dtype()),
                    " not yet supported"));
      TensorShape shape = data.shape();
      TensorSlice slice = TensorSlice::Full(data.dims());
      const std::string spec =
          slices_ ? ctx->input(2).flat<std::string>()(i) : std::string();
      if (!spec.empty()) {
        OP_REQUIRES_OK(ctx, AttachDef(TensorSlice::ParseShapeAndSlice(
                                          spec, &shape, &slice),
                                      name()));
        OP_REQUIRES(ctx, slice.SliceShape(shape) == data.shape(),
                    NodeInvalidArgument(
                        ctx,
                        "Slice in shape_and_slice specification does not "
                        "match the shape of the tensor to  save: ",
                        spec, ", tensor: ", data.shape().DebugString()));
      }
      OP_REQUIRES_OK(
          ctx, AttachDef(writer.Add(tensor_name, shape, slice, data), name()));
    }
    OP_REQUIRES_OK(ctx,
                   AttachDef(writer.Write(ctx->input(0).flat<std::string>()(0),
                                          NextTempId(ctx)),
                             name()));
  }

 private:
  uint64_t NextTempId(OpKernelContext* ctx) {
    const uint64_t k = counter_.fetch_add(1, std::memory_order_relaxed);
    Env* env = ctx->env();
    if (env != nullptr && env->random != nullptr) return env->random->New64();
    return static_cast<uint64_t>(ctx->step_id()) * 0x9E3779B97F4A7C15ull + k;
  }

  static constexpr bool slices_ = kSlices;
  std::atomic<uint64_t> counter_{0};
};

// kSlice: RestoreSlice (a shape_and_slice input).
template <bool kSlice>
class RestoreOp : public OpKernel {
 public:
  explicit RestoreOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dt", &dt_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckSingleString(ctx, 0, "file_pattern"));
    OP_REQUIRES_OK(ctx, CheckSingleString(ctx, 1, "tensor_name"));
    if (slice_) {
      OP_REQUIRES_OK(ctx, CheckSingleString(ctx, 2, "shape_and_slice"));
    }
    const std::string& pattern = ctx->input(0).flat<std::string>()(0);
    const std::string& tensor_name = ctx->input(1).flat<std::string>()(0);
    std::unique_ptr<TensorSliceTableReader> reader;
    OP_REQUIRES_OK(
        ctx, AttachDef(TensorSliceTableReader::Open(pattern, &reader), name()));
    DataType dtype;
    TensorShape saved_shape;
    OP_REQUIRES_OK(
        ctx,
        AttachDef(reader->Lookup(tensor_name, &dtype, &saved_shape), name()));
    OP_REQUIRES(
        ctx, dtype == dt_,
        NodeInvalidArgument(ctx, "Expected to restore a tensor of type ",
                            DataTypeString(dt_), ", got a tensor of type ",
                            DataTypeString(dtype),
                            " instead: tensor_name = ", tensor_name));
    TensorSlice slice = TensorSlice::Full(saved_shape.dims());
    const std::string spec =
        slice_ ? ctx->input(2).flat<std::string>()(0) : std::string();
    if (!spec.empty()) {
      TensorShape spec_shape;
      OP_REQUIRES_OK(ctx, AttachDef(TensorSlice::ParseShapeAndSlice(
                                        spec, &spec_shape, &slice),
                                    name()));
      OP_REQUIRES(ctx, spec_shape == saved_shape,
                  NodeInvalidArgument(
                      ctx,
                      "Shape in shape_and_slice spec does not match the shape "
                      "in the save file: ",
                      spec_shape.DebugString(),
                      ", save file shape: ", saved_shape.DebugString()));
    }
    OP_REQUIRES(ctx, SavableInV1(dt_),
                NodeError(absl::StatusCode::kUnimplemented, *this,
                          "Restoring data type ", DataTypeString(dt_),
                          " not yet supported"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, slice.SliceShape(saved_shape), &out));
    OP_REQUIRES_OK(
        ctx, AttachDef(reader->ReadSlice(tensor_name, slice, out), name()));
  }

 private:
  static constexpr bool slice_ = kSlice;
  DataType dt_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("Save").Device(DEVICE_CPU), SaveOp<false>);
REGISTER_KERNEL_BUILDER(Name("SaveSlices").Device(DEVICE_CPU), SaveOp<true>);
REGISTER_KERNEL_BUILDER(Name("Restore").Device(DEVICE_CPU), RestoreOp<false>);
REGISTER_KERNEL_BUILDER(Name("RestoreSlice").Device(DEVICE_CPU),
                        RestoreOp<true>);

}  // namespace
}  // namespace stepflow
