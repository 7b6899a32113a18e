#include "benchmarks/dag_shapes.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor.pb.h"

namespace stepflow::bench {

int64_t DagShape::num_edges() const {
  int64_t e = 0;
  for (const auto& p : preds) e += static_cast<int64_t>(p.size());
  return e;
}

DagShape ChainShape(int n) {
  DagShape s;
  s.name = absl::StrCat("chain_", n);
  s.preds.resize(std::max(n, 0));
  for (int i = 1; i < n; ++i) s.preds[i].push_back(i - 1);
  return s;
}

DagShape FanOutInShape(int width) {
  DagShape s;
  s.name = absl::StrCat("fan_1_", width, "_1");
  const int last = width + 1;
  s.preds.resize(width + 2);
  for (int i = 1; i <= width; ++i) s.preds[i].push_back(0);
  s.preds[last].reserve(width);
  for (int i = 1; i <= width; ++i) s.preds[last].push_back(i);
  return s;
}

DagShape RandomLayeredShape(int n, int layer_width, int in_degree,
                            uint64_t seed) {
  DagShape s;
  s.name = absl::StrCat("layered_", n);
  s.preds.resize(std::max(n, 0));
  std::mt19937_64 rng(seed);
  const int degree = std::min(in_degree, layer_width);
  for (int i = layer_width; i < n; ++i) {
    const int prev_begin = (i / layer_width - 1) * layer_width;
    std::uniform_int_distribution<int> pick(prev_begin,
                                            prev_begin + layer_width - 1);
    std::vector<int>& p = s.preds[i];
    while (static_cast<int>(p.size()) < degree) {
      const int cand = pick(rng);
      if (std::find(p.begin(), p.end(), cand) == p.end()) p.push_back(cand);
    }
    std::sort(p.begin(), p.end());
  }
  return s;
}

Successors ComputeSuccessors(const DagShape& shape) {
  const int n = shape.num_nodes();
  Successors out;
  out.begin.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    for (int p : shape.preds[i]) ++out.begin[p + 1];
  }
  for (int i = 0; i < n; ++i) out.begin[i + 1] += out.begin[i];
  out.ids.resize(out.begin[n]);
  std::vector<int64_t> fill(out.begin.begin(), out.begin.end() - 1);
  for (int i = 0; i < n; ++i) {
    for (int p : shape.preds[i]) out.ids[fill[p]++] = i;
  }
  return out;
}

namespace {

std::string NodeName(int i) { return absl::StrCat("n", i); }

}  // namespace

GraphDef NoOpGraphDef(const DagShape& shape) {
  GraphDef g;
  g.mutable_node()->Reserve(shape.num_nodes());
  for (int i = 0; i < shape.num_nodes(); ++i) {
    NodeDef* n = g.add_node();
    n->set_name(NodeName(i));
    n->set_op("NoOp");
    for (int p : shape.preds[i]) n->add_input(absl::StrCat("^", NodeName(p)));
  }
  return g;
}

GraphDef IdentityGraphDef(const DagShape& shape) {
  GraphDef g;
  g.mutable_node()->Reserve(shape.num_nodes());
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  for (int i = 0; i < shape.num_nodes(); ++i) {
    NodeDef* n = g.add_node();
    n->set_name(NodeName(i));
    const std::vector<int>& preds = shape.preds[i];
    if (preds.empty()) {
      n->set_op("Const");
      (*n->mutable_attr())["dtype"] = float_type;
      TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
      t->set_dtype(DT_FLOAT);
      t->mutable_tensor_shape();
      t->add_float_val(1.0f);
      continue;
    }
    n->set_op("Identity");
    (*n->mutable_attr())["T"] = float_type;
    n->add_input(NodeName(preds[0]));
    for (size_t k = 1; k < preds.size(); ++k) {
      n->add_input(absl::StrCat("^", NodeName(preds[k])));
    }
  }
  return g;
}

}  // namespace stepflow::bench
