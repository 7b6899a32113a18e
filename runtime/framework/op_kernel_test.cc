#include "runtime/framework/op_kernel.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "runtime/env/env.h"
#include "runtime/framework/op.h"

namespace stepflow {
namespace {

class TestDevice : public DeviceBase {
 public:
  explicit TestDevice(Env* env) : DeviceBase(env) {
    attrs_.set_name("/job:localhost/replica:0/task:0/device:CPU:0");
    attrs_.set_device_type(DEVICE_CPU);
  }
  const DeviceAttributes& attributes() const override { return attrs_; }
  ResourceMgr* resource_manager() override { return &rm_; }

 private:
  DeviceAttributes attrs_;
  ResourceMgr rm_;
};

REGISTER_OP("OpKernelTestAdd")
    .Input("a: T")
    .Input("b: T")
    .Output("sum: T")
    .Attr("T: {float, int32, string}")
    .Attr("scale: int = 1");

REGISTER_OP("OpKernelTestAssign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("out: Ref(T)")
    .Attr("T: type")
    .SetIsStateful();

REGISTER_OP("OpKernelTestList")
    .Input("values: N * T")
    .Input("extra: int32")
    .Output("count: int32")
    .Attr("N: int")
    .Attr("T: type");

REGISTER_OP("OpKernelTestNoKernel").Output("y: float");

REGISTER_OP("OpKernelTestBadCtor").Output("y: float").Attr("fail: bool = true");

REGISTER_OP("OpKernelTestAsync").Output("y: int32").Attr("complete: bool");

template <typename T>
class AddKernel : public OpKernel {
 public:
  explicit AddKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("scale", &scale_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                absl::InvalidArgumentError("shape mismatch"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, a.shape(), &out));
    auto o = out->flat<T>();
    auto x = a.flat<T>();
    auto y = b.flat<T>();
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      o(i) = static_cast<T>((x(i) + y(i)) * static_cast<T>(scale_));
    }
  }
  int64_t scale_ = 1;
};
REGISTER_KERNEL_BUILDER(
    Name("OpKernelTestAdd").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    AddKernel<float>);
REGISTER_KERNEL_BUILDER(
    Name("OpKernelTestAdd").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    AddKernel<int32_t>);

// Two int32 kernels: the higher priority one must win.
class PriorityAddKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(-1));
  }
};
REGISTER_KERNEL_BUILDER(Name("OpKernelTestAdd")
                            .Device(DEVICE_GPU)
                            .TypeConstraint<int32_t>("T")
                            .Priority(1),
                        PriorityAddKernel);
REGISTER_KERNEL_BUILDER(Name("OpKernelTestAdd")
                            .Device(DEVICE_GPU)
                            .TypeConstraint<int32_t>("T")
                            .Priority(5),
                        AddKernel<int32_t>);

// A kernel constrained on a type attr that has a default.
REGISTER_OP("OpKernelTestDefaultType")
    .Output("y: T")
    .Attr("T: {float, int32} = DT_FLOAT");
REGISTER_KERNEL_BUILDER(Name("OpKernelTestDefaultType")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        PriorityAddKernel);

class AssignKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::MutexLock l(ctx->input_ref_mutex(0));
    ctx->replace_ref_input(0, ctx->input(1), /*lock_held=*/true);
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};
REGISTER_KERNEL_BUILDER(Name("OpKernelTestAssign").Device(DEVICE_CPU),
                        AssignKernel);

class ListKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<const Tensor*> values;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
    const Tensor* extra = nullptr;
    OP_REQUIRES_OK(ctx, ctx->input("extra", &extra));
    const Tensor* bad = nullptr;
    absl::Status s = ctx->input("values", &bad);
    OP_REQUIRES(ctx, !s.ok(), absl::InternalError("list used as single"));
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(values.size()) +
                                   extra->scalar<int32_t>()));
  }
};
REGISTER_KERNEL_BUILDER(Name("OpKernelTestList").Device(DEVICE_CPU),
                        ListKernel);

class BadCtorKernel : public OpKernel {
 public:
  explicit BadCtorKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool fail = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fail", &fail));
    if (fail) ctx->SetStatus(absl::InvalidArgumentError("constructor refused"));
  }
  void Compute(OpKernelContext*) override {}
};
REGISTER_KERNEL_BUILDER(Name("OpKernelTestBadCtor").Device(DEVICE_CPU),
                        BadCtorKernel);

class AsyncKernel : public AsyncOpKernel {
 public:
  explicit AsyncKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("complete", &complete_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (complete_) {
      ctx->set_output(0, Tensor::Scalar<int32_t>(5));
      done();
    } else {
      pending_ = std::move(done);  // Would complete later.
    }
  }
  bool complete_ = false;
  DoneCallback pending_;
};
REGISTER_KERNEL_BUILDER(Name("OpKernelTestAsync").Device(DEVICE_CPU),
                        AsyncKernel);

