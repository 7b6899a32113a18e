#include "runtime/common/placer.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"
#include "runtime/graph/graph.h"

namespace stepflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Test ops: their kernels never run; only their registration matters.
REGISTER_OP("PTConst").Output("out: float");
REGISTER_OP("PTUnary").Input("in: T").Output("out: T").Attr("T: type");
REGISTER_OP("PTCpuOnly").Input("in: float").Output("out: float");
REGISTER_OP("PTGpuOnly").Input("in: float").Output("out: float");
REGISTER_OP("PTBinary")
    .Input("a: float")
    .Input("b: float")
    .Output("out: float");
REGISTER_OP("PTVariable").Output("ref: Ref(float)").SetIsStateful();
REGISTER_OP("PTAssign")
    .Input("ref: Ref(float)")
    .Input("value: float")
    .Output("out: Ref(float)");
REGISTER_OP("PTHandle").Output("handle: resource").SetIsStateful();
REGISTER_OP("PTRead").Input("handle: resource").Output("value: float");
REGISTER_OP("PTNoKernel").Output("out: float");

class PTKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

REGISTER_KERNEL_BUILDER(Name("PTConst").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTConst").Device("GPU"), PTKernel);
REGISTER_KERNEL_BUILDER(
    Name("PTUnary").Device("CPU").TypeConstraint("T", {DT_FLOAT, DT_INT32}),
    PTKernel);
REGISTER_KERNEL_BUILDER(
    Name("PTUnary").Device("GPU").TypeConstraint<float>("T"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTCpuOnly").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTGpuOnly").Device("GPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTBinary").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTBinary").Device("GPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTVariable").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTVariable").Device("GPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTAssign").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTAssign").Device("GPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTHandle").Device("CPU"), PTKernel);
REGISTER_KERNEL_BUILDER(Name("PTRead").Device("CPU"), PTKernel);

std::string Cpu(int id) {
  return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(id);
}
std::string Gpu(int id) {
  return "/job:localhost/replica:0/task:0/device:GPU:" + std::to_string(id);
}

DeviceAttributes Device(const std::string& name, const std::string& type) {
  DeviceAttributes d;
  d.set_name(name);
  d.set_device_type(type);
  return d;
}

class PlacerTest : public ::testing::Test {
 protected:
  void SetUp() override { UseCpus(4); }

  void UseCpus(int n) {
    devices_.clear();
    for (int i = 0; i < n; ++i) devices_.push_back(Device(Cpu(i), "CPU"));
    client_ = devices_.front();
  }

  // Adds a node; `inputs` are "name" (output 0) data inputs.
  Node* Add(const std::string& name, const std::string& op,
            const std::vector<std::string>& inputs = {},
            const std::string& device = "") {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    def.set_device(device);
    for (const std::string& in : inputs) def.add_input(in);
    if (op == "PTUnary") AddNodeAttr("T", DT_FLOAT, &def);
    return AddDef(def, inputs);
  }

  Node* AddDef(const NodeDef& def, const std::vector<std::string>& inputs) {
    auto node = graph_.AddNode(def);
    EXPECT_TRUE(node.ok()) << node.status();
    if (!node.ok()) return nullptr;
    for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
      Node* src = graph_.FindNodeByName(inputs[i]);
      EXPECT_NE(src, nullptr) << inputs[i];
      if (src != nullptr) graph_.AddEdge(src, 0, *node, i);
    }
    return *node;
  }

  void SetDtype(Node* node, DataType dt) {
    AttrValue v;
    v.set_type(dt);
    node->AddAttr("T", v);
  }

  void Colocate(Node* node, const std::vector<std::string>& with) {
    AttrValue v;
    for (const std::string& w : with) v.mutable_list()->add_s("loc:@" + w);
    node->AddAttr("_class", v);
  }

  absl::Status Place() {
    PlacerOptions opts;
    opts.default_device = use_default_ ? &client_ : nullptr;
    opts.allow_soft_placement = soft_;
    opts.log_device_placement = log_;
    opts.log_sink = [this](const std::string& line) {
      log_lines_.push_back(line);
    };
    return PlaceGraph(opts, devices_, &graph_);
  }

  std::string DeviceOf(const std::string& name) {
    Node* n = graph_.FindNodeByName(name);
    return n == nullptr ? "<missing node>" : n->assigned_device_name();
  }

  void ExpectNothingPlaced() {
    for (const Node* n : graph_.op_nodes()) {
      EXPECT_FALSE(n->has_assigned_device_name()) << n->name();
    }
  }

  Graph graph_;
  std::vector<DeviceAttributes> devices_;
  DeviceAttributes client_;
  bool use_default_ = true;
  bool soft_ = false;
  bool log_ = false;
  std::vector<std::string> log_lines_;
};

