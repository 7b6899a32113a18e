#include "testing/graph_generators.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/attr_value.pb.h"
#include "proto/tensor.pb.h"
#include "testing/function_generators.h"

namespace stepflow::graph_testing {
namespace {

AttrValue TypeAttr(DataType dt) {
  AttrValue v;
  v.set_type(dt);
  return v;
}

// Uniform in [lo, hi) whatever the current size (gen::inRange scales its
// range with size, which would make small test cases degenerate: one
// device, always node 0). Only the node count grows with size.
int Uniform(int lo, int hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi));
}

}  // namespace

bool HasFloatOutput(const NodeDef& def) {
  if (def.op() == "NoOp") return false;
  auto dtype = def.attr().find("dtype");
  return def.op() != "Const" || dtype == def.attr().end() ||
         dtype->second.type() == DT_FLOAT;
}

std::string LocalCpuDevice(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

NodeDef MakeConst(const std::string& name, float value) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  (*def.mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  TensorProto* t = (*def.mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  t->mutable_tensor_shape();
  t->add_float_val(value);
  return def;
}

NodeDef MakePlaceholder(const std::string& name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Placeholder");
  (*def.mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  (*def.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  return def;
}

NodeDef MakeOp(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  for (const std::string& in : inputs) def.add_input(in);
  if (op != "NoOp") (*def.mutable_attr())["T"] = TypeAttr(DT_FLOAT);
  return def;
}

void showValue(const RandomDag& dag, std::ostream& os) {
  os << "num_devices: " << dag.num_devices << "\n" << dag.graph.DebugString();
}

void showValue(const ExecutionRequest& r, std::ostream& os) {
  auto list = [&os](const char* label, const std::vector<std::string>& v) {
    os << label << ": [";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "] ";
  };
  list("feeds", r.feeds);
  list("fetches", r.fetches);
  list("targets", r.targets);
}

rc::Gen<RandomDag> GenRandomDag(const DagOptions& options) {
  return rc::gen::exec([options] {
    RandomDag dag;
    dag.num_devices = Uniform(options.min_devices, options.max_devices + 1);
    const int num_nodes =
        *rc::gen::inRange(options.min_nodes, options.max_nodes + 1);
    std::vector<int> with_outputs;  // ids of earlier nodes that have outputs
    DrawnLibrary lib;
    if (options.function_call_weight > 0) {
      lib = DrawFunctionLibrary();
      *dag.graph.mutable_library() = lib.library;
    }
    for (int i = 0; i < num_nodes; ++i) {
      const std::string name = absl::StrCat("n", i);
      std::string op;
      if (with_outputs.empty()) {
        op = *rc::gen::element<std::string>("Const", "Placeholder", "NoOp");
      } else {
        op = *rc::gen::weightedElement<std::string>(
            {{2, "Const"},
             {2, "Placeholder"},
             {3, "Identity"},
             {3, "Add"},
             {3, "AddV2"},
             {3, "Mul"},
             {2, "NoOp"},
             {options.function_call_weight, "Call"}});
      }
      std::vector<std::string> inputs;
      const int num_data = op == "Identity"                                ? 1
                           : (op == "Add" || op == "AddV2" || op == "Mul") ? 2
                           : op == "Call"                                  ? 3
                                                                           : 0;
      for (int k = 0; k < num_data; ++k) {
        const int src =
            with_outputs[Uniform(0, static_cast<int>(with_outputs.size()))];
        const bool explicit_index = *rc::gen::arbitrary<bool>();
        inputs.push_back(explicit_index ? absl::StrCat("n", src, ":0")
                                        : absl::StrCat("n", src));
      }
      if (i > 0) {
        const int num_control = *rc::gen::weightedElement<int>(
            {{6, 0}, {3, 1}, {1, options.max_control_inputs}});
        std::set<int> controls;
        for (int k = 0; k < num_control; ++k) {
          controls.insert(Uniform(0, i));
        }
        for (int c : controls) inputs.push_back(absl::StrCat("^n", c));
      }
      const std::string device = LocalCpuDevice(Uniform(0, dag.num_devices));
      NodeDef def;
      if (op == "Call") {
        // The data inputs drawn above are the call's candidate arguments.
        std::vector<std::string> sources, controls;
        for (const std::string& in : inputs) {
          (in[0] == '^' ? controls : sources).push_back(in);
        }
        std::vector<NodeDef> nodes =
            DrawCallNodes(lib, name, sources, device, options.calls_by_name);
        def = std::move(nodes.back());
        nodes.pop_back();
        for (NodeDef& helper : nodes) *dag.graph.add_node() = std::move(helper);
        for (const std::string& c : controls) def.add_input(c);
      } else if (op == "Const") {
        def = MakeConst(name, static_cast<float>(i));
        for (const std::string& in : inputs) def.add_input(in);
      } else if (op == "Placeholder") {
        def = MakePlaceholder(name);
        for (const std::string& in : inputs) def.add_input(in);
      } else {
        def = MakeOp(name, op, inputs);
      }
      def.set_device(device);
      *dag.graph.add_node() = std::move(def);
      if (op != "NoOp") with_outputs.push_back(i);
    }
    return dag;
  });
}

rc::Gen<ExecutionRequest> GenExecutionRequest(const GraphDef& graph) {
  return rc::gen::exec([graph] {
    ExecutionRequest request;
    const int n = graph.node_size();
    std::set<std::string> fed;
    for (int i = 0; i < n; ++i) {
      const NodeDef& def = graph.node(i);
      const int choice = Uniform(0, 10);
      if (HasFloatOutput(def) && choice < 2) {
        fed.insert(def.name());
        request.feeds.push_back(*rc::gen::arbitrary<bool>()
                                    ? def.name()
                                    : absl::StrCat(def.name(), ":0"));
      }
    }
    for (int i = 0; i < n; ++i) {
      const NodeDef& def = graph.node(i);
      const int choice = Uniform(0, 10);
      if (HasFloatOutput(def) && fed.count(def.name()) == 0 && choice < 2) {
        const int copies = *rc::gen::weightedElement<int>({{5, 1}, {1, 2}});
        for (int c = 0; c < copies; ++c) {
          request.fetches.push_back(*rc::gen::arbitrary<bool>()
                                        ? def.name()
                                        : absl::StrCat(def.name(), ":0"));
        }
      } else if (choice >= 8) {
        request.targets.push_back(def.name());
      }
    }
    if (request.fetches.empty() && request.targets.empty()) {
      request.targets.push_back(graph.node(Uniform(0, n)).name());
    }
    return request;
  });
}

}  // namespace stepflow::graph_testing
