#include "runtime/framework/op_kernel.h"

#include <algorithm>

#include <atomic>
#include <set>

#include "absl/strings/str_join.h"
#include "runtime/framework/op.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace {

absl::Status CheckShape(const TensorShape& shape) {
  TensorShape checked;
  return TensorShape::BuildTensorShape(shape.dim_sizes(), &checked);
}

}  // namespace

// ---------------------------------------------------------------------------
// OpKernel

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : owned_def_(ctx->def_outlives_kernel()
                     ? nullptr
                     : std::make_unique<const NodeDef>(ctx->def())),
      def_(owned_def_ != nullptr ? *owned_def_ : ctx->def()),
      op_def_(&ctx->op_def()),
      input_types_(ctx->input_types()),
      output_types_(ctx->output_types()),
      is_stateful_(ctx->op_def().is_stateful()) {
  absl::Status s =
      ArgRangesForNode(def_, *op_def_, &input_ranges_, &output_ranges_);
  if (!s.ok()) ctx->SetStatus(AttachDef(s, def_.name()));
}

OpKernel::~OpKernel() = default;

namespace {

// The range of the arg called `name` among `args`, or InvalidArgument
// naming `what` ("input"/"output") and the node.
absl::Status FindArgRange(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    const ArgRanges& ranges, absl::string_view name, absl::string_view what,
    absl::string_view node, int* start, int* stop) {
  for (int i = 0; i < args.size() && i < static_cast<int>(ranges.size()); ++i) {
    if (args.Get(i).name() == name) {
      *start = ranges[i].first;
      *stop = ranges[i].second;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown ", what, " name '", name, "' of ", FormatNodeName(node)));
}

}  // namespace

absl::Status OpKernel::InputRange(absl::string_view name, int* start,
                                  int* stop) const {
  return FindArgRange(op_def_->input_arg(), input_ranges_, name, "input",
                      this->name(), start, stop);
}

absl::Status OpKernel::OutputRange(absl::string_view name, int* start,
                                   int* stop) const {
  return FindArgRange(op_def_->output_arg(), output_ranges_, name, "output",
                      this->name(), start, stop);
}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  // The flag outlives this call in case `done` runs later on another thread.
  auto done_called = std::make_shared<std::atomic<bool>>(false);
  ComputeAsync(ctx, [done_called] { done_called->store(true); });
  if (!done_called->load()) {
    ctx->SetStatus(absl::InternalError(absl::StrCat(
        "async kernel used synchronously: ", FormatNodeName(name()),
        " did not complete within Compute")));
  }
}

// ---------------------------------------------------------------------------
// OpKernelContext

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  const int n =
      params_->op_kernel != nullptr ? params_->op_kernel->num_outputs() : 0;
  if (n > 0) {  // NoOps and sinks: nothing to construct.
    outputs_.resize(n);
    values_.resize(n);
  }
}

OpKernelContext::~OpKernelContext() = default;

DataType OpKernelContext::input_dtype(int index) const {
  const TensorValue& v = params_->inputs[index];
  return v.is_ref() ? MakeRefType(v.tensor->dtype()) : v.tensor->dtype();
}

const Tensor& OpKernelContext::input(int index) const {
  return *params_->inputs[index].tensor;
}

absl::Status OpKernelContext::input(absl::string_view name,
                                    const Tensor** tensor) const {
  int start, stop;
  SF_RETURN_IF_ERROR(op_kernel().InputRange(name, &start, &stop));
  if (stop != start + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input '", name, "' of ", FormatNodeName(op_kernel().name()),
        " is a list of ", stop - start, " tensors; use input_list"));
  }
  if (start >= num_inputs()) {
    return absl::InternalError(absl::StrCat("Input '", name, "' of ",
                                            FormatNodeName(op_kernel().name()),
                                            " was not provided"));
  }
  *tensor = &input(start);
  return absl::OkStatus();
}