TEST_F(PlacerTest, UnconstrainedNodesGoToTheClientDevice) {
  Add("c", "PTConst");
  Add("u", "PTUnary", {"c"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("c"), Cpu(0));
  EXPECT_EQ(DeviceOf("u"), Cpu(0));
}

TEST_F(PlacerTest, EmptyGraphNeedsNoDevices) {
  devices_.clear();
  EXPECT_TRUE(Place().ok());
}

TEST_F(PlacerTest, NoDevicesIsAnError) {
  Add("c", "PTConst");
  devices_.clear();
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node c}}"));
}

TEST_F(PlacerTest, EveryExplicitSpellingReachesTheSameDevice) {
  const std::vector<std::string> specs = {
      "/cpu:1",
      "/CPU:1",
      "/device:CPU:1",
      "/job:localhost/cpu:1",
      "/job:localhost/replica:0/task:0/device:CPU:1",
      "/job:localhost/replica:0/task:0/cpu:1"};
  for (const std::string& spec : specs) {
    Graph fresh;
    std::vector<DeviceAttributes> devices = devices_;
    NodeDef def;
    def.set_name("u");
    def.set_op("PTConst");
    def.set_device(spec);
    ASSERT_TRUE(fresh.AddNode(def).ok());
    PlacerOptions opts;
    opts.default_device = &client_;
    absl::Status s = PlaceGraph(opts, devices, &fresh);
    ASSERT_TRUE(s.ok()) << spec << ": " << s;
    EXPECT_EQ(fresh.FindNodeByName("u")->assigned_device_name(), Cpu(1))
        << spec;
  }
}

TEST_F(PlacerTest, ExplicitRequestsOverFourCpus) {
  Add("a", "PTCpuOnly", {}, "/cpu:3");
  Add("b", "PTConst", {}, "/device:CPU:2");
  Add("d", "PTConst", {}, "/job:localhost");
  // "a" has a dangling input in the graph; placement does not care.
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("a"), Cpu(3));
  EXPECT_EQ(DeviceOf("b"), Cpu(2));
  // A partial spec that matches the client device keeps it.
  EXPECT_EQ(DeviceOf("d"), Cpu(0));
}

TEST_F(PlacerTest, GeneratorFollowsItsConsumers) {
  Add("c", "PTConst");
  Add("u", "PTUnary", {"c"}, "/cpu:2");
  Add("v", "PTUnary", {"c"}, "/cpu:2");
  Add("k", "PTConst");
  Add("x", "PTUnary", {"k"}, "/cpu:1");
  Add("y", "PTUnary", {"k"}, "/cpu:3");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("c"), Cpu(2));
  // Consumers disagree: the generator stays on the client device.
  EXPECT_EQ(DeviceOf("k"), Cpu(0));
}

TEST_F(PlacerTest, ExplicitGeneratorIgnoresItsConsumer) {
  Add("c", "PTConst", {}, "/cpu:1");
  Add("u", "PTUnary", {"c"}, "/cpu:2");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("c"), Cpu(1));
  EXPECT_EQ(DeviceOf("u"), Cpu(2));
}

TEST_F(PlacerTest, WithoutDefaultDeviceTheFirstSortedDeviceWins) {
  devices_ = {Device(Cpu(10), "CPU"), Device(Cpu(3), "CPU"),
              Device(Cpu(2), "CPU")};
  use_default_ = false;
  Add("c", "PTCpuOnly");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("c"), Cpu(2));
}

