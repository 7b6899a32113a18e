// ParseExample, ParseExampleV2 and ParseSingleExample: serialized
// tf.train.Example protos to dense, sparse and ragged tensors
// (example_parser.h has the formats and the errors).
//
// ParseExample takes a vector of Examples and its keys as scalar inputs;
// ParseExampleV2 a scalar or vector and its keys as vectors, plus ragged
// features; ParseSingleExample one scalar Example and its keys as attrs.
// Shape and count mismatches among the inputs and attrs are
// InvalidArgument naming the node.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/example_parser.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// The attrs every form shares: sparse and dense types, dense shapes.
absl::Status ReadConfigAttrs(OpKernelConstruction* ctx,
                             ExampleParseConfig* config) {
  std::vector<DataType> sparse_types, dense_types;
  std::vector<PartialTensorShape> dense_shapes;
  absl::Status s = ctx->GetAttr("sparse_types", &sparse_types);
  if (s.ok()) s = ctx->GetAttr("Tdense", &dense_types);
  if (s.ok()) s = ctx->GetAttr("dense_shapes", &dense_shapes);
  if (!s.ok()) return s;
  if (dense_shapes.size() != dense_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "len(dense_keys) != len(dense_shapes): ", dense_types.size(), " vs. ",
        dense_shapes.size()));
  }
  config->sparse.resize(sparse_types.size());
  for (size_t i = 0; i < sparse_types.size(); ++i) {
    config->sparse[i].dtype = sparse_types[i];
  }
  config->dense.resize(dense_types.size());
  for (size_t i = 0; i < dense_types.size(); ++i) {
    const PartialTensorShape& shape = dense_shapes[i];
    if (shape.unknown_rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dense_shapes[", i, "] has unknown rank"));
    }
    for (int d = 0; d < shape.dims(); ++d) {
      if (shape.dim_size(d) < 0 && !(d == 0 && shape.dim_size(d) == -1)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dense_shapes[", i,
            "] has unknown inner dimensions: ", shape.DebugString()));
      }
    }
    config->dense[i].dtype = dense_types[i];
    config->dense[i].shape = shape;
  }
  return absl::OkStatus();
}

// Sets the dense defaults from inputs [first, first + n) and checks them.
absl::Status SetDefaults(OpKernelContext* ctx, int first,
                         ExampleParseConfig* config) {
  for (size_t d = 0; d < config->dense.size(); ++d) {
    ExampleParseConfig::Dense& dense = config->dense[d];
    const Tensor& def = ctx->input(first + static_cast<int>(d));
    if (def.dtype() != dense.dtype) {
      return NodeInvalidArgument(ctx, "dense_defaults[", d, "] has type ",
                                 DataTypeString(def.dtype()), ", expected ",
                                 DataTypeString(dense.dtype));
    }
    const bool varlen = dense.shape.dims() > 0 && dense.shape.dim_size(0) == -1;
    if (varlen) {
      if (def.NumElements() != 1) {
        return NodeInvalidArgument(
            ctx, "dense_shape[", d,
            "] is a variable length shape and therefore def_value[", d,
            "] must contain a single element (the padding element).  But "
            "def_value[",
            d, "].shape() == ", def.shape().DebugString());
      }
    } else if (def.NumElements() > 0 &&
               !dense.shape.IsCompatibleWith(def.shape())) {
      return NodeInvalidArgument(ctx, "def_value[", d,
                                 "].shape() == ", def.shape().DebugString(),
                                 " is not compatible with dense_shapes_[", d,
                                 "] == ", dense.shape.DebugString());
    }
    dense.default_value = def;
  }
  return absl::OkStatus();
}

// The strings of a key input (a scalar or vector) appended to `keys`.
absl::Status KeysFromInput(OpKernelContext* ctx, int index, bool vector,
                           std::vector<std::string>* keys) {
  const Tensor& t = ctx->input(index);
  if (vector ? t.dims() != 1 : t.dims() != 0) {
    return NodeInvalidArgument(ctx, "Expected keys to be a ",
                               vector ? "vector" : "scalar",
                               ", got shape: ", t.shape().DebugString());
  }
  const std::string* s = t.base<const std::string>();
  keys->insert(keys->end(), s, s + t.NumElements());
  return absl::OkStatus();
}

// Runs the parser over `serialized` with `config`.
void Parse(OpKernelContext* ctx, const ExampleParseConfig& config,
           const Tensor& serialized, const Tensor* names) {
  const OutputAllocator alloc = [ctx](int index, const TensorShape& shape,
                                      Tensor** out) {
    return ctx->allocate_output(index, shape, out);
  };
  const std::string* name_values = nullptr;
  if (names != nullptr && names->NumElements() > 0) {
    name_values = names->base<const std::string>();
  }
  OP_REQUIRES_OK(
      ctx, AttachDef(ParseExamples(config, serialized.base<const std::string>(),
                                   serialized.NumElements(), name_values,
                                   serialized.dims() == 1, alloc),
                     ctx->op_kernel().name()));
}

// Checks that `names` is empty or has one name per serialized example.
absl::Status CheckNames(OpKernelContext* ctx, const Tensor& serialized,
                        const Tensor& names) {
  if (names.dims() > 1) {
    return NodeInvalidArgument(ctx,
                               "Expected names to be a vector, got shape: ",
                               names.shape().DebugString());
  }
  if (names.NumElements() > 0 && names.shape() != serialized.shape()) {
    return NodeInvalidArgument(
        ctx, "Expected len(names) == len(serialized), but got: ",
        names.NumElements(), " vs. ", serialized.NumElements());
  }
  return absl::OkStatus();
}