class OpKernelTest : public ::testing::Test {
 protected:
  NodeDef Node(const std::string& name, const std::string& op,
               std::vector<std::string> inputs) {
    NodeDef n;
    n.set_name(name);
    n.set_op(op);
    for (auto& in : inputs) n.add_input(in);
    return n;
  }

  std::unique_ptr<OpKernel> Create(const NodeDef& n,
                                   const char* device_type = DEVICE_CPU) {
    std::unique_ptr<OpKernel> k;
    absl::Status s = CreateOpKernel(device_type, &device_, n, &k);
    EXPECT_TRUE(s.ok()) << s;
    return k;
  }

  Env env_;
  TestDevice device_{&env_};
};

TEST_F(OpKernelTest, CreateAndComputeWithDefaults) {
  NodeDef n = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name(), "add");
  EXPECT_EQ(k->type_string(), "OpKernelTestAdd");
  EXPECT_TRUE(HasNodeAttr(k->def(), "scale"));  // Defaults filled in.
  EXPECT_EQ(k->input_types(), (DataTypeVector{DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(k->output_types(), (DataTypeVector{DT_FLOAT}));
  EXPECT_FALSE(k->is_stateful());
  int start, stop;
  ASSERT_TRUE(k->InputRange("b", &start, &stop).ok());
  EXPECT_EQ(start, 1);
  EXPECT_EQ(stop, 2);
  EXPECT_EQ(k->OutputRange("nope", &start, &stop).code(),
            absl::StatusCode::kInvalidArgument);

  Tensor a = Tensor::Vector<float>({1, 2});
  Tensor a_alias = a;  // A second reference: `a` must not be forwarded.
  Tensor b = Tensor::Vector<float>({10, 20});
  TensorValue inputs[] = {TensorValue(&a), TensorValue(&b)};
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  k->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  ASSERT_TRUE(ctx.has_output(0));
  TensorValue out = ctx.release_output(0);
  EXPECT_FALSE(ctx.has_output(0));
  ASSERT_NE(out.tensor, nullptr);
  EXPECT_FALSE(out.is_ref());
  EXPECT_EQ(out.tensor->SummarizeValue(10), "[11 22]");
  EXPECT_FALSE(out.tensor->SharesBufferWith(a));
  EXPECT_EQ(a_alias.SummarizeValue(10), "[1 2]");
}

TEST_F(OpKernelTest, BorrowsACompleteNodeDefAndCopiesAnIncompleteOne) {
  NodeDef complete = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_FLOAT, &complete);
  NodeDef incomplete = complete;
  const OpDef* op_def = nullptr;
  ASSERT_TRUE(OpRegistry::Global()->LookUp("OpKernelTestAdd", &op_def).ok());
  AddDefaultsToNodeDef(*op_def, &complete);

  std::unique_ptr<OpKernel> borrowed;
  ASSERT_TRUE(
      CreateOpKernelBorrowingDef(DEVICE_CPU, &device_, complete, &borrowed)
          .ok());
  EXPECT_EQ(&borrowed->def(), &complete);  // No copy of its own.

  // A NodeDef without its defaults is completed in the kernel's own copy.
  std::unique_ptr<OpKernel> completed;
  ASSERT_TRUE(
      CreateOpKernelBorrowingDef(DEVICE_CPU, &device_, incomplete, &completed)
          .ok());
  EXPECT_NE(&completed->def(), &incomplete);
  EXPECT_TRUE(HasNodeAttr(completed->def(), "scale"));
  EXPECT_FALSE(HasNodeAttr(incomplete, "scale"));

  // CreateOpKernel always copies.
  std::unique_ptr<OpKernel> copied = Create(complete);
  EXPECT_NE(&copied->def(), &complete);

  // Arg ranges by name work the same either way.
  for (OpKernel* k : {borrowed.get(), completed.get(), copied.get()}) {
    int start, stop;
    ASSERT_TRUE(k->InputRange("a", &start, &stop).ok());
    EXPECT_EQ(start, 0);
    EXPECT_EQ(stop, 1);
    ASSERT_TRUE(k->OutputRange("sum", &start, &stop).ok())
        << k->OutputRange("sum", &start, &stop);
    EXPECT_EQ(stop - start, 1);
    absl::Status s = k->InputRange("nope", &start, &stop);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("'nope'"), std::string::npos) << s;
    EXPECT_NE(s.message().find("add"), std::string::npos) << s;
  }
}

