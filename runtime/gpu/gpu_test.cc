// GPU device tests. Every test that needs hardware skips with a message when
// no CUDA GPU is visible (no driver, e.g. the build machines); discovery is
// tested everywhere. With a GPU, each op's GPU result is compared with the
// CPU kernels' result on the same inputs (max |gpu - cpu| / max |cpu| below
// 1e-5 for float32), and a 784-256-256-10 MLP trains on the GPU to the same
// losses and weights as on the CPU.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/common/session.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/gpu/gpu_device.h"
#include "testing/mlp_graph.h"

namespace stepflow {
namespace {

#define SKIP_WITHOUT_GPU()                                                 \
  do {                                                                     \
    if (VisibleGpuCount() == 0) {                                          \
      GTEST_SKIP() << "No CUDA GPU visible (no driver or no device): GPU " \
                      "test skipped; it runs on a machine with an NVIDIA " \
                      "GPU.";                                              \
    }                                                                      \
  } while (0)

double MaxRelErr(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(got.shape(), want.shape());
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) return 1e30;
  double max_diff = 0, max_abs = 1e-30;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    double g, w;
    if (got.dtype() == DT_FLOAT) {
      g = got.flat<float>()(i);
      w = want.flat<float>()(i);
    } else {
      g = got.flat<double>()(i);
      w = want.flat<double>()(i);
    }
    if (std::isnan(g) != std::isnan(w)) return 1e30;
    if (std::isnan(w)) continue;
    max_diff = std::max(max_diff, std::fabs(g - w));
    max_abs = std::max(max_abs, std::fabs(w));
  }
  return max_diff / max_abs;
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override { env_ = RealEnv::Create(4); }

  std::unique_ptr<Session> NewSessionOn(int gpus, const GraphDef& graph,
                                        bool soft = false) {
    SessionOptions opts;
    opts.env = env_->env();
    (*opts.config.mutable_device_count())["GPU"] = gpus;
    opts.config.set_allow_soft_placement(soft);
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    s = session->Create(graph);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? std::move(session) : nullptr;
  }

  std::unique_ptr<RealEnv> env_;
};

// --- Graph building -------------------------------------------------------

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, const std::string& device) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

void AddConst(GraphDef* g, const std::string& name, const Tensor& value,
              const std::string& device) {
  NodeDef* n = AddNode(g, name, "Const", {}, device);
  TensorProto proto;
  TensorToProto(value, &proto);
  AddNodeAttr("value", proto, n);
  AddNodeAttr("dtype", value.dtype(), n);
}

Tensor Filled(const std::vector<int64_t>& dims, uint64_t seed, float lo,
              float hi) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    t.flat<float>()(i) = static_cast<float>(lo + (hi - lo) * u);
  }
  return t;
}

