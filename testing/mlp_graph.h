// A multi-layer perceptron training graph written the way TensorFlow 1.x
// writes it, plus a fixed synthetic batch to train it on. Testonly; also
// meant for benchmarks.
//
// The GraphDef is what this Python would produce (TF 1.15 op vocabulary):
//
//   x = tf.placeholder(dtype, [batch, sizes[0]], name="x")
//   labels = tf.placeholder(dtype, [batch, sizes[-1]], name="labels")
//   for layer k = 1..L (L = len(sizes) - 1):
//     wk = tf.get_variable("wk", [sizes[k-1], sizes[k]], initializer=
//            tf.truncated_normal_initializer(stddev=1/sqrt(sizes[k-1]),
//                                            seed=2k-1))
//     bk = tf.get_variable("bk", [sizes[k]], initializer=
//            tf.random_uniform_initializer(-bias_range, bias_range, seed=2k))
//     z  = tf.matmul(h, wk)                       # "MatMul", "MatMul_1", ...
//     z  = z + bk   on the last hidden layer      # "add" (AddV2)
//          tf.nn.bias_add(z, bk) otherwise        # "BiasAdd", "BiasAdd_1", ...
//     h  = tf.nn.relu(z)   except on the last layer
//   xent = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=z)
//   loss = tf.reduce_mean(xent, name="loss")
//   train = tf.train.GradientDescentOptimizer(learning_rate).minimize(
//               loss, name="train")
//   init = tf.global_variables_initializer()
//
// so it holds VariableV2/Assign/Identity("read") triples, TruncatedNormal
// and RandomUniform initializers with fixed (graph seed, op seed) pairs,
// the softmax_cross_entropy_with_logits_sg flattening (StopGradient, Rank,
// Shape, Sub, Pack, Slice, ConcatV2, Reshape), and tf.gradients' output:
// Shape/Fill for d loss, Mean's gradient (Reshape, Tile, RealDiv), the
// cross-entropy gradient (ExpandDims, Mul, LogSoftmax, Neg), BiasAddGrad,
// BroadcastGradientArgs/Sum/Reshape for the AddV2 bias, ReluGrad, MatMul
// with transpose_a/transpose_b, tuple() (NoOp group_deps + Identity
// control_dependency) wherever an op has more than one gradient, then one
// ApplyGradientDescent per variable grouped under the NoOp "train".
//
// Contract: BuildMlpGraph never crashes on bad options; it returns
// InvalidArgument for fewer than two layer sizes, a non-positive size or
// batch, or a dtype other than DT_FLOAT/DT_DOUBLE. Pure functions; thread-safe.
#ifndef STEPFLOW_TESTING_MLP_GRAPH_H_
#define STEPFLOW_TESTING_MLP_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/graph.pb.h"
#include "proto/types.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

struct MlpOptions {
  int batch = 64;
  // Input width, hidden widths..., number of classes.
  std::vector<int> layer_sizes = {784, 256, 256, 10};
  DataType dtype = DT_FLOAT;
  double learning_rate = 0.1;
  // The graph-level seed (tf.set_random_seed); op seeds are 1, 2, 3, ...
  int64_t graph_seed = 87654321;
  // Biases start uniform in [-bias_range, bias_range).
  double bias_range = 0.05;
};

// One trainable variable and the names that reach it.
struct MlpParam {
  std::string variable;       // "w1": the VariableV2 node.
  std::string initial_value;  // Its initializer's output ("w1/Initializer/
                              // truncated_normal"); feed it and run `assign`
                              // to load a value (Variable.load()).
  std::string assign;         // "w1/Assign".
  std::string gradient;       // The tensor ApplyGradientDescent consumes.
  std::string update;         // "train/update_w1/ApplyGradientDescent".
  std::vector<int64_t> shape;
};

struct MlpGraph {
  GraphDef graph;
  std::string input = "x";
  std::string labels = "labels";
  std::string loss = "loss";
  std::string init = "init";
  std::string train = "train";
  std::vector<MlpParam> params;  // w1, b1, w2, b2, ... in layer order.
};

absl::Status BuildMlpGraph(const MlpOptions& options, MlpGraph* out);

// A fixed synthetic batch for `options` (dtype, batch, first and last layer
// sizes): x uniform in [0, 1), labels one-hot, the class of each example
// being the argmax of a fixed random projection of it (so it is learnable).
// Same `seed` -> same bits on every platform (no std distributions).
struct MlpBatch {
  Tensor x;
  Tensor labels;
};
MlpBatch MakeMlpBatch(const MlpOptions& options, uint64_t seed);

}  // namespace stepflow

#endif  // STEPFLOW_TESTING_MLP_GRAPH_H_
