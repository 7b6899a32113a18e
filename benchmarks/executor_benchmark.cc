// Executor scheduling cost on DAGs of trivial kernels, against oneTBB's flow
// graph and a single-threaded pending-count loop (the floor).
//
//   bazel run //benchmarks:executor_benchmark -- --benchmark_min_time=0.2
//
// Shapes (benchmarks/dag_shapes.h): a chain of 100k nodes, a 1 -> 10k -> 1
// fan-out/fan-in, and random layered DAGs of 10k and 100k nodes (layers of
// 100, in-degree 2). Every benchmark reports `per_node`: seconds per node
// per step (google-benchmark prints it with an SI prefix, e.g. "85n").
//
//  * BM_Stepflow/<shape>/<kind>/<threads>: one executor step per iteration
//    (RunAsync + wait) on one CPU device. kind 0 = NoOps joined by control
//    edges (the same contract as a continue_node graph); kind 1 = scalar
//    float values (roots are Consts, the rest Identity). threads 0 = an
//    inline scheduler on the benchmark thread; 1 and 2 = ThreadPoolScheduler
//    with that many inter-op threads.
//  * BM_TbbFlowGraph/<shape>/<threads>: continue_node<continue_msg> per
//    node, edges as in the shape, roots put, wait_for_all, in a task_arena
//    of `threads`.
//  * BM_PendingCountFloor/<shape>: pending counters reset from a template,
//    a LIFO ready stack, successors in CSR form.
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "benchmarks/dag_shapes.h"
#include "runtime/common/cpu_device.h"
#include "runtime/common/executor.h"
#include "runtime/env/env.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/random.h"
#include "runtime/env/real/system_clock.h"
#include "runtime/env/real/thread_pool_scheduler.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow::bench {
namespace {

enum ShapeId { kChain100k = 0, kFan10k = 1, kLayered10k = 2, kLayered100k = 3 };

const DagShape& Shape(int id) {
  static const auto* shapes = new std::vector<DagShape>{
      ChainShape(100000),
      FanOutInShape(10000),
      RandomLayeredShape(10000, 100, 2, /*seed=*/1),
      RandomLayeredShape(100000, 100, 2, /*seed=*/2),
  };
  return (*shapes)[id];
}

void SetPerNode(benchmark::State& state, const DagShape& shape) {
  state.SetLabel(shape.name);
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(shape.num_nodes()),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

// Runs closures on the thread that waits: the single-threaded floor for
// the executor's own bookkeeping (no thread hand-offs at all).
class InlineScheduler : public Scheduler {
 public:
  void Schedule(Closure fn) override {
    absl::MutexLock l(&mu_);
    queue_.push_back(std::move(fn));
  }
  TimerId ScheduleAfter(int64_t, Closure fn) override {
    Schedule(std::move(fn));
    return 0;
  }
  bool CancelTimer(TimerId) override { return false; }
  void WaitFor(Notification* n) override {
    while (!n->HasBeenNotified()) {
      Closure fn;
      {
        absl::MutexLock l(&mu_);
        if (queue_.empty()) return;  // Nothing left: the step is stuck.
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }
  int NumThreads() const override { return 1; }

 private:
  absl::Mutex mu_;
  std::deque<Closure> queue_ ABSL_GUARDED_BY(mu_);
};

// One CPU device, one executor for the whole graph.
class ExecutorFixture {
 public:
  explicit ExecutorFixture(int threads) : random_(42) {
    if (threads == 0) {
      scheduler_ = std::make_unique<InlineScheduler>();
    } else {
      scheduler_ = std::make_unique<ThreadPoolScheduler>(threads, &clock_);
    }
    env_.clock = &clock_;
    env_.scheduler = scheduler_.get();
    env_.random = &random_;
  }

  absl::Status Build(const GraphDef& def) {
    absl::Status s =
        AddCpuDevices(&env_, 1, "/job:localhost/replica:0/task:0", &devices_);
    if (!s.ok()) return s;
    auto graph = std::make_unique<Graph>();
    s = ConvertGraphDefToGraph(GraphConstructorOptions(), def, graph.get());
    if (!s.ok()) return s;
    LocalExecutorParams params;
    params.device = devices_[0].get();
    params.env = &env_;
    return NewLocalExecutor(params, std::move(graph), &executor_);
  }

  absl::Status RunStep(int64_t step_id) {
    Notification n;
    absl::Status status;
    Executor::Args args;
    args.step_id = step_id;
    executor_->RunAsync(args, [&](const absl::Status& s) {
      status = s;
      n.Notify();
    });
    scheduler_->WaitFor(&n);
    return status;
  }

  ~ExecutorFixture() {
    executor_.reset();
    devices_.clear();
    scheduler_.reset();  // Drains the pool before the clock goes.
  }

 private:
  SystemClock clock_;
  SeededRandom random_;
  std::unique_ptr<Scheduler> scheduler_;
  Env env_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::unique_ptr<Executor> executor_;
};

void BM_Stepflow(benchmark::State& state) {
  const DagShape& shape = Shape(static_cast<int>(state.range(0)));
  const bool with_values = state.range(1) == 1;
  ExecutorFixture fixture(static_cast<int>(state.range(2)));
  absl::Status s = fixture.Build(with_values ? IdentityGraphDef(shape)
                                             : NoOpGraphDef(shape));
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  int64_t step = 0;
  for (auto _ : state) {
    s = fixture.RunStep(++step);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  SetPerNode(state, shape);
}

void BM_TbbFlowGraph(benchmark::State& state) {
  using tbb::flow::continue_msg;
  using Node = tbb::flow::continue_node<continue_msg>;
  const DagShape& shape = Shape(static_cast<int>(state.range(0)));
  tbb::task_arena arena(static_cast<int>(state.range(1)));
  arena.execute([&] {
    tbb::flow::graph g;
    std::vector<std::unique_ptr<Node>> nodes;
    nodes.reserve(shape.num_nodes());
    std::vector<Node*> roots;
    for (int i = 0; i < shape.num_nodes(); ++i) {
      nodes.push_back(std::make_unique<Node>(
          g, [](const continue_msg&) { return continue_msg(); }));
      if (shape.preds[i].empty()) roots.push_back(nodes.back().get());
      for (int p : shape.preds[i]) tbb::flow::make_edge(*nodes[p], *nodes[i]);
    }
    for (auto _ : state) {
      for (Node* r : roots) r->try_put(continue_msg());
      g.wait_for_all();
    }
  });
  SetPerNode(state, shape);
}

void BM_PendingCountFloor(benchmark::State& state) {
  const DagShape& shape = Shape(static_cast<int>(state.range(0)));
  const Successors succ = ComputeSuccessors(shape);
  const int n = shape.num_nodes();
  std::vector<int32_t> initial(n);
  std::vector<int> roots;
  for (int i = 0; i < n; ++i) {
    initial[i] = static_cast<int32_t>(shape.preds[i].size());
    if (initial[i] == 0) roots.push_back(i);
  }
  std::vector<int32_t> pending(n);
  std::vector<int> ready;
  ready.reserve(n);
  int64_t ran = 0;
  for (auto _ : state) {
    pending = initial;
    ready.assign(roots.begin(), roots.end());
    while (!ready.empty()) {
      const int id = ready.back();
      ready.pop_back();
      ++ran;  // The "kernel".
      for (int64_t k = succ.begin[id]; k < succ.begin[id + 1]; ++k) {
        const int dst = succ.ids[k];
        if (--pending[dst] == 0) ready.push_back(dst);
      }
    }
    benchmark::DoNotOptimize(ran);
  }
  if (ran != static_cast<int64_t>(state.iterations()) * n) {
    state.SkipWithError("floor loop did not run every node");
  }
  SetPerNode(state, shape);
}

void ShapeArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"shape"});
  for (int s = kChain100k; s <= kLayered100k; ++s) b->Arg(s);
}

BENCHMARK(BM_Stepflow)
    ->ArgNames({"shape", "values", "threads"})
    ->ArgsProduct({{kChain100k, kFan10k, kLayered10k, kLayered100k},
                   {0, 1},
                   {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_TbbFlowGraph)
    ->ArgNames({"shape", "threads"})
    ->ArgsProduct({{kChain100k, kFan10k, kLayered10k, kLayered100k}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PendingCountFloor)
    ->Apply(ShapeArgs)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace stepflow::bench
