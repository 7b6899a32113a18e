#include "runtime/graph/shape_refiner.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/constant_evaluator.h"

namespace stepflow {

namespace {

// `s` as a proto: unknown rank, or its dims (-1 where unknown).
void ShapeHandleToProto(shape_inference::ShapeHandle s,
                        TensorShapeProto* proto) {
  using shape_inference::InferenceContext;
  proto->Clear();
  if (!InferenceContext::RankKnown(s)) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < InferenceContext::Rank(s); ++i) {
    proto->add_dim()->set_size(
        InferenceContext::Value(InferenceContext::DimKnownRank(s, i)));
  }
}

}  // namespace

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

namespace {

// How deep constant evaluation and partial-shape reading follow inputs.
constexpr int kMaxConstantDepth = 32;

// The edge into data input `input` of `node`, or null.
const Edge* InputEdge(const Node* node, int input) {
  for (const Edge* e : node->in_edges()) {
    if (!e->IsControlEdge() && e->dst_input() == input) return e;
  }
  return nullptr;
}

bool IsNextIterationOp(const Node* n) { return n->IsNextIteration(); }

}  // namespace

// What a node's shape function reads as constant inputs.
class ShapeRefiner::NodeConstants : public shape_inference::ConstantSource {
 public:
  NodeConstants(ShapeRefiner* refiner, const Node* node, int depth)
      : refiner_(refiner), node_(node), depth_(depth) {}
  void set_context(InferenceContext* c) { context_ = c; }

  const Tensor* InputTensor(int index) override {
    return refiner_->EvaluateConstantInput(node_, index, depth_);
  }
  ShapeHandle InputTensorAsShape(int index) override {
    ShapeHandle out;
    absl::Status s =
        refiner_->ConstantPartialShape(context_, node_, index, depth_, &out);
    return s.ok() ? out : ShapeHandle();
  }

 private:
  ShapeRefiner* const refiner_;
  const Node* const node_;
  const int depth_;
  InferenceContext* context_ = nullptr;
};

ShapeRefiner::ShapeRefiner(const OpRegistry* ops) : ops_(ops) {}
ShapeRefiner::~ShapeRefiner() = default;

const ShapeRefiner::NodeRecord* ShapeRefiner::Record(const Node* node) const {
  const int id = node->id();
  if (id < 0 || id >= static_cast<int>(records_.size())) return nullptr;
  const NodeRecord& r = records_[id];
  return r.node == node ? &r : nullptr;
}

bool ShapeRefiner::HasNode(const Node* node) const {
  return Record(node) != nullptr;
}

void ShapeRefiner::RemoveNode(const Node* node) {
  if (Record(node) == nullptr) return;
  records_[node->id()] = NodeRecord();
  --num_nodes_;
  for (int i = 0; i < node->num_outputs(); ++i) {
    constants_.erase({node->id(), i});
  }
}

const ShapeInferenceFn* ShapeRefiner::ShapeFnFor(const Node* node) {
  const OpDef* def = &node->op_def();
  auto it = shape_fns_.find(def);
  if (it != shape_fns_.end()) return it->second;
  const ShapeInferenceFn* fn = ops_->LookUpShapeFn(def->name());
  shape_fns_.emplace(def, fn);
  return fn;
}