TEST_F(PlacerTest, GpuIsPreferredOverCpuWhenBothSupportTheNode) {
  devices_ = {Device(Cpu(0), "CPU"), Device(Gpu(1), "GPU"),
              Device(Gpu(0), "GPU")};
  use_default_ = false;
  Add("f", "PTUnary", {}, "/job:localhost");  // float: CPU and GPU kernels
  Node* i = Add("i", "PTUnary", {}, "/job:localhost");
  SetDtype(i, DT_INT32);  // CPU kernel only
  Add("g", "PTGpuOnly");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("f"), Gpu(0));
  EXPECT_EQ(DeviceOf("i"), Cpu(0));
  EXPECT_EQ(DeviceOf("g"), Gpu(0));
}

TEST_F(PlacerTest, ClientDeviceFirstEvenWithGpus) {
  devices_ = {Device(Cpu(0), "CPU"), Device(Gpu(0), "GPU")};
  client_ = devices_[0];
  Add("f", "PTCpuOnly");
  Add("g", "PTGpuOnly", {"f"});
  Add("h", "PTUnary", {}, "/device:GPU:0");
  Add("b", "PTBinary");  // CPU and GPU kernels, no request
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("f"), Cpu(0));
  EXPECT_EQ(DeviceOf("g"), Gpu(0));
  EXPECT_EQ(DeviceOf("h"), Gpu(0));
  EXPECT_EQ(DeviceOf("b"), Cpu(0));
}

TEST_F(PlacerTest, TheClientDeviceNeedNotBeTheFirstDevice) {
  client_ = devices_[2];
  Add("b", "PTBinary");
  Add("p", "PTBinary", {}, "/job:localhost/replica:0");
  Add("e", "PTBinary", {}, "/cpu:1");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("b"), Cpu(2));
  EXPECT_EQ(DeviceOf("p"), Cpu(2));
  EXPECT_EQ(DeviceOf("e"), Cpu(1));
}

TEST_F(PlacerTest, ClassAttrColocatesWithARequestedNode) {
  Add("a", "PTConst", {}, "/cpu:2");
  Node* b = Add("b", "PTUnary", {"a"});
  Colocate(b, {"a"});
  Add("c", "PTConst");
  Node* d = Add("d", "PTUnary", {}, "/cpu:3");
  Colocate(d, {"c"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("a"), Cpu(2));
  EXPECT_EQ(DeviceOf("b"), Cpu(2));
  // The request of a later member moves the whole group.
  EXPECT_EQ(DeviceOf("c"), Cpu(3));
  EXPECT_EQ(DeviceOf("d"), Cpu(3));
}

TEST_F(PlacerTest, ColocationIsTransitive) {
  Add("a", "PTConst");
  Node* b = Add("b", "PTConst");
  Colocate(b, {"a"});
  Node* c = Add("c", "PTConst", {}, "/cpu:1");
  Colocate(c, {"b"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("a"), Cpu(1));
  EXPECT_EQ(DeviceOf("b"), Cpu(1));
  EXPECT_EQ(DeviceOf("c"), Cpu(1));
}

TEST_F(PlacerTest, ConflictingColocationNamesBothNodesAndDevices) {
  Add("a", "PTConst", {}, "/cpu:1");
  Node* b = Add("b", "PTConst", {}, "/cpu:2");
  Colocate(b, {"a"});
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node a}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
  EXPECT_THAT(s.message(), HasSubstr("CPU:1"));
  EXPECT_THAT(s.message(), HasSubstr("CPU:2"));
  ExpectNothingPlaced();
}

TEST_F(PlacerTest,
       ConflictingColocationWithSoftPlacementKeepsTheGroupTogether) {
  soft_ = true;
  Add("a", "PTConst", {}, "/cpu:1");
  Node* b = Add("b", "PTConst", {}, "/cpu:2");
  Colocate(b, {"a"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("a"), Cpu(1));
  EXPECT_EQ(DeviceOf("b"), Cpu(1));
}

TEST_F(PlacerTest, ConflictingJobsFailEvenWithSoftPlacement) {
  soft_ = true;
  Add("a", "PTConst", {}, "/job:localhost/cpu:1");
  Node* b = Add("b", "PTConst", {}, "/job:ps/cpu:1");
  Colocate(b, {"a"});
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node a}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
}

// "loc:@x" where x is not in the graph (fed and pruned away) is the group
// named x: its members stay together, and nothing else joins them.
TEST_F(PlacerTest, ColocationWithANodeNotInTheGraphIsAGroupOfThatName) {
  Node* b = Add("b", "PTConst");
  Colocate(b, {"fed"});
  Node* c = Add("c", "PTUnary", {"b"}, "/cpu:2");
  Colocate(c, {"fed"});
  Node* d = Add("d", "PTConst");
  Colocate(d, {"other_fed"});
  Add("e", "PTConst");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("b"), Cpu(2));
  EXPECT_EQ(DeviceOf("c"), Cpu(2));
  EXPECT_EQ(DeviceOf("d"), Cpu(0));
  EXPECT_EQ(DeviceOf("e"), Cpu(0));
}

