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

// Imports one device's partition and builds its executor.
absl::Status NewPartitionExecutor(const PartitionExecutorsOptions& options,
                                  const std::string& device_name,
                                  GraphDef partition_def,
                                  PartitionExecutor* out) {
  Device* device = nullptr;
  SF_RETURN_IF_ERROR(options.device_mgr->LookupDevice(device_name, &device));
  auto graph = std::make_unique<Graph>();
  GraphConstructorOptions gopts;
  gopts.allow_internal_ops = true;
  gopts.expect_device_spec = true;
  // Partitions come from a client graph whose shapes were checked.
  gopts.infer_shapes = false;
  SF_RETURN_IF_ERROR(
      ConvertGraphDefToGraph(gopts, std::move(partition_def), graph.get()));
  for (Node* n : graph->op_nodes()) n->set_assigned_device_name(device_name);

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
  return NewLocalExecutor(params, std::move(graph), &out->executor);
}

}  // namespace

absl::Status BuildPartitionExecutors(
    const PartitionExecutorsOptions& options, std::unique_ptr<Graph> graph,
    std::vector<PartitionExecutor>* executors) {
  std::map<std::string, GraphDef> partitions;
  SF_RETURN_IF_ERROR(
      PartitionByDevice(options.device_mgr, graph.get(), &partitions));
  graph.reset();
  executors->clear();
  while (!partitions.empty()) {
    auto it = partitions.begin();
    if (options.partition_graphs != nullptr) {
      std::string bytes;
      if (!it->second.SerializeToString(&bytes)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The partition graph of ", it->first,
            " is too large to serialize (a GraphDef is limited to 2 GB)"));
      }
      options.partition_graphs->push_back(std::move(bytes));
    }
    const std::string device_name = it->first;
    GraphDef partition_def = std::move(it->second);
    // Each partition's GraphDef goes into its executor's graph.
    partitions.erase(it);
    PartitionExecutor item;
    SF_RETURN_IF_ERROR(NewPartitionExecutor(options, device_name,
                                            std::move(partition_def), &item));
    executors->push_back(std::move(item));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
