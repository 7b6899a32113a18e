// Per-step resources through DirectSession: a TensorArray and a stack made
// in a step live in the step's container and are gone when the step ends
// (left unclosed, failed or not), so every step starts afresh and nothing
// leaks into the device's ResourceMgr.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "runtime/common/device.h"
#include "runtime/common/device_mgr.h"
#include "runtime/common/direct_session.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_test_util.h"

namespace stepflow {
namespace {

using test::ParseGraphDefOrFail;

// StackV2 + one push, TensorArrayV3 of size 2 + one write; the stack's
// max_size is fed (pushing twice into max_size 1 fails the step).
constexpr char kGraph[] = R"pb(
  node {
    name: 'max_size'
    op: 'Placeholder'
    attr {
      key: 'dtype'
      value { type: DT_INT32 }
    }
  }
  node {
    name: 'x'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 1.5
        }
      }
    }
  }
  node {
    name: 'n'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_INT32 }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 2
        }
      }
    }
  }
  node {
    name: 's'
    op: 'StackV2'
    input: 'max_size'
    attr {
      key: 'elem_type'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'push'
    op: 'StackPushV2'
    input: 's'
    input: 'x'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'push2'
    op: 'StackPushV2'
    input: 's'
    input: 'x'
    input: '^push'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'ta'
    op: 'TensorArrayV3'
    input: 'n'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'i'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_INT32 }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 0
        }
      }
    }
  }
  node {
    name: 'w'
    op: 'TensorArrayWriteV3'
    input: 'ta'
    input: 'i'
    input: 'x'
    input: 'ta:1'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node { name: 'size' op: 'TensorArraySizeV3' input: 'ta' input: 'w' }
)pb";

size_t LiveResources(const DirectSession& session) {
  size_t n = 0;
  for (Device* d : session.device_mgr()->ListDevices()) {
    n += d->resource_manager()->NumResources();
  }
  return n;
}

Tensor Int32(int v) { return Tensor::Scalar<int32_t>(v); }

TEST(StepResourcesSessionTest, DroppedWhenTheStepEnds) {
  auto env = RealEnv::Create(2);
  SessionOptions opts;
  opts.env = env->env();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(NewSession(opts, &session).ok());
  ASSERT_TRUE(session->Create(ParseGraphDefOrFail(kGraph)).ok());
  auto* direct = dynamic_cast<DirectSession*>(session.get());
  ASSERT_NE(direct, nullptr);
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    absl::Status s =
        session->Run({{"max_size", Int32(-1)}}, {"push2", "size"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[1].scalar<int32_t>(), 2);
    EXPECT_EQ(LiveResources(*direct), 0u) << "step " << step;
  }
  // A failing step (the second push overflows) drops its resources too.
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"max_size", Int32(1)}}, {"push2"}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "overflowed its max_size")) << s;
  EXPECT_EQ(LiveResources(*direct), 0u);
}

}  // namespace
}  // namespace stepflow
