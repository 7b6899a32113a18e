#include "runtime/client/scope.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/op.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace client {

struct Scope::SharedStatus {
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
};

Scope Scope::NewRootScope() { return Scope(Graph()); }

Scope Scope::DefaultScope() { return Scope(Graph::Default()); }

Scope::Scope(Graph graph)
    : graph_(std::move(graph)), status_(std::make_shared<SharedStatus>()) {}

Scope Scope::NewSubScope(absl::string_view name) const {
  Scope s = *this;
  s.op_name_.clear();
  if (name.empty()) return s;
  // Reserve "<prefix><name>" so two sub-scopes of one name stay apart.
  const std::string unique = graph_.UniqueName(absl::StrCat(prefix_, name));
  s.prefix_ = absl::StrCat(unique, "/");
  return s;
}

Scope Scope::WithOpName(absl::string_view name) const {
  Scope s = *this;
  s.op_name_ = std::string(name);
  return s;
}

Scope Scope::WithDevice(absl::string_view device) const {
  Scope s = *this;
  s.device_ = std::string(device);
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Operation>& ops) const {
  Scope s = *this;
  for (const Operation& op : ops) {
    if (!op.valid()) {
      UpdateStatus(absl::InvalidArgumentError(
          "WithControlDependencies: an operation is invalid (an earlier op "
          "failed to build)"));
      continue;
    }
    s.control_deps_.push_back(op.name());
  }
  return s;
}

Scope Scope::ColocateWith(const Operation& op) const {
  Scope s = *this;
  if (!op.valid()) {
    UpdateStatus(absl::InvalidArgumentError(
        "ColocateWith: the operation is invalid (an earlier op failed to "
        "build)"));
    return s;
  }
  s.colocate_with_ = op.name();
  return s;
}

absl::Status Scope::status() const {
  absl::MutexLock l(&status_->mu);
  return status_->status;
}

void Scope::UpdateStatus(const absl::Status& s) const {
  if (s.ok()) return;
  absl::MutexLock l(&status_->mu);
  if (status_->status.ok()) status_->status = s;
}

std::string Scope::NodeName(absl::string_view op_type) const {
  const std::string base =
      absl::StrCat(prefix_, op_name_.empty() ? op_type : op_name_);
  return graph_.UniqueName(base);
}

Operation Scope::AddOp(absl::string_view op_type,
                       const std::vector<Output>& inputs,
                       std::vector<Attr> attrs) const {
  if (!ok()) return Operation();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid()) {
      UpdateStatus(absl::InvalidArgumentError(
          absl::StrCat(op_type, ": input ", i,
                       " is invalid (an earlier op failed to build)")));
      return Operation();
    }
    if (inputs[i].op().graph() != graph_) {
      UpdateStatus(absl::InvalidArgumentError(
          absl::StrCat(op_type, ": input ", i, " ('", inputs[i].name(),
                       "') belongs to a different graph")));
      return Operation();
    }
  }
  const OpDef* op_def = nullptr;
  absl::Status s = OpRegistry::Global()->LookUp(op_type, &op_def);
  if (!s.ok()) {
    UpdateStatus(s);
    return Operation();
  }

  NodeDef def;
  def.set_op(std::string(op_type));
  def.set_name(NodeName(op_type));
  if (!device_.empty()) def.set_device(device_);
  std::map<std::string, AttrValue> given(attrs.begin(), attrs.end());
  // Infer list lengths and type attrs from the inputs, arg by arg.
  size_t pos = 0;
  for (int a = 0; a < op_def->input_arg_size(); ++a) {
    const auto& arg = op_def->input_arg(a);
    size_t count = 1;
    if (!arg.number_attr().empty()) {
      auto it = given.find(arg.number_attr());
      if (it != given.end()) {
        count = static_cast<size_t>(it->second.i());
      } else if (a == op_def->input_arg_size() - 1 && pos <= inputs.size()) {
        count = inputs.size() - pos;
        given[arg.number_attr()] = AttrInt(static_cast<int64_t>(count));
      }
    } else if (!arg.type_list_attr().empty()) {
      auto it = given.find(arg.type_list_attr());
      count = it != given.end() ? it->second.list().type_size() : 0;
    }
    if (!arg.type_attr().empty() && given.count(arg.type_attr()) == 0 &&
        pos < inputs.size() && count > 0) {
      given[arg.type_attr()] = AttrType(BaseType(inputs[pos].dtype()));
    }
    pos += count;
  }
  for (auto& [name, value] : given) (*def.mutable_attr())[name] = value;
  for (const Output& in : inputs) def.add_input(in.name());
  for (const std::string& c : control_deps_)
    def.add_input(absl::StrCat("^", c));
  if (!colocate_with_.empty()) {
    (*def.mutable_attr())["_class"].mutable_list()->add_s(
        absl::StrCat("loc:@", colocate_with_));
  }
  const std::string name = def.name();
  std::vector<DataType> types;
  s = graph_.AddNode(std::move(def), &types);
  if (!s.ok()) {
    UpdateStatus(s);
    return Operation();
  }
  return Operation(graph_, name, std::move(types));
}

AttrValue AttrType(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue AttrInt(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}
AttrValue AttrFloat(float f) {
  AttrValue v;
  v.set_f(f);
  return v;
}
AttrValue AttrBool(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}
AttrValue AttrString(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}
AttrValue AttrShape(const std::vector<int64_t>& dims) {
  AttrValue v;
  TensorShapeProto* shape = v.mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  return v;
}
AttrValue AttrTensor(const Tensor& t) {
  AttrValue v;
  TensorToProto(t, v.mutable_tensor());
  return v;
}

}  // namespace client
}  // namespace stepflow
