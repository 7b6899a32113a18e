#include "runtime/common/placer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "proto/attr_value.pb.h"
#include "runtime/framework/device_name_utils.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace {

using ParsedName = DeviceNameUtils::ParsedName;

constexpr absl::string_view kColocationAttr = "_class";
constexpr absl::string_view kColocationPrefix = "loc:@";

// Higher runs first when a group could go to several device types.
int DeviceTypePriority(absl::string_view type) {
  if (type == "GPU") return 200;
  if (type == "CPU") return 100;
  return 0;
}

bool DeviceTypeBefore(const std::string& a, const std::string& b) {
  const int pa = DeviceTypePriority(a);
  const int pb = DeviceTypePriority(b);
  if (pa != pb) return pa > pb;
  return a < b;
}

struct PlacementDevice {
  const DeviceAttributes* attrs = nullptr;
  ParsedName parsed;
  int type_index = 0;  // into ColocationGraph::device_types_
};

// A set of device types: bit i stands for ColocationGraph::device_types_[i].
using TypeMask = uint64_t;
constexpr int kMaxDeviceTypes = 64;

TypeMask TypeBit(int type_index) { return TypeMask{1} << type_index; }

// Whether the spec names nothing (matches every device).
bool IsEmptySpec(const ParsedName& pn) {
  return !pn.has_job && !pn.has_replica && !pn.has_task && !pn.has_type &&
         !pn.has_id;
}

