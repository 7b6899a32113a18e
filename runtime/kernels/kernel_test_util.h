// Test harness for CPU kernels: a fake CPU device (with a ResourceMgr), a
// NodeDef builder, and a runner that creates a kernel through the global
// registries (CreateOpKernel("CPU", ...)), runs it on given input tensors
// and collects outputs and status.
//
// Testonly. Not thread-safe; one runner per test.
#ifndef STEPFLOW_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
#define STEPFLOW_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "proto/device_attributes.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/env/captured_log_sink.h"
#include "runtime/env/env.h"
#include "runtime/framework/call_frame.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/device_base.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/rendezvous.h"
#include "runtime/framework/resource_mgr.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace test {

inline constexpr char kTestDeviceName[] =
    "/job:localhost/replica:0/task:0/device:CPU:0";

class TestCpuDevice : public DeviceBase {
 public:
  TestCpuDevice();
  const DeviceAttributes& attributes() const override { return attrs_; }
  ResourceMgr* resource_manager() override { return &resource_mgr_; }
  Allocator* GetAllocator() override { return allocator_; }
  // Kernels allocate from `allocator` (borrowed) instead of the process's
  // unbudgeted one.
  void set_allocator(Allocator* allocator) { allocator_ = allocator; }

  // Where the test device's kernels log (Print, PrintV2); shared by every
  // test device of the process.
  static CapturedLogSink* TestLogSink();

 private:
  static Env* TestEnv();
  Allocator* allocator_ = cpu_allocator();
  DeviceAttributes attrs_;
  ResourceMgr resource_mgr_;
};

// Fluent NodeDef builder: TestNode("z", "AddV2").Inputs(2).Attr("T", DT_FLOAT)
class TestNode {
 public:
  TestNode(const std::string& name, const std::string& op);
  // Appends n data inputs named "<name>_in<i>".
  TestNode& Inputs(int n);
  template <typename V>
  TestNode& Attr(const std::string& attr, const V& value) {
    AddNodeAttr(attr, value, &def_);
    return *this;
  }
  TestNode& Attr(const std::string& attr, std::initializer_list<int64_t> v) {
    AddNodeAttr(attr, std::vector<int64_t>(v), &def_);
    return *this;
  }
  const NodeDef& def() const { return def_; }
  operator const NodeDef&() const { return def_; }  // NOLINT

 private:
  NodeDef def_;
};

class KernelRunner {
 public:
  KernelRunner() = default;

  // Creates the kernel; the status of CreateOpKernel.
  absl::Status Init(const NodeDef& def);
  OpKernel* kernel() const { return kernel_.get(); }

  // Optional step services (borrowed).
  void set_rendezvous(Rendezvous* r) { rendezvous_ = r; }
  void set_call_frame(CallFrameInterface* f) { call_frame_ = f; }
  void set_cancellation_manager(CancellationManager* cm) { cm_ = cm; }
  void set_frame_iter(FrameAndIter fi) { frame_iter_ = fi; }
  // The device's allocator (borrowed); set before Init.
  void set_allocator(Allocator* allocator) { device_.set_allocator(allocator); }

  // Runs Compute (or ComputeAsync, requiring `done` before returning) on
  // `inputs`; an uninitialized Tensor is passed as is (a dead input).
  // Returns the context's status; outputs() then holds every output
  // (uninitialized where the kernel set none).
  absl::Status Run(const std::vector<Tensor>& inputs);
  // Like Run for async kernels, but returns as soon as ComputeAsync returns;
  // `done_called()` says whether it has completed, `async_status()` the
  // status once it has.
  void StartAsync(const std::vector<Tensor>& inputs);
  bool done_called() const { return *done_; }
  absl::Status async_status();

  const std::vector<Tensor>& outputs() const { return outputs_; }
  const Tensor& output(int i) const { return outputs_[i]; }
  bool output_dead() const { return params_.is_output_dead; }

 private:
  void Prepare(const std::vector<Tensor>& inputs);
  void Collect();

