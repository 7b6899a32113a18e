// Checkpoint kernels: SaveV2, RestoreV2, MergeV2Checkpoints (TensorFlow's
// tensor bundle format: bundle_writer.h, bundle_reader.h, bundle_merge.h),
// ShardedFilename and ShardedFilespec.
//
// shape_and_slices: "" saves or restores a whole tensor; otherwise the
// entry is "<full dims> <slice>" (tensor_slice.h). SaveV2 then stores the
// tensor as that slice of the full tensor (a partitioned variable's part);
// RestoreV2 returns that slice, assembled from whatever was saved (a whole
// tensor or slices). Input validation follows TensorFlow's kernels
// (InvalidArgument for a non-scalar prefix, name and slice lists of
// different lengths, too few tensors or dtypes, a malformed slice spec or
// one whose shape differs from the stored one). RestoreV2: missing
// checkpoint or tensor -> NotFound, stored dtype other than the node's
// `dtypes` entry -> InvalidArgument, corrupt file -> DataLoss; every
// message names the node.
//
// Temporary file names come from the Env's Random when the device has one,
// otherwise from the step id and a per-kernel counter, never from entropy.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/bundle_format.h"
#include "runtime/kernels/bundle_merge.h"
#include "runtime/kernels/bundle_reader.h"
#include "runtime/kernels/bundle_writer.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/tensor_slice.h"

namespace stepflow {
namespace {

constexpr int kFixedInputs = 3;  // prefix, tensor_names, shape_and_slices.

// A temporary-file id that is unique per kernel invocation.
class TempIdSource {
 public:
  uint64_t Next(OpKernelContext* ctx) {
    const uint64_t n = counter_.fetch_add(1, std::memory_order_relaxed);
    Env* env = ctx->env();
    if (env != nullptr && env->random != nullptr) return env->random->New64();
    return static_cast<uint64_t>(ctx->step_id()) * 0x9E3779B97F4A7C15ull + n;
  }

 private:
  std::atomic<uint64_t> counter_{0};
};

// Checks prefix / tensor_names / shape_and_slices as TensorFlow's SaveV2
// and RestoreV2 kernels do; `num_tensors` is the tensors (or dtypes) the
// node has.
absl::Status ValidateInputs(OpKernelContext* ctx, int64_t num_tensors,
                            const char* tensors_what) {
  const Tensor& prefix = ctx->input(0);
  const Tensor& names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  if (prefix.NumElements() != 1) {
    return NodeInvalidArgument(ctx,
                               "Input prefix should have a single "
                               "element, got ",
                               prefix.NumElements(), " instead.");
  }
  if (names.dims() != 1 || slices.dims() != 1) {
    return NodeInvalidArgument(
        ctx,
        "Input tensor_names and shape_and_slices should be an 1-D "
        "tensors, got ",
        names.shape().DebugString(), " and ", slices.shape().DebugString(),
        " instead.");
  }
  if (names.NumElements() != slices.NumElements()) {
    return NodeInvalidArgument(
        ctx,
        "tensor_names and shape_and_slices have different number of "
        "elements: ",
        names.NumElements(), " vs. ", slices.NumElements());
  }
  if (names.NumElements() != num_tensors) {
    return NodeInvalidArgument(ctx, "Got ", names.NumElements(),
                               " tensor names but ", num_tensors, " ",
                               tensors_what, ".");
  }
  return absl::OkStatus();
}

// The node's shape_and_slices entry `i` parsed; false for "" (a whole
// tensor).
absl::Status ParseSpec(OpKernelContext* ctx, int64_t i, bool* sliced,
                       TensorShape* full_shape, TensorSlice* slice) {
  const std::string& spec = ctx->input(2).flat<std::string>()(i);
  *sliced = !spec.empty();
  if (!*sliced) return absl::OkStatus();
  return AttachDef(TensorSlice::ParseShapeAndSlice(spec, full_shape, slice),
                   ctx->op_kernel().name());
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int64_t num_tensors = ctx->num_inputs() - kFixedInputs;
    OP_REQUIRES_OK(ctx, ValidateInputs(ctx, num_tensors, "tensors"));
    const std::string& prefix = ctx->input(0).flat<std::string>()(0);
    const Tensor& names = ctx->input(1);
    BundleWriter writer(prefix, temp_ids_.Next(ctx));
    for (int64_t i = 0; i < num_tensors; ++i) {
      const std::string& tensor_name = names.flat<std::string>()(i);
      const Tensor& tensor = ctx->input(kFixedInputs + static_cast<int>(i));
      bool sliced = false;
      TensorShape full_shape;
      TensorSlice slice;
      OP_REQUIRES_OK(ctx, ParseSpec(ctx, i, &sliced, &full_shape, &slice));
      OP_REQUIRES_OK(ctx,
                     AttachDef(sliced ? writer.AddSlice(tensor_name, full_shape,
                                                        slice, tensor)
                                      : writer.Add(tensor_name, tensor),
                               name()));
    }
    OP_REQUIRES_OK(ctx, AttachDef(writer.Finish(), name()));
  }