// Type priority first, then the name's components (ids numerically).
bool DeviceBefore(const PlacementDevice& a, const PlacementDevice& b) {
  const int pa = DeviceTypePriority(a.attrs->device_type());
  const int pb = DeviceTypePriority(b.attrs->device_type());
  if (pa != pb) return pa > pb;
  return std::tie(a.parsed.job, a.parsed.replica, a.parsed.task, a.parsed.type,
                  a.parsed.id) < std::tie(b.parsed.job, b.parsed.replica,
                                          b.parsed.task, b.parsed.type,
                                          b.parsed.id);
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string SpecString(const ParsedName& pn) {
  std::string s = DeviceNameUtils::ParsedNameToString(pn);
  return s.empty() ? "<any device>" : s;
}

// A node with no inputs and one non-ref output (Const, Placeholder, ...).
bool IsGeneratorNode(const Node& node) {
  return node.num_inputs() == 0 && node.num_outputs() == 1 &&
         !IsRefType(node.output_type(0));
}

// State of one colocation group; meaningful at the group's root only.
struct Group {
  ParsedName requested;        // merged request of all members
  std::string request_source;  // first member whose request contributed
  int assigned = -1;           // device index of a pre-assigned member
  std::string assigned_source;
  TypeMask supported = 0;  // device types with a kernel for every member
  int placed = -1;         // device index once chosen
};

// Union-find over op nodes (by id; the smallest id of a group is its root)
// plus the device bookkeeping of each group.
class ColocationGraph {
 public:
  ColocationGraph(const PlacerOptions& opts, const Graph& graph)
      : opts_(opts), graph_(graph) {}

  absl::Status InitializeDevices(absl::Span<const DeviceAttributes> devices);
  absl::Status InitializeMembers();
  absl::Status ColocateByClassAttr();
  absl::Status ColocateRefAndResourceEdges();
  // Chooses a device for every op node; fills `chosen` (node id -> index).
  absl::Status AssignDevices(std::vector<int>* chosen);

  const DeviceAttributes& device(int index) const {
    return *devices_[index].attrs;
  }

 private:
  enum class Reason { kClassAttr, kRefEdge };

  int FindRoot(int id);
  absl::Status Colocate(const Node& x, const Node& y, Reason reason);
  // Ordered candidate devices for `node`'s group.
  absl::Status Candidates(const Node& node, std::vector<int>* out);
  absl::Status CannotSatisfy(const Node& node, const Group& group,
                             const std::vector<int>& matching);
  absl::Status NoKernelAnywhere(const Node& node) const;
  bool Supports(const Group& group, int device_index) const {
    return (group.supported & TypeBit(devices_[device_index].type_index)) != 0;
  }
  // The names of the types in `mask`, in device_types_ order.
  std::vector<std::string> TypeNames(TypeMask mask) const;
  // Parses `node`'s requested device, once per distinct spec string.
  absl::Status ParseRequest(const Node& node, ParsedName* out);
  absl::Status PlaceNode(const Node& node, int hint, std::vector<int>* chosen);
  std::string DeviceList() const;
  // "; colocation group members: {{node a}}, {{node b}}" for groups of 2+.
  std::string GroupMembersSuffix(int root);

  const PlacerOptions& opts_;
  const Graph& graph_;
  std::vector<PlacementDevice> devices_;   // sorted by DeviceBefore
  std::vector<std::string> device_types_;  // distinct, by DeviceTypeBefore
  int default_index_ = -1;
  std::vector<int> parent_;               // by node id
  std::vector<Group> groups_;             // by node id
  std::vector<TypeMask> node_supported_;  // by node id
  // Requested device string -> its parse (few distinct strings per graph).
  absl::flat_hash_map<std::string, ParsedName> parsed_requests_;
  std::vector<int> candidates_;  // PlaceNode's scratch
  // Candidates' last unassigned answer, for the same request and types.
  bool last_candidates_valid_ = false;
  ParsedName last_requested_;
  TypeMask last_supported_ = 0;
  std::vector<int> last_candidates_;
};

absl::Status ColocationGraph::InitializeDevices(
    absl::Span<const DeviceAttributes> devices) {
  for (const DeviceAttributes& d : devices) {
    PlacementDevice pd;
    pd.attrs = &d;
    if (!DeviceNameUtils::ParseFullName(d.name(), &pd.parsed) ||
        !DeviceNameUtils::IsFullySpecified(pd.parsed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Device '", d.name(),
                       "' offered for placement is not a full device name"));
    }
    if (pd.parsed.type != d.device_type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Device '", d.name(), "' offered for placement has device_type '",
          d.device_type(), "', which does not match its name"));
    }
    for (const PlacementDevice& other : devices_) {
      if (other.parsed == pd.parsed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Device '", d.name(), "' is offered for placement twice"));
      }
    }
    devices_.push_back(std::move(pd));
  }
  std::stable_sort(devices_.begin(), devices_.end(), DeviceBefore);
  for (const PlacementDevice& d : devices_) {
    if (!Contains(device_types_, d.attrs->device_type())) {
      device_types_.push_back(d.attrs->device_type());
    }
  }
  std::sort(device_types_.begin(), device_types_.end(), DeviceTypeBefore);
  if (device_types_.size() > kMaxDeviceTypes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Placement supports at most ", kMaxDeviceTypes,
        " device types; offered: ", absl::StrJoin(device_types_, ", ")));
  }
  for (PlacementDevice& d : devices_) {
    d.type_index =
        static_cast<int>(std::find(device_types_.begin(), device_types_.end(),
                                   d.attrs->device_type()) -
                         device_types_.begin());
  }
  if (opts_.default_device != nullptr) {
    ParsedName def;
    if (DeviceNameUtils::ParseFullName(opts_.default_device->name(), &def)) {
      for (int i = 0; i < static_cast<int>(devices_.size()); ++i) {
        if (devices_[i].parsed == def) default_index_ = i;
      }
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> ColocationGraph::TypeNames(TypeMask mask) const {
  std::vector<std::string> names;
  for (int i = 0; i < static_cast<int>(device_types_.size()); ++i) {
    if ((mask & TypeBit(i)) != 0) names.push_back(device_types_[i]);
  }
  return names;
}

absl::Status ColocationGraph::ParseRequest(const Node& node, ParsedName* out) {
  const std::string& spec = node.requested_device();
  auto it = parsed_requests_.find(spec);
  if (it == parsed_requests_.end()) {
    ParsedName parsed;
    if (!DeviceNameUtils::ParseFullName(spec, &parsed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Malformed device specification '", spec, "' in ",
                       FormatNodeName(node.name())));
    }
    it = parsed_requests_.emplace(spec, std::move(parsed)).first;
  }
  *out = it->second;
  return absl::OkStatus();
}

std::string ColocationGraph::DeviceList() const {
  std::vector<std::string> names;
  for (const PlacementDevice& d : devices_) names.push_back(d.attrs->name());
  return names.empty() ? "<none>" : absl::StrJoin(names, ", ");
}

absl::Status ColocationGraph::NoKernelAnywhere(const Node& node) const {
  std::string detail;
  if (!device_types_.empty()) {
    const KernelDef* kernel_def = nullptr;
    KernelFactory factory;
    absl::Status s = KernelRegistry::Global()->FindKernel(
        device_types_.front(), node.def(), &kernel_def, &factory);
    if (!s.ok()) detail = absl::StrCat("; ", s.message());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "No OpKernel was registered to support Op '", node.type_string(),
      "' used by ", FormatNodeName(node.name()),
      " on any available device type [", absl::StrJoin(device_types_, ", "),
      "]", detail));
}