  TestCpuDevice device_;
  std::unique_ptr<OpKernel> kernel_;
  Rendezvous* rendezvous_ = nullptr;
  CallFrameInterface* call_frame_ = nullptr;
  CancellationManager* cm_ = nullptr;
  FrameAndIter frame_iter_;
  std::vector<Tensor> inputs_;
  std::vector<TensorValue> input_values_;
  OpKernelContext::Params params_;
  std::unique_ptr<OpKernelContext> ctx_;
  std::shared_ptr<bool> done_ = std::make_shared<bool>(false);
  std::vector<Tensor> outputs_;
};

// Creates the kernel for `def`, runs it on `inputs`, and stores the outputs.
absl::Status RunKernel(const NodeDef& def, const std::vector<Tensor>& inputs,
                       std::vector<Tensor>* outputs);
// Same, storing only the first output in `*output` (untouched when the
// kernel could not be created).
absl::Status RunKernel(const NodeDef& def, const std::vector<Tensor>& inputs,
                       Tensor* output);

// Runs `def` on `inputs` expecting success (a test failure otherwise):
// every output, or none when the kernel could not be created.
std::vector<Tensor> RunKernelOk(const NodeDef& def,
                                const std::vector<Tensor>& inputs);
// Output `index` of such a run; an uninitialized Tensor when it failed.
Tensor RunKernelOkOutput(const NodeDef& def, const std::vector<Tensor>& inputs,
                         int index = 0);

// Node `name` of op `op` with `num_inputs` data inputs and attr T = `dtype`.
NodeDef TypedNode(const std::string& op, int num_inputs, DataType dtype,
                  const std::string& name = "n");

// Element-wise ops with T = x's dtype: node `name`, first output in `*out`.
absl::Status RunUnary(const std::string& op, const Tensor& x, Tensor* out,
                      const std::string& name = "u");
absl::Status RunBinary(const std::string& op, const Tensor& x, const Tensor& y,
                       Tensor* out, const std::string& name = "z");

// Reduction `op` of `x` over `axes` (Tidx = axes' dtype, T = x's dtype
// except for All and Any, which have no T): node `name`, output in `*out`.
absl::Status RunReduction(const std::string& op, const Tensor& x,
                          const Tensor& axes, bool keep_dims, Tensor* out,
                          const std::string& name = "r");

// Tensor construction and inspection.
template <typename T>
Tensor Make(const TensorShape& shape, const std::vector<T>& values) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.NumElements());
  for (int64_t i = 0; i < t.NumElements() && i < (int64_t)values.size(); ++i) {
    t.base<T>()[i] = values[i];
  }
  return t;
}
template <typename T>
Tensor Scalar(T v) {
  return Tensor::Scalar<T>(v);
}
template <typename T>
Tensor Vec(const std::vector<T>& values) {
  return Make<T>(TensorShape({static_cast<int64_t>(values.size())}), values);
}
template <typename T>
std::vector<T> Values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataTypeToEnum<T>::value);
  if (t.dtype() != DataTypeToEnum<T>::value) return {};
  return std::vector<T>(t.base<T>(), t.base<T>() + t.NumElements());
}

// Expects dtype, shape and values to match exactly.
template <typename T>
void ExpectTensor(const Tensor& actual, const TensorShape& shape,
                  const std::vector<T>& values) {
  EXPECT_EQ(actual.dtype(), DataTypeToEnum<T>::value);
  EXPECT_EQ(actual.shape().DebugString(), shape.DebugString());
  EXPECT_EQ(Values<T>(actual), values);
}
// Same for float-like types with a tolerance.
template <typename T>
void ExpectTensorNear(const Tensor& actual, const TensorShape& shape,
                      const std::vector<double>& values, double tol) {
  EXPECT_EQ(actual.dtype(), DataTypeToEnum<T>::value);
  EXPECT_EQ(actual.shape().DebugString(), shape.DebugString());
  std::vector<T> got = Values<T>(actual);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(got[i]), values[i], tol) << "at " << i;
  }
}

// Expects `s` to have `code` and to mention every string in `parts`.
void ExpectError(const absl::Status& s, absl::StatusCode code,
                 const std::vector<std::string>& parts);

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_KERNEL_TEST_UTIL_H_
