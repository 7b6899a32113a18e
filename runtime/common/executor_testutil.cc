#include "runtime/common/executor_testutil.h"

#include <map>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/env/notification.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace test {
namespace {

// Bookkeeping of the test kernels.
struct Parked {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
  FrameAndIter frame_iter;
};
struct HeldKernel {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
};
struct KernelLog {
  absl::Mutex mu;
  std::map<std::string, int> counts ABSL_GUARDED_BY(mu);
  std::vector<FrameAndIter> frames ABSL_GUARDED_BY(mu);
  std::set<std::string> ran_on_caller ABSL_GUARDED_BY(mu);
  std::vector<HeldKernel> held ABSL_GUARDED_BY(mu);
  std::vector<Parked> parked ABSL_GUARDED_BY(mu);
};
KernelLog& Log() {
  static auto* log = new KernelLog;
  return *log;
}
void CountRun(const std::string& node) {
  absl::MutexLock l(&Log().mu);
  ++Log().counts[node];
}

// True while a FlaggingScheduler closure runs.
bool g_in_closure = false;

REGISTER_OP("ExecTestCount").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("ExecTestTouch");
REGISTER_OP("ExecTestFail").Input("in: T").Output("out: T").Attr("T: type");
// Throw std::bad_alloc from Compute / ComputeAsync (a kernel whose scratch
// allocation ran the process out of memory).
REGISTER_OP("ExecTestThrowOom").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("ExecTestThrowOomAsync")
    .Input("in: T")
    .Output("out: T")
    .Attr("T: type");
REGISTER_OP("ExecTestFailAt")
    .Input("in: int32")
    .Output("out: int32")
    .Attr("at: int");
REGISTER_OP("ExecTestNoOutput").Output("out: float");
REGISTER_OP("ExecTestRefAsValue").Output("out: Ref(float)");
REGISTER_OP("ExecTestVar").Output("ref: Ref(float)").Attr("initialized: bool");
REGISTER_OP("ExecTestHold").Output("out: float");
REGISTER_OP("ExecTestHoldCheap").Output("out: float");
REGISTER_OP("ExecTestPark").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("ExecTestNoKernel").Output("out: float");
REGISTER_OP("ExecTestExpensive").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestAddOne").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestAddOneAtOnce").Input("in: float").Output("out: float");
REGISTER_OP("ExecTestWhere")
    .Input("in: float")
    .Output("out: float")
    .Attr("expensive: bool");

class CountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    {
      absl::MutexLock l(&Log().mu);
      ++Log().counts[name()];
      Log().frames.push_back(ctx->frame_iter());
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestCount").Device(DEVICE_CPU), CountOp);

class TouchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override { CountRun(name()); }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestTouch").Device(DEVICE_CPU), TouchOp);

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    ctx->SetStatus(absl::InvalidArgumentError("kernel failed on purpose"));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestFail").Device(DEVICE_CPU), FailOp);

class ThrowOomOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    throw std::bad_alloc();
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestThrowOom").Device(DEVICE_CPU),
                        ThrowOomOp);

class ThrowOomAsyncOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CountRun(name());
    throw std::bad_alloc();
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestThrowOomAsync").Device(DEVICE_CPU),
                        ThrowOomAsyncOp);

class FailAtOp : public OpKernel {
 public:
  explicit FailAtOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("at", &at_));
  }
  void Compute(OpKernelContext* ctx) override {
    if (ctx->input(0).scalar<int32_t>() == at_) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "failing on purpose at ", at_, " [[", FormatNodeName(name()), "]]")));
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t at_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestFailAt").Device(DEVICE_CPU), FailAtOp);

class NoOutputOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};
REGISTER_KERNEL_BUILDER(Name("ExecTestNoOutput").Device(DEVICE_CPU),
                        NoOutputOp);

class RefAsValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(1));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestRefAsValue").Device(DEVICE_CPU),
                        RefAsValueOp);

class VarOp : public OpKernel {
 public:
  explicit VarOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool initialized = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("initialized", &initialized));
    if (initialized) var_ = Tensor::Scalar<float>(7);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output_ref(0, &mu_, &var_);
  }

 private:
  absl::Mutex mu_;
  Tensor var_;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestVar").Device(DEVICE_CPU), VarOp);

class HoldOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CountRun(name());
    absl::MutexLock l(&Log().mu);
    Log().held.push_back(HeldKernel{ctx, std::move(done)});
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestHold").Device(DEVICE_CPU), HoldOp);
class CheapHoldOp : public HoldOp {
 public:
  using HoldOp::HoldOp;
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestHoldCheap").Device(DEVICE_CPU),
                        CheapHoldOp);

class ParkOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::MutexLock l(&Log().mu);
    Log().parked.push_back(Parked{ctx, std::move(done), ctx->frame_iter()});
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestPark").Device(DEVICE_CPU), ParkOp);

class ExpensiveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0,
                    Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestExpensive").Device(DEVICE_CPU),
                        ExpensiveOp);

class AddOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0,
                    Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestAddOne").Device(DEVICE_CPU), AddOneOp);

class AddOneAtOnceOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ctx->set_output(0,
                    Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
    done();
  }
  bool IsExpensive() const override { return false; }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestAddOneAtOnce").Device(DEVICE_CPU),
                        AddOneAtOnceOp);

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("expensive", &expensive_));
  }
  void Compute(OpKernelContext* ctx) override {
    CountRun(name());
    if (!g_in_closure) {
      absl::MutexLock l(&Log().mu);
      Log().ran_on_caller.insert(name());
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return expensive_; }

 private:
  bool expensive_ = false;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestWhere").Device(DEVICE_CPU), WhereOp);

// ControlTrigger does nothing; the executor gives it its meaning.
class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

void AddTransferAttrs(NodeDef* n, const std::string& tensor_name,
                      const Device* from, const Device* to) {
  AddNodeAttr("tensor_name", tensor_name, n);
  AddNodeAttr("send_device", from->name(), n);
  AddNodeAttr("send_device_incarnation",
              static_cast<int64_t>(from->incarnation()), n);
  AddNodeAttr("recv_device", to->name(), n);
}

}  // namespace

int RunCount(const std::string& node) {
  absl::MutexLock l(&Log().mu);
  auto it = Log().counts.find(node);
  return it == Log().counts.end() ? 0 : it->second;
}

std::vector<FrameAndIter> SeenFrames() {
  absl::MutexLock l(&Log().mu);
  return Log().frames;
}

void ReleaseHeld() {
  std::vector<HeldKernel> held;
  {
    absl::MutexLock l(&Log().mu);
    held.swap(Log().held);
  }
  for (HeldKernel& h : held) {
    h.ctx->set_output(0, Tensor::Scalar<float>(5));
    h.done();
  }
}

bool ReleaseOldestParked() {
  Parked p;
  {
    absl::MutexLock l(&Log().mu);
    if (Log().parked.empty()) return false;
    p = std::move(Log().parked.front());
    Log().parked.erase(Log().parked.begin());
  }
  p.ctx->set_output(0, p.ctx->input(0));
  p.done();
  return true;
}

std::vector<FrameAndIter> ParkedFrames() {
  absl::MutexLock l(&Log().mu);
  std::vector<FrameAndIter> out;
  for (const Parked& p : Log().parked) out.push_back(p.frame_iter);
  return out;
}

std::set<std::string> RanOnCaller() {
  absl::MutexLock l(&Log().mu);
  return Log().ran_on_caller;
}

void ResetTestKernels() {
  absl::MutexLock l(&Log().mu);
  Log().counts.clear();
  Log().frames.clear();
  Log().ran_on_caller.clear();
  Log().held.clear();
  Log().parked.clear();
}

void FlaggingScheduler::Schedule(Closure fn) {
  InlineScheduler::Schedule([fn = std::move(fn)] {
    g_in_closure = true;
    fn();
    g_in_closure = false;
  });
}

absl::Status CreateTestKernel(Device* device, const NodeDef& ndef,
                              std::unique_ptr<OpKernel>* kernel) {
  if (ndef.op() == "ControlTrigger") {
    const OpDef* op_def = nullptr;
    absl::Status s = OpRegistry::Global()->LookUp(ndef.op(), &op_def);
    if (!s.ok()) return s;
    OpKernelConstruction construction(device, &ndef, op_def, {}, {});
    *kernel = std::make_unique<ControlTriggerOp>(&construction);
    return construction.status();
  }
  return CreateOpKernel(device->device_type(), device, ndef, kernel);
}

