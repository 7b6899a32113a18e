#include "runtime/kernels/kernel_test_util.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace stepflow {
namespace test {

CapturedLogSink* TestCpuDevice::TestLogSink() {
  static CapturedLogSink* sink = new CapturedLogSink();
  return sink;
}

Env* TestCpuDevice::TestEnv() {
  // Kernels under test need no services but the log sink.
  static Env* env = [] {
    Env* e = new Env();
    e->log_sink = TestLogSink();
    return e;
  }();
  return env;
}

TestCpuDevice::TestCpuDevice() : DeviceBase(TestEnv()) {
  attrs_.set_name(kTestDeviceName);
  attrs_.set_device_type(DEVICE_CPU);
  attrs_.set_incarnation(1);
}

TestNode::TestNode(const std::string& name, const std::string& op) {
  def_.set_name(name);
  def_.set_op(op);
}

TestNode& TestNode::Inputs(int n) {
  for (int i = 0; i < n; ++i) {
    def_.add_input(absl::StrCat(def_.name(), "_in", i));
  }
  return *this;
}

absl::Status KernelRunner::Init(const NodeDef& def) {
  kernel_.reset();
  return CreateOpKernel(DEVICE_CPU, &device_, def, &kernel_);
}

void KernelRunner::Prepare(const std::vector<Tensor>& inputs) {
  inputs_ = inputs;
  input_values_.clear();
  for (Tensor& t : inputs_) input_values_.emplace_back(&t);
  params_ = OpKernelContext::Params();
  params_.step_id = 1;
  params_.op_kernel = kernel_.get();
  params_.device = &device_;
  params_.inputs = input_values_;
  params_.rendezvous = rendezvous_;
  params_.call_frame = call_frame_;
  params_.cancellation_manager = cm_;
  params_.frame_iter = frame_iter_;
  outputs_.clear();
  ctx_ = std::make_unique<OpKernelContext>(&params_);
  *done_ = false;
}

void KernelRunner::Collect() {
  outputs_.assign(kernel_->num_outputs(), Tensor());
  for (int i = 0; i < kernel_->num_outputs(); ++i) {
    if (!ctx_->has_output(i)) continue;
    TensorValue v = ctx_->release_output(i);
    outputs_[i] = *v.tensor;
  }
}

absl::Status KernelRunner::Run(const std::vector<Tensor>& inputs) {
  if (kernel_ == nullptr) return absl::FailedPreconditionError("no kernel");
  Prepare(inputs);
  if (AsyncOpKernel* async = kernel_->AsAsync()) {
    auto done = done_;
    async->ComputeAsync(ctx_.get(), [done] { *done = true; });
    if (!*done_) return absl::InternalError("async kernel did not complete");
  } else {
    kernel_->Compute(ctx_.get());
  }
  Collect();
  return ctx_->status();
}

void KernelRunner::StartAsync(const std::vector<Tensor>& inputs) {
  Prepare(inputs);
  auto done = done_;
  kernel_->AsAsync()->ComputeAsync(ctx_.get(), [done] { *done = true; });
}

absl::Status KernelRunner::async_status() {
  if (!*done_) return absl::InternalError("not done");
  Collect();
  return ctx_->status();
}

absl::Status RunKernel(const NodeDef& def, const std::vector<Tensor>& inputs,
                       std::vector<Tensor>* outputs) {
  KernelRunner runner;
  absl::Status s = runner.Init(def);
  if (!s.ok()) return s;
  s = runner.Run(inputs);
  *outputs = runner.outputs();
  return s;
}

absl::Status RunKernel(const NodeDef& def, const std::vector<Tensor>& inputs,
                       Tensor* output) {
  std::vector<Tensor> outputs;
  absl::Status s = RunKernel(def, inputs, &outputs);
  if (!outputs.empty()) *output = outputs[0];
  return s;
}

std::vector<Tensor> RunKernelOk(const NodeDef& def,
                                const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs;
  absl::Status s = RunKernel(def, inputs, &outputs);
  EXPECT_TRUE(s.ok()) << s;
  return outputs;
}

Tensor RunKernelOkOutput(const NodeDef& def, const std::vector<Tensor>& inputs,
                         int index) {
  std::vector<Tensor> outputs;
  absl::Status s = RunKernel(def, inputs, &outputs);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? outputs[index] : Tensor();
}

NodeDef TypedNode(const std::string& op, int num_inputs, DataType dtype,
                  const std::string& name) {
  return TestNode(name, op).Inputs(num_inputs).Attr("T", dtype);
}

absl::Status RunUnary(const std::string& op, const Tensor& x, Tensor* out,
                      const std::string& name) {
  return RunKernel(TypedNode(op, 1, x.dtype(), name), {x}, out);
}

absl::Status RunBinary(const std::string& op, const Tensor& x, const Tensor& y,
                       Tensor* out, const std::string& name) {
  return RunKernel(TypedNode(op, 2, x.dtype(), name), {x, y}, out);
}

absl::Status RunReduction(const std::string& op, const Tensor& x,
                          const Tensor& axes, bool keep_dims, Tensor* out,
                          const std::string& name) {
  TestNode node(name, op);
  node.Inputs(2).Attr("Tidx", axes.dtype()).Attr("keep_dims", keep_dims);
  if (op != "All" && op != "Any") node.Attr("T", x.dtype());
  return RunKernel(node, {x, axes}, out);
}

void ExpectError(const absl::Status& s, absl::StatusCode code,
                 const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), code) << s;
  for (const std::string& p : parts) {
    EXPECT_TRUE(absl::StrContains(s.message(), p))
        << "missing '" << p << "' in: " << s.message();
  }
}

}  // namespace test
}  // namespace stepflow