absl::Status ColocationGraph::InitializeMembers() {
  const int n = graph_.num_node_ids();
  parent_.assign(n, -1);
  groups_.assign(n, Group());
  node_supported_.assign(n, 0);
  for (const Node* node : graph_.op_nodes()) {
    const int id = node->id();
    parent_[id] = id;
    Group& g = groups_[id];
    if (node->has_assigned_device_name()) {
      ParsedName assigned;
      if (DeviceNameUtils::ParseFullName(node->assigned_device_name(),
                                         &assigned)) {
        for (int i = 0; i < static_cast<int>(devices_.size()); ++i) {
          if (devices_[i].parsed == assigned) g.assigned = i;
        }
      }
      if (g.assigned < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Assigned device '", node->assigned_device_name(), "' of ",
            FormatNodeName(node->name()),
            " does not match any available device; available devices: ",
            DeviceList()));
      }
      // An assigned device overrides whatever the node requested.
      g.assigned_source = node->name();
      g.requested = devices_[g.assigned].parsed;
      g.request_source = node->name();
    } else {
      SF_RETURN_IF_ERROR(ParseRequest(*node, &g.requested));
      if (!IsEmptySpec(g.requested)) g.request_source = node->name();
    }
    for (int t = 0; t < static_cast<int>(device_types_.size()); ++t) {
      if (KernelRegistry::Global()->HasKernel(device_types_[t], node->def())) {
        g.supported |= TypeBit(t);
      }
    }
    if (g.supported == 0) return NoKernelAnywhere(*node);
    node_supported_[id] = g.supported;
  }
  return absl::OkStatus();
}

int ColocationGraph::FindRoot(int id) {
  int root = id;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[id] != root) {
    const int next = parent_[id];
    parent_[id] = root;
    id = next;
  }
  return root;
}

std::string ColocationGraph::GroupMembersSuffix(int root) {
  std::vector<std::string> members;
  for (const Node* node : graph_.op_nodes()) {
    if (FindRoot(node->id()) == root) {
      members.push_back(FormatNodeName(node->name()));
    }
  }
  if (members.size() < 2) return "";
  return absl::StrCat("; colocation group members: ",
                      absl::StrJoin(members, ", "));
}

