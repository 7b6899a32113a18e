#include "runtime/function/lower_while.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/function/lowering_nodes.h"

namespace stepflow {

absl::Status LowerWhile(const NodeDef& node, std::vector<NodeDef>* out) {
  auto error = [&node](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat(FormatNodeName(node.name()), ": ", message));
  };
  std::vector<std::string> data, controls;
  SplitInputs(node, &data, &controls);
  const AttrValue* t = FindNodeAttr(node, "T");
  const AttrValue* cond = FindNodeAttr(node, "cond");
  const AttrValue* body = FindNodeAttr(node, "body");
  const AttrValue* parallel = FindNodeAttr(node, "parallel_iterations");
  if (t == nullptr || cond == nullptr || body == nullptr ||
      parallel == nullptr) {
    return error("missing attr 'T', 'cond', 'body' or 'parallel_iterations'");
  }
  const int n = static_cast<int>(data.size());
  if (t->list().type_size() != n) {
    return error(absl::StrCat("attr 'T' lists ", t->list().type_size(),
                              " types but the node has ", n, " inputs"));
  }
  if (n == 0) return error("a While loop needs at least one loop variable");
  if (parallel->i() <= 0) {
    return error(absl::StrCat("parallel_iterations must be positive, got ",
                              parallel->i()));
  }
  const std::string prefix = absl::StrCat(node.name(), "/");
  const std::string& device = node.device();
  auto name = [&prefix](const char* what, int i) {
    return absl::StrCat(prefix, what, "_", i);
  };
  const std::string cond_call = absl::StrCat(prefix, "cond");
  const std::string body_call = absl::StrCat(prefix, "body");
  const std::string loop_cond = absl::StrCat(prefix, "loop_cond");
  std::vector<std::string> merges, body_inputs, exits;
  for (int i = 0; i < n; ++i) {
    const DataType type = static_cast<DataType>(t->list().type(i));
    std::vector<std::string> in = {data[i]};
    in.insert(in.end(), controls.begin(), controls.end());
    NodeDef enter = LoweredNode(name("enter", i), "Enter", device, in);
    AddNodeAttr("T", type, &enter);
    AddNodeAttr("frame_name", node.name(), &enter);
    AddNodeAttr("is_constant", false, &enter);
    AddNodeAttr("parallel_iterations", parallel->i(), &enter);
    out->push_back(std::move(enter));

    NodeDef merge = LoweredNode(name("merge", i), "Merge", device,
                                {name("enter", i), name("next_iteration", i)});
    AddNodeAttr("T", type, &merge);
    AddNodeAttr("N", 2, &merge);
    out->push_back(std::move(merge));
    merges.push_back(name("merge", i));

    NodeDef sw = LoweredNode(name("switch", i), "Switch", device,
                             {name("merge", i), loop_cond});
    AddNodeAttr("T", type, &sw);
    out->push_back(std::move(sw));
    body_inputs.push_back(absl::StrCat(name("switch", i), ":1"));

    NodeDef exit = LoweredNode(name("exit", i), "Exit", device,
                               {absl::StrCat(name("switch", i), ":0")});
    AddNodeAttr("T", type, &exit);
    out->push_back(std::move(exit));
    exits.push_back(name("exit", i));

    NodeDef next = LoweredNode(name("next_iteration", i), "NextIteration",
                               device, {absl::StrCat(body_call, ":", i)});
    AddNodeAttr("T", type, &next);
    out->push_back(std::move(next));
  }
  AttrValue bool_type;
  bool_type.mutable_list()->add_type(DT_BOOL);
  out->push_back(
      LoweredCall(cond_call, device, cond->func(), merges, *t, bool_type));
  out->push_back(LoweredNode(loop_cond, "LoopCond", device, {cond_call}));
  out->push_back(
      LoweredCall(body_call, device, body->func(), body_inputs, *t, *t));
  out->push_back(LoweredResult(node.name(), device, exits, *t, {}));
  return absl::OkStatus();
}

}  // namespace stepflow