// ---------------------------------------------------------------------------
// NodeDef builders.

NodeDef* AddSend(GraphDef* g, const std::string& name, const std::string& input,
                 DataType t, const std::string& tensor_name, const Device* from,
                 const Device* to) {
  NodeDef* n = AddTyped(g, name, "_Send", {input}, t);
  AddTransferAttrs(n, tensor_name, from, to);
  return n;
}

NodeDef* AddRecv(GraphDef* g, const std::string& name, DataType t,
                 const std::string& tensor_name, const Device* from,
                 const Device* to) {
  NodeDef* n = AddNode(g, name, "_Recv");
  AddNodeAttr("tensor_type", t, n);
  AddTransferAttrs(n, tensor_name, from, to);
  return n;
}

NodeDef* AddEnter(GraphDef* g, const std::string& name,
                  const std::string& input, DataType t,
                  const std::string& frame, bool is_constant,
                  int parallel_iterations) {
  NodeDef* n = AddTyped(g, name, "Enter", {input}, t);
  AddNodeAttr("frame_name", frame, n);
  AddNodeAttr("is_constant", is_constant, n);
  AddNodeAttr("parallel_iterations", parallel_iterations, n);
  return n;
}

LoopVar AddLoopVar(GraphDef* g, const std::string& name,
                   const std::string& init, DataType t,
                   const std::string& frame, int parallel_iterations) {
  AddEnter(g, name + "/enter", init, t, frame, false, parallel_iterations);
  NodeDef* m = AddTyped(g, name + "/merge", "Merge",
                        {name + "/enter", name + "/next"}, t);
  AddNodeAttr("N", 2, m);
  return LoopVar{name, t};
}

void AddLoopSwitch(GraphDef* g, const LoopVar& v, const std::string& cond) {
  AddTyped(g, v.name + "/switch", "Switch", {v.merge(), cond}, v.t);
  AddTyped(g, v.body(), "Identity", {v.name + "/switch:1"}, v.t);
  AddTyped(g, v.exit(), "Exit", {v.name + "/switch"}, v.t);
}

void AddLoopNext(GraphDef* g, const LoopVar& v, const std::string& value) {
  AddTyped(g, v.name + "/next", "NextIteration", {value}, v.t);
}

std::string AddLessCond(GraphDef* g, const std::string& prefix,
                        const std::string& lhs, const std::string& rhs) {
  AddTyped(g, prefix + "/less", "Less", {lhs, rhs}, DT_INT32);
  AddNode(g, prefix + "/cond", "LoopCond", {prefix + "/less"});
  return prefix + "/cond";
}

Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }

GraphDef CounterLoop(int limit, int parallel_iterations) {
  GraphDef g;
  AddConst(&g, "zero", I32(0));
  AddConst(&g, "limit", I32(limit));
  LoopVar i =
      AddLoopVar(&g, "i", "zero", DT_INT32, "loop", parallel_iterations);
  AddEnter(&g, "limit/enter", "limit", DT_INT32, "loop", true,
           parallel_iterations);
  const std::string cond = AddLessCond(&g, "c", i.merge(), "limit/enter");
  AddLoopSwitch(&g, i, cond);
  AddTyped(&g, "count", "ExecTestCount", {i.body()}, DT_INT32);
  AddConst(&g, "one", I32(1), {"^" + i.body()});
  AddTyped(&g, "add", "Add", {"count", "one"}, DT_INT32);
  AddLoopNext(&g, i, "add");
  AddRetval(&g, "r", i.exit(), DT_INT32, 0);
  return g;
}

// ---------------------------------------------------------------------------
// Building.

absl::Status GraphFromDef(const GraphDef& def, std::unique_ptr<Graph>* graph) {
  *graph = std::make_unique<Graph>();
  GraphConstructorOptions opts;
  opts.allow_internal_ops = true;
  return ConvertGraphDefToGraph(opts, def, graph->get());
}

