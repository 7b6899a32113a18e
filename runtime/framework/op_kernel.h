// OpKernel: the computation behind one node on one device, and the
// registry that picks a kernel for (op, device type, attr types).
//
// Lifetime: a kernel is created once per (session, partition, node) by the
// executor (CreateOpKernel) and reused for every step; Compute may run
// concurrently for different steps, so kernels keep no per-step state in
// members (stateful kernels guard their members).
//
// Errors: a kernel reports failure with ctx->SetStatus (OP_REQUIRES*
// macros); the executor then aborts the step. Kernels never throw and never
// crash on bad inputs: wrong shapes/dtypes are InvalidArgument naming the
// node.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_OP_KERNEL_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_OP_KERNEL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"
#include "runtime/env/env.h"
#include "runtime/framework/call_frame.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/device_base.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/types.h"

namespace stepflow {

class OpKernelContext;
class AsyncOpKernel;
class FunctionLibraryRuntime;
class StepStatsCollector;

// Everything a kernel may look at while being constructed. `op_def` must
// outlive the kernel (the op registry's OpDefs live for the process).
class OpKernelConstruction {
 public:
  OpKernelConstruction(DeviceBase* device, const NodeDef* def,
                       const OpDef* op_def, DataTypeVector input_types,
                       DataTypeVector output_types)
      : device_(device),
        def_(def),
        op_def_(op_def),
        input_types_(std::move(input_types)),
        output_types_(std::move(output_types)) {}

  DeviceBase* device() const { return device_; }
  Env* env() const { return device_->env(); }
  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }
  const std::string& name() const { return def_->name(); }
  const std::string& type_string() const { return def_->op(); }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  template <typename T>
  absl::Status GetAttr(absl::string_view attr_name, T* value) const {
    return GetNodeAttr(*def_, attr_name, value);
  }
  bool HasAttr(absl::string_view attr_name) const {
    return HasNodeAttr(*def_, attr_name);
  }

  void SetStatus(const absl::Status& s) {
    if (status_.ok()) status_ = s;
  }
  const absl::Status& status() const { return status_; }

  // Whether def() outlives the kernel being constructed, so the kernel may
  // keep a reference to it instead of a copy (an executor's kernels and the
  // graph it owns). Default false.
  bool def_outlives_kernel() const { return def_outlives_kernel_; }
  void set_def_outlives_kernel(bool v) { def_outlives_kernel_ = v; }

 private:
  DeviceBase* const device_;
  const NodeDef* const def_;
  bool def_outlives_kernel_ = false;
  const OpDef* const op_def_;
  const DataTypeVector input_types_;
  const DataTypeVector output_types_;
  absl::Status status_;
};

class OpKernel {
 public:
  // Subclasses read attrs in their constructor and report problems with
  // ctx->SetStatus (OP_REQUIRES_OK); a failed construction fails the step
  // set-up with that status.
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(OpKernelContext* ctx) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }

  // Cheap kernels (false) may run inline on the executor's thread instead
  // of being scheduled. Default: true (expensive).
  virtual bool IsExpensive() const { return true; }

  const NodeDef& def() const { return def_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const std::string& requested_device() const { return def_.device(); }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  bool is_stateful() const { return is_stateful_; }

  // Input/output arg name -> flat index range.
  absl::Status InputRange(absl::string_view name, int* start, int* stop) const;
  absl::Status OutputRange(absl::string_view name, int* start, int* stop) const;

 private:
  // The kernel's own copy of its NodeDef; null when the construction said
  // the NodeDef outlives the kernel (a large graph's NodeDefs then exist
  // once, in the graph, rather than twice).
  const std::unique_ptr<const NodeDef> owned_def_;
  const NodeDef& def_;
  // The kernel's OpDef, from the op registry, which outlives every kernel.
  const OpDef* const op_def_;
  const DataTypeVector input_types_;
  const DataTypeVector output_types_;
  // Flat index ranges of the OpDef's input/output args, by arg position
  // (InputRange/OutputRange find the position by name in the OpDef).
  ArgRanges input_ranges_;
  ArgRanges output_ranges_;
  const bool is_stateful_;
};