TEST_F(OpKernelTest, ForwardsSoleReferenceInput) {
  NodeDef n = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_INT32, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  Tensor a = Tensor::Vector<int32_t>({1, 2});
  Tensor b = Tensor::Vector<int32_t>({3, 4});
  const void* a_data = a.raw_data();
  TensorValue inputs[] = {TensorValue(&a), TensorValue(&b)};
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  k->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok());
  Tensor* out = ctx.release_output(0).tensor;  // Held by ctx.
  EXPECT_EQ(out->raw_data(), a_data);
  EXPECT_EQ(out->SummarizeValue(10), "[4 6]");
}

TEST_F(OpKernelTest, HighestPriorityKernelWins) {
  NodeDef n = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_INT32, &n);
  AddDefaultsToNodeDef(*OpRegistry::Global()->LookUpOrNull("OpKernelTestAdd"),
                       &n);
  const KernelDef* kdef = nullptr;
  KernelFactory factory;
  ASSERT_TRUE(KernelRegistry::Global()
                  ->FindKernel(DEVICE_GPU, n, &kdef, &factory)
                  .ok());
  EXPECT_EQ(kdef->priority, 5);
  EXPECT_TRUE(KernelRegistry::Global()->HasKernel(DEVICE_CPU, n));
  // Defaults are applied by FindKernel itself.
  NodeDef no_defaults = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_INT32, &no_defaults);
  EXPECT_TRUE(KernelRegistry::Global()->HasKernel(DEVICE_CPU, no_defaults));
}

TEST_F(OpKernelTest, ConstraintOnAMissingAttrUsesItsDefault) {
  const KernelRegistry* registry = KernelRegistry::Global();
  NodeDef defaulted = Node("d", "OpKernelTestDefaultType", {});
  EXPECT_TRUE(registry->HasKernel(DEVICE_CPU, defaulted));
  EXPECT_EQ(defaulted.attr_size(), 0);  // The caller's NodeDef is untouched.
  NodeDef as_int = defaulted;
  AddNodeAttr("T", DT_INT32, &as_int);
  EXPECT_FALSE(registry->HasKernel(DEVICE_CPU, as_int));
  NodeDef as_float = defaulted;
  AddNodeAttr("T", DT_FLOAT, &as_float);
  EXPECT_TRUE(registry->HasKernel(DEVICE_CPU, as_float));
  // The NotFound message shows the attrs with their defaults.
  const absl::Status s =
      registry->FindKernel(DEVICE_GPU, defaulted, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("T=DT_FLOAT"), std::string::npos) << s;
  EXPECT_NE(s.message().find("device='CPU'; T in [DT_FLOAT]"),
            std::string::npos)
      << s;
}

TEST_F(OpKernelTest, KernelNotFoundNamesOpDeviceAndAttrs) {
  NodeDef n = Node("strs", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_STRING, &n);
  std::unique_ptr<OpKernel> k;
  absl::Status s = CreateOpKernel(DEVICE_CPU, &device_, n, &k);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("'OpKernelTestAdd'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("CPU devices"), std::string::npos) << s;
  EXPECT_NE(s.message().find("{{node strs}}"), std::string::npos) << s;
  EXPECT_NE(s.message().find("T=DT_STRING"), std::string::npos) << s;
  EXPECT_EQ(k, nullptr);

  NodeDef none = Node("nk", "OpKernelTestNoKernel", {});
  s = CreateOpKernel("TPU", &device_, none, &k);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("TPU"), std::string::npos) << s;
}

TEST_F(OpKernelTest, CreateErrors) {
  std::unique_ptr<OpKernel> k;
  absl::Status s = CreateOpKernel(DEVICE_CPU, &device_,
                                  Node("u", "NoSuchOpAnywhere", {}), &k);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("Op type not registered 'NoSuchOpAnywhere'"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("{{node u}}"), std::string::npos) << s;

  NodeDef bad_inputs = Node("add", "OpKernelTestAdd", {"x"});
  AddNodeAttr("T", DT_FLOAT, &bad_inputs);
  s = CreateOpKernel(DEVICE_CPU, &device_, bad_inputs, &k);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("{{node add}}"), std::string::npos) << s;

  s = CreateOpKernel(DEVICE_CPU, &device_,
                     Node("bc", "OpKernelTestBadCtor", {}), &k);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("constructor refused"), std::string::npos) << s;
  EXPECT_NE(s.message().find("{{node bc}}"), std::string::npos) << s;
  EXPECT_EQ(k, nullptr);
}