absl::Status ShapeRefiner::AddNode(const Node* node) {
  if (!node->IsOp() || HasNode(node)) return absl::OkStatus();
  const int num_inputs = node->num_inputs();
  absl::InlinedVector<ShapeHandle, 4> inputs(num_inputs);
  absl::InlinedVector<const std::vector<ShapeAndType>*, 4> input_handles(
      num_inputs, nullptr);
  bool any_handle = false;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge()) continue;
    const int i = e->dst_input();
    if (i < 0 || i >= num_inputs) continue;
    const NodeRecord* src = Record(e->src());
    if (src == nullptr) continue;  // Not added yet: unknown (back edge).
    // An output beyond the record (its node was retyped since) is unknown.
    if (e->src_output() >= static_cast<int>(src->outputs.size())) continue;
    inputs[i] = src->outputs[e->src_output()];
    if (src->handle_data != nullptr) {
      const auto& h = (*src->handle_data)[e->src_output()];
      if (!h.empty()) {
        input_handles[i] = &h;
        any_handle = true;
      }
    }
  }
  NodeConstants constants(this, node, 0);
  InferenceContext c(&node->def(), &node->op_def(), inputs, node->num_outputs(),
                     &manager_, &constants);
  constants.set_context(&c);
  if (any_handle) {
    for (int i = 0; i < num_inputs; ++i) {
      if (input_handles[i] != nullptr) {
        c.set_input_handle_shapes_and_types(i, *input_handles[i]);
      }
    }
  }
  const ShapeInferenceFn* fn = ShapeFnFor(node);
  if (fn != nullptr) {
    absl::Status s = (*fn)(&c);
    if (!s.ok()) return c.AttachContext(s);
    InferCallThroughBody(node, &c);
  } else if (ops_->LookUpOrNull(node->type_string()) == nullptr) {
    InferCallThroughBody(node, &c);  // A call by name: no registered op.
  } else if (require_shape_fns_) {
    return absl::InvalidArgumentError(
        absl::StrCat("No shape inference function exists for op '",
                     node->type_string(), "', did you forget to define it?"));
  }
  if (node->id() >= static_cast<int>(records_.size())) {
    records_.resize(node->id() + 1);
  }
  NodeRecord& r = records_[node->id()];
  r.node = node;
  ++num_nodes_;
  r.outputs.resize(node->num_outputs());
  for (int i = 0; i < node->num_outputs(); ++i) {
    ShapeHandle s = c.output(i);
    r.outputs[i] = s.IsSet() ? s : manager_.UnknownShape();
    const auto* h = c.output_handle_shapes_and_types(i);
    if (h != nullptr && !h->empty()) {
      if (r.handle_data == nullptr) {
        r.handle_data =
            std::make_unique<std::vector<std::vector<ShapeAndType>>>(
                node->num_outputs());
      }
      (*r.handle_data)[i] = *h;
    }
  }
  if (merge_output_shapes_attr_) {
    absl::Status s = MergeOutputShapesAttr(node);
    if (!s.ok()) {
      RemoveNode(node);
      return s;
    }
  }
  return absl::OkStatus();
}

void ShapeRefiner::InferCallThroughBody(const Node* node, InferenceContext* c) {
  if (function_library_ == nullptr || !function_call_shape_fn_) return;
  FunctionCall call;
  call.library = function_library_;
  const std::string& op = node->type_string();
  if (op == "PartitionedCall" || op == "StatefulPartitionedCall") {
    auto f = node->def().attr().find("f");
    if (f == node->def().attr().end() || !f->second.has_func()) return;
    call.function = f->second.func().name();
    call.attrs = &f->second.func().attr();
  } else if (ops_->LookUpOrNull(op) == nullptr) {
    call.function = op;  // A call by name (its OpDef is the signature).
    call.attrs = &node->def().attr();
  } else {
    return;
  }
  for (int i = 0; i < c->num_inputs(); ++i) {
    TensorShapeProto shape;
    ShapeHandleToProto(c->input(i), &shape);
    call.input_shapes.push_back(std::move(shape));
    std::pair<TensorShapeProto, DataType> handle{{}, DT_INVALID};
    const auto* data = c->input_handle_shapes_and_types(i);
    if (data != nullptr && !data->empty()) {
      ShapeHandleToProto((*data)[0].shape, &handle.first);
      handle.second = (*data)[0].dtype;
    }
    call.input_handles.push_back(std::move(handle));
  }
  std::vector<TensorShapeProto> outputs;
  if (!function_call_shape_fn_(call, &outputs).ok() ||
      static_cast<int>(outputs.size()) != c->num_outputs()) {
    return;  // The call's own shape function's answer stands.
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    ShapeHandle inferred, merged;
    if (!c->MakeShapeFromShapeProto(outputs[i], &inferred).ok()) continue;
    ShapeHandle own = c->output(i).IsSet() ? c->output(i) : c->UnknownShape();
    if (c->Merge(own, inferred, &merged).ok()) c->set_output(i, merged);
  }
}

