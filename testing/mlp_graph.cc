#include "testing/mlp_graph.h"

#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/tensor_util.h"

namespace stepflow {
namespace {

// Appends NodeDefs; float-typed ops get T = dtype, shape arithmetic int32.
class Builder {
 public:
  Builder(DataType dtype, GraphDef* graph) : dtype_(dtype), graph_(graph) {}

  // TensorFlow's default name uniquifier: "MatMul", "MatMul_1", ...
  std::string Unique(const std::string& base) {
    const int n = counts_[base]++;
    return n == 0 ? base : absl::StrCat(base, "_", n);
  }

  NodeDef* Node(const std::string& name, const std::string& op,
                const std::vector<std::string>& inputs) {
    NodeDef* n = graph_->add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }
  NodeDef* Typed(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs) {
    NodeDef* n = Node(name, op, inputs);
    AddNodeAttr("T", dtype_, n);
    return n;
  }
  NodeDef* Int(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs) {
    NodeDef* n = Node(name, op, inputs);
    AddNodeAttr("T", DT_INT32, n);
    return n;
  }
  // Colocation as TensorFlow records it ("loc:@<node>").
  static void ColocateWith(const std::string& node, NodeDef* n) {
    AddNodeAttr("_class", std::vector<std::string>{"loc:@" + node}, n);
  }

  std::string Const(const std::string& name, const Tensor& value) {
    NodeDef* n = Node(name, "Const", {});
    TensorProto proto;
    TensorToProto(value, &proto);
    AddNodeAttr("value", proto, n);
    AddNodeAttr("dtype", value.dtype(), n);
    return name;
  }
  std::string ConstInts(const std::string& name,
                        const std::vector<int64_t>& v) {
    Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) {
      t.flat<int32_t>()(i) = static_cast<int32_t>(v[i]);
    }
    return Const(name, t);
  }
  std::string ConstInt(const std::string& name, int32_t v) {
    return Const(name, Tensor::Scalar<int32_t>(v));
  }
  std::string ConstScalar(const std::string& name, double v) {
    if (dtype_ == DT_DOUBLE) return Const(name, Tensor::Scalar<double>(v));
    return Const(name, Tensor::Scalar<float>(static_cast<float>(v)));
  }

  NodeDef* MatMul(const std::string& name, const std::string& a,
                  const std::string& b, bool transpose_a, bool transpose_b) {
    NodeDef* n = Typed(name, "MatMul", {a, b});
    AddNodeAttr("transpose_a", transpose_a, n);
    AddNodeAttr("transpose_b", transpose_b, n);
    return n;
  }
  NodeDef* Reshape(const std::string& name, const std::string& tensor,
                   const std::string& shape) {
    NodeDef* n = Typed(name, "Reshape", {tensor, shape});
    AddNodeAttr("Tshape", DT_INT32, n);
    return n;
  }
  NodeDef* Reduce(const std::string& name, const std::string& op,
                  const std::string& tensor, const std::string& axes) {
    NodeDef* n = Typed(name, op, {tensor, axes});
    AddNodeAttr("Tidx", DT_INT32, n);
    AddNodeAttr("keep_dims", false, n);
    return n;
  }
  NodeDef* ExpandDims(const std::string& name, const std::string& tensor) {
    ConstInt(name + "/dim", -1);
    NodeDef* n = Typed(name, "ExpandDims", {tensor, name + "/dim"});
    AddNodeAttr("Tdim", DT_INT32, n);
    return n;
  }
  // array_ops.pack of one int32 scalar.
  NodeDef* PackOne(const std::string& name, const std::string& scalar) {
    NodeDef* n = Int(name, "Pack", {scalar});
    AddNodeAttr("N", 1, n);
    AddNodeAttr("axis", 0, n);
    return n;
  }
  NodeDef* Slice(const std::string& name, const std::string& input,
                 const std::string& begin, const std::string& size) {
    NodeDef* n = Int(name, "Slice", {input, begin, size});
    AddNodeAttr("Index", DT_INT32, n);
    return n;
  }

  // control_flow_ops.tuple(grads) in scope `scope`: a NoOp gated on every
  // producer, then one Identity per gradient gated on it. Returns the
  // Identities' names.
  std::vector<std::string> Tuple(const std::string& scope,
                                 const std::vector<std::string>& grads) {
    const std::string deps = scope + "/tuple/group_deps";
    NodeDef* group = Node(deps, "NoOp", {});
    for (const std::string& g : grads) group->add_input("^" + NodeOf(g));
    std::vector<std::string> out;
    for (size_t i = 0; i < grads.size(); ++i) {
      const std::string name =
          i == 0 ? scope + "/tuple/control_dependency"
                 : absl::StrCat(scope, "/tuple/control_dependency_", i);
      NodeDef* id = Typed(name, "Identity", {grads[i], "^" + deps});
      ColocateWith(NodeOf(grads[i]), id);
      out.push_back(name);
    }
    return out;
  }