TEST_F(OpKernelTest, RefInputsAndOutputs) {
  NodeDef n = Node("assign", "OpKernelTestAssign", {"v", "x"});
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  EXPECT_TRUE(k->is_stateful());
  EXPECT_EQ(k->input_types(), (DataTypeVector{DT_FLOAT_REF, DT_FLOAT}));
  EXPECT_EQ(k->output_types(), (DataTypeVector{DT_FLOAT_REF}));

  absl::Mutex var_mu;
  Tensor var;  // Uninitialized variable.
  Tensor value = Tensor::Vector<float>({7, 8, 9});
  TensorValue inputs[] = {TensorValue(&var_mu, &var), TensorValue(&value)};
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  EXPECT_TRUE(ctx.input_is_ref(0));
  EXPECT_FALSE(ctx.input_is_ref(1));
  EXPECT_EQ(ctx.input_ref_mutex(0), &var_mu);
  k->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(var.SummarizeValue(10), "[7 8 9]");
  EXPECT_EQ(ctx.input_dtype(0), DT_FLOAT_REF);
  EXPECT_EQ(&ctx.input(0), &var);  // input() of a ref returns the variable.
  Tensor copy = ctx.mutable_input(0, /*lock_held=*/false);
  EXPECT_TRUE(copy.SharesBufferWith(var));
  TensorValue out = ctx.release_output(0);
  EXPECT_TRUE(out.is_ref());
  EXPECT_EQ(out.tensor, &var);
  EXPECT_EQ(out.mutex_if_ref, &var_mu);
}

TEST_F(OpKernelTest, ListInputs) {
  NodeDef n = Node("list", "OpKernelTestList", {"a", "b", "c", "e"});
  AddNodeAttr("N", 3, &n);
  AddNodeAttr("T", DT_BOOL, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  Tensor t = Tensor::Scalar<bool>(true);
  Tensor extra = Tensor::Scalar<int32_t>(100);
  TensorValue inputs[] = {TensorValue(&t), TensorValue(&t), TensorValue(&t),
                          TensorValue(&extra)};
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  k->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  Tensor* out = ctx.release_output(0).tensor;  // Held by ctx.
  EXPECT_EQ(out->scalar<int32_t>(), 103);
}

TEST_F(OpKernelTest, OutputChecks) {
  NodeDef n = Node("add", "OpKernelTestAdd", {"x", "y"});
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  Tensor a = Tensor::Vector<float>({1});
  TensorValue inputs[] = {TensorValue(&a), TensorValue(&a)};
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  EXPECT_EQ(ctx.expected_output_dtype(0), DT_FLOAT);

  Tensor* out = nullptr;
  ASSERT_TRUE(ctx.allocate_output(0, TensorShape({2, 2}), &out).ok());
  EXPECT_EQ(out->dtype(), DT_FLOAT);
  EXPECT_EQ(out->SummarizeValue(10), "[[0 0][0 0]]");
  EXPECT_EQ(ctx.allocate_output(0, TensorShape({-1}), &out).code(),
            absl::StatusCode::kInvalidArgument);
  Tensor temp;
  EXPECT_EQ(ctx.allocate_temp(DT_QINT8, TensorShape({1}), &temp).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(ctx.allocate_temp(DT_STRING, TensorShape({1}), &temp).ok());
  EXPECT_EQ(temp.dtype(), DT_STRING);
  EXPECT_TRUE(ctx.status().ok());

  ctx.set_output(0, Tensor::Scalar<int32_t>(1));  // Wrong dtype.
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ctx.status().message().find("{{node add}}"), std::string::npos);
  ctx.SetStatus(absl::InternalError("second"));  // First error wins.
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  // The earlier allocated output stays set until released.
  ASSERT_TRUE(ctx.has_output(0));
  Tensor* released = ctx.release_output(0).tensor;  // Held by ctx.
  EXPECT_EQ(released->NumElements(), 4);
}

TEST_F(OpKernelTest, AsyncKernelUsedSynchronously) {
  NodeDef n = Node("async", "OpKernelTestAsync", {});
  AddNodeAttr("complete", true, &n);
  std::unique_ptr<OpKernel> k = Create(n);
  ASSERT_NE(k->AsAsync(), nullptr);
  OpKernelContext::Params params;
  params.op_kernel = k.get();
  params.device = &device_;
  {
    OpKernelContext ctx(&params);
    k->Compute(&ctx);
    EXPECT_TRUE(ctx.status().ok()) << ctx.status();
    Tensor* out = ctx.release_output(0).tensor;  // Held by ctx.
    EXPECT_EQ(out->scalar<int32_t>(), 5);
  }
  AddNodeAttr("complete", false, &n);
  std::unique_ptr<OpKernel> pending = Create(n);
  OpKernelContext ctx(&params);
  params.op_kernel = pending.get();
  OpKernelContext ctx2(&params);
  pending->Compute(&ctx2);
  EXPECT_EQ(ctx2.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(ctx2.status().message().find("async kernel used synchronously"),
            std::string::npos);
  // Completing later is harmless.
  static_cast<AsyncKernel*>(pending.get())->pending_();
}

}  // namespace
}  // namespace stepflow
