#include "runtime/function/function_shape_inference.h"

#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/op.h"
#include "runtime/framework/status_macros.h"
#include "runtime/function/function_library.h"
#include "runtime/function/instantiate.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace {

// Nesting of calls being inferred on this thread.
thread_local int call_depth = 0;

// "node", "node:i" -> (node, i); "^node" -> (node, -1).
std::pair<std::string, int> ParseInput(const std::string& input) {
  if (!input.empty() && input[0] == '^') return {input.substr(1), -1};
  const size_t colon = input.rfind(':');
  int index = 0;
  if (colon != std::string::npos &&
      absl::SimpleAtoi(input.substr(colon + 1), &index)) {
    return {input.substr(0, colon), index};
  }
  return {input, 0};
}

// The body as a Graph: its nodes (the arguments given the call's shapes
// through the attrs _Arg's shape function reads) and their edges.
absl::Status BuildBody(const FunctionBody& body,
                       const ShapeRefiner::FunctionCall& call, Graph* g) {
  std::map<std::string, int> arg_index;
  for (size_t i = 0; i < body.arg_nodes.size(); ++i) {
    arg_index[body.arg_nodes[i]] = static_cast<int>(i);
  }
  std::map<std::string, Node*> by_name;
  for (const NodeDef& def : body.nodes) {
    NodeDef copy = def;
    copy.clear_input();
    auto arg = arg_index.find(def.name());
    if (arg != arg_index.end()) {
      const int k = arg->second;
      *(*copy.mutable_attr())["_output_shapes"].mutable_list()->add_shape() =
          call.input_shapes[k];
      const auto& [handle_shape, handle_dtype] = call.input_handles[k];
      if (handle_dtype != DT_INVALID) {
        (*copy.mutable_attr())["_handle_dtypes"].mutable_list()->add_type(
            handle_dtype);
        *(*copy.mutable_attr())["_handle_shapes"].mutable_list()->add_shape() =
            handle_shape;
      }
    }
    absl::StatusOr<Node*> node = g->AddNode(std::move(copy));
    if (!node.ok()) return node.status();
    by_name[def.name()] = *node;
  }
  for (const NodeDef& def : body.nodes) {
    Node* dst = by_name[def.name()];
    int slot = 0;
    for (const std::string& input : def.input()) {
      const auto [name, index] = ParseInput(input);
      auto src = by_name.find(name);
      if (src == by_name.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("function ", call.function, ": node ", def.name(),
                         " reads unknown node ", name));
      }
      if (index < 0) {
        g->AddControlEdge(src->second, dst);
      } else {
        g->AddEdge(src->second, index, dst, slot++);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InferFunctionCallShapes(const ShapeRefiner::FunctionCall& call,
                                     std::vector<TensorShapeProto>* outputs) {
  if (call.library == nullptr || call.attrs == nullptr) {
    return absl::InvalidArgumentError("function call without a library");
  }
  if (call_depth >= FunctionLibrary::kMaxCallDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function calls nested deeper than ", FunctionLibrary::kMaxCallDepth));
  }
  FunctionLibrary library(*call.library, OpRegistry::Global());
  SF_RETURN_IF_ERROR(library.CheckCallable(call.function));
  FunctionBody body;
  SF_RETURN_IF_ERROR(
      InstantiateFunction(library, call.function, *call.attrs, &body));
  if (body.arg_nodes.size() != call.input_shapes.size() ||
      call.input_handles.size() != call.input_shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function ", call.function, " takes ", body.arg_nodes.size(),
        " arguments; the call gives ", call.input_shapes.size()));
  }
  Graph g(OpRegistry::Global());
  g.set_library(*call.library);
  SF_RETURN_IF_ERROR(BuildBody(body, call, &g));
  ShapeRefiner refiner(OpRegistry::Global());
  refiner.set_function_library(call.library, InferFunctionCallShapes);
  ++call_depth;
  absl::Status s = refiner.AddNodes(g.op_nodes());
  --call_depth;
  SF_RETURN_IF_ERROR(s);
  outputs->clear();
  for (const std::string& ret : body.ret_tensors) {
    const auto [name, index] = ParseInput(ret);
    const Node* node = g.FindNodeByName(name);
    if (node == nullptr || index < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function ", call.function, " returns unknown tensor ", ret));
    }
    TensorShapeProto shape;
    refiner.OutputShapeProto(node, index, &shape);
    outputs->push_back(std::move(shape));
  }
  return absl::OkStatus();
}

}  // namespace stepflow