absl::Status ShapeRefiner::MergeOutputShapesAttr(const Node* node) {
  auto it = node->def().attr().find("_output_shapes");
  if (it == node->def().attr().end()) return absl::OkStatus();
  const auto& shapes = it->second.list().shape();
  if (shapes.size() < node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Node '", node->name(), "' has ", node->num_outputs(),
        " outputs but the _output_shapes attribute specifies shapes for ",
        shapes.size(), " outputs"));
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    ShapeHandle recorded;
    absl::Status s = MakeShapeFromProto(shapes[i], &recorded);
    if (s.ok()) s = SetShape(node, i, recorded);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Node '", node->name(),
          "' has an _output_shapes attribute inconsistent with the GraphDef "
          "for output #",
          i, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ShapeRefiner::AddNodes(absl::Span<Node* const> nodes) {
  // Kahn's algorithm over `nodes`; edges from nodes outside the set or
  // from NextIteration into Merge do not hold a node back.
  const int n = static_cast<int>(nodes.size());
  if (n == 0) return absl::OkStatus();
  // Position in `nodes` by node id - min_id (-1: not among them); the ids
  // of nodes added together are close.
  int min_id = nodes[0]->id(), max_id = nodes[0]->id();
  for (const Node* node : nodes) {
    min_id = std::min(min_id, node->id());
    max_id = std::max(max_id, node->id());
  }
  std::vector<int> index(max_id - min_id + 1, -1);
  for (int i = 0; i < n; ++i) index[nodes[i]->id() - min_id] = i;
  if (max_id >= static_cast<int>(records_.size())) records_.resize(max_id + 1);
  auto position = [&](const Node* node) {
    const int id = node->id();
    if (id < min_id || id > max_id) return -1;
    const int i = index[id - min_id];
    return i >= 0 && nodes[i] == node ? i : -1;
  };
  std::vector<int> pending(n, 0);
  auto counts = [&](const Edge* e) {
    if (position(e->src()) < 0) return false;
    return !(IsNextIterationOp(e->src()) && e->dst()->IsMerge());
  };
  for (int i = 0; i < n; ++i) {
    for (const Edge* e : nodes[i]->in_edges()) {
      if (counts(e)) ++pending[i];
    }
  }
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  int done = 0;
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    ++done;
    SF_RETURN_IF_ERROR(AddNode(nodes[i]));
    for (const Edge* e : nodes[i]->out_edges()) {
      if (!counts(e)) continue;
      const int j = position(e->dst());
      if (j >= 0 && --pending[j] == 0) ready.push_back(j);
    }
  }
  // Nodes on a cycle not closed by NextIteration (the importer refuses
  // those) are added with what is known.
  if (done < n) {
    for (Node* node : nodes) SF_RETURN_IF_ERROR(AddNode(node));
  }
  return absl::OkStatus();
}

absl::Status ShapeRefiner::AddMissingNodes(const Graph& graph) {
  std::vector<Node*> missing;
  for (Node* node : graph.op_nodes()) {
    if (!HasNode(node)) missing.push_back(node);
  }
  return AddNodes(missing);
}

ShapeHandle ShapeRefiner::OutputShape(const Node* node, int index) const {
  const NodeRecord* r = Record(node);
  if (r == nullptr || index < 0 ||
      index >= static_cast<int>(r->outputs.size())) {
    return ShapeHandle();
  }
  return r->outputs[index];
}

void ShapeRefiner::OutputShapeProto(const Node* node, int index,
                                    TensorShapeProto* proto) const {
  ShapeHandleToProto(OutputShape(node, index), proto);
}

const std::vector<ShapeAndType>* ShapeRefiner::OutputHandleShapes(
    const Node* node, int index) const {
  const NodeRecord* r = Record(node);
  if (r == nullptr || r->handle_data == nullptr || index < 0 ||
      index >= static_cast<int>(r->handle_data->size())) {
    return nullptr;
  }
  const auto& h = (*r->handle_data)[index];
  return h.empty() ? nullptr : &h;
}

