#include "runtime/common/partition_executors.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/status_macros.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/partition.h"

namespace stepflow {
namespace {

// Splits `graph` by assigned device.
absl::Status PartitionByDevice(const DeviceMgr* device_mgr, Graph* graph,
                               std::map<std::string, GraphDef>* partitions) {
  PartitionOptions popts;
  popts.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
  popts.new_name = [graph](const std::string& prefix) {
    return graph->NewName(prefix);
  };
  popts.get_incarnation = [device_mgr](const std::string& name) -> uint64_t {
    Device* d = nullptr;
    if (!device_mgr->LookupDevice(name, &d).ok()) return 0;
    return d->attributes().incarnation();
  };
  popts.take_node_defs = true;
  return Partition(popts, graph, partitions);
}

// Builds the executor of `graph`, one device's partition.
absl::Status NewPartitionExecutor(const PartitionExecutorsOptions& options,
                                  const std::string& device_name,
                                  std::unique_ptr<Graph> graph,
                                  PartitionExecutor* out) {
  Device* device = nullptr;
  SF_RETURN_IF_ERROR(options.device_mgr->LookupDevice(device_name, &device));

  LocalExecutorParams params;
  params.device = device;
  params.env = options.env;
  if (options.function_runtimes != nullptr) {
    params.function_library =
        options.function_runtimes->ForDevice(device, graph->library());
  }
  if (OpSegment* segment = options.op_segment) {
    params.create_shared_kernel = [segment, device](
                                      const NodeDef& ndef,
                                      std::shared_ptr<OpKernel>* kernel) {
      // `ndef` is a node of the executor's own graph, which outlives every
      // private kernel the executor holds.
      return segment->GetOrCreateKernel(device, ndef, kernel,
                                        /*ndef_outlives_kernel=*/true);
    };
  }
  out->device = device;
  out->graph = graph.get();
  return NewLocalExecutor(params, std::move(graph), &out->executor);
}

// Imports the partition of `device_name`, every node assigned to it.
absl::Status ImportPartition(const std::string& device_name,
                             GraphDef partition_def, Graph* graph) {
  GraphConstructorOptions gopts;
  gopts.allow_internal_ops = true;
  gopts.expect_device_spec = true;
  // Partitions come from a client graph whose shapes were checked.
  gopts.infer_shapes = false;
  SF_RETURN_IF_ERROR(
      ConvertGraphDefToGraph(gopts, std::move(partition_def), graph));
  for (Node* n : graph->op_nodes()) n->set_assigned_device_name(device_name);
  return absl::OkStatus();
}

// The one device every op node of `graph` is assigned to, or "" where the
// nodes span several devices (or there are none). Also "" where fewer than
// three in four node ids are live: the executor sizes its per-node arrays by
// id, and a partition's import numbers the nodes densely again.
std::string SoleDevice(const Graph& graph) {
  if (graph.num_op_nodes() == 0 ||
      int64_t{4} * graph.num_nodes() < int64_t{3} * graph.num_node_ids()) {
    return "";
  }
  const std::string* device = nullptr;
  for (const Node* n : graph.op_nodes()) {
    if (device == nullptr) {
      device = &n->assigned_device_name();
    } else if (n->assigned_device_name() != *device) {
      return "";
    }
  }
  return *device;
}

}  // namespace

absl::Status BuildPartitionExecutors(
    const PartitionExecutorsOptions& options, std::unique_ptr<Graph> graph,
    std::vector<PartitionExecutor>* executors) {
  executors->clear();
  const std::string sole_device = SoleDevice(*graph);
  if (!sole_device.empty()) {
    PartitionExecutor item;
    SF_RETURN_IF_ERROR(
        NewPartitionExecutor(options, sole_device, std::move(graph), &item));
    executors->push_back(std::move(item));
    return absl::OkStatus();
  }
  std::map<std::string, GraphDef> partitions;
  SF_RETURN_IF_ERROR(
      PartitionByDevice(options.device_mgr, graph.get(), &partitions));
  const int64_t num_nodes = graph->num_nodes();
  graph.reset();
  if (options.env != nullptr) {
    ReleaseFreeHeapAfterGraph(options.env->heap_releaser, num_nodes);
  }
  while (!partitions.empty()) {
    auto it = partitions.begin();
    const std::string device_name = it->first;
    auto partition = std::make_unique<Graph>();
    {
      // Each partition's GraphDef goes into its executor's graph.
      GraphDef partition_def = std::move(it->second);
      partitions.erase(it);
      SF_RETURN_IF_ERROR(ImportPartition(device_name, std::move(partition_def),
                                         partition.get()));
    }
    PartitionExecutor item;
    SF_RETURN_IF_ERROR(NewPartitionExecutor(options, device_name,
                                            std::move(partition), &item));
    executors->push_back(std::move(item));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