absl::Status OpKernelContext::input_list(
    absl::string_view name, std::vector<const Tensor*>* list) const {
  int start, stop;
  SF_RETURN_IF_ERROR(op_kernel().InputRange(name, &start, &stop));
  if (stop > num_inputs()) {
    return absl::InternalError(absl::StrCat("Input '", name, "' of ",
                                            FormatNodeName(op_kernel().name()),
                                            " was not provided"));
  }
  list->clear();
  for (int i = start; i < stop; ++i) list->push_back(&input(i));
  return absl::OkStatus();
}

Tensor OpKernelContext::mutable_input(int index, bool lock_held) {
  const TensorValue& v = params_->inputs[index];
  if (!v.is_ref() || lock_held) return *v.tensor;
  absl::MutexLock l(v.mutex_if_ref);
  return *v.tensor;
}

absl::Mutex* OpKernelContext::input_ref_mutex(int index) const {
  return params_->inputs[index].mutex_if_ref;
}

void OpKernelContext::replace_ref_input(int index, const Tensor& tensor,
                                        bool lock_held) {
  const TensorValue& v = params_->inputs[index];
  if (!v.is_ref()) {
    SetStatus(absl::InternalError(
        absl::StrCat("replace_ref_input on non-ref input ", index, " of ",
                     FormatNodeName(op_kernel().name()))));
    return;
  }
  if (lock_held) {
    *v.tensor = tensor;
  } else {
    absl::MutexLock l(v.mutex_if_ref);
    *v.tensor = tensor;
  }
}

void OpKernelContext::forward_ref_input_to_ref_output(int input_index,
                                                      int output_index) {
  const TensorValue& v = params_->inputs[input_index];
  if (!v.is_ref()) {
    SetStatus(absl::InternalError(
        absl::StrCat("forward_ref_input_to_ref_output on non-ref input ",
                     input_index, " of ", FormatNodeName(op_kernel().name()))));
    return;
  }
  set_output_ref(output_index, v.mutex_if_ref, v.tensor);
}

DataType OpKernelContext::expected_output_dtype(int index) const {
  return op_kernel().output_type(index);
}

absl::Status OpKernelContext::allocate_output(int index,
                                              const TensorShape& shape,
                                              Tensor** tensor,
                                              TensorFill fill) {
  if (index < 0 || index >= num_outputs()) {
    return absl::InternalError(
        absl::StrCat("allocate_output: output index ", index,
                     " out of range for ", FormatNodeName(op_kernel().name()),
                     " with ", num_outputs(), " outputs"));
  }
  Tensor* value = &values_[index];
  SF_RETURN_IF_ERROR(AttachDef(
      allocate_temp(BaseType(expected_output_dtype(index)), shape, value, fill),
      op_kernel().name()));
  outputs_[index] = TensorValue(value);
  *tensor = value;
  return absl::OkStatus();
}

absl::Status OpKernelContext::allocate_temp(DataType type,
                                            const TensorShape& shape,
                                            Tensor* out, TensorFill fill) {
  if (IsRefType(type) || !DataTypeIsSupported(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot allocate a tensor of type ", DataTypeString(type)));
  }
  absl::Status s = CheckShape(shape);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot allocate a tensor of shape ", shape.DebugString(),
                     ": ", s.message()));
  }
  s = Tensor::Allocate(device()->GetAllocator(), type, shape, out, fill);
  if (absl::IsResourceExhausted(s)) {
    // TensorFlow's form: "... and type float on <device> by allocator cpu".
    std::string message(s.message());
    const size_t at = message.find(" by allocator ");
    if (at != std::string::npos) {
      message.insert(at, absl::StrCat(" on ", device()->name()));
    }
    return absl::ResourceExhaustedError(message);
  }
  return s;
}