absl::Status ShapeRefiner::SetOutputHandleShapes(
    const Node* node, int index, std::vector<ShapeAndType> handle) {
  const NodeRecord* found = Record(node);
  if (found == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Node ", node->name(), " has not been added to the shape refiner"));
  }
  NodeRecord& r = records_[node->id()];
  if (index < 0 || index >= static_cast<int>(r.outputs.size())) {
    return absl::OutOfRangeError(
        absl::StrCat("Node ", node->name(), " has no output ", index));
  }
  if (r.handle_data == nullptr) {
    r.handle_data = std::make_unique<std::vector<std::vector<ShapeAndType>>>(
        r.outputs.size());
  }
  (*r.handle_data)[index] = std::move(handle);
  return absl::OkStatus();
}

std::string ShapeRefiner::DebugString(ShapeHandle s) const {
  if (!InferenceContext::RankKnown(s)) return "?";
  std::string out = "[";
  for (int i = 0; i < InferenceContext::Rank(s); ++i) {
    const int64_t v =
        InferenceContext::Value(InferenceContext::DimKnownRank(s, i));
    absl::StrAppend(&out, i == 0 ? "" : ",", v < 0 ? "?" : absl::StrCat(v));
  }
  return out + "]";
}

absl::Status ShapeRefiner::MakeShapeFromProto(const TensorShapeProto& proto,
                                              ShapeHandle* out) {
  static const NodeDef* const kEmptyDef = new NodeDef();
  static const OpDef* const kEmptyOp = new OpDef();
  InferenceContext c(kEmptyDef, kEmptyOp, {}, 0, &manager_, nullptr);
  return c.MakeShapeFromShapeProto(proto, out);
}

absl::Status ShapeRefiner::SetShape(const Node* node, int index,
                                    ShapeHandle shape) {
  const NodeRecord* r = Record(node);
  if (r == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Node ", node->name(), " has not been added to the shape refiner"));
  }
  if (index < 0 || index >= static_cast<int>(r->outputs.size())) {
    return absl::OutOfRangeError(
        absl::StrCat("Node '", node->name(), "' (type: '", node->type_string(),
                     "', num of outputs: ", node->num_outputs(),
                     ") does not have output ", index));
  }
  InferenceContext c(&node->def(), &node->op_def(), {}, 0, &manager_, nullptr);
  ShapeHandle merged;
  SF_RETURN_IF_ERROR(c.Merge(r->outputs[index], shape, &merged));
  records_[node->id()].outputs[index] = merged;
  constants_.erase({node->id(), index});
  return absl::OkStatus();
}

const Tensor* ShapeRefiner::EvaluateConstantInput(const Node* node, int input,
                                                  int depth) {
  const Edge* e = InputEdge(node, input);
  if (e == nullptr) return nullptr;
  return EvaluateConstant(e->src(), e->src_output(), depth + 1);
}