absl::Status ColocationGraph::Colocate(const Node& x, const Node& y,
                                       Reason reason) {
  const int rx = FindRoot(x.id());
  const int ry = FindRoot(y.id());
  if (rx == ry) return absl::OkStatus();
  const Group& gx = groups_[rx];
  const Group& gy = groups_[ry];
  const std::string both =
      absl::StrCat("Cannot colocate nodes ", FormatNodeName(x.name()), " and ",
                   FormatNodeName(y.name()));
  const std::string ref_prefix =
      reason == Reason::kRefEdge
          ? "Nodes were connected by a reference or resource connection "
            "(requiring them to be on the same device), but: "
          : "";

  Group merged;
  merged.assigned = gx.assigned;
  merged.assigned_source = gx.assigned_source;
  if (gy.assigned >= 0) {
    if (merged.assigned >= 0 && merged.assigned != gy.assigned) {
      return absl::InvalidArgumentError(absl::StrCat(
          ref_prefix, both,
          ": they are already assigned to different devices '",
          device(gx.assigned).name(), "' (", FormatNodeName(gx.assigned_source),
          ") and '", device(gy.assigned).name(), "' (",
          FormatNodeName(gy.assigned_source), ")"));
    }
    if (merged.assigned < 0) {
      merged.assigned = gy.assigned;
      merged.assigned_source = gy.assigned_source;
    }
  }

  merged.requested = gx.requested;
  absl::Status s = DeviceNameUtils::MergeDevNames(
      &merged.requested, gy.requested, opts_.allow_soft_placement);
  if (!s.ok()) {
    if (reason == Reason::kRefEdge && !(gx.assigned >= 0 && gy.assigned >= 0)) {
      // The consumer of a ref/resource must live with its producer: the
      // producer's request wins over an incompatible consumer request.
      merged.requested =
          gx.assigned >= 0 || gy.assigned < 0 ? gx.requested : gy.requested;
    } else {
      auto from = [](const Group& g) {
        return g.request_source.empty()
                   ? std::string()
                   : absl::StrCat(" (requested by ",
                                  FormatNodeName(g.request_source), ")");
      };
      return absl::InvalidArgumentError(absl::StrCat(
          ref_prefix, both, ": requested devices '", SpecString(gx.requested),
          "'", from(gx), " and '", SpecString(gy.requested), "'", from(gy),
          " are incompatible: ", s.message()));
    }
  }
  merged.request_source =
      gx.request_source.empty() ? gy.request_source : gx.request_source;

  merged.supported = gx.supported & gy.supported;
  if (merged.supported == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        ref_prefix, both,
        " because no device type supports both of those nodes and the other "
        "nodes colocated with them: ",
        FormatNodeName(x.name()), "'s group supports [",
        absl::StrJoin(TypeNames(gx.supported), ", "), "], ",
        FormatNodeName(y.name()), "'s group supports [",
        absl::StrJoin(TypeNames(gy.supported), ", "), "]"));
  }

  const int root = std::min(rx, ry);
  const int child = std::max(rx, ry);
  parent_[child] = root;
  groups_[root] = std::move(merged);
  groups_[child] = Group();
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateByClassAttr() {
  // Colocation groups are keyed by name, as in TensorFlow: "loc:@X" where no
  // op node X is in this graph (X was fed and pruned away, or rewritten)
  // is the group named X, whose first member (in id order) stands for it.
  absl::flat_hash_map<std::string, const Node*> absent_names;
  for (const Node* node : graph_.op_nodes()) {
    const AttrValue* attr = FindNodeAttr(node->def(), kColocationAttr);
    if (attr == nullptr) continue;
    if (attr->value_case() != AttrValue::kList) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Attr '", kColocationAttr, "' of ", FormatNodeName(node->name()),
          " must be a list of strings"));
    }
    for (const std::string& entry : attr->list().s()) {
      if (!absl::StartsWith(entry, kColocationPrefix)) continue;
      const absl::string_view other_name =
          absl::string_view(entry).substr(kColocationPrefix.size());
      const Node* other = graph_.FindNodeByName(other_name);
      if (other == nullptr || !other->IsOp()) {
        other = absent_names.try_emplace(std::string(other_name), node)
                    .first->second;
      }
      SF_RETURN_IF_ERROR(Colocate(*other, *node, Reason::kClassAttr));
    }
  }
  return absl::OkStatus();
}

