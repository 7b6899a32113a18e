#include "benchmarks/add_one_step.h"

#include "benchmarks/state_util.h"
#include "benchmarks/stepflow_session.h"
#include "proto/tensor.pb.h"
#include "runtime/common/session.h"

namespace stepflow::bench {

GraphDef AddOneGraph(const std::string& add_op) {
  GraphDef g;
  AttrValue float_type;
  float_type.set_type(DT_FLOAT);
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"] = float_type;
  (*x->mutable_attr())["shape"].mutable_shape();  // Scalar.
  NodeDef* one = g.add_node();
  one->set_name("one");
  one->set_op("Const");
  (*one->mutable_attr())["dtype"] = float_type;
  TensorProto* value = (*one->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(1.0f);
  NodeDef* z = g.add_node();
  z->set_name("z");
  z->set_op(add_op);
  z->add_input("x");
  z->add_input("one");
  (*z->mutable_attr())["T"] = float_type;
  return g;
}

absl::Status CheckAddOne(const std::vector<Tensor>& out) {
  if (out.size() != 1 || out[0].dtype() != DT_FLOAT ||
      out[0].NumElements() != 1 || out[0].flat<float>()(0) != 3.0f) {
    return absl::InternalError("wrong value fetched (want z = 3)");
  }
  return absl::OkStatus();
}

void TimeAddOneSessionRun(benchmark::State& state, const std::string& add_op) {
  StepflowSession f;
  absl::Status s =
      f.Create(AddOneGraph(add_op), static_cast<int>(state.range(0)));
  if (!s.ok()) return SkipWithStatus(state, s);
  const Session::FeedList feeds = {{"x", Tensor::Scalar<float>(2.0f)}};
  const std::vector<std::string> fetches = {"z"};
  std::vector<Tensor> out;
  s = f.session->Run(feeds, fetches, {}, &out);  // Warm-up.
  for (auto _ : state) {
    if (!s.ok()) break;
    s = f.session->Run(feeds, fetches, {}, &out);
  }
  if (s.ok()) s = CheckAddOne(out);
  if (!s.ok()) return SkipWithStatus(state, s);
  SetSecondsPerIteration(state, "per_run");
}

}  // namespace stepflow::bench
