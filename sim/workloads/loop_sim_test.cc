// While loops in the simulator: the real DirectSession runs the counter,
// tensor-accumulating and nested loops of testing/while_loop_graphs.h on
// one device, split (body on CPU:1, loop machinery on CPU:0) and under a
// random per-node split drawn from the seed, for 24 seeds. Every run must
// give the plain-arithmetic answer; the kernel interleavings differ
// between seeds, and the same seed repeats its trace.
#include <cstdint>
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
#include "runtime/framework/tensor.h"
#include "sim/env/event_loop.h"
#include "sim/env/sim_env.h"
#include "sim/trace/digest.h"
#include "sim/trace/trace.h"
#include "sim/trace/traced_device.h"
#include "testing/while_loop_graphs.h"

namespace stepflow {
namespace {

constexpr int kSeeds = 24;
const char* const kPlacements[] = {"local", "split", "random"};

struct SeedResult {
  int runs = 0;
  int runs_ok = 0;
  uint64_t trace_hash = 0;
  // Per placement: FNV over (device, node) of every kernel start.
  std::map<std::string, uint64_t> kernel_order;
  std::map<std::string, std::set<std::string>> devices;
};

// x with quarter-integer entries drawn from `r`, so sums are exact.
Tensor DrawX(Random* r) {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) {
    t.flat<float>()(i) =
        static_cast<float>(static_cast<int64_t>(r->Uniform(41)) - 20) / 4.0f;
  }
  return t;
}

// Expects t == x * scale, element by element.
void ExpectScaled(const Tensor& t, const Tensor& x, float scale,
                  const std::string& what) {
  ASSERT_EQ(t.dtype(), DT_FLOAT) << what;
  ASSERT_EQ(t.shape(), TensorShape({2, 3})) << what;
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(t.flat<float>()(i), x.flat<float>()(i) * scale)
        << what << " element " << i;
  }
}

class LoopSimulation {
 public:
  explicit LoopSimulation(uint64_t seed) : seed_(seed) {}

  SeedResult Run() {
    Fnv64 orders[3];
    TraceRecorder::Options ropts;
    ropts.observer = [this, &orders](const TraceEvent& e) {
      if (e.kind != SIM_KERNEL_START) return;
      for (int p = 0; p < 3; ++p) {
        if (e.task != kPlacements[p]) continue;
        orders[p].UpdateString(e.Field("device"));
        orders[p].UpdateString(e.Field("node"));
        result_.devices[kPlacements[p]].insert(e.Field("device"));
      }
    };
    TraceRecorder recorder(ropts);
    {
      SimEnv sim(seed_);
      sim.loop.set_recorder(&recorder);
      Random* workload = sim.random.Stream("workload");
      Random* placement = sim.random.Stream("placement");
      for (int p = 0; p < 3; ++p) {
        const std::string name = kPlacements[p];
        SCOPED_TRACE(name);
        LoopPlacement place = p == 0 ? AllOnDevice("/cpu:0")
                              : p == 1
                                  ? SplitBodyFromControl("/cpu:0", "/cpu:1")
                                  : RandomLoopPlacement([placement]() {
                                      return placement->New64();
                                    });
        RunLoops(&sim, name, place, workload);
      }
      sim.loop.RunUntilIdle();
      EXPECT_EQ(sim.loop.NumPending(), 0u);
      sim.loop.set_recorder(nullptr);
    }
    result_.trace_hash = recorder.hash();
    for (int p = 0; p < 3; ++p) {
      result_.kernel_order[kPlacements[p]] = orders[p].value();
    }
    return result_;
  }