// A kernel that completes later (Recv, anything waiting on I/O). It must
// call `done` exactly once, after setting outputs/status; `done` may run on
// any thread.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;

  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() final { return this; }
  // Runs ComputeAsync; if `done` has not run by the time ComputeAsync
  // returns, sets an Internal "async kernel used synchronously" status
  // (the runtime never blocks). Never used by the executor.
  void Compute(OpKernelContext* ctx) final;
};

// A tensor flowing into a kernel: a value, or for ref inputs a pointer to
// the variable's tensor plus the mutex guarding it.
struct TensorValue {
  TensorValue() = default;
  explicit TensorValue(Tensor* t) : tensor(t) {}
  TensorValue(absl::Mutex* mu, Tensor* t) : mutex_if_ref(mu), tensor(t) {}
  bool is_ref() const { return mutex_if_ref != nullptr; }
  Tensor* operator->() const { return tensor; }

  absl::Mutex* mutex_if_ref = nullptr;
  Tensor* tensor = nullptr;
};

// Per-invocation context: inputs, outputs, and the step's services.
class OpKernelContext {
 public:
  struct Params {
    int64_t step_id = 0;
    OpKernel* op_kernel = nullptr;
    DeviceBase* device = nullptr;
    // Inputs, one per kernel input; entries may not be null.
    absl::Span<const TensorValue> inputs;
    Rendezvous* rendezvous = nullptr;
    CallFrameInterface* call_frame = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    ScopedStepContainer* step_container = nullptr;
    // The device's function runtime (call kernels) and the step's stats
    // collector (null when the step is not traced); both may be null.
    FunctionLibraryRuntime* function_library = nullptr;
    StepStatsCollector* stats_collector = nullptr;
    // What the executor prepends to node names in step stats ("c/" inside
    // the body of call node c); empty outside function bodies.
    absl::string_view stats_name_prefix;
    FrameAndIter frame_iter;
    // Set by kernels (Recv) whose output value is dead.
    bool is_output_dead = false;
  };

  explicit OpKernelContext(Params* params);
  ~OpKernelContext();

  // Step services.
  Env* env() const { return params_->device->env(); }
  DeviceBase* device() const { return params_->device; }
  int64_t step_id() const { return params_->step_id; }
  Rendezvous* rendezvous() const { return params_->rendezvous; }
  CallFrameInterface* call_frame() const { return params_->call_frame; }
  CancellationManager* cancellation_manager() const {
    return params_->cancellation_manager;
  }
  ScopedStepContainer* step_container() const {
    return params_->step_container;
  }
  FunctionLibraryRuntime* function_library() const {
    return params_->function_library;
  }
  StepStatsCollector* stats_collector() const {
    return params_->stats_collector;
  }
  absl::string_view stats_name_prefix() const {
    return params_->stats_name_prefix;
  }
  ResourceMgr* resource_manager() const {
    return params_->device->resource_manager();
  }
  const FrameAndIter& frame_iter() const { return params_->frame_iter; }
  OpKernel& op_kernel() const { return *params_->op_kernel; }
  bool* is_output_dead() { return &params_->is_output_dead; }