absl::Status ColocationGraph::ColocateRefAndResourceEdges() {
  for (const Edge* edge : graph_.edges()) {
    if (edge->IsControlEdge()) continue;
    const Node* src = edge->src();
    const Node* dst = edge->dst();
    if (!src->IsOp() || !dst->IsOp()) continue;
    if (edge->dst_input() < 0 || edge->dst_input() >= dst->num_inputs()) {
      continue;
    }
    const DataType type = dst->input_type(edge->dst_input());
    if (!IsRefType(type) && type != DT_RESOURCE) continue;
    SF_RETURN_IF_ERROR(Colocate(*src, *dst, Reason::kRefEdge));
  }
  return absl::OkStatus();
}

absl::Status ColocationGraph::CannotSatisfy(const Node& node,
                                            const Group& group,
                                            const std::vector<int>& matching) {
  const int root = FindRoot(node.id());
  std::string msg = absl::StrCat(
      "Cannot assign a device for operation ", FormatNodeName(node.name()),
      ": Could not satisfy explicit device specification '",
      SpecString(group.requested), "' because ");
  if (matching.empty()) {
    absl::StrAppend(&msg,
                    "no devices matching that specification are registered "
                    "in this process; available devices: ",
                    DeviceList());
  } else {
    TypeMask matching_types = 0;
    for (int i : matching) matching_types |= TypeBit(devices_[i].type_index);
    const std::vector<std::string> types = TypeNames(matching_types);
    // Name the members that lack a kernel for every matching type.
    std::vector<std::string> lacking;
    for (const Node* member : graph_.op_nodes()) {
      if (FindRoot(member->id()) != root) continue;
      if ((node_supported_[member->id()] & matching_types) == 0) {
        lacking.push_back(absl::StrCat("op '", member->type_string(), "' (",
                                       FormatNodeName(member->name()), ")"));
      }
    }
    absl::StrAppend(&msg, "no supported kernel for ", absl::StrJoin(types, "/"),
                    " devices is available for ",
                    lacking.empty() ? std::string("all colocated nodes")
                                    : absl::StrJoin(lacking, ", "),
                    "; supported device types: [",
                    absl::StrJoin(TypeNames(group.supported), ", "), "]");
  }
  if (!group.request_source.empty() && group.request_source != node.name()) {
    absl::StrAppend(&msg, "; the specification comes from colocated ",
                    FormatNodeName(group.request_source));
  }
  absl::StrAppend(&msg, GroupMembersSuffix(root));
  return absl::InvalidArgumentError(msg);
}

absl::Status ColocationGraph::Candidates(const Node& node,
                                         std::vector<int>* out) {
  out->clear();
  const int root = FindRoot(node.id());
  const Group& g = groups_[root];
  const int num_devices = static_cast<int>(devices_.size());
  if (g.assigned >= 0) {
    if (!Supports(g, g.assigned)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot assign a device for operation ", FormatNodeName(node.name()),
          ": its colocation group is already assigned to '",
          device(g.assigned).name(), "' (", FormatNodeName(g.assigned_source),
          ") but no supported kernel for ", device(g.assigned).device_type(),
          " devices is available for every member; supported device types: [",
          absl::StrJoin(TypeNames(g.supported), ", "), "]",
          GroupMembersSuffix(root)));
    }
    out->push_back(g.assigned);
    return absl::OkStatus();
  }
  // Neighbouring nodes mostly make the same request: reuse the last answer.
  if (last_candidates_valid_ && g.supported == last_supported_ &&
      g.requested == last_requested_) {
    *out = last_candidates_;
    return absl::OkStatus();
  }
  for (int i = 0; i < num_devices; ++i) {
    if (Supports(g, i) &&
        DeviceNameUtils::IsSpecification(g.requested, devices_[i].parsed)) {
      out->push_back(i);
    }
  }
  if (out->empty()) {
    // The devices the request matches, whatever their kernels (for errors).
    std::vector<int> matching;
    for (int i = 0; i < num_devices; ++i) {
      if (DeviceNameUtils::IsSpecification(g.requested, devices_[i].parsed)) {
        matching.push_back(i);
      }
    }
    if (!opts_.allow_soft_placement) return CannotSatisfy(node, g, matching);
    // Soft placement: keep only the job/replica/task part of the request.
    ParsedName relaxed = g.requested;
    relaxed.has_type = false;
    relaxed.type.clear();
    relaxed.has_id = false;
    relaxed.id = 0;
    for (int i = 0; i < num_devices; ++i) {
      if (Supports(g, i) &&
          DeviceNameUtils::IsSpecification(relaxed, devices_[i].parsed)) {
        out->push_back(i);
      }
    }
    if (out->empty()) {
      for (int i = 0; i < num_devices; ++i) {
        if (Supports(g, i)) out->push_back(i);
      }
    }
    if (out->empty()) return CannotSatisfy(node, g, matching);
  }
  // devices_ is sorted, so `out` is too; the client device goes first.
  auto it = std::find(out->begin(), out->end(), default_index_);
  if (it != out->end()) std::rotate(out->begin(), it, it + 1);
  last_candidates_valid_ = true;
  last_requested_ = g.requested;
  last_supported_ = g.supported;
  last_candidates_ = *out;
  return absl::OkStatus();
}

