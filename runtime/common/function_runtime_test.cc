// LocalFunctionRuntime on its own: instantiation caching, errors, running
// a body with a call frame, nesting through call kernels, cancellation.
#include "runtime/common/function_runtime.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "google/protobuf/text_format.h"
#include "runtime/common/cpu_device.h"
#include "runtime/env/notification.h"
#include "runtime/env/real/real_env.h"
#include "runtime/framework/cancellation.h"

namespace stepflow {
namespace {

// Double(x) = x + x; Quad(x) = Double(Double(x)), its calls kept as kernels
// (Double is _noinline); Spin(x) loops forever (cond is always true).
constexpr char kLibrary[] = R"pb(
  function {
    signature {
      name: "Double"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    attr {
      key: "_noinline"
      value { b: true }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "x"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature {
      name: "Quad"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def { name: "a" op: "Double" input: "x" }
    node_def { name: "b" op: "Double" input: "a:y:0" }
    ret { key: "y" value: "b:y:0" }
  }
  function {
    signature {
      name: "True"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "c" type: DT_BOOL }
    }
    node_def {
      name: "t"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_BOOL }
      }
      attr {
        key: "value"
        value { tensor { dtype: DT_BOOL bool_val: true } }
      }
    }
    ret { key: "c" value: "t:output:0" }
  }
  function {
    signature {
      name: "Spin"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "loop"
      op: "While"
      input: "x"
      attr {
        key: "T"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "cond"
        value { func { name: "True" } }
      }
      attr {
        key: "body"
        value { func { name: "Double" } }
      }
    }
    ret { key: "y" value: "loop:output:0" }
  }
)pb";

class FunctionRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(2);
    device_ = std::make_unique<CpuDevice>(
        env_->env(),
        Device::BuildDeviceAttributes(
            "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 1 << 30, 1));
    FunctionDefLibrary library;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(kLibrary, &library));
    runtime_ = std::make_unique<LocalFunctionRuntime>(device_.get(),
                                                      OpRegistry::Global());
    runtime_->AddFunctions(library);
  }

  absl::Status Call(FunctionLibraryRuntime::Handle h, std::vector<Tensor> args,
                    std::vector<Tensor>* rets,
                    CancellationManager* cm = nullptr) {
    FunctionLibraryRuntime::Options opts;
    opts.cancellation_manager = cm;
    opts.caller = "call";
    Notification n;
    absl::Status result;
    runtime_->Run(opts, h, std::move(args), rets, [&](const absl::Status& s) {
      result = s;
      n.Notify();
    });
    env_->env()->scheduler->WaitFor(&n);
    return result;
  }

  std::unique_ptr<RealEnv> env_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<LocalFunctionRuntime> runtime_;
};

TEST_F(FunctionRuntimeTest, InstantiatesOncePerFunctionAndAttrs) {
  FunctionLibraryRuntime::Handle a, b, c;
  FunctionLibraryRuntime::AttrMap attrs;
  ASSERT_TRUE(runtime_->Instantiate("Double", attrs, &a).ok());
  ASSERT_TRUE(runtime_->Instantiate("Double", attrs, &b).ok());
  EXPECT_EQ(a, b);
  attrs["unused"].set_i(1);
  ASSERT_TRUE(runtime_->Instantiate("Double", attrs, &c).ok());
  EXPECT_NE(a, c);
  EXPECT_EQ(runtime_->NumInstantiated(), 2u);
  EXPECT_EQ(runtime_->ArgTypes(a), DataTypeVector{DT_FLOAT});
  EXPECT_EQ(runtime_->RetTypes(a), DataTypeVector{DT_FLOAT});
}

TEST_F(FunctionRuntimeTest, UnknownFunctionIsNotFound) {
  FunctionLibraryRuntime::Handle h;
  absl::Status s = runtime_->Instantiate("Nope", {}, &h);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
}

TEST_F(FunctionRuntimeTest, RunsTheBodyAndNestedCallKernels) {
  FunctionLibraryRuntime::Handle h;
  ASSERT_TRUE(runtime_->Instantiate("Quad", {}, &h).ok());
  std::vector<Tensor> rets;
  absl::Status s = Call(h, {Tensor::Scalar<float>(1.5f)}, &rets);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_EQ(rets[0].scalar<float>(), 6.0f);
  // Quad, and Double on the first run of its call kernels.
  EXPECT_EQ(runtime_->NumInstantiated(), 2u);
}

TEST_F(FunctionRuntimeTest, WrongArgumentsAreInvalidArgument) {
  FunctionLibraryRuntime::Handle h;
  ASSERT_TRUE(runtime_->Instantiate("Double", {}, &h).ok());
  std::vector<Tensor> rets;
  EXPECT_EQ(Call(h, {}, &rets).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Call(h, {Tensor::Scalar<int32_t>(1)}, &rets).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Call(99, {Tensor::Scalar<float>(1)}, &rets).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(FunctionRuntimeTest, CancellingTheCallerStopsALoopingBody) {
  FunctionLibraryRuntime::Handle h;
  ASSERT_TRUE(runtime_->Instantiate("Spin", {}, &h).ok());
  CancellationManager cm;
  env_->env()->scheduler->ScheduleAfter(20 * 1000 * 1000,
                                        [&cm] { cm.StartCancel(); });
  std::vector<Tensor> rets;
  absl::Status s = Call(h, {Tensor::Scalar<float>(1)}, &rets, &cm);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
}

}  // namespace
}  // namespace stepflow
