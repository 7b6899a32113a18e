#include "benchmarks/random_graph.h"

#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor.pb.h"

namespace stepflow::bench {
namespace {

constexpr int kWindow = 64;
constexpr int kBlock = 256;

std::string NodeName(int i) { return absl::StrCat("n", i); }

}  // namespace

PipelineGraphDef PipelineGraph(int n, int num_devices, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](int lo, int hi) {  // [lo, hi)
    return std::uniform_int_distribution<int>(lo, hi - 1)(rng);
  };
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  const std::string device_prefix =
      "/job:localhost/replica:0/task:0/device:CPU:";

  PipelineGraphDef out;
  GraphDef& g = out.graph;
  g.mutable_node()->Reserve(n + 2);
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  x->set_device(absl::StrCat(device_prefix, 0));
  (*x->mutable_attr())["dtype"] = float_type;
  (*x->mutable_attr())["shape"].mutable_shape();

  std::vector<bool> has_output(n, false);
  std::vector<bool> consumed(n, false);
  std::string device;
  int last_with_output = -1;
  for (int i = 0; i < n; ++i) {
    if (i % kBlock == 0) {
      device = absl::StrCat(device_prefix, uniform(0, num_devices));
    }
    NodeDef* node = g.add_node();
    node->set_name(NodeName(i));
    node->set_device(device);
    const int lo = i > kWindow ? i - kWindow : 0;
    // A producer with an output in the window ("x" if none turns up).
    auto pick_data = [&](int avoid) -> int {
      for (int attempt = 0; attempt < 8; ++attempt) {
        const int c = uniform(lo, i);
        if (has_output[c] && c != avoid) return c;
      }
      return -1;
    };
    const int kind = (i == 0 || uniform(0, 200) == 0) ? -1 : uniform(0, 10);
    std::vector<int> data;
    std::vector<int> control;
    if (kind < 0) {
      node->set_op("Const");
      (*node->mutable_attr())["dtype"] = float_type;
      TensorProto* t = (*node->mutable_attr())["value"].mutable_tensor();
      t->set_dtype(DT_FLOAT);
      t->mutable_tensor_shape();
      t->add_float_val(1.0f);
    } else if (kind == 9) {
      node->set_op("NoOp");
      const int a = uniform(lo, i);
      const int b = uniform(lo, i);
      control.push_back(a);
      if (b != a) control.push_back(b);
    } else {
      const int arity = kind < 4 ? 1 : 2;
      node->set_op(kind < 4 ? "Identity" : (kind < 7 ? "Add" : "Mul"));
      (*node->mutable_attr())["T"] = float_type;
      for (int k = 0; k < arity; ++k) {
        data.push_back(uniform(0, 500) == 0 ? -1 : pick_data(-1));
      }
      if (uniform(0, 16) == 0) {
        const int c = uniform(lo, i);
        bool dup = false;
        for (int d : data) dup = dup || d == c;
        if (!dup) control.push_back(c);
      }
    }
    for (int d : data) {
      if (d < 0) {
        node->add_input("x");
      } else {
        node->add_input(NodeName(d));
        consumed[d] = true;
      }
    }
    for (int c : control) {
      node->add_input(absl::StrCat("^", NodeName(c)));
      consumed[c] = true;
    }
    has_output[i] = node->op() != "NoOp";
    if (has_output[i]) last_with_output = i;
  }

  NodeDef* train = g.add_node();
  train->set_name("train");
  train->set_op("NoOp");
  int unconsumed = 0;
  for (int i = 0; i < n; ++i) {
    if (consumed[i]) continue;
    if (++unconsumed % 10 == 0) continue;  // Dead code.
    train->add_input(absl::StrCat("^", NodeName(i)));
  }
  out.feed = "x:0";
  out.fetch = absl::StrCat(NodeName(last_with_output), ":0");
  out.target = "train";
  return out;
}

}  // namespace stepflow::bench