// Every GPU op on small inputs; all math nodes request `device`.
GraphDef OpsGraph(const std::string& device,
                  std::vector<std::string>* fetches) {
  GraphDef g;
  AddConst(&g, "x", Filled({4, 3}, 1, -2, 2), device);
  AddConst(&g, "y", Filled({4, 3}, 2, 0.5, 3), device);
  AddConst(&g, "w", Filled({3, 5}, 3, -1, 1), device);
  AddConst(&g, "wt", Filled({5, 3}, 4, -1, 1), device);
  AddConst(&g, "row", Filled({3}, 5, -1, 1), device);
  AddConst(&g, "s", Filled({}, 6, 1, 2), device);
  AddConst(&g, "labels", Filled({4, 3}, 7, 0, 1), device);
  Tensor ints(DT_INT32, TensorShape({4, 3}));
  for (int i = 0; i < 12; ++i) ints.flat<int32_t>()(i) = i * 7 - 30;
  AddConst(&g, "ints", ints, "");
  AddConst(&g, "axis0", Tensor::Scalar<int32_t>(0), "");
  AddConst(&g, "axes01", Tensor::Vector<int32_t>({0, -1}), "");
  auto math = [&](const std::string& name, const std::string& op,
                  std::vector<std::string> in) {
    NodeDef* n = AddNode(&g, name, op, std::move(in), device);
    AddNodeAttr("T", DT_FLOAT, n);
    fetches->push_back(name);
    return n;
  };
  NodeDef* mm = math("matmul", "MatMul", {"x", "w"});
  AddNodeAttr("transpose_a", false, mm);
  AddNodeAttr("transpose_b", false, mm);
  NodeDef* mm_t = math("matmul_tb", "MatMul", {"x", "wt"});
  AddNodeAttr("transpose_a", false, mm_t);
  AddNodeAttr("transpose_b", true, mm_t);
  NodeDef* mm_ta = math("matmul_ta", "MatMul", {"x", "y"});
  AddNodeAttr("transpose_a", true, mm_ta);
  AddNodeAttr("transpose_b", false, mm_ta);
  math("bias_add", "BiasAdd", {"x", "row"});
  math("relu", "Relu", {"x"});
  math("relu_grad", "ReluGrad", {"y", "x"});
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv"}) {
    const std::string base = absl::StrCat(op);
    math(base + "_same", op, {"x", "y"});
    math(base + "_scalar", op, {"x", "s"});
    math(base + "_scalar_left", op, {"s", "y"});
    math(base + "_row", op, {"x", "row"});
    math(base + "_row_left", op, {"row", "y"});
  }
  math("neg", "Neg", {"x"});
  math("square", "Square", {"x"});
  for (const char* op : {"Sum", "Mean"}) {
    for (bool keep : {false, true}) {
      const std::string base = absl::StrCat(op, keep ? "_keep" : "");
      NodeDef* r0 = math(base + "_axis0", op, {"x", "axis0"});
      AddNodeAttr("keep_dims", keep, r0);
      NodeDef* ra = math(base + "_all", op, {"x", "axes01"});
      AddNodeAttr("keep_dims", keep, ra);
    }
  }
  math("softmax", "Softmax", {"x"});
  math("xent", "SoftmaxCrossEntropyWithLogits", {"x", "labels"});
  fetches->push_back("xent:1");
  math("identity", "Identity", {"x"});
  NodeDef* cast_i = AddNode(&g, "cast_int", "Cast", {"ints"}, device);
  AddNodeAttr("SrcT", DT_INT32, cast_i);
  AddNodeAttr("DstT", DT_FLOAT, cast_i);
  fetches->push_back("cast_int");
  NodeDef* cast_d = AddNode(&g, "cast_double", "Cast", {"x"}, device);
  AddNodeAttr("SrcT", DT_FLOAT, cast_d);
  AddNodeAttr("DstT", DT_DOUBLE, cast_d);
  NodeDef* cast_back =
      AddNode(&g, "cast_back", "Cast", {"cast_double"}, device);
  AddNodeAttr("SrcT", DT_DOUBLE, cast_back);
  AddNodeAttr("DstT", DT_FLOAT, cast_back);
  fetches->push_back("cast_back");
  // Ref variable: assign, update with ApplyGradientDescent, read.
  NodeDef* v = AddNode(&g, "v", "VariableV2", {}, device);
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", TensorShape({4, 3}), v);
  AddNodeAttr("container", "", v);
  AddNodeAttr("shared_name", "", v);
  NodeDef* assign = AddNode(&g, "assign", "Assign", {"v", "x"}, device);
  AddNodeAttr("T", DT_FLOAT, assign);
  AddNodeAttr("validate_shape", true, assign);
  AddNodeAttr("use_locking", true, assign);
  NodeDef* apply = AddNode(&g, "apply", "ApplyGradientDescent",
                           {"assign", "s", "y"}, device);
  AddNodeAttr("T", DT_FLOAT, apply);
  AddNodeAttr("use_locking", false, apply);
  fetches->push_back("apply");
  return g;
}

// --- Tests ------------------------------------------------------------------

