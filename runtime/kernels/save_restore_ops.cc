// Checkpoint kernels: SaveV2, RestoreV2, MergeV2Checkpoints (the
// checkpoint_format.h file format), ShardedFilename and ShardedFilespec.
//
// SaveV2 saves whole tensors only: a non-empty shape_and_slices entry is
// Unimplemented naming the node. RestoreV2 restores a whole tensor, or a
// slice of one given as TensorFlow spells it ("<full dims> <slice>:...",
// each slice "start,length" or "-" for the whole dim; InvalidArgument when
// malformed, outside the full shape, or when the full shape differs from
// the stored one). Input validation follows
// TensorFlow's kernels (InvalidArgument for a non-scalar prefix, name and
// slice lists of different lengths, too few tensors or dtypes). RestoreV2:
// missing checkpoint or tensor -> NotFound, stored dtype other than the
// node's `dtypes` entry -> InvalidArgument, corrupt file -> DataLoss; every
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
#include "runtime/kernels/checkpoint_format.h"
#include "runtime/kernels/kernel_util.h"

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

// A parsed shape-and-slice spec: the full shape and, per dim, the slice's
// start and length.
struct SliceSpec {
  std::vector<int64_t> full;
  std::vector<int64_t> start;
  std::vector<int64_t> length;
};

absl::Status ParseSliceSpec(OpKernelContext* ctx, const std::string& spec,
                            SliceSpec* out) {
  const std::vector<std::string> parts =
      absl::StrSplit(spec, ' ', absl::SkipEmpty());
  auto bad = [&](absl::string_view why) {
    return NodeInvalidArgument(ctx, "Invalid shape_and_slice '", spec,
                               "': ", why);
  };
  if (parts.size() < 2) return bad("expected dims and a slice");
  const size_t rank = parts.size() - 1;
  const std::vector<std::string> slices = absl::StrSplit(parts.back(), ':');
  if (slices.size() != rank) return bad("the slice's rank differs");
  for (size_t d = 0; d < rank; ++d) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(parts[d], &dim) || dim < 0) {
      return bad("bad dimension");
    }
    int64_t start = 0, length = dim;
    if (slices[d] != "-") {
      const std::vector<std::string> sl = absl::StrSplit(slices[d], ',');
      if (sl.size() != 2 || !absl::SimpleAtoi(sl[0], &start) ||
          !absl::SimpleAtoi(sl[1], &length) || start < 0 || length < 0 ||
          start > dim || length > dim - start) {
        return bad("bad slice extent");
      }
    }
    out->full.push_back(dim);
    out->start.push_back(start);
    out->length.push_back(length);
  }
  return absl::OkStatus();
}

// Copies the slice `spec` of `whole` (whose shape is spec.full) into a new
// tensor.
template <typename U>
void CopySlice(const Tensor& whole, const SliceSpec& spec, Tensor* out) {
  const int rank = static_cast<int>(spec.full.size());
  const U* in = whole.base<U>();
  U* o = out->base<U>();
  const int64_t n = out->NumElements();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      offset = offset * spec.full[d] + spec.start[d] + idx[d];
    }
    o[k] = in[offset];
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < spec.length[d]) break;
      idx[d] = 0;
    }
  }
}

absl::Status RequireFullTensors(OpKernelContext* ctx) {
  const Tensor& names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  for (int64_t i = 0; i < slices.NumElements(); ++i) {
    const std::string& slice = slices.flat<std::string>()(i);
    if (!slice.empty()) {
      return AttachDef(
          absl::UnimplementedError(absl::StrCat(
              "Partitioned (sliced) tensors are not supported: "
              "tensor '",
              names.flat<std::string>()(i), "' has shape_and_slice '", slice,
              "'; only whole tensors (\"\") can be saved or "
              "restored")),
          ctx->op_kernel().name());
    }
  }
  return absl::OkStatus();
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int64_t num_tensors = ctx->num_inputs() - kFixedInputs;
    OP_REQUIRES_OK(ctx, ValidateInputs(ctx, num_tensors, "tensors"));
    OP_REQUIRES_OK(ctx, RequireFullTensors(ctx));
    const std::string& prefix = ctx->input(0).flat<std::string>()(0);
    const Tensor& names = ctx->input(1);
    checkpoint::CheckpointWriter writer(prefix, temp_ids_.Next(ctx));
    for (int64_t i = 0; i < num_tensors; ++i) {
      OP_REQUIRES_OK(ctx, AttachDef(writer.Add(names.flat<std::string>()(i),
                                               ctx->input(kFixedInputs + i)),
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
    const Tensor& slices = ctx->input(2);
    std::unique_ptr<checkpoint::CheckpointReader> reader;
    OP_REQUIRES_OK(
        ctx,
        AttachDef(checkpoint::CheckpointReader::Open(prefix, &reader), name()));
    // All lookups and dtype checks first, so a wrong request reads nothing.
    for (int64_t i = 0; i < num_tensors; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      const checkpoint::EntryInfo* info = nullptr;
      OP_REQUIRES_OK(ctx, AttachDef(reader->Lookup(key, &info), name()));
      OP_REQUIRES(
          ctx, info->dtype == dtypes_[i],
          NodeInvalidArgument(ctx, "tensor_name = ", key, "; expected dtype ",
                              DataTypeString(dtypes_[i]),
                              " does not equal restored dtype ",
                              DataTypeString(info->dtype)));
    }
    for (int64_t i = 0; i < num_tensors; ++i) {
      const std::string& key = names.flat<std::string>()(i);
      Tensor t;
      OP_REQUIRES_OK(ctx, AttachDef(reader->Read(key, &t), name()));
      const std::string& spec_text = slices.flat<std::string>()(i);
      if (!spec_text.empty()) {
        SliceSpec spec;
        OP_REQUIRES_OK(ctx, ParseSliceSpec(ctx, spec_text, &spec));
        const TensorShape full(absl::MakeConstSpan(spec.full));
        OP_REQUIRES(
            ctx, full == t.shape(),
            NodeInvalidArgument(ctx, "tensor_name = ", key,
                                "; shape in shape_and_slice spec ", spec_text,
                                " does not match the shape stored in "
                                "checkpoint: ",
                                t.shape().DebugString()));
        Tensor part(t.dtype(), TensorShape(absl::MakeConstSpan(spec.length)));
        DispatchByElementSize(t.dtype(), [&](auto tag) {
          CopySlice<decltype(tag)>(t, spec, &part);
        });
        t = std::move(part);
      }
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
    absl::Status s = checkpoint::MergeCheckpoints(
        prefixes, destination.scalar<std::string>(), delete_old_dirs_,
        allow_missing_files_, temp_ids_.Next(ctx));
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