  DataType dtype() const { return dtype_; }

 private:
  static std::string NodeOf(const std::string& tensor) {
    return tensor.substr(0, tensor.find(':'));
  }

  const DataType dtype_;
  GraphDef* const graph_;
  std::map<std::string, int> counts_;
};

// tf.get_variable(name, shape, initializer=...) as VariableV2 + Assign +
// Identity "read". `initial_value` is the initializer's output.
void AddVariable(Builder* b, const std::string& name,
                 const std::vector<int64_t>& shape,
                 const std::string& initial_value) {
  TensorShape ts;
  for (int64_t d : shape) ts.AddDim(d);
  NodeDef* var = b->Node(name, "VariableV2", {});
  AddNodeAttr("shape", ts, var);
  AddNodeAttr("dtype", b->dtype(), var);
  AddNodeAttr("container", "", var);
  AddNodeAttr("shared_name", "", var);
  NodeDef* assign = b->Typed(name + "/Assign", "Assign", {name, initial_value});
  AddNodeAttr("validate_shape", true, assign);
  AddNodeAttr("use_locking", true, assign);
  Builder::ColocateWith(name, assign);
  NodeDef* read = b->Typed(name + "/read", "Identity", {name});
  Builder::ColocateWith(name, read);
}

void SetSeeds(int64_t graph_seed, int64_t op_seed, NodeDef* n) {
  AddNodeAttr("seed", graph_seed, n);
  AddNodeAttr("seed2", op_seed, n);
}

// tf.truncated_normal_initializer(stddev=stddev, seed=op_seed) for a
// variable `var`; returns the initializer's output.
std::string TruncatedNormalInit(Builder* b, const std::string& var,
                                const std::vector<int64_t>& shape,
                                double stddev, int64_t graph_seed,
                                int64_t op_seed) {
  const std::string s = var + "/Initializer/truncated_normal";
  b->ConstInts(s + "/shape", shape);
  b->ConstScalar(s + "/mean", 0.0);
  b->ConstScalar(s + "/stddev", stddev);
  NodeDef* tn =
      b->Node(s + "/TruncatedNormal", "TruncatedNormal", {s + "/shape"});
  AddNodeAttr("dtype", b->dtype(), tn);
  AddNodeAttr("T", DT_INT32, tn);
  SetSeeds(graph_seed, op_seed, tn);
  b->Typed(s + "/mul", "Mul", {s + "/TruncatedNormal", s + "/stddev"});
  b->Typed(s, "Add", {s + "/mul", s + "/mean"});
  return s;
}

// tf.random_uniform_initializer(lo, hi, seed=op_seed).
std::string RandomUniformInit(Builder* b, const std::string& var,
                              const std::vector<int64_t>& shape, double lo,
                              double hi, int64_t graph_seed, int64_t op_seed) {
  const std::string s = var + "/Initializer/random_uniform";
  b->ConstInts(s + "/shape", shape);
  b->ConstScalar(s + "/min", lo);
  b->ConstScalar(s + "/max", hi);
  NodeDef* ru = b->Node(s + "/RandomUniform", "RandomUniform", {s + "/shape"});
  AddNodeAttr("dtype", b->dtype(), ru);
  AddNodeAttr("T", DT_INT32, ru);
  SetSeeds(graph_seed, op_seed, ru);
  b->Typed(s + "/sub", "Sub", {s + "/max", s + "/min"});
  b->Typed(s + "/mul", "Mul", {s + "/RandomUniform", s + "/sub"});
  b->Typed(s, "Add", {s + "/mul", s + "/min"});
  return s;
}

struct Layer {
  std::string input;    // h (x for the first layer).
  std::string weights;  // "wk"
  std::string bias;     // "bk"
  std::string matmul;   // "MatMul", ...
  std::string biased;   // "BiasAdd", ... or "add".
  bool bias_by_add = false;
  std::string relu;  // Empty on the last layer.
  int64_t in = 0, out = 0;
};

}  // namespace