TEST_F(GpuTest, DiscoveryMatchesTheHardwareAndNeverFails) {
  GraphDef empty;
  std::unique_ptr<Session> s = NewSessionOn(8, empty);
  ASSERT_NE(s, nullptr);
  std::vector<DeviceAttributes> devices;
  ASSERT_TRUE(s->ListDevices(&devices).ok());
  int gpus = 0;
  for (const DeviceAttributes& d : devices) {
    if (d.device_type() == "GPU") {
      EXPECT_EQ(
          d.name(),
          absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", gpus));
      EXPECT_GT(d.memory_limit(), 0);
      ++gpus;
    }
  }
  EXPECT_EQ(gpus, std::min(8, VisibleGpuCount()));
  std::unique_ptr<Session> none = NewSessionOn(0, empty);
  ASSERT_NE(none, nullptr);
  devices.clear();
  ASSERT_TRUE(none->ListDevices(&devices).ok());
  for (const DeviceAttributes& d : devices) EXPECT_EQ(d.device_type(), "CPU");
  if (VisibleGpuCount() == 0) {
    std::printf("No CUDA GPU visible: session created with CPU devices only\n");
  }
}

// The device layer itself: pooled allocation with statistics, and an
// H2D -> D2H round trip through the streams, completing via the Scheduler.
TEST_F(GpuTest, DeviceCopiesRoundTripAndPoolCountsAllocations) {
  SKIP_WITHOUT_GPU();
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(
      AddGpuDevices(env_->env(), 1, "/job:localhost/replica:0/task:0", &devices)
          .ok());
  ASSERT_EQ(devices.size(), 1u);
  auto* gpu = dynamic_cast<GpuDevice*>(devices[0].get());
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  const Tensor host = Filled({1000, 3}, 9, -5, 5);
  Tensor on_device;
  ASSERT_TRUE(gpu->CopyHostToDevice(host, &on_device).ok());
  PoolAllocatorStats stats = gpu->allocator_stats();
  EXPECT_EQ(stats.num_allocs, 1);
  EXPECT_GE(stats.bytes_in_use, 12000);
  EXPECT_GT(stats.bytes_limit, 0);
  Notification copied;
  absl::Status copy_status = absl::UnknownError("not run");
  Tensor back;
  gpu->CopyDeviceToHost(on_device, Tensor(DT_FLOAT, host.shape()),
                        [&](absl::Status s, Tensor t) {
                          copy_status = s;
                          back = t;
                          copied.Notify();
                        });
  env_->env()->scheduler->WaitFor(&copied);
  ASSERT_TRUE(copy_status.ok()) << copy_status;
  EXPECT_TRUE(TensorsEqual(back, host));
  // Freed device memory is reused without another cudaMalloc.
  on_device = Tensor();
  Tensor again;
  ASSERT_TRUE(gpu->AllocateTensor(DT_FLOAT, host.shape(), &again).ok());
  stats = gpu->allocator_stats();
  EXPECT_EQ(stats.num_allocs, 2);
  EXPECT_EQ(stats.num_raw_allocs, 1);
  // int32 stays in host memory on a GPU.
  Tensor ints;
  ASSERT_TRUE(gpu->AllocateTensor(DT_INT32, TensorShape({4}), &ints).ok());
  ints.flat<int32_t>()(0) = 7;  // Host-addressable.
  EXPECT_EQ(gpu->allocator_stats().num_allocs, 2);
}

TEST_F(GpuTest, EveryOpMatchesTheCpuKernels) {
  SKIP_WITHOUT_GPU();
  std::vector<std::string> fetches, cpu_fetches;
  GraphDef gpu_graph = OpsGraph("/device:GPU:0", &fetches);
  GraphDef cpu_graph = OpsGraph("/device:CPU:0", &cpu_fetches);
  auto gpu = NewSessionOn(1, gpu_graph);
  auto cpu = NewSessionOn(0, cpu_graph);
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(cpu, nullptr);
  std::vector<Tensor> got, want;
  absl::Status s = gpu->Run({}, fetches, {}, &got);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(cpu->Run({}, fetches, {}, &want).ok());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LT(MaxRelErr(got[i], want[i]), 1e-5)
        << fetches[i] << "\n gpu " << got[i].DebugString(12) << "\n cpu "
        << want[i].DebugString(12);
  }
  // Same again: pooled buffers are reused and results stay identical.
  std::vector<Tensor> again;
  ASSERT_TRUE(gpu->Run({}, fetches, {}, &again).ok());
  for (size_t i = 0; i < got.size(); ++i) {
    if (fetches[i] == "apply") continue;  // The variable moved on.
    EXPECT_TRUE(TensorsEqual(got[i], again[i])) << fetches[i];
  }
}

