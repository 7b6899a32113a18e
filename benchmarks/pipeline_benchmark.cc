// Graph pipeline cost per node: import (ConvertGraphDefToGraph), prune
// (RewriteGraphForExecution: feed "x", fetch one endpoint, run "train"),
// place (PlaceGraph over four CPU devices) and partition (Partition by
// assigned device) of random graphs of 10k, 100k and 1M nodes
// (benchmarks/random_graph.h).
//
//   bazel run //benchmarks:pipeline_benchmark -- --benchmark_min_time=0.2
//
// One iteration runs the four phases in order on a fresh graph and times
// each with a steady clock. Counters (averages over iterations):
//   import_us_per_node, prune_us_per_node, place_us_per_node,
//   partition_us_per_node  µs per node of the client GraphDef (import runs
//                          shape inference, as sessions do);
//   import_without_shapes_us_per_node  the same import with
//                          GraphConstructorOptions::infer_shapes off (timed
//                          outside the benchmark's own timer): the cost of
//                          shape inference is the difference;
//   ppp_s                   seconds for prune + place + partition;
//   partitions, nodes_kept  sanity: partitions made, nodes left after prune.
// Linear growth shows as a flat µs/node from 10k to 1M.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "benchmarks/random_graph.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "runtime/common/placer.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/partition.h"
#include "runtime/graph/subgraph.h"

namespace stepflow::bench {
namespace {

constexpr int kDevices = 4;

std::vector<DeviceAttributes> CpuDevices() {
  std::vector<DeviceAttributes> devices;
  for (int i = 0; i < kDevices; ++i) {
    DeviceAttributes d;
    d.set_name(absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i));
    d.set_device_type("CPU");
    d.set_incarnation(1000 + i);
    devices.push_back(d);
  }
  return devices;
}

const PipelineGraphDef& GraphOfSize(int n) {
  static auto* cache = new std::map<int, PipelineGraphDef>;
  auto it = cache->find(n);
  if (it == cache->end()) {
    it = cache->emplace(n, PipelineGraph(n, kDevices, /*seed=*/n)).first;
  }
  return it->second;
}

double Seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void BM_Pipeline(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const PipelineGraphDef& p = GraphOfSize(n);
  const std::vector<DeviceAttributes> devices = CpuDevices();
  const std::vector<std::string> feeds = {p.feed};
  const std::vector<std::string> fetches = {p.fetch};
  const std::vector<std::string> targets = {p.target};
  double t_import = 0, t_prune = 0, t_place = 0, t_partition = 0;
  double t_import_without_shapes = 0;
  int64_t kept = 0, num_partitions = 0;
  using Clock = std::chrono::steady_clock;

  for (auto _ : state) {
    auto graph = std::make_unique<Graph>();
    Graph& g = *graph;
    std::map<std::string, GraphDef> partitions;
    const Clock::time_point t0 = Clock::now();
    absl::Status s =
        ConvertGraphDefToGraph(GraphConstructorOptions(), p.graph, &g);
    const Clock::time_point t1 = Clock::now();
    if (s.ok()) {
      s = subgraph::RewriteGraphForExecution(
          &g, feeds, fetches, targets, devices[0],
          /*use_function_convention=*/false, nullptr);
    }
    const Clock::time_point t2 = Clock::now();
    if (s.ok()) {
      PlacerOptions popts;
      popts.default_device = &devices[0];
      s = PlaceGraph(popts, devices, &g);
    }
    const Clock::time_point t3 = Clock::now();
    if (s.ok()) {
      kept = g.num_op_nodes();
      PartitionOptions opts;
      opts.node_to_loc = [](const Node* node) {
        return node->assigned_device_name();
      };
      opts.new_name = [&g](const std::string& prefix) {
        return g.NewName(prefix);
      };
      opts.get_incarnation = [&devices](const std::string& name) -> uint64_t {
        for (const DeviceAttributes& d : devices) {
          if (d.name() == name) return d.incarnation();
        }
        return 0;
      };
      opts.take_node_defs = true;  // As the sessions do.
      s = Partition(opts, &g, &partitions);
    }
    const Clock::time_point t4 = Clock::now();
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    num_partitions = static_cast<int64_t>(partitions.size());
    t_import += Seconds(t0, t1);
    t_prune += Seconds(t1, t2);
    t_place += Seconds(t2, t3);
    t_partition += Seconds(t3, t4);
    // Freeing the graph and the partitions is not part of any phase.
    state.PauseTiming();
    partitions.clear();
    graph.reset();
    {
      Graph plain;
      GraphConstructorOptions without_shapes;
      without_shapes.infer_shapes = false;
      const Clock::time_point a = Clock::now();
      s = ConvertGraphDefToGraph(without_shapes, p.graph, &plain);
      t_import_without_shapes += Seconds(a, Clock::now());
    }
    state.ResumeTiming();
  }
  const double iters = static_cast<double>(state.iterations());
  const double us_per_node = 1e6 / (iters * n);
  state.counters["import_us_per_node"] = t_import * us_per_node;
  state.counters["import_without_shapes_us_per_node"] =
      t_import_without_shapes * us_per_node;
  state.counters["prune_us_per_node"] = t_prune * us_per_node;
  state.counters["place_us_per_node"] = t_place * us_per_node;
  state.counters["partition_us_per_node"] = t_partition * us_per_node;
  state.counters["ppp_s"] = (t_prune + t_place + t_partition) / iters;
  state.counters["nodes_kept"] = static_cast<double>(kept);
  state.counters["partitions"] = static_cast<double>(num_partitions);
}

BENCHMARK(BM_Pipeline)
    ->ArgName("nodes")
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace stepflow::bench