 private:
  std::unique_ptr<Session> NewSessionFor(SimEnv* sim, const std::string& task,
                                         const GraphDef& g) {
    SessionOptions opts;
    opts.env = &sim->env;
    (*opts.config.mutable_device_count())["CPU"] = 2;
    std::unique_ptr<Session> session;
    absl::Status s = NewTracedDirectSession(opts, &sim->loop, task, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    s = session->Create(g);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? std::move(session) : nullptr;
  }

  // One Session::Run; false (and a failure) on error or a wrong count.
  bool RunStep(Session* s, const Session::FeedList& feeds,
               const std::vector<std::string>& fetches,
               std::vector<Tensor>* out) {
    ++result_.runs;
    absl::Status st = s->Run(feeds, fetches, {}, out);
    EXPECT_TRUE(st.ok()) << "seed " << seed_ << ": " << st;
    if (!st.ok() || out->size() != fetches.size()) return false;
    ++result_.runs_ok;
    return true;
  }

  void RunLoops(SimEnv* sim, const std::string& task,
                const LoopPlacement& place, Random* workload) {
    auto counter = NewSessionFor(sim, task, CounterLoopGraph(place));
    auto acc = NewSessionFor(sim, task, AccumulateLoopGraph(place));
    auto nested = NewSessionFor(sim, task, NestedLoopGraph(place));
    ASSERT_TRUE(counter && acc && nested);
    std::vector<Tensor> out;

    // The counter to 10, then a trip count drawn from the seed.
    for (int n : {10, static_cast<int>(workload->Uniform(13))}) {
      if (RunStep(counter.get(), {{"n", Tensor::Scalar<int32_t>(n)}},
                  {"while/Exit"}, &out)) {
        EXPECT_EQ(out[0].scalar<int32_t>(), n) << "counter, seed " << seed_;
      }
    }
    // Tensor accumulation: fixed-shape sum and a growing vector.
    for (int n : {6, static_cast<int>(workload->Uniform(9))}) {
      const Tensor x = DrawX(workload);
      const std::string what =
          absl::StrCat("accumulate n=", n, " seed ", seed_);
      if (RunStep(acc.get(), {{"n", Tensor::Scalar<int32_t>(n)}, {"x", x}},
                  {"while/Exit", "while/Exit_1", "while/Exit_2"}, &out)) {
        EXPECT_EQ(out[0].scalar<int32_t>(), n) << what;
        ExpectScaled(out[1], x, static_cast<float>(n * (n - 1) / 2), what);
        ASSERT_EQ(out[2].NumElements(), n) << what;
        for (int i = 0; i < n; ++i) {
          EXPECT_EQ(out[2].flat<float>()(i), static_cast<float>(i)) << what;
        }
      }
    }
    // Nested, the inner loop accumulating x.
    const int dn = static_cast<int>(workload->Uniform(5));
    const int dm = static_cast<int>(workload->Uniform(5));
    for (const auto& nm : std::vector<std::pair<int, int>>{{3, 4}, {dn, dm}}) {
      const Tensor x = DrawX(workload);
      const std::string what =
          absl::StrCat("nested ", nm.first, "x", nm.second, " seed ", seed_);
      if (RunStep(nested.get(),
                  {{"n", Tensor::Scalar<int32_t>(nm.first)},
                   {"m", Tensor::Scalar<int32_t>(nm.second)},
                   {"x", x}},
                  {"while/Exit_1", "while/Exit"}, &out)) {
        ExpectScaled(out[0], x, static_cast<float>(nm.first * nm.second), what);
        EXPECT_EQ(out[1].scalar<int32_t>(), nm.first) << what;
      }
    }
    for (Session* s : {counter.get(), acc.get(), nested.get()}) {
      EXPECT_TRUE(s->Close().ok());
    }
  }

  const uint64_t seed_;
  SeedResult result_;
};

TEST(LoopSimTest, EverySeedComputesTheLoopsOnEveryPlacement) {
  std::set<uint64_t> hashes;
  std::map<std::string, std::set<uint64_t>> orders;
  int random_splits = 0;  // Seeds whose random placement used both CPUs.
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    const SeedResult r = LoopSimulation(seed).Run();
    EXPECT_EQ(r.runs, 3 * 6);
    EXPECT_EQ(r.runs_ok, r.runs);
    hashes.insert(r.trace_hash);
    for (const auto& [placement, order] : r.kernel_order) {
      orders[placement].insert(order);
    }
    // The local placement ran on CPU:0 only; the fixed split on both.
    EXPECT_EQ(r.devices.at("local"), std::set<std::string>{"CPU:0"});
    EXPECT_EQ(r.devices.at("split"), (std::set<std::string>{"CPU:0", "CPU:1"}));
    random_splits += r.devices.at("random").size() == 2;
  }
  EXPECT_GE(random_splits, kSeeds / 2);
  EXPECT_EQ(hashes.size(), static_cast<size_t>(kSeeds));
  // The split placement's inputs differ between seeds only in the drawn
  // runs; its kernel interleavings differ too.
  EXPECT_GE(orders["split"].size(), static_cast<size_t>(kSeeds - 2));
  EXPECT_GE(orders["random"].size(), static_cast<size_t>(kSeeds - 2));
}

// With the seed-drawn inputs taken out, only the interleaving can differ:
// the split placement's kernel order still varies between seeds.
TEST(LoopSimTest, FixedInputsStillInterleaveDifferently) {
  std::set<uint64_t> orders;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Fnv64 order;
    TraceRecorder::Options ropts;
    ropts.observer = [&order](const TraceEvent& e) {
      if (e.kind != SIM_KERNEL_START) return;
      order.UpdateString(e.Field("device"));
      order.UpdateString(e.Field("node"));
    };
    TraceRecorder recorder(ropts);
    SimEnv sim(seed);
    sim.loop.set_recorder(&recorder);
    SessionOptions opts;
    opts.env = &sim.env;
    (*opts.config.mutable_device_count())["CPU"] = 2;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(
        NewTracedDirectSession(opts, &sim.loop, "split", &session).ok());
    ASSERT_TRUE(
        session
            ->Create(NestedLoopGraph(SplitBodyFromControl("/cpu:0", "/cpu:1")))
            .ok());
    Tensor x(DT_FLOAT, TensorShape({2, 3}));
    for (int i = 0; i < 6; ++i) x.flat<float>()(i) = static_cast<float>(i);
    std::vector<Tensor> out;
    absl::Status s = session->Run({{"n", Tensor::Scalar<int32_t>(3)},
                                   {"m", Tensor::Scalar<int32_t>(4)},
                                   {"x", x}},
                                  {"while/Exit_1"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ExpectScaled(out[0], x, 12.0f, "nested 3x4");
    ASSERT_TRUE(session->Close().ok());
    session.reset();
    sim.loop.RunUntilIdle();
    sim.loop.set_recorder(nullptr);
    orders.insert(order.value());
  }
  EXPECT_GE(orders.size(), 6u);
}

TEST(LoopSimTest, SameSeedTwiceGivesTheSameTrace) {
  for (uint64_t seed : {2, 17}) {
    const SeedResult a = LoopSimulation(seed).Run();
    const SeedResult b = LoopSimulation(seed).Run();
    EXPECT_EQ(a.trace_hash, b.trace_hash) << "seed " << seed;
    EXPECT_EQ(a.kernel_order, b.kernel_order) << "seed " << seed;
    EXPECT_EQ(a.devices, b.devices) << "seed " << seed;
  }
}

}  // namespace
}  // namespace stepflow