const Tensor* ShapeRefiner::EvaluateConstant(const Node* node, int index,
                                             int depth) {
  const std::pair<int, int> key(node->id(), index);
  auto it = constants_.find(key);
  if (it != constants_.end()) {
    return it->second.has_value() ? &*it->second : nullptr;
  }
  if (depth > kMaxConstantDepth) return nullptr;
  std::optional<Tensor> value;
  const std::string& op = node->type_string();
  if (op == "Const") {
    const AttrValue* v = FindNodeAttr(node->def(), "value");
    Tensor t;
    if (v != nullptr && v->has_tensor() &&
        TensorFromProto(v->tensor(), &t).ok()) {
      value = std::move(t);
    }
  } else if (op == "Shape" || op == "Size" || op == "Rank" || op == "ShapeN") {
    // Known from the input's inferred shape.
    const Edge* e = InputEdge(node, op == "ShapeN" ? index : 0);
    ShapeHandle s =
        e == nullptr ? ShapeHandle() : OutputShape(e->src(), e->src_output());
    const AttrValue* out_type = FindNodeAttr(node->def(), "out_type");
    const DataType dt = out_type != nullptr ? out_type->type() : DT_INT32;
    auto put = [&](const TensorShape& shape, const std::vector<int64_t>& v) {
      Tensor t(dt, shape);
      for (size_t i = 0; i < v.size(); ++i) {
        if (dt == DT_INT64) {
          t.flat<int64_t>()(i) = v[i];
        } else {
          t.flat<int32_t>()(i) = static_cast<int32_t>(v[i]);
        }
      }
      value = std::move(t);
    };
    if (op == "Rank") {
      if (InferenceContext::RankKnown(s)) {
        put(TensorShape({}), {InferenceContext::Rank(s)});
      }
    } else if (InferenceContext::FullyDefined(s)) {
      std::vector<int64_t> dims;
      int64_t n = 1;
      for (int i = 0; i < InferenceContext::Rank(s); ++i) {
        dims.push_back(
            InferenceContext::Value(InferenceContext::DimKnownRank(s, i)));
        n *= dims.back();
      }
      if (op == "Size") {
        put(TensorShape({}), {n});
      } else {
        put(TensorShape({static_cast<int64_t>(dims.size())}), dims);
      }
    }
  } else if (IsFoldableForShapes(*node)) {
    std::vector<const Tensor*> inputs(node->num_inputs(), nullptr);
    bool all = true;
    for (int i = 0; i < node->num_inputs() && all; ++i) {
      inputs[i] = EvaluateConstantInput(node, i, depth);
      all = inputs[i] != nullptr;
    }
    Tensor t;
    if (all && FoldConstant(*node, index, inputs, &t)) value = std::move(t);
  }
  auto inserted = constants_.emplace(key, std::move(value));
  return inserted.first->second.has_value() ? &*inserted.first->second
                                            : nullptr;
}

bool ShapeRefiner::ConstantIntScalar(const Node* node, int input, int depth,
                                     int64_t* value) {
  const Tensor* t = EvaluateConstantInput(node, input, depth);
  if (t == nullptr || t->NumElements() != 1) return false;
  if (t->dtype() == DT_INT32) {
    *value = t->flat<int32_t>()(0);
  } else if (t->dtype() == DT_INT64) {
    *value = t->flat<int64_t>()(0);
  } else {
    return false;
  }
  return true;
}