  // Inputs.
  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  DataType input_dtype(int index) const;
  bool input_is_ref(int index) const { return params_->inputs[index].is_ref(); }
  // The value of input `index` (for ref inputs, the referenced tensor).
  const Tensor& input(int index) const;
  // Named input of a single-tensor arg. InvalidArgument if unknown or a list.
  absl::Status input(absl::string_view name, const Tensor** tensor) const;
  // All tensors of a list arg (e.g. "values: N * T").
  absl::Status input_list(absl::string_view name,
                          std::vector<const Tensor*>* list) const;
  // For ref inputs: the variable's tensor. `lock_held` says the caller holds
  // input_ref_mutex(index); otherwise a copy is taken under the lock.
  Tensor mutable_input(int index, bool lock_held);
  absl::Mutex* input_ref_mutex(int index) const;
  // Replaces the referenced tensor (Assign with a new shape).
  void replace_ref_input(int index, const Tensor& tensor, bool lock_held);
  // Passes ref input `input_index` through as ref output `output_index`.
  void forward_ref_input_to_ref_output(int input_index, int output_index);

  // Outputs.
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType expected_output_dtype(int index) const;
  // Allocates output `index` (zero-filled unless `fill` is kUninitialized:
  // see TensorFill) and returns it.
  absl::Status allocate_output(int index, const TensorShape& shape,
                               Tensor** tensor,
                               TensorFill fill = TensorFill::kZeros);
  absl::Status allocate_temp(DataType type, const TensorShape& shape,
                             Tensor* out, TensorFill fill = TensorFill::kZeros);
  // Sets output `index`; InvalidArgument through status() on dtype mismatch.
  void set_output(int index, const Tensor& tensor);
  void set_output_ref(int index, absl::Mutex* mu, Tensor* tensor_for_ref);
  // Reuses input `input_index`'s buffer for output `output_index` when this
  // kernel holds its only reference; otherwise allocates. Returns the output.
  absl::Status forward_input_or_allocate_output(
      int input_index, int output_index, const TensorShape& shape, Tensor** out,
      TensorFill fill = TensorFill::kZeros);

  // Executor side: output `index` if set (tensor == nullptr otherwise) and
  // whether it is a ref. A non-ref output's tensor is held by this context
  // until it is destroyed: move or copy it out. A ref output points at the
  // variable's tensor. Either way the output reads as unset afterwards.
  TensorValue release_output(int index);
  bool has_output(int index) const { return outputs_[index].tensor != nullptr; }

  // Status.
  void SetStatus(const absl::Status& status);
  const absl::Status& status() const { return status_; }

 private:
  Params* params_;
  absl::Status status_;
  // Output i is outputs_[i]: unset (null), a ref to a variable's tensor,
  // or &values_[i]. Sized once at construction (pointers stay valid);
  // inline for the usual handful of outputs, so a kernel call allocates
  // nothing here.
  absl::InlinedVector<TensorValue, 4> outputs_;
  absl::InlinedVector<Tensor, 4> values_;
};

#define OP_REQUIRES(CTX, EXP, STATUS) \
  do {                                \
    if (!(EXP)) {                     \
      (CTX)->SetStatus(STATUS);       \
      return;                         \
    }                                 \
  } while (0)

#define OP_REQUIRES_OK(CTX, ...)    \
  do {                              \
    ::absl::Status _s(__VA_ARGS__); \
    if (!_s.ok()) {                 \
      (CTX)->SetStatus(_s);         \
      return;                       \
    }                               \
  } while (0)

#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK) \
  do {                                                \
    if (!(EXP)) {                                     \
      (CTX)->SetStatus(STATUS);                       \
      (CALLBACK)();                                   \
      return;                                         \
    }                                                 \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK) \
  do {                                              \
    ::absl::Status _s(STATUS);                      \
    if (!_s.ok()) {                                 \
      (CTX)->SetStatus(_s);                         \
      (CALLBACK)();                                 \
      return;                                       \
    }                                               \
  } while (0)

// ---------------------------------------------------------------------------
// Kernel registration.