void OpKernelContext::set_output(int index, const Tensor& tensor) {
  if (index < 0 || index >= num_outputs()) {
    SetStatus(absl::InternalError(
        absl::StrCat("set_output: output index ", index, " out of range for ",
                     FormatNodeName(op_kernel().name()), " with ",
                     num_outputs(), " outputs")));
    return;
  }
  const DataType expected = BaseType(expected_output_dtype(index));
  if (tensor.dtype() != expected) {
    SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "Output ", index, " of ", FormatNodeName(op_kernel().name()),
        " expects type ", DataTypeString(expected),
        " but got a tensor of type ", DataTypeString(tensor.dtype()))));
    return;
  }
  values_[index] = tensor;
  outputs_[index] = TensorValue(&values_[index]);
}

void OpKernelContext::set_output_ref(int index, absl::Mutex* mu,
                                     Tensor* tensor_for_ref) {
  if (index < 0 || index >= num_outputs()) {
    SetStatus(absl::InternalError(
        absl::StrCat("set_output_ref: output index ", index,
                     " out of range for ", FormatNodeName(op_kernel().name()),
                     " with ", num_outputs(), " outputs")));
    return;
  }
  if (!IsRefType(expected_output_dtype(index))) {
    SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "Output ", index, " of ", FormatNodeName(op_kernel().name()),
        " is not a ref output (type ",
        DataTypeString(expected_output_dtype(index)), ")")));
    return;
  }
  if (mu == nullptr || tensor_for_ref == nullptr) {
    SetStatus(absl::InternalError(
        absl::StrCat("set_output_ref with a null mutex or tensor on ",
                     FormatNodeName(op_kernel().name()))));
    return;
  }
  values_[index] = Tensor();
  outputs_[index] = TensorValue(mu, tensor_for_ref);
}

absl::Status OpKernelContext::forward_input_or_allocate_output(
    int input_index, int output_index, const TensorShape& shape, Tensor** out,
    TensorFill fill) {
  if (input_index >= 0 && input_index < num_inputs() && output_index >= 0 &&
      output_index < num_outputs()) {
    const TensorValue& in = params_->inputs[input_index];
    const DataType expected = BaseType(expected_output_dtype(output_index));
    if (!in.is_ref() && in.tensor != nullptr && in.tensor->IsInitialized() &&
        !IsRefType(expected_output_dtype(output_index)) &&
        in.tensor->dtype() == expected && in.tensor->RefCountIsOne() &&
        CheckShape(shape).ok() &&
        in.tensor->NumElements() == shape.num_elements()) {
      Tensor* value = &values_[output_index];
      if (value->BitcastFrom(*in.tensor, shape).ok()) {
        outputs_[output_index] = TensorValue(value);
        *out = value;
        return absl::OkStatus();
      }
    }
  }
  return allocate_output(output_index, shape, out, fill);
}

TensorValue OpKernelContext::release_output(int index) {
  TensorValue v = outputs_[index];
  outputs_[index] = TensorValue();
  return v;
}

void OpKernelContext::SetStatus(const absl::Status& status) {
  if (status_.ok() && !status.ok()) status_ = status;
}

// ---------------------------------------------------------------------------
// KernelRegistry

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return registry;
}

void KernelRegistry::Register(const KernelDef& def, KernelFactory factory) {
  absl::MutexLock l(&mu_);
  kernels_[def.op].push_back(Entry{def, std::move(factory)});
}