TEST_F(PlacerTest, ConflictInAGroupNamedByAnAbsentNodeNamesBothNodes) {
  Node* b = Add("b", "PTConst", {}, "/cpu:1");
  Colocate(b, {"fed"});
  Node* c = Add("c", "PTConst", {}, "/cpu:2");
  Colocate(c, {"fed"});
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node c}}"));
  ExpectNothingPlaced();
}

TEST_F(PlacerTest, NonLocationClassEntriesAreIgnored) {
  Add("a", "PTConst", {}, "/cpu:1");
  Node* b = Add("b", "PTConst");
  AttrValue v;
  v.mutable_list()->add_s("something_else");
  b->AddAttr("_class", v);
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("b"), Cpu(0));
}

TEST_F(PlacerTest, ColocatedNodesWithoutACommonDeviceType) {
  devices_ = {Device(Cpu(0), "CPU"), Device(Gpu(0), "GPU")};
  Add("c", "PTCpuOnly");
  Node* g = Add("g", "PTGpuOnly");
  Colocate(g, {"c"});
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node c}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node g}}"));
}

TEST_F(PlacerTest, RefEdgeColocatesConsumerWithVariable) {
  Add("v", "PTVariable", {}, "/cpu:2");
  Add("c", "PTConst");
  Add("assign", "PTAssign", {"v", "c"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("v"), Cpu(2));
  EXPECT_EQ(DeviceOf("assign"), Cpu(2));
  // The value feeding Assign is a plain input: the generator follows it.
  EXPECT_EQ(DeviceOf("c"), Cpu(2));
}

TEST_F(PlacerTest, RefEdgeMovesAnUnconstrainedVariableToItsConsumer) {
  Add("v", "PTVariable");
  Add("c", "PTConst");
  Add("assign", "PTAssign", {"v", "c"}, "/cpu:3");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("v"), Cpu(3));
  EXPECT_EQ(DeviceOf("assign"), Cpu(3));
}

TEST_F(PlacerTest, RefEdgeProducerRequestWinsOverConsumer) {
  Add("v", "PTVariable", {}, "/cpu:1");
  Add("c", "PTConst");
  Add("assign", "PTAssign", {"v", "c"}, "/cpu:3");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("assign"), Cpu(1));
}

TEST_F(PlacerTest, ResourceEdgeColocatesConsumerWithHandle) {
  Add("h", "PTHandle", {}, "/cpu:1");
  Add("r", "PTRead", {"h"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("h"), Cpu(1));
  EXPECT_EQ(DeviceOf("r"), Cpu(1));
}

TEST_F(PlacerTest, PlainEdgeDoesNotColocate) {
  Add("c", "PTConst", {}, "/cpu:1");
  Add("u", "PTUnary", {"c"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("u"), Cpu(0));
}

TEST_F(PlacerTest, UnknownDeviceNamesNodeAndDevice) {
  Add("u", "PTConst", {}, "/cpu:7");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node u}}"));
  EXPECT_THAT(s.message(), HasSubstr("/device:CPU:7"));
  EXPECT_THAT(s.message(), HasSubstr("no devices matching"));
  EXPECT_THAT(s.message(), HasSubstr(Cpu(3)));  // lists available devices
  ExpectNothingPlaced();
}