void SetKeys(const std::vector<std::string>& sparse,
             const std::vector<std::string>& dense, ExampleParseConfig* c) {
  for (size_t i = 0; i < sparse.size(); ++i) c->sparse[i].key = sparse[i];
  for (size_t i = 0; i < dense.size(); ++i) c->dense[i].key = dense[i];
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConfigAttrs(ctx, &config_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names = ctx->input(1);
    OP_REQUIRES(ctx, serialized.dims() == 1,
                NodeInvalidArgument(
                    ctx, "Expected serialized to be a vector, got shape: ",
                    serialized.shape().DebugString()));
    OP_REQUIRES_OK(ctx, CheckNames(ctx, serialized, names));
    const int ns = static_cast<int>(config_.sparse.size());
    const int nd = static_cast<int>(config_.dense.size());
    std::vector<std::string> sparse_keys, dense_keys;
    for (int i = 0; i < ns; ++i) {
      OP_REQUIRES_OK(ctx, KeysFromInput(ctx, 2 + i, false, &sparse_keys));
    }
    for (int i = 0; i < nd; ++i) {
      OP_REQUIRES_OK(ctx, KeysFromInput(ctx, 2 + ns + i, false, &dense_keys));
    }
    ExampleParseConfig config = config_;
    SetKeys(sparse_keys, dense_keys, &config);
    OP_REQUIRES_OK(ctx, SetDefaults(ctx, 2 + ns + nd, &config));
    Parse(ctx, config, serialized, &names);
  }

 private:
  ExampleParseConfig config_;  // Types and shapes; keys come per step.
};

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConfigAttrs(ctx, &config_));
    std::vector<DataType> ragged_types, split_types;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_value_types", &ragged_types));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_split_types", &split_types));
    OP_REQUIRES(ctx, ragged_types.size() == split_types.size(),
                NodeInvalidArgument(*this,
                                    "len(ragged_value_types) != "
                                    "len(ragged_split_types)"));
    config_.ragged.resize(ragged_types.size());
    for (size_t i = 0; i < ragged_types.size(); ++i) {
      config_.ragged[i].dtype = ragged_types[i];
      config_.ragged[i].splits_dtype = split_types[i];
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names = ctx->input(1);
    OP_REQUIRES(
        ctx, serialized.dims() <= 1,
        NodeInvalidArgument(ctx,
                            "Expected serialized to be a scalar or vector, got "
                            "shape: ",
                            serialized.shape().DebugString()));
    OP_REQUIRES_OK(ctx, CheckNames(ctx, serialized, names));
    std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
    OP_REQUIRES_OK(ctx, KeysFromInput(ctx, 2, true, &sparse_keys));
    OP_REQUIRES_OK(ctx, KeysFromInput(ctx, 3, true, &dense_keys));
    OP_REQUIRES_OK(ctx, KeysFromInput(ctx, 4, true, &ragged_keys));
    OP_REQUIRES(ctx,
                sparse_keys.size() == config_.sparse.size() &&
                    dense_keys.size() == config_.dense.size() &&
                    ragged_keys.size() == config_.ragged.size(),
                NodeInvalidArgument(
                    ctx, "Expected ", config_.sparse.size(), " sparse, ",
                    config_.dense.size(), " dense and ", config_.ragged.size(),
                    " ragged keys, got ", sparse_keys.size(), ", ",
                    dense_keys.size(), " and ", ragged_keys.size()));
    ExampleParseConfig config = config_;
    SetKeys(sparse_keys, dense_keys, &config);
    for (size_t i = 0; i < ragged_keys.size(); ++i) {
      config.ragged[i].key = ragged_keys[i];
    }
    OP_REQUIRES_OK(ctx, SetDefaults(ctx, 5, &config));
    Parse(ctx, config, serialized, &names);
  }

 private:
  ExampleParseConfig config_;
};

class ParseSingleExampleOp : public OpKernel {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConfigAttrs(ctx, &config_));
    std::vector<std::string> sparse_keys, dense_keys;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_keys", &sparse_keys));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_keys", &dense_keys));
    OP_REQUIRES(ctx,
                sparse_keys.size() == config_.sparse.size() &&
                    dense_keys.size() == config_.dense.size(),
                NodeInvalidArgument(*this,
                                    "the keys do not match num_sparse and "
                                    "Tdense"));
    SetKeys(sparse_keys, dense_keys, &config_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, serialized.dims() == 0,
                NodeInvalidArgument(
                    ctx, "Expected serialized to be a scalar, got shape: ",
                    serialized.shape().DebugString()));
    ExampleParseConfig config = config_;
    OP_REQUIRES_OK(ctx, SetDefaults(ctx, 1, &config));
    Parse(ctx, config, serialized, nullptr);
  }

 private:
  ExampleParseConfig config_;
};

REGISTER_KERNEL_BUILDER(Name("ParseExample").Device(DEVICE_CPU),
                        ParseExampleOp);
REGISTER_KERNEL_BUILDER(Name("ParseExampleV2").Device(DEVICE_CPU),
                        ParseExampleV2Op);
REGISTER_KERNEL_BUILDER(Name("ParseSingleExample").Device(DEVICE_CPU),
                        ParseSingleExampleOp);

}  // namespace
}  // namespace stepflow
