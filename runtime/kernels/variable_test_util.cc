#include "runtime/kernels/variable_test_util.h"

#include "runtime/kernels/variable.h"

namespace stepflow {
namespace test {
VariableTestEnvHolder::VariableTestEnvHolder(uint64_t random_seed)
    : random(std::make_unique<SeededRandom>(random_seed)) {
  test_env.random = random.get();
}

uint64_t SeededRandom::New64() {
  ++draws_;
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

VariableTestDevice::VariableTestDevice(const std::string& name,
                                       uint64_t random_seed)
    : VariableTestEnvHolder(random_seed), DeviceBase(&test_env) {
  attrs_.set_name(name);
  attrs_.set_device_type(DEVICE_CPU);
  attrs_.set_incarnation(1);
}

RefKernelRunner::RefKernelRunner(DeviceBase* device) : device_(device) {
  if (device_ == nullptr) {
    own_device_ = std::make_unique<VariableTestDevice>();
    device_ = own_device_.get();
  }
}

absl::Status RefKernelRunner::Init(const NodeDef& def) {
  kernel_.reset();
  return CreateOpKernel(DEVICE_CPU, device_, def, &kernel_);
}

absl::Status RefKernelRunner::Run(const std::vector<TensorValue>& inputs) {
  if (kernel_ == nullptr) return absl::FailedPreconditionError("no kernel");
  values_.clear();
  values_.reserve(inputs.size());
  inputs_.clear();
  for (const TensorValue& v : inputs) {
    if (v.is_ref()) {
      inputs_.push_back(v);
    } else {
      values_.push_back(*v.tensor);
      inputs_.emplace_back(&values_.back());
    }
  }
  OpKernelContext::Params params;
  params.step_id = 1;
  params.op_kernel = kernel_.get();
  params.device = device_;
  params.inputs = inputs_;
  OpKernelContext ctx(&params);
  kernel_->Compute(&ctx);
  outputs_.assign(kernel_->num_outputs(), Tensor());
  refs_.assign(kernel_->num_outputs(), TensorValue());
  for (int i = 0; i < kernel_->num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    TensorValue v = ctx.release_output(i);
    if (v.is_ref()) {
      refs_[i] = v;
    } else {
      outputs_[i] = std::move(*v.tensor);
    }
  }
  return ctx.status();
}

absl::Status RefKernelRunner::RunValues(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> copies = inputs;
  std::vector<TensorValue> values;
  for (Tensor& t : copies) values.emplace_back(&t);
  return Run(values);
}

Tensor RefKernelRunner::output(int i) const {
  if (refs_[i].is_ref()) {
    absl::ReaderMutexLock l(refs_[i].mutex_if_ref);
    return *refs_[i].tensor;
  }
  return outputs_[i];
}

Tensor VarHandle(DeviceBase* device, const std::string& name, DataType dtype) {
  return MakeVarHandleTensor(device->name(),
                             device->resource_manager()->default_container(),
                             name, dtype, PartialTensorShape());
}

}  // namespace test
}  // namespace stepflow