absl::Status BuildMlpGraph(const MlpOptions& o, MlpGraph* out) {
  if (o.layer_sizes.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an MLP needs at least two layer sizes, got ", o.layer_sizes.size()));
  }
  for (int s : o.layer_sizes) {
    if (s <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer sizes must be positive, got ", s));
    }
  }
  if (o.batch <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be positive, got ", o.batch));
  }
  if (o.dtype != DT_FLOAT && o.dtype != DT_DOUBLE) {
    return absl::InvalidArgumentError(
        absl::StrCat("MLP dtype must be DT_FLOAT or DT_DOUBLE, got ",
                     DataTypeString(o.dtype)));
  }
  *out = MlpGraph();
  Builder b(o.dtype, &out->graph);
  const int64_t batch = o.batch;
  const int num_layers = static_cast<int>(o.layer_sizes.size()) - 1;
  const int64_t classes = o.layer_sizes.back();

  // Inputs, with fully defined shapes.
  NodeDef* x = b.Node(out->input, "Placeholder", {});
  AddNodeAttr("dtype", o.dtype, x);
  AddNodeAttr("shape", TensorShape({batch, o.layer_sizes[0]}), x);
  NodeDef* labels = b.Node(out->labels, "Placeholder", {});
  AddNodeAttr("dtype", o.dtype, labels);
  AddNodeAttr("shape", TensorShape({batch, classes}), labels);

  // Forward.
  std::vector<Layer> layers;
  std::string h = out->input;
  int64_t op_seed = 0;
  for (int k = 1; k <= num_layers; ++k) {
    Layer l;
    l.input = h;
    l.in = o.layer_sizes[k - 1];
    l.out = o.layer_sizes[k];
    l.weights = absl::StrCat("w", k);
    l.bias = absl::StrCat("b", k);
    const std::vector<int64_t> wshape = {l.in, l.out};
    const std::vector<int64_t> bshape = {l.out};
    const std::string winit = TruncatedNormalInit(
        &b, l.weights, wshape, 1.0 / std::sqrt(l.in), o.graph_seed, ++op_seed);
    AddVariable(&b, l.weights, wshape, winit);
    const std::string binit =
        RandomUniformInit(&b, l.bias, bshape, -o.bias_range, o.bias_range,
                          o.graph_seed, ++op_seed);
    AddVariable(&b, l.bias, bshape, binit);
    out->params.push_back(
        {l.weights, winit, l.weights + "/Assign", "", "", wshape});
    out->params.push_back({l.bias, binit, l.bias + "/Assign", "", "", bshape});

    l.matmul = b.Unique("MatMul");
    b.MatMul(l.matmul, h, l.weights + "/read", false, false);
    l.bias_by_add = num_layers >= 2 && k == num_layers - 1;
    if (l.bias_by_add) {
      l.biased = b.Unique("add");
      b.Typed(l.biased, "AddV2", {l.matmul, l.bias + "/read"});
    } else {
      l.biased = b.Unique("BiasAdd");
      NodeDef* n = b.Typed(l.biased, "BiasAdd", {l.matmul, l.bias + "/read"});
      AddNodeAttr("data_format", "NHWC", n);
    }
    if (k < num_layers) {
      l.relu = b.Unique("Relu");
      b.Typed(l.relu, "Relu", {l.biased});
      h = l.relu;
    } else {
      h = l.biased;
    }
    layers.push_back(l);
  }
  const std::string logits = h;

  // softmax_cross_entropy_with_logits (the _sg wrapper) + reduce_mean.
  const std::string s = "softmax_cross_entropy_with_logits_sg";
  b.Typed(s + "/labels_stop_gradient", "StopGradient", {out->labels});
  b.ConstInt(s + "/Rank", 2);
  b.ConstInts(s + "/Shape", {batch, classes});
  // Flatten logits (suffixes "", "_1"...) and labels.
  struct Flat {
    std::string input, rank, shape, sub, slice, concat, reshape;
  };
  const Flat flats[2] = {
      {logits, s + "/Rank_1", s + "/Shape_1", s + "/Sub", s + "/Slice",
       s + "/concat", s + "/Reshape"},
      {s + "/labels_stop_gradient", s + "/Rank_2", s + "/Shape_2", s + "/Sub_1",
       s + "/Slice_1", s + "/concat_1", s + "/Reshape_1"}};
  for (const Flat& f : flats) {
    // _flatten_outer_dims: Reshape(t, concat([-1], slice(shape, [rank - 1],
    // [1]))), rank and shape being constants when statically known.
    b.ConstInt(f.rank, 2);
    b.ConstInts(f.shape, {batch, classes});
    b.ConstInt(f.sub + "/y", 1);
    b.Int(f.sub, "Sub", {f.rank, f.sub + "/y"});
    b.PackOne(f.slice + "/begin", f.sub);
    b.ConstInts(f.slice + "/size", {1});
    b.Slice(f.slice, f.shape, f.slice + "/begin", f.slice + "/size");
    b.ConstInts(f.concat + "/values_0", {-1});
    b.ConstInt(f.concat + "/axis", 0);
    NodeDef* c = b.Int(f.concat, "ConcatV2",
                       {f.concat + "/values_0", f.slice, f.concat + "/axis"});
    AddNodeAttr("N", 2, c);
    AddNodeAttr("Tidx", DT_INT32, c);
    b.Reshape(f.reshape, f.input, f.concat);
  }
  b.Typed(s, "SoftmaxCrossEntropyWithLogits",
          {s + "/Reshape", s + "/Reshape_1"});
  b.ConstInt(s + "/Sub_2/y", 1);
  b.Int(s + "/Sub_2", "Sub", {s + "/Rank", s + "/Sub_2/y"});
  b.ConstInts(s + "/Slice_2/begin", {0});
  b.PackOne(s + "/Slice_2/size", s + "/Sub_2");
  b.Slice(s + "/Slice_2", s + "/Shape", s + "/Slice_2/begin",
          s + "/Slice_2/size");
  b.Reshape(s + "/Reshape_2", s, s + "/Slice_2");
  b.ConstInts("Const", {0});
  b.Reduce(out->loss, "Mean", s + "/Reshape_2", "Const");

  // tf.gradients(loss, variables): d loss = 1.
  const std::string g = "gradients";
  b.ConstInts(g + "/Shape", {});
  b.ConstScalar(g + "/grad_ys_0", 1.0);
  NodeDef* fill =
      b.Typed(g + "/Fill", "Fill", {g + "/Shape", g + "/grad_ys_0"});
  AddNodeAttr("index_type", DT_INT32, fill);

  // Mean over every axis of a [batch] vector, shapes static.
  const std::string m = g + "/" + out->loss + "_grad";
  b.ConstInts(m + "/Reshape/shape", {1});
  b.Reshape(m + "/Reshape", g + "/Fill", m + "/Reshape/shape");
  b.ConstInts(m + "/Const", {batch});
  NodeDef* tile = b.Typed(m + "/Tile", "Tile", {m + "/Reshape", m + "/Const"});
  AddNodeAttr("Tmultiples", DT_INT32, tile);
  b.ConstScalar(m + "/Const_1", static_cast<double>(batch));
  b.Typed(m + "/truediv", "RealDiv", {m + "/Tile", m + "/Const_1"});

  // Reshape_2 back to xent's [batch].
  const std::string r2 = g + "/" + s + "/Reshape_2_grad";
  b.ConstInts(r2 + "/Shape", {batch});
  b.Reshape(r2 + "/Reshape", m + "/truediv", r2 + "/Shape");

  // The cross-entropy: d logits = d cost * backprop; d labels (cut by the
  // StopGradient, but TensorFlow's gradient function writes it anyway) =
  // d cost * -log_softmax(logits).
  const std::string xg = g + "/" + s + "_grad";
  b.ExpandDims(xg + "/ExpandDims", r2 + "/Reshape");
  b.Typed(xg + "/mul", "Mul", {xg + "/ExpandDims", s + ":1"});
  b.Typed(xg + "/LogSoftmax", "LogSoftmax", {s + "/Reshape"});
  b.Typed(xg + "/Neg", "Neg", {xg + "/LogSoftmax"});
  b.ExpandDims(xg + "/ExpandDims_1", r2 + "/Reshape");
  b.Typed(xg + "/mul_1", "Mul", {xg + "/ExpandDims_1", xg + "/Neg"});
  const std::vector<std::string> xent_grads =
      b.Tuple(xg, {xg + "/mul", xg + "/mul_1"});

  // Un-flatten the logits' gradient.
  const std::string rg = g + "/" + s + "/Reshape_grad";
  b.ConstInts(rg + "/Shape", {batch, classes});
  b.Reshape(rg + "/Reshape", xent_grads[0], rg + "/Shape");
  std::string grad = rg + "/Reshape";

  // Layers, last first.
  std::map<std::string, std::string> param_grads;
  for (int k = num_layers - 1; k >= 0; --k) {
    const Layer& l = layers[k];
    if (!l.relu.empty()) {
      const std::string rn = g + "/" + l.relu + "_grad/ReluGrad";
      b.Typed(rn, "ReluGrad", {grad, l.relu});
      grad = rn;
    }
    const std::string bs = g + "/" + l.biased + "_grad";
    std::vector<std::string> bias_grads;
    if (l.bias_by_add) {
      b.ConstInts(bs + "/Shape", {batch, l.out});
      b.ConstInts(bs + "/Shape_1", {l.out});
      b.Int(bs + "/BroadcastGradientArgs", "BroadcastGradientArgs",
            {bs + "/Shape", bs + "/Shape_1"});
      b.Reduce(bs + "/Sum", "Sum", grad, bs + "/BroadcastGradientArgs");
      b.Reshape(bs + "/Reshape", bs + "/Sum", bs + "/Shape");
      b.Reduce(bs + "/Sum_1", "Sum", grad, bs + "/BroadcastGradientArgs:1");
      b.Reshape(bs + "/Reshape_1", bs + "/Sum_1", bs + "/Shape_1");
      bias_grads = b.Tuple(bs, {bs + "/Reshape", bs + "/Reshape_1"});
    } else {
      NodeDef* bg = b.Typed(bs + "/BiasAddGrad", "BiasAddGrad", {grad});
      AddNodeAttr("data_format", "NHWC", bg);
      bias_grads = b.Tuple(bs, {grad, bs + "/BiasAddGrad"});
    }
    param_grads[l.bias] = bias_grads[1];
    const std::string ms = g + "/" + l.matmul + "_grad";
    b.MatMul(ms + "/MatMul", bias_grads[0], l.weights + "/read", false, true);
    b.MatMul(ms + "/MatMul_1", l.input, bias_grads[0], true, false);
    const std::vector<std::string> mm_grads =
        b.Tuple(ms, {ms + "/MatMul", ms + "/MatMul_1"});
    param_grads[l.weights] = mm_grads[1];
    grad = mm_grads[0];
  }

  // GradientDescentOptimizer.apply_gradients(name="train").
  b.ConstScalar(out->train + "/learning_rate", o.learning_rate);
  NodeDef* train_op = nullptr;
  std::vector<std::string> updates;
  for (MlpParam& p : out->params) {
    p.gradient = param_grads[p.variable];
    p.update = out->train + "/update_" + p.variable + "/ApplyGradientDescent";
    NodeDef* apply =
        b.Typed(p.update, "ApplyGradientDescent",
                {p.variable, out->train + "/learning_rate", p.gradient});
    AddNodeAttr("use_locking", false, apply);
    Builder::ColocateWith(p.variable, apply);
    updates.push_back(p.update);
  }
  train_op = b.Node(out->train, "NoOp", {});
  for (const std::string& u : updates) train_op->add_input("^" + u);
  NodeDef* init = b.Node(out->init, "NoOp", {});
  for (const MlpParam& p : out->params) init->add_input("^" + p.assign);

  out->graph.mutable_versions()->set_producer(27);
  return absl::OkStatus();
}