std::vector<KernelDef> KernelRegistry::ListKernels() const {
  absl::MutexLock l(&mu_);
  std::vector<std::string> ops;
  for (const auto& [op, entries] : kernels_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  std::vector<KernelDef> out;
  for (const std::string& op : ops) {
    for (const Entry& e : kernels_.at(op)) out.push_back(e.def);
  }
  return out;
}

namespace {

// The attrs of one NodeDef as kernel constraints see them: a missing attr
// takes its OpDef default. Lookups are remembered, since an op's kernels
// mostly constrain the same attr ("T") and each would look it up again.
class ConstraintAttrs {
 public:
  explicit ConstraintAttrs(const NodeDef& def) : def_(def) {}

  // The value of attr `name`, or its default, or null.
  const AttrValue* Get(const std::string& name) {
    for (const auto& [seen, value] : seen_) {
      if (seen == name) return value;
    }
    const AttrValue* value = Lookup(name);
    seen_.emplace_back(name, value);
    return value;
  }

 private:
  const AttrValue* Lookup(const std::string& name) {
    if (const AttrValue* v = FindNodeAttr(def_, name)) return v;
    if (op_def_ == nullptr) {
      op_def_ = OpRegistry::Global()->LookUpOrNull(def_.op());
    }
    if (op_def_ == nullptr) return nullptr;
    for (const auto& attr : op_def_->attr()) {
      if (attr.name() == name) {
        return attr.has_default_value() ? &attr.default_value() : nullptr;
      }
    }
    return nullptr;
  }

  const NodeDef& def_;
  const OpDef* op_def_ = nullptr;  // Looked up on first use.
  absl::InlinedVector<std::pair<absl::string_view, const AttrValue*>, 4> seen_;
};

// Whether every type constraint of `kdef` holds for the node.
bool ConstraintsMatch(const KernelDef& kdef, ConstraintAttrs* attrs) {
  for (const auto& constraint : kdef.constraints) {
    // Not a structured binding: lambdas may not capture those before C++20
    // (clang rejects it).
    const auto& allowed = constraint.second;
    const AttrValue* v = attrs->Get(constraint.first);
    if (v == nullptr) return false;
    auto ok = [&](int t) {
      return std::find(allowed.begin(), allowed.end(),
                       static_cast<DataType>(t)) != allowed.end();
    };
    if (v->value_case() == AttrValue::kType) {
      if (!ok(v->type())) return false;
    } else if (v->value_case() == AttrValue::kList) {
      for (int t : v->list().type()) {
        if (!ok(t)) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

// `def` with its OpDef's defaults filled in (for messages).
NodeDef WithDefaults(const NodeDef& def) {
  NodeDef out = def;
  if (const OpDef* op_def = OpRegistry::Global()->LookUpOrNull(def.op())) {
    AddDefaultsToNodeDef(*op_def, &out);
  }
  return out;
}

// "(T=DT_STRING, ...)" for the node's type attrs, sorted by name.
std::string TypeAttrSummary(const NodeDef& def) {
  std::map<std::string, std::string> attrs;
  for (const auto& [name, value] : def.attr()) {
    if (value.value_case() == AttrValue::kType ||
        (value.value_case() == AttrValue::kList &&
         value.list().type_size() > 0)) {
      attrs[name] = SummarizeAttrValue(value);
    }
  }
  if (attrs.empty()) return "";
  return absl::StrCat(
      " (", absl::StrJoin(attrs, ", ", absl::PairFormatter("=")), ")");
}

}  // namespace

absl::Status KernelRegistry::FindKernel(absl::string_view device_type,
                                        const NodeDef& def,
                                        const KernelDef** kernel_def,
                                        KernelFactory* factory) const {
  // Constraints are checked against the NodeDef's attrs, a missing one
  // taking its OpDef default (the placer asks this for every node, so it
  // neither copies the NodeDef nor allocates).
  ConstraintAttrs attrs(def);
  absl::MutexLock l(&mu_);
  const Entry* best = nullptr;
  int num_best = 0;
  auto op_kernels = kernels_.find(def.op());
  if (op_kernels != kernels_.end()) {
    for (const Entry& e : op_kernels->second) {
      if (e.def.device_type != device_type) continue;
      if (!ConstraintsMatch(e.def, &attrs)) continue;
      if (best == nullptr || e.def.priority > best->def.priority) {
        best = &e;
        num_best = 1;
      } else if (e.def.priority == best->def.priority) {
        ++num_best;
      }
    }
  }
  if (best == nullptr) {
    // List what is registered for the op, across devices, sorted.
    std::vector<std::string> registered;
    const std::vector<Entry> none;
    for (const Entry& e :
         op_kernels != kernels_.end() ? op_kernels->second : none) {
      std::string desc = absl::StrCat("device='", e.def.device_type, "'");
      for (const auto& [attr, types] : e.def.constraints) {
        absl::StrAppend(&desc, "; ", attr, " in [",
                        absl::StrJoin(types, ", ",
                                      [](std::string* out, DataType t) {
                                        out->append(DataType_Name(t));
                                      }),
                        "]");
      }
      registered.push_back(desc);
    }
    std::sort(registered.begin(), registered.end());
    return absl::NotFoundError(absl::StrCat(
        "No registered '", def.op(), "' OpKernel for ", device_type,
        " devices compatible with node ", FormatNodeName(def.name()),
        TypeAttrSummary(WithDefaults(def)), ". Registered: ",
        registered.empty() ? "<no registered kernels>"
                           : absl::StrJoin(registered, " | ")));
  }
  if (num_best > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Multiple OpKernel registrations with priority ",
                     best->def.priority, " match ", FormatNodeName(def.name()),
                     " (op '", def.op(), "' on ", device_type, ")"));
  }
  if (kernel_def != nullptr) *kernel_def = &best->def;
  if (factory != nullptr) *factory = best->factory;
  return absl::OkStatus();
}

bool KernelRegistry::HasKernel(absl::string_view device_type,
                               const NodeDef& def) const {
  return FindKernel(device_type, def, nullptr, nullptr).ok();
}

namespace {

absl::Status CreateOpKernelImpl(absl::string_view device_type,
                                DeviceBase* device, const NodeDef& def,
                                bool may_borrow_def,
                                std::unique_ptr<OpKernel>* kernel) {
  const OpDef* op_def = nullptr;
  SF_RETURN_IF_ERROR(
      AttachDef(OpRegistry::Global()->LookUp(def.op(), &op_def), def.name()));
  // A NodeDef that lacks defaults is completed in a copy of its own.
  std::unique_ptr<NodeDef> completed;
  if (!may_borrow_def || !HasAllAttrDefaults(*op_def, def)) {
    completed = std::make_unique<NodeDef>(def);
    AddDefaultsToNodeDef(*op_def, completed.get());
  }
  const NodeDef& node = completed != nullptr ? *completed : def;
  SF_RETURN_IF_ERROR(ValidateNodeDef(node, *op_def));
  DataTypeVector inputs, outputs;
  SF_RETURN_IF_ERROR(AttachDef(
      InOutTypesForNode(node, *op_def, &inputs, &outputs), def.name()));
  KernelFactory factory;
  SF_RETURN_IF_ERROR(KernelRegistry::Global()->FindKernel(device_type, node,
                                                          nullptr, &factory));
  OpKernelConstruction ctx(device, &node, op_def, std::move(inputs),
                           std::move(outputs));
  ctx.set_def_outlives_kernel(completed == nullptr);
  std::unique_ptr<OpKernel> made(factory(&ctx));
  if (!ctx.status().ok()) return AttachDef(ctx.status(), def.name());
  if (made == nullptr) {
    return absl::InternalError(absl::StrCat("Kernel factory returned null for ",
                                            FormatNodeName(def.name())));
  }
  *kernel = std::move(made);
  return absl::OkStatus();
}

}  // namespace

absl::Status CreateOpKernel(absl::string_view device_type, DeviceBase* device,
                            const NodeDef& def,
                            std::unique_ptr<OpKernel>* kernel) {
  return CreateOpKernelImpl(device_type, device, def,
                            /*may_borrow_def=*/false, kernel);
}

absl::Status CreateOpKernelBorrowingDef(absl::string_view device_type,
                                        DeviceBase* device, const NodeDef& def,
                                        std::unique_ptr<OpKernel>* kernel) {
  return CreateOpKernelImpl(device_type, device, def,
                            /*may_borrow_def=*/true, kernel);
}

}  // namespace stepflow
