// The simulated GPU under the real DirectSession: an MLP training graph
// (testing/mlp_graph.h) on one CPU + one simulated GPU, for many seeds.
// Placement puts the math with GPU kernels on GPU:0 and the rest (shape
// arithmetic, initializers, ops without GPU kernels) on CPU:0, so every step
// crosses between the partitions through Send/Recv; the losses and trained
// weights are bit-identical to a CPU-only simulated run, the trace of a seed
// repeats, and seeds differ. Also: soft placement falls back to the CPU for
// an op without a GPU kernel, and virtual time advances by the latency
// model.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "sim/env/event_loop.h"
#include "sim/env/sim_env.h"
#include "sim/env/sim_gpu_device.h"
#include "sim/trace/trace.h"
#include "sim/trace/traced_device.h"
#include "testing/mlp_graph.h"

namespace stepflow {
namespace {

constexpr int kSeeds = 12;
constexpr int kSteps = 4;

struct RunResult {
  bool ok = false;
  std::vector<Tensor> values;  // Losses of every step, then the variables.
  uint64_t trace_hash = 0;
  std::map<std::string, std::set<std::string>> ops_by_device;
  int gpu_recvs = 0;  // _Recv kernels on GPU:0 (values arriving from CPU).
  int gpu_sends = 0;  // _Send kernels on GPU:0 (values leaving for CPU).
  int64_t end_nanos = 0;
};

MlpOptions SmallMlp() {
  MlpOptions o;
  o.batch = 8;
  o.layer_sizes = {12, 10, 8, 4};
  return o;
}

RunResult Train(uint64_t seed, bool with_gpu) {
  RunResult r;
  MlpGraph g;
  EXPECT_TRUE(BuildMlpGraph(SmallMlp(), &g).ok());
  MlpBatch batch = MakeMlpBatch(SmallMlp(), 3);
  TraceRecorder::Options ropts;
  ropts.observer = [&r](const TraceEvent& e) {
    if (e.kind != SIM_KERNEL_START) return;
    const std::string device = e.Field("device");
    const std::string op = e.Field("op");
    r.ops_by_device[device].insert(op);
    if (device == "GPU:0" && op == "_Recv") ++r.gpu_recvs;
    if (device == "GPU:0" && op == "_Send") ++r.gpu_sends;
  };
  TraceRecorder recorder(ropts);
  {
    SimEnv sim(seed);
    sim.loop.set_recorder(&recorder);
    SessionOptions opts;
    opts.env = &sim.env;
    std::unique_ptr<Session> session;
    absl::Status s =
        with_gpu ? NewSimGpuDirectSession(opts, &sim.loop, "gpu", &session)
                 : NewTracedDirectSession(opts, &sim.loop, "gpu", &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return r;
    s = session->Create(g.graph);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return r;
    std::vector<Tensor> out;
    s = session->Run({}, {}, {g.init}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return r;
    const Session::FeedList feeds = {{g.input, batch.x},
                                     {g.labels, batch.labels}};
    for (int step = 0; step < kSteps; ++step) {
      s = session->Run(feeds, {g.loss}, {g.train}, &out);
      EXPECT_TRUE(s.ok()) << "seed " << seed << " step " << step << ": " << s;
      if (!s.ok()) return r;
      r.values.push_back(out[0]);
    }
    std::vector<std::string> fetches;
    for (const MlpParam& p : g.params) fetches.push_back(p.variable);
    s = session->Run({}, fetches, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return r;
    r.values.insert(r.values.end(), out.begin(), out.end());
    r.end_nanos = sim.loop.NowNanos();
    EXPECT_TRUE(session->Close().ok());
    session.reset();
    sim.loop.RunUntilIdle();
    EXPECT_EQ(sim.loop.NumPending(), 0u);
    sim.loop.set_recorder(nullptr);
  }
  r.trace_hash = recorder.hash();
  r.ok = true;
  return r;
}

TEST(SimGpuDeviceTest, MlpOnCpuAndGpuEqualsCpuOnlyForEverySeed) {
  const RunResult cpu_only = Train(1, /*with_gpu=*/false);
  ASSERT_TRUE(cpu_only.ok);
  EXPECT_EQ(cpu_only.ops_by_device.count("GPU:0"), 0u);
  std::set<uint64_t> hashes;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    const RunResult r = Train(seed, /*with_gpu=*/true);
    ASSERT_TRUE(r.ok);
    ASSERT_EQ(r.values.size(), cpu_only.values.size());
    for (size_t i = 0; i < r.values.size(); ++i) {
      EXPECT_TRUE(TensorsEqual(r.values[i], cpu_only.values[i]))
          << "value " << i << ": " << r.values[i].DebugString() << " vs "
          << cpu_only.values[i].DebugString();
    }
    // The math ran on the GPU, the rest on the CPU, joined by transfers.
    const std::set<std::string>& gpu_ops = r.ops_by_device.at("GPU:0");
    for (const char* op : {"MatMul", "BiasAdd", "Relu", "ReluGrad",
                           "SoftmaxCrossEntropyWithLogits",
                           "ApplyGradientDescent", "VariableV2"}) {
      EXPECT_EQ(gpu_ops.count(op), 1u) << op << " not on GPU:0";
    }
    const std::set<std::string>& cpu_ops = r.ops_by_device.at("CPU:0");
    for (const char* op : {"Reshape", "TruncatedNormal", "BiasAddGrad"}) {
      EXPECT_EQ(cpu_ops.count(op), 1u) << op << " not on CPU:0";
    }
    EXPECT_GT(r.gpu_recvs, 0);
    EXPECT_GT(r.gpu_sends, 0);
    EXPECT_GT(r.end_nanos, 0);
    hashes.insert(r.trace_hash);
  }
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kSeeds));
  // The same seed replays the same trace.
  EXPECT_EQ(Train(5, true).trace_hash, Train(5, true).trace_hash);
}

GraphDef ShapeOnGpuGraph() {
  GraphDef g;
  NodeDef* c = g.add_node();
  c->set_name("a");
  c->set_op("Const");
  c->set_device("/device:GPU:0");
  TensorProto proto;
  TensorToProto(Tensor(DT_FLOAT, TensorShape({2, 3})), &proto);
  AddNodeAttr("value", proto, c);
  AddNodeAttr("dtype", DT_FLOAT, c);
  NodeDef* n = g.add_node();
  n->set_name("shape");
  n->set_op("Shape");
  n->set_device("/device:GPU:0");
  n->add_input("a");
  AddNodeAttr("T", DT_FLOAT, n);
  AddNodeAttr("out_type", DT_INT32, n);
  return g;
}

TEST(SimGpuDeviceTest, SoftPlacementFallsBackToCpu) {
  for (bool soft : {false, true}) {
    SimEnv sim(7);
    SessionOptions opts;
    opts.env = &sim.env;
    opts.config.set_allow_soft_placement(soft);
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSimGpuDirectSession(opts, &sim.loop, "soft", &session).ok());
    ASSERT_TRUE(session->Create(ShapeOnGpuGraph()).ok());
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, {"shape"}, {}, &out);
    if (soft) {
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_TRUE(TensorsEqual(out[0], Tensor::Vector<int32_t>({2, 3})));
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      EXPECT_NE(s.message().find("shape"), std::string::npos) << s;
    }
    EXPECT_TRUE(session->Close().ok());
    session.reset();
    sim.loop.RunUntilIdle();
  }
}

TEST(SimGpuDeviceTest, ListsGpuDevicesAndRejectsBadCounts) {
  SimEnv sim(1);
  SessionOptions opts;
  opts.env = &sim.env;
  (*opts.config.mutable_device_count())["GPU"] = 2;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSimGpuDirectSession(opts, &sim.loop, "list", &session).ok());
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  std::vector<std::string> names;
  for (const DeviceAttributes& d : devices) names.push_back(d.name());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "/job:localhost/replica:0/task:0/device:CPU:0",
                       "/job:localhost/replica:0/task:0/device:GPU:0",
                       "/job:localhost/replica:0/task:0/device:GPU:1"}));
  EXPECT_TRUE(session->Close().ok());
  session.reset();
  (*opts.config.mutable_device_count())["GPU"] = -1;
  EXPECT_EQ(NewSimGpuDirectSession(opts, &sim.loop, "bad", &session).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NewSimGpuDirectSession(opts, nullptr, "bad", &session).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