absl::Status BuildExecutor(
    const GraphDef& def, Device* device, Env* env,
    std::unique_ptr<Executor>* executor,
    std::function<absl::Status(const NodeDef&, std::unique_ptr<OpKernel>*)>
        create_kernel) {
  std::unique_ptr<Graph> graph;
  absl::Status s = GraphFromDef(def, &graph);
  if (!s.ok()) return s;
  LocalExecutorParams params;
  params.device = device;
  params.env = env;
  params.create_kernel = std::move(create_kernel);
  return NewLocalExecutor(params, std::move(graph), executor);
}

absl::Status BuildImmutableState(
    const GraphDef& def, Device* device, Env* env,
    std::unique_ptr<ImmutableExecutorState>* state) {
  std::unique_ptr<Graph> graph;
  absl::Status s = GraphFromDef(def, &graph);
  if (!s.ok()) return s;
  *state = std::make_unique<ImmutableExecutorState>(
      device, env,
      [device](const NodeDef& ndef, std::shared_ptr<OpKernel>* kernel) {
        std::unique_ptr<OpKernel> owned;
        absl::Status s = CreateTestKernel(device, ndef, &owned);
        *kernel = std::move(owned);
        return s;
      },
      std::move(graph));
  return (*state)->Initialize();
}

// ---------------------------------------------------------------------------
// ExecutorTest

ExecutorTest::ExecutorTest() : random_(1234) {
  env_.clock = sched_.clock();
  env_.scheduler = &sched_;
  env_.random = &random_;
  absl::Status s =
      AddCpuDevices(&env_, 2, "/job:localhost/replica:0/task:0", &devices_);
  EXPECT_TRUE(s.ok()) << s;
  ResetTestKernels();
}

absl::Status ExecutorTest::Build(const GraphDef& def, Device* device,
                                 std::unique_ptr<Executor>* executor) {
  return BuildExecutor(
      def, device, &env_, executor,
      [device](const NodeDef& ndef, std::unique_ptr<OpKernel>* kernel) {
        return CreateTestKernel(device, ndef, kernel);
      });
}

std::unique_ptr<Executor> ExecutorTest::BuildOrDie(const GraphDef& def,
                                                   Device* device) {
  std::unique_ptr<Executor> executor;
  absl::Status s = Build(def, device ? device : cpu0(), &executor);
  EXPECT_TRUE(s.ok()) << s;
  return executor;
}

void ExecutorTest::Start(Executor* executor, const Executor::Args& args,
                         DoneRecord* done) {
  executor->RunAsync(args, [done](const absl::Status& s) {
    ++done->calls;
    done->status = s;
  });
}

absl::Status ExecutorTest::Run(Executor* executor, const Executor::Args& args) {
  if (executor == nullptr) return absl::InternalError("no executor");
  Notification n;
  absl::Status status;
  int calls = 0;
  executor->RunAsync(args, [&](const absl::Status& s) {
    status = s;
    ++calls;
    n.Notify();
  });
  sched_.WaitFor(&n);
  sched_.RunUntilIdle();
  EXPECT_EQ(calls, 1);
  return status;
}

absl::Status ExecutorTest::RunOnCaller(Executor* executor,
                                       const DataTypeVector& ret_types,
                                       std::vector<Tensor>* out) {
  {
    absl::MutexLock l(&Log().mu);
    Log().ran_on_caller.clear();
  }
  FunctionCallFrame frame({}, ret_types);
  Executor::Args args;
  args.call_frame = &frame;
  absl::Status s = executor->Run(args);
  if (!s.ok()) return s;
  return frame.ConsumeRetvals(out);
}

absl::Status ExecutorTest::RunWithFrame(Executor* executor,
                                        const DataTypeVector& arg_types,
                                        const std::vector<Tensor>& args,
                                        const DataTypeVector& ret_types,
                                        std::vector<Tensor>* out,
                                        Executor::Args exec_args) {
  FunctionCallFrame frame(arg_types, ret_types);
  absl::Status s = frame.SetArgs(args);
  if (!s.ok()) return s;
  exec_args.call_frame = &frame;
  s = Run(executor, exec_args);
  if (!s.ok()) return s;
  return frame.ConsumeRetvals(out);
}

}  // namespace test
}  // namespace stepflow
