// Placement of graphs built from the real op and CPU kernel registrations.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/common/placer.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Cpu(int id) {
  return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(id);
}

class PlacerRealOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) {
      DeviceAttributes d;
      d.set_name(Cpu(i));
      d.set_device_type("CPU");
      devices_.push_back(d);
    }
  }

  Node* Const(const std::string& name, float value) {
    NodeDef def;
    def.set_name(name);
    def.set_op("Const");
    TensorProto t;
    t.set_dtype(DT_FLOAT);
    t.add_float_val(value);
    AddNodeAttr("value", t, &def);
    AddNodeAttr("dtype", DT_FLOAT, &def);
    return AddNode(def, {});
  }

  Node* Op(const std::string& name, const std::string& op,
           const std::vector<Node*>& inputs, const std::string& device = "") {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    def.set_device(device);
    for (Node* in : inputs) def.add_input(in->name());
    AddNodeAttr("T", DT_FLOAT, &def);
    return AddNode(def, inputs);
  }

  Node* AddNode(const NodeDef& def, const std::vector<Node*>& inputs) {
    auto node = graph_.AddNode(def);
    EXPECT_TRUE(node.ok()) << node.status();
    if (!node.ok()) return nullptr;
    for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
      graph_.AddEdge(inputs[i], 0, *node, i);
    }
    return *node;
  }

  absl::Status Place(bool soft = false) {
    PlacerOptions opts;
    opts.default_device = &devices_[0];
    opts.allow_soft_placement = soft;
    opts.log_device_placement = true;
    opts.log_sink = [this](const std::string& l) { log_.push_back(l); };
    return PlaceGraph(opts, devices_, &graph_);
  }

  Graph graph_;
  std::vector<DeviceAttributes> devices_;
  std::vector<std::string> log_;
};

TEST_F(PlacerRealOpsTest, AddOnARequestedCpuPullsItsConstants) {
  Node* x = Const("x", 1.0f);
  Node* y = Const("y", 2.0f);
  Node* z = Op("z", "AddV2", {x, y}, "/cpu:2");
  Op("out", "Identity", {z});
  ASSERT_TRUE(Place().ok());
  EXPECT_THAT(
      log_, ElementsAre("x: (Const): " + Cpu(2), "y: (Const): " + Cpu(2),
                        "z: (AddV2): " + Cpu(2), "out: (Identity): " + Cpu(0)));
}

TEST_F(PlacerRealOpsTest, UnknownCpuFailsOrFallsBack) {
  Node* x = Const("x", 1.0f);
  Op("id", "Identity", {x}, "/job:localhost/replica:0/task:0/device:CPU:7");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node id}}"));
  EXPECT_THAT(s.message(), HasSubstr("/device:CPU:7"));
  log_.clear();
  ASSERT_TRUE(Place(/*soft=*/true).ok());
  EXPECT_THAT(
      log_, ElementsAre("x: (Const): " + Cpu(0), "id: (Identity): " + Cpu(0)));
}

TEST_F(PlacerRealOpsTest, GpuRequestWithoutGpusFallsBackOnlyWhenSoft) {
  Node* x = Const("x", 1.0f);
  x->set_requested_device("/gpu:0");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node x}}"));
  EXPECT_THAT(s.message(), HasSubstr("/device:GPU:0"));
  ASSERT_TRUE(Place(/*soft=*/true).ok());
  EXPECT_EQ(x->assigned_device_name(), Cpu(0));
}

}  // namespace
}  // namespace stepflow