TEST_F(PlacerTest, UnknownJobNamesNodeAndDevice) {
  Add("u", "PTConst", {}, "/job:ps/task:0");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node u}}"));
  EXPECT_THAT(s.message(), HasSubstr("/job:ps"));
}

TEST_F(PlacerTest, UnknownDeviceRequestedByAColocatedNode) {
  Add("a", "PTConst");
  Node* b = Add("b", "PTConst", {}, "/cpu:9");
  Colocate(b, {"a"});
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node a}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
  EXPECT_THAT(s.message(), HasSubstr("/device:CPU:9"));
}

TEST_F(PlacerTest, MalformedSpecNamesNodeAndSpec) {
  Add("u", "PTConst", {}, "not a device");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node u}}"));
  EXPECT_THAT(s.message(), HasSubstr("not a device"));
}

TEST_F(PlacerTest, SoftPlacementFallsBackToTheClientDevice) {
  soft_ = true;
  Add("u", "PTConst", {}, "/cpu:7");
  Add("g", "PTConst", {}, "/job:localhost/device:GPU:0");
  Add("j", "PTConst", {}, "/job:ps/cpu:0");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("u"), Cpu(0));
  EXPECT_EQ(DeviceOf("g"), Cpu(0));
  EXPECT_EQ(DeviceOf("j"), Cpu(0));
}

TEST_F(PlacerTest, SoftPlacementKeepsTheTaskWhenItCan) {
  soft_ = true;
  devices_ = {Device("/job:w/replica:0/task:0/device:CPU:0", "CPU"),
              Device("/job:w/replica:0/task:1/device:CPU:0", "CPU")};
  client_ = devices_[0];
  Add("u", "PTConst", {}, "/job:w/task:1/device:CPU:5");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("u"), "/job:w/replica:0/task:1/device:CPU:0");
}

TEST_F(PlacerTest, NoKernelForRequestedTypeIsAnErrorWithoutSoftPlacement) {
  devices_ = {Device(Cpu(0), "CPU"), Device(Gpu(0), "GPU")};
  client_ = devices_[0];
  Node* i = Add("i", "PTUnary", {}, "/device:GPU:0");
  SetDtype(i, DT_INT32);
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node i}}"));
  EXPECT_THAT(s.message(), HasSubstr("PTUnary"));
  EXPECT_THAT(s.message(), HasSubstr("/device:GPU:0"));
  EXPECT_THAT(s.message(), HasSubstr("no supported kernel for GPU devices"));
}

TEST_F(PlacerTest, NoKernelForRequestedTypeFallsBackWithSoftPlacement) {
  soft_ = true;
  devices_ = {Device(Cpu(0), "CPU"), Device(Gpu(0), "GPU")};
  client_ = devices_[0];
  Node* i = Add("i", "PTUnary", {}, "/device:GPU:0");
  SetDtype(i, DT_INT32);
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("i"), Cpu(0));
}

TEST_F(PlacerTest, NoKernelOnAnyDeviceNamesOpAndNode) {
  for (bool soft : {false, true}) {
    Graph fresh;
    NodeDef def;
    def.set_name("s");
    def.set_op("PTUnary");
    AddNodeAttr("T", DT_STRING, &def);
    ASSERT_TRUE(fresh.AddNode(def).ok());
    PlacerOptions opts;
    opts.default_device = &client_;
    opts.allow_soft_placement = soft;
    absl::Status s = PlaceGraph(opts, devices_, &fresh);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << soft;
    EXPECT_THAT(s.message(), HasSubstr("{{node s}}"));
    EXPECT_THAT(s.message(), HasSubstr("PTUnary"));
  }
}