struct KernelDef {
  std::string op;
  std::string device_type;
  // attr name -> allowed types (for type attrs).
  std::vector<std::pair<std::string, std::vector<DataType>>> constraints;
  // Input/output arg names that live in host memory on non-CPU devices.
  std::vector<std::string> host_memory_args;
  int priority = 0;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(const char* op_name) { def_.op = op_name; }
  KernelDefBuilder& Device(const char* device_type) {
    def_.device_type = device_type;
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(const char* attr_name) {
    return TypeConstraint(attr_name, {DataTypeToEnum<T>::value});
  }
  KernelDefBuilder& TypeConstraint(const char* attr_name,
                                   std::vector<DataType> allowed) {
    def_.constraints.emplace_back(attr_name, std::move(allowed));
    return *this;
  }
  KernelDefBuilder& HostMemory(const char* arg_name) {
    def_.host_memory_args.emplace_back(arg_name);
    return *this;
  }
  KernelDefBuilder& Priority(int priority) {
    def_.priority = priority;
    return *this;
  }
  const KernelDef& Build() const { return def_; }

 private:
  KernelDef def_;
};
// TensorFlow spelling:
// REGISTER_KERNEL_BUILDER(Name("Add").Device(DEVICE_CPU)...)
using Name = KernelDefBuilder;

using KernelFactory = std::function<OpKernel*(OpKernelConstruction*)>;

class KernelRegistry {
 public:
  static KernelRegistry* Global();

  void Register(const KernelDef& def, KernelFactory factory);

  // The best kernel for `def` (attrs defaulted) on `device_type`: every
  // constraint satisfied, highest priority. NotFound naming the op, the
  // device type and the attrs otherwise ("No registered 'Foo' OpKernel for
  // CPU devices compatible with node {{node x}} ... (T=DT_STRING)").
  absl::Status FindKernel(absl::string_view device_type, const NodeDef& def,
                          const KernelDef** kernel_def,
                          KernelFactory* factory) const;
  bool HasKernel(absl::string_view device_type, const NodeDef& def) const;

  // Every registered kernel, sorted by op, in registration order per op.
  std::vector<KernelDef> ListKernels() const;

 private:
  struct Entry {
    KernelDef def;
    KernelFactory factory;
  };
  mutable absl::Mutex mu_;
  // By op name; each op's kernels in registration order.
  absl::flat_hash_map<std::string, std::vector<Entry>> kernels_
      ABSL_GUARDED_BY(mu_);
};

// Looks up the op (OpRegistry::Global()), validates `def`, computes its
// types, finds and constructs the kernel. Any failure is returned with the
// node named; `*kernel` is set only on success.
absl::Status CreateOpKernel(absl::string_view device_type, DeviceBase* device,
                            const NodeDef& def,
                            std::unique_ptr<OpKernel>* kernel);

// As CreateOpKernel, but when `def` already carries every attr default (as
// an imported graph's NodeDefs do) the kernel keeps a reference to `def`
// instead of a copy: `def` must then outlive the kernel.
absl::Status CreateOpKernelBorrowingDef(absl::string_view device_type,
                                        DeviceBase* device, const NodeDef& def,
                                        std::unique_ptr<OpKernel>* kernel);

namespace kernel_factory {
struct KernelRegistrar {
  KernelRegistrar(const KernelDef& def, KernelFactory factory) {
    KernelRegistry::Global()->Register(def, std::move(factory));
  }
};
}  // namespace kernel_factory

#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  REGISTER_KERNEL_BUILDER_UNIQ_HELPER(__COUNTER__, kernel_builder, __VA_ARGS__)
#define REGISTER_KERNEL_BUILDER_UNIQ_HELPER(ctr, kernel_builder, ...) \
  REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, __VA_ARGS__)
#define REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, ...)   \
  static ::stepflow::kernel_factory::KernelRegistrar             \
      registrar__body__##ctr##__object __attribute__((unused)) ( \
          ::stepflow::KernelDefBuilder(kernel_builder).Build(),  \
          [](::stepflow::OpKernelConstruction* context)          \
              -> ::stepflow::OpKernel* { return new __VA_ARGS__(context); })

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_OP_KERNEL_H_
