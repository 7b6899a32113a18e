// Property: running a randomly placed graph partitioned over several CPU
// devices (Send/Recv between them) fetches exactly what running the same
// graph on one device fetches — values and error codes alike.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "testing/graph_generators.h"

namespace stepflow {
namespace {

using graph_testing::ExecutionRequest;
using graph_testing::GenExecutionRequest;
using graph_testing::GenRandomDag;
using graph_testing::RandomDag;

struct Outcome {
  absl::Status status;
  std::vector<Tensor> outputs;
};

Outcome RunOnce(Env* env, const GraphDef& graph, int cpus,
                const Session::FeedList& feeds, const ExecutionRequest& req) {
  SessionOptions opts;
  opts.env = env;
  (*opts.config.mutable_device_count())["CPU"] = cpus;
  std::unique_ptr<Session> session;
  Outcome o;
  o.status = NewSession(opts, &session);
  if (!o.status.ok()) return o;
  o.status = session->Create(graph);
  if (!o.status.ok()) return o;
  o.status = session->Run(feeds, req.fetches, req.targets, &o.outputs);
  // The second run reuses cached executors and must agree with the first.
  std::vector<Tensor> again;
  absl::Status s2 = session->Run(feeds, req.fetches, req.targets, &again);
  RC_ASSERT(s2.code() == o.status.code());
  return o;
}

bool SameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

RC_GTEST_PROP(PartitionedRunProperty, MultiDeviceEqualsSingleDevice, ()) {
  static std::unique_ptr<RealEnv> env = RealEnv::Create(2);
  graph_testing::DagOptions dag_opts;
  dag_opts.max_nodes = 40;
  const RandomDag dag = *GenRandomDag(dag_opts);
  const ExecutionRequest req = *GenExecutionRequest(dag.graph);

  Session::FeedList feeds;
  for (const std::string& f : req.feeds) {
    feeds.emplace_back(
        f, Tensor::Scalar<float>(static_cast<float>(*rc::gen::inRange(-8, 9))));
  }
  // Single device: the same graph with every device request cleared.
  GraphDef single = dag.graph;
  for (NodeDef& n : *single.mutable_node()) n.clear_device();

  const Outcome multi =
      RunOnce(env->env(), dag.graph, dag.num_devices, feeds, req);
  const Outcome one = RunOnce(env->env(), single, 1, feeds, req);
  RC_ASSERT(multi.status.code() == one.status.code());
  if (!one.status.ok()) return;
  RC_ASSERT(multi.outputs.size() == req.fetches.size());
  RC_ASSERT(one.outputs.size() == req.fetches.size());
  for (size_t i = 0; i < one.outputs.size(); ++i) {
    RC_ASSERT(multi.outputs[i].dtype() == one.outputs[i].dtype());
    RC_ASSERT(multi.outputs[i].shape() == one.outputs[i].shape());
    for (int64_t j = 0; j < one.outputs[i].NumElements(); ++j) {
      RC_ASSERT(SameFloat(multi.outputs[i].flat<float>()(j),
                          one.outputs[i].flat<float>()(j)));
    }
  }
}

}  // namespace
}  // namespace stepflow