 private:
  TempIdSource temp_ids_;
};

REGISTER_KERNEL_BUILDER(Name("SaveV2").Device(DEVICE_CPU), SaveV2Op);

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t num_tensors = static_cast<int64_t>(dtypes_.size());
    OP_REQUIRES_OK(ctx, ValidateInputs(ctx, num_tensors, "expected dtypes"));
    const std::string& prefix = ctx->input(0).flat<std::string>()(0);
    const Tensor& names = ctx->input(1);
    std::unique_ptr<BundleReader> reader;
    OP_REQUIRES_OK(ctx, AttachDef(BundleReader::Open(prefix, &reader), name()));
    // All lookups and dtype checks first, so a wrong request reads nothing.
    for (int64_t i = 0; i < num_tensors; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      DataType dtype;
      TensorShape shape;
      OP_REQUIRES_OK(
          ctx,
          AttachDef(reader->LookupDtypeAndShape(key, &dtype, &shape), name()));
      OP_REQUIRES(
          ctx, dtype == dtypes_[i],
          NodeInvalidArgument(ctx, "tensor_name = ", key, "; expected dtype ",
                              DataTypeString(dtypes_[i]),
                              " does not equal restored dtype ",
                              DataTypeString(dtype)));
    }
    const bundle::TensorAllocator alloc =
        [ctx](DataType dtype, const TensorShape& shape, Tensor* out) {
          return ctx->allocate_temp(dtype, shape, out);
        };
    for (int64_t i = 0; i < num_tensors; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      bool sliced = false;
      TensorShape full_shape;
      TensorSlice slice;
      OP_REQUIRES_OK(ctx, ParseSpec(ctx, i, &sliced, &full_shape, &slice));
      Tensor t;
      OP_REQUIRES_OK(ctx, AttachDef(sliced ? reader->ReadSlice(key, full_shape,
                                                               slice, alloc, &t)
                                           : reader->Read(key, alloc, &t),
                                    name()));
      ctx->set_output(static_cast<int>(i), t);
    }
  }

 private:
  std::vector<DataType> dtypes_;
};

REGISTER_KERNEL_BUILDER(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2Op);

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sources = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    OP_REQUIRES(
        ctx, destination.dims() == 0,
        NodeInvalidArgument(ctx,
                            "Input destination_prefix should be "
                            "a scalar tensor, got ",
                            destination.shape().DebugString(), " instead."));
    OP_REQUIRES(
        ctx, sources.dims() <= 1,
        NodeInvalidArgument(ctx,
                            "Input checkpoint_prefixes should be "
                            "a 1-D tensor, got ",
                            sources.shape().DebugString(), " instead."));
    std::vector<std::string> prefixes;
    for (int64_t i = 0; i < sources.NumElements(); ++i) {
      prefixes.push_back(sources.flat<std::string>()(i));
    }
    absl::Status s = MergeBundles(prefixes, destination.scalar<std::string>(),
                                  delete_old_dirs_, allow_missing_files_,
                                  temp_ids_.Next(ctx));
    // A missing source is InvalidArgument in TensorFlow (the
    // allow_missing_files contract), not NotFound.
    if (absl::IsNotFound(s) && !allow_missing_files_) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "allow_missing_files was set to false and a source checkpoint did "
          "not exist: ",
          s.message()));
    }
    OP_REQUIRES_OK(ctx, AttachDef(s, name()));
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
  TempIdSource temp_ids_;
};

REGISTER_KERNEL_BUILDER(Name("MergeV2Checkpoints").Device(DEVICE_CPU),
                        MergeV2CheckpointsOp);

// TensorFlow 2.21 requires true scalars here (no one-element vectors).
absl::Status RequireScalar(OpKernelContext* ctx, int index, const char* what) {
  const Tensor& t = ctx->input(index);
  if (t.dims() == 0) return absl::OkStatus();
  return NodeInvalidArgument(ctx, what, " must be a scalar, got shape ",
                             t.shape().DebugString());
}

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireScalar(ctx, 0, "basename"));
    OP_REQUIRES_OK(ctx, RequireScalar(ctx, 1, "shard"));
    OP_REQUIRES_OK(ctx, RequireScalar(ctx, 2, "num_shards"));
    const std::string& basename = ctx->input(0).flat<std::string>()(0);
    const int32_t shard = ctx->input(1).flat<int32_t>()(0);
    const int32_t num_shards = ctx->input(2).flat<int32_t>()(0);
    ctx->set_output(0, Tensor::Scalar<std::string>(absl::StrFormat(
                           "%s-%05d-of-%05d", basename, shard, num_shards)));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ShardedFilename").Device(DEVICE_CPU),
                        ShardedFilenameOp);

class ShardedFilespecOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, RequireScalar(ctx, 0, "basename"));
    OP_REQUIRES_OK(ctx, RequireScalar(ctx, 1, "num_shards"));
    const std::string& basename = ctx->input(0).flat<std::string>()(0);
    const int32_t num_shards = ctx->input(1).flat<int32_t>()(0);
    ctx->set_output(
        0, Tensor::Scalar<std::string>(absl::StrFormat("%s-?????"
                                                       "-of-%05d",
                                                       basename, num_shards)));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("ShardedFilespec").Device(DEVICE_CPU),
                        ShardedFilespecOp);

}  // namespace
}  // namespace stepflow