TEST_F(PlacerTest, OpWithoutAnyKernel) {
  Add("n", "PTNoKernel");
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node n}}"));
  EXPECT_THAT(s.message(), HasSubstr("PTNoKernel"));
}

TEST_F(PlacerTest, AssignedNodesKeepTheirDevice) {
  Node* v = Add("v", "PTVariable", {}, "/cpu:1");
  v->set_assigned_device_name(Cpu(3));
  Add("c", "PTConst");
  Add("assign", "PTAssign", {"v", "c"});
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("v"), Cpu(3));
  EXPECT_EQ(DeviceOf("assign"), Cpu(3));
}

TEST_F(PlacerTest, AssignedDeviceWinsOverAConsumerRequestOnARefEdge) {
  Node* v = Add("v", "PTVariable");
  v->set_assigned_device_name(Cpu(2));
  Add("c", "PTConst");
  Add("assign", "PTAssign", {"v", "c"}, "/cpu:1");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(DeviceOf("assign"), Cpu(2));
}

TEST_F(PlacerTest, AssignedDeviceMustExist) {
  Node* v = Add("v", "PTVariable");
  v->set_assigned_device_name(Cpu(9));
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node v}}"));
  EXPECT_THAT(s.message(), HasSubstr(Cpu(9)));
}

TEST_F(PlacerTest, TwoAssignedDevicesInOneGroup) {
  Node* a = Add("a", "PTConst");
  a->set_assigned_device_name(Cpu(1));
  Node* b = Add("b", "PTConst");
  b->set_assigned_device_name(Cpu(2));
  Colocate(b, {"a"});
  soft_ = true;  // Assignments are facts: soft placement does not help.
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("{{node a}}"));
  EXPECT_THAT(s.message(), HasSubstr("{{node b}}"));
  EXPECT_THAT(s.message(), HasSubstr(Cpu(1)));
  EXPECT_THAT(s.message(), HasSubstr(Cpu(2)));
}

TEST_F(PlacerTest, LogsOneLinePerNodeInIdOrder) {
  log_ = true;
  Add("c", "PTConst");
  Add("u", "PTUnary", {"c"}, "/cpu:1");
  Add("z", "PTConst", {}, "/cpu:2");
  ASSERT_TRUE(Place().ok());
  EXPECT_THAT(log_lines_,
              ElementsAre("c: (PTConst): " + Cpu(1), "u: (PTUnary): " + Cpu(1),
                          "z: (PTConst): " + Cpu(2)));
}

TEST_F(PlacerTest, NoLogLinesUnlessAsked) {
  Add("c", "PTConst");
  ASSERT_TRUE(Place().ok());
  EXPECT_TRUE(log_lines_.empty());
}

TEST_F(PlacerTest, InvalidDeviceListIsRejected) {
  Add("c", "PTConst");
  devices_ = {Device("/cpu:0", "CPU")};
  absl::Status s = Place();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("/cpu:0"));
}

TEST_F(PlacerTest, PlacementIsDeterministic) {
  Add("c", "PTConst");
  Add("u", "PTUnary", {"c"}, "/job:localhost");
  Add("v", "PTVariable");
  Add("a", "PTAssign", {"v", "u"}, "/cpu:2");
  Node* w = Add("w", "PTBinary", {"u", "c"});
  Colocate(w, {"a"});
  ASSERT_TRUE(Place().ok());
  std::vector<std::string> first;
  for (const Node* n : graph_.op_nodes()) {
    first.push_back(n->assigned_device_name());
    graph_.FindNodeId(n->id())->set_assigned_device_name("");
  }
  ASSERT_TRUE(Place().ok());
  std::vector<std::string> second;
  for (const Node* n : graph_.op_nodes()) {
    second.push_back(n->assigned_device_name());
  }
  EXPECT_EQ(first, second);
  EXPECT_EQ(DeviceOf("w"), Cpu(2));
  EXPECT_EQ(DeviceOf("v"), Cpu(2));
}

}  // namespace
}  // namespace stepflow