namespace {

// SplitMix64: a tiny, portable, seedable generator.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

template <typename T>
MlpBatch MakeBatch(const MlpOptions& o, uint64_t seed) {
  const int64_t batch = o.batch;
  const int64_t in = o.layer_sizes.front();
  const int64_t classes = o.layer_sizes.back();
  SplitMix64 rng(seed);
  MlpBatch out;
  out.x = Tensor(DataTypeToEnum<T>::value, TensorShape({batch, in}));
  out.labels = Tensor(DataTypeToEnum<T>::value, TensorShape({batch, classes}));
  std::vector<double> xs(batch * in);
  for (int64_t i = 0; i < batch * in; ++i) {
    out.x.template base<T>()[i] = static_cast<T>(rng.Uniform());
    xs[i] = static_cast<double>(out.x.template base<T>()[i]);
  }
  std::vector<double> proj(in * classes);
  for (double& p : proj) p = 2 * rng.Uniform() - 1;
  for (int64_t r = 0; r < batch; ++r) {
    int64_t best = 0;
    double best_v = 0;
    for (int64_t c = 0; c < classes; ++c) {
      double v = 0;
      for (int64_t k = 0; k < in; ++k) {
        v += (xs[r * in + k] - 0.5) * proj[k * classes + c];
      }
      if (c == 0 || v > best_v) {
        best_v = v;
        best = c;
      }
    }
    out.labels.template base<T>()[r * classes + best] = static_cast<T>(1);
  }
  return out;
}

}  // namespace

MlpBatch MakeMlpBatch(const MlpOptions& options, uint64_t seed) {
  if (options.layer_sizes.size() < 2 || options.batch <= 0 ||
      options.layer_sizes.front() <= 0 || options.layer_sizes.back() <= 0) {
    return MlpBatch();
  }
  if (options.dtype == DT_DOUBLE) return MakeBatch<double>(options, seed);
  return MakeBatch<float>(options, seed);
}

}  // namespace stepflow