// General broadcasting (a column against a matrix, rank-raising operands)
// matches the CPU kernels; shapes that do not broadcast are rejected.
TEST_F(GpuTest, GeneralBroadcastMatchesCpuAndBadShapesAreRejected) {
  SKIP_WITHOUT_GPU();
  auto build = [](const std::string& device) {
    GraphDef g;
    AddConst(&g, "a", Filled({2, 3}, 1, 0, 1), device);
    AddConst(&g, "col", Filled({2, 1}, 2, 0, 1), device);
    AddConst(&g, "cube", Filled({4, 1, 3}, 4, 0, 1), device);
    AddConst(&g, "bad", Filled({4}, 3, 0, 1), device);
    NodeDef* n = AddNode(&g, "col_add", "Add", {"a", "col"}, device);
    AddNodeAttr("T", DT_FLOAT, n);
    n = AddNode(&g, "cube_mul", "Mul", {"col", "cube"}, device);
    AddNodeAttr("T", DT_FLOAT, n);
    n = AddNode(&g, "cube_div", "RealDiv", {"cube", "a"}, device);
    AddNodeAttr("T", DT_FLOAT, n);
    n = AddNode(&g, "bad_add", "Add", {"a", "bad"}, device);
    AddNodeAttr("T", DT_FLOAT, n);
    return g;
  };
  auto session = NewSessionOn(1, build("/device:GPU:0"));
  auto cpu = NewSessionOn(0, build("/device:CPU:0"));
  ASSERT_NE(session, nullptr);
  ASSERT_NE(cpu, nullptr);
  const std::vector<std::string> fetches = {"col_add", "cube_mul", "cube_div"};
  std::vector<Tensor> out, want;
  absl::Status s = session->Run({}, fetches, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(cpu->Run({}, fetches, {}, &want).ok());
  for (size_t i = 0; i < fetches.size(); ++i) {
    EXPECT_EQ(out[i].shape(), want[i].shape()) << fetches[i];
    EXPECT_LT(MaxRelErr(out[i], want[i]), 1e-5) << fetches[i];
  }
  s = session->Run({}, {"bad_add"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("Incompatible shapes"), std::string::npos) << s;
}

TEST_F(GpuTest, SoftPlacementFallsBackToCpu) {
  SKIP_WITHOUT_GPU();
  GraphDef g;
  AddConst(&g, "a", Filled({2, 3}, 1, 0, 1), "/device:GPU:0");
  // No GPU kernel for Shape: only soft placement can run it.
  NodeDef* n = AddNode(&g, "shape", "Shape", {"a"}, "/device:GPU:0");
  AddNodeAttr("T", DT_FLOAT, n);
  AddNodeAttr("out_type", DT_INT32, n);
  std::vector<Tensor> out;
  auto hard = NewSessionOn(1, g, /*soft=*/false);
  ASSERT_NE(hard, nullptr);
  EXPECT_EQ(hard->Run({}, {"shape"}, {}, &out).code(),
            absl::StatusCode::kInvalidArgument);
  auto soft = NewSessionOn(1, g, /*soft=*/true);
  ASSERT_NE(soft, nullptr);
  absl::Status s = soft->Run({}, {"shape"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(TensorsEqual(out[0], Tensor::Vector<int32_t>({2, 3})));
}

// The MLP the benchmark times: placement puts its math on the GPU (seen in
// the step stats), and three SGD steps give the CPU's losses and weights.
TEST_F(GpuTest, MlpTrainingMatchesCpu) {
  SKIP_WITHOUT_GPU();
  MlpOptions o;
  o.batch = 128;
  MlpGraph g;
  ASSERT_TRUE(BuildMlpGraph(o, &g).ok());
  MlpBatch batch = MakeMlpBatch(o, 7);
  const Session::FeedList feeds = {{g.input, batch.x},
                                   {g.labels, batch.labels}};
  std::vector<std::string> fetches = {g.loss};
  for (const MlpParam& p : g.params) fetches.push_back(p.variable);

  std::map<int, std::vector<Tensor>> results;
  for (int gpus : {1, 0}) {
    auto session = NewSessionOn(gpus, g.graph);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {}, {g.init}, &out).ok());
    std::vector<Tensor> trace;
    for (int step = 0; step < 3; ++step) {
      RunOptions ro;
      ro.set_trace_level(RunOptions::FULL_TRACE);
      RunMetadata md;
      absl::Status s = session->Run(ro, feeds, {g.loss}, {g.train}, &out, &md);
      ASSERT_TRUE(s.ok()) << s;
      trace.push_back(out[0]);
      if (gpus == 1 && step == 0) {
        bool matmul_on_gpu = false;
        for (const auto& dev : md.step_stats().dev_stats()) {
          if (dev.device().find("GPU:0") == std::string::npos) continue;
          for (const auto& ns : dev.node_stats()) {
            if (ns.node_name() == "MatMul") matmul_on_gpu = true;
          }
        }
        EXPECT_TRUE(matmul_on_gpu)
            << md.step_stats().DebugString().substr(0, 2000);
      }
    }
    ASSERT_TRUE(session->Run(feeds, fetches, {}, &out).ok());
    trace.insert(trace.end(), out.begin(), out.end());
    results[gpus] = trace;
  }
  const std::vector<Tensor>& gpu = results[1];
  const std::vector<Tensor>& cpu = results[0];
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_LT(MaxRelErr(gpu[i], cpu[i]), 1e-5) << "result " << i;
  }
}

}  // namespace
}  // namespace stepflow