absl::Status ShapeRefiner::ConstantPartialShape(InferenceContext* target,
                                                const Node* node, int input,
                                                int depth,
                                                ShapeHandle* result) {
  const Edge* e = InputEdge(node, input);
  if (e == nullptr || depth > kMaxConstantDepth || !HasNode(e->src())) {
    *result = target->UnknownShape();
    return absl::OkStatus();
  }
  const Node* src = e->src();
  ShapeHandle src_shape = OutputShape(src, e->src_output());
  if (InferenceContext::Rank(src_shape) == 0) {
    const Tensor* t = EvaluateConstantInput(node, input, depth);
    if (t == nullptr) {
      return absl::InvalidArgumentError(
          "Received a shape scalar with unknown static value.  A static value "
          "of '-1' is required to represent an unknown shape.");
    }
    int64_t v = 0;
    if (target->GetScalarFromTensor(t, &v).ok() && v == -1) {
      *result = target->UnknownShape();
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "Received an invalid shape scalar with a static value of ",
        t->SummarizeValue(10),
        ".  A static value of '-1' is required to represent an unknown "
        "shape."));
  }
  SF_RETURN_IF_ERROR(target->WithRank(src_shape, 1, &src_shape));
  const std::string& op = src->type_string();
  const int next = depth + 1;
  if (InferenceContext::Value(target->Dim(src_shape, 0)) == 0) {
    *result = target->Scalar();
  } else if (op == "Cast") {
    const Tensor* t = EvaluateConstantInput(node, input, depth);
    if (t != nullptr &&
        target->MakeShapeFromTensor(t, src_shape, result).ok()) {
      return absl::OkStatus();
    }
    ShapeHandle pre_cast;
    if (!ConstantPartialShape(target, src, 0, next, &pre_cast).ok()) {
      return target->MakeShapeFromTensor(nullptr, src_shape, result);
    }
    if (!InferenceContext::RankKnown(pre_cast)) {
      *result = target->UnknownShape();
      return absl::OkStatus();
    }
    const AttrValue* dst = FindNodeAttr(src->def(), "DstT");
    if (dst == nullptr || dst->value_case() != AttrValue::kType ||
        (dst->type() != DT_INT32 && dst->type() != DT_INT64)) {
      *result = target->UnknownShapeOfRank(InferenceContext::Rank(pre_cast));
      return absl::OkStatus();
    }
    *result = pre_cast;
  } else if (op == "Shape") {
    const Edge* in = InputEdge(src, 0);
    *result = in == nullptr ? target->UnknownShape()
                            : OutputShape(in->src(), in->src_output());
    if (!result->IsSet()) *result = target->UnknownShape();
  } else if (op == "ShapeN") {
    const Edge* in = InputEdge(src, e->src_output());
    *result = in == nullptr ? target->UnknownShape()
                            : OutputShape(in->src(), in->src_output());
    if (!result->IsSet()) *result = target->UnknownShape();
  } else if (op == "Pack") {
    std::vector<DimensionHandle> dims;
    for (int i = 0; i < src->num_inputs(); ++i) {
      int64_t size;
      if (ConstantIntScalar(src, i, next, &size)) {
        dims.push_back(size < 0 ? target->UnknownDim() : target->MakeDim(size));
      } else {
        dims.push_back(target->UnknownDim());
      }
    }
    *result = target->MakeShape(std::move(dims));
  } else if (op == "Concat" || op == "ConcatV2") {
    *result = target->Scalar();
    const int axis = op == "Concat" ? 0 : src->num_inputs() - 1;
    for (int i = 0; i < src->num_inputs(); ++i) {
      if (i == axis) continue;
      ShapeHandle sub;
      SF_RETURN_IF_ERROR(ConstantPartialShape(target, src, i, next, &sub));
      if (!InferenceContext::RankKnown(sub)) {
        *result = target->UnknownShape();
        return absl::OkStatus();
      }
      SF_RETURN_IF_ERROR(target->Concatenate(*result, sub, result));
    }
  } else if (op == "StridedSlice") {
    SF_RETURN_IF_ERROR(PartialStridedSliceShape(target, src, next, result));
  } else {
    const Tensor* t = EvaluateConstantInput(node, input, depth);
    SF_RETURN_IF_ERROR(target->MakeShapeFromTensor(t, src_shape, result));
  }
  return absl::OkStatus();
}

absl::Status ShapeRefiner::PartialStridedSliceShape(InferenceContext* target,
                                                    const Node* slice,
                                                    int depth,
                                                    ShapeHandle* result) {
  // Only a slice with scalar-sized begin/end/strides and at most
  // begin/end masks on its one dimension.
  for (int i = 1; i <= 3; ++i) {
    const Edge* e = InputEdge(slice, i);
    ShapeHandle s =
        e == nullptr ? ShapeHandle() : OutputShape(e->src(), e->src_output());
    if (InferenceContext::Value(target->Dim(s, 0)) != 1) {
      *result = target->UnknownShape();
      return absl::OkStatus();
    }
  }
  auto mask = [&](const char* name) {
    const AttrValue* v = FindNodeAttr(slice->def(), name);
    return v == nullptr ? 0 : v->i();
  };
  const int64_t begin_mask = mask("begin_mask"), end_mask = mask("end_mask");
  if ((begin_mask != 0 && begin_mask != 1) ||
      (end_mask != 0 && end_mask != 1) || mask("ellipsis_mask") != 0 ||
      mask("new_axis_mask") != 0 || mask("shrink_axis_mask") != 0) {
    *result = target->UnknownShape();
    return absl::OkStatus();
  }
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max(), stride;
  if ((begin_mask != 1 && !ConstantIntScalar(slice, 1, depth, &begin)) ||
      (end_mask != 1 && !ConstantIntScalar(slice, 2, depth, &end)) ||
      !ConstantIntScalar(slice, 3, depth, &stride)) {
    *result = target->UnknownShape();
    return absl::OkStatus();
  }
  ShapeHandle input;
  SF_RETURN_IF_ERROR(ConstantPartialShape(target, slice, 0, depth, &input));
  return target->Subshape(input, begin, end, stride, result);
}

}  // namespace stepflow