absl::Status ColocationGraph::PlaceNode(const Node& node, int hint,
                                        std::vector<int>* chosen) {
  const int root = FindRoot(node.id());
  Group& g = groups_[root];
  if (g.placed < 0) {
    SF_RETURN_IF_ERROR(Candidates(node, &candidates_));
    g.placed = candidates_.front();
    if (hint >= 0 && std::find(candidates_.begin(), candidates_.end(), hint) !=
                         candidates_.end()) {
      g.placed = hint;
    }
  }
  (*chosen)[node.id()] = g.placed;
  return absl::OkStatus();
}

absl::Status ColocationGraph::AssignDevices(std::vector<int>* chosen) {
  chosen->assign(graph_.num_node_ids(), -1);
  std::vector<const Node*> generators;
  for (const Node* node : graph_.op_nodes()) {
    if (IsGeneratorNode(*node)) {
      generators.push_back(node);
      continue;
    }
    SF_RETURN_IF_ERROR(PlaceNode(*node, -1, chosen));
  }
  // Generators follow their consumers when those all went to one device.
  for (const Node* node : generators) {
    int hint = -1;
    bool consistent = true;
    for (const Edge* e : node->out_edges()) {
      if (!e->dst()->IsOp()) continue;
      const int d = (*chosen)[e->dst()->id()];
      if (d < 0 || (hint >= 0 && d != hint)) {
        consistent = false;
        break;
      }
      hint = d;
    }
    SF_RETURN_IF_ERROR(PlaceNode(*node, consistent ? hint : -1, chosen));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PlaceGraph(const PlacerOptions& opts,
                        absl::Span<const DeviceAttributes> devices,
                        Graph* graph) {
  if (graph == nullptr) {
    return absl::InvalidArgumentError("PlaceGraph needs a graph");
  }
  const std::vector<Node*> op_nodes = graph->op_nodes();
  if (op_nodes.empty()) return absl::OkStatus();
  if (devices.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("No devices are available to place ",
                     FormatNodeName(op_nodes.front()->name())));
  }
  ColocationGraph colocation(opts, *graph);
  SF_RETURN_IF_ERROR(colocation.InitializeDevices(devices));
  SF_RETURN_IF_ERROR(colocation.InitializeMembers());
  SF_RETURN_IF_ERROR(colocation.ColocateByClassAttr());
  SF_RETURN_IF_ERROR(colocation.ColocateRefAndResourceEdges());
  std::vector<int> chosen;
  SF_RETURN_IF_ERROR(colocation.AssignDevices(&chosen));

  for (Node* node : op_nodes) {
    node->set_assigned_device_name(
        colocation.device(chosen[node->id()]).name());
  }
  if (opts.log_device_placement && opts.log_sink) {
    for (const Node* node : op_nodes) {
      opts.log_sink(absl::StrCat(node->name(), ": (", node->type_string(),
                                 "): ", node->assigned_device_name()));
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
