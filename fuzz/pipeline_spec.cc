#include "fuzz/pipeline_spec.h"

#include "absl/strings/str_cat.h"
#include "proto/tensor.pb.h"
#include "proto/types.pb.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/versions.h"

namespace stepflow::fuzzing {
namespace {

constexpr const char* kOpNames[kNumSpecOps] = {
    "Const",         "Placeholder", "Identity",   "AddV2",  "Mul",
    "NoOp",          "Switch",      "Merge",      "Enter",  "Exit",
    "NextIteration", "LoopCond",    "VariableV2", "Assign",
};

DataType SpecDtype(int dtype) {
  switch (dtype) {
    case 1:
      return DT_INT32;
    case 2:
      return DT_BOOL;
    default:
      return DT_FLOAT;
  }
}

int NumDataInputs(const NodeSpec& n) {
  switch (n.op) {
    case kIdentity:
    case kEnter:
    case kExit:
    case kNextIteration:
    case kLoopCond:
      return 1;
    case kAddV2:
    case kMul:
    case kSwitch:
    case kAssign:
      return 2;
    case kMerge:
      return n.merge_n;
    default:
      return 0;
  }
}

TensorProto ScalarProto(DataType dtype, int value) {
  TensorProto t;
  t.set_dtype(dtype);
  t.mutable_tensor_shape();  // Scalar.
  switch (dtype) {
    case DT_INT32:
      t.add_int_val(value - 128);
      break;
    case DT_BOOL:
      t.add_bool_val((value & 1) != 0);
      break;
    default:
      t.add_float_val(static_cast<float>(value) / 16.0f);
      break;
  }
  return t;
}

}  // namespace

PipelineSpec DecodePipelineSpec(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  PipelineSpec spec;
  TransferPipelineSpec(in, &spec);
  return spec;
}

std::string EncodePipelineSpec(const PipelineSpec& spec) {
  FuzzOutput out;
  PipelineSpec copy = spec;
  TransferPipelineSpec(out, &copy);
  return out.bytes();
}

std::string SpecNodeName(const PipelineSpec& spec, int node) {
  if (node >= 0 && node < static_cast<int>(spec.nodes.size())) {
    return absl::StrCat("n", node);
  }
  return "missing";
}

std::string LocalCpuName(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

std::string DeviceRequest(const NodeSpec& n) {
  const int k = n.device_index;
  switch (n.device) {
    case 1:
      return absl::StrCat("/cpu:", k);
    case 2:
      return absl::StrCat("/device:CPU:", k);
    case 3:
      return LocalCpuName(k);
    case 4:
      return "/job:localhost";
    case 5:
      return "/device:CPU:*";
    case 6:
      return absl::StrCat("/device:GPU:", k);
    case 7:
      return absl::StrCat("/job:other/device:CPU:", k);
    case 8:
      return "not a device";
    default:
      return "";
  }
}

std::string EndpointName(const PipelineSpec& spec, const EndpointSpec& e) {
  const std::string node = SpecNodeName(spec, e.node);
  if (e.output == 0 && e.bare) return node;
  return absl::StrCat(node, ":", e.output);
}

GraphDef BuildGraphDef(const PipelineSpec& spec) {
  GraphDef gdef;
  gdef.mutable_versions()->set_producer(kGraphDefVersion);
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& n = spec.nodes[i];
    NodeDef* def = gdef.add_node();
    def->set_name(SpecNodeName(spec, static_cast<int>(i)));
    def->set_op(kOpNames[n.op]);
    def->set_device(DeviceRequest(n));
    const DataType dtype = SpecDtype(n.dtype);
    const int num_inputs = NumDataInputs(n);
    for (int k = 0; k < num_inputs; ++k) {
      const InputSpec& in = n.inputs[k];
      const std::string src = SpecNodeName(spec, in.node);
      def->add_input(in.output == 0 ? src : absl::StrCat(src, ":", in.output));
    }
    for (int k = 0; k < n.num_control; ++k) {
      def->add_input(absl::StrCat("^", SpecNodeName(spec, n.control[k])));
    }
    switch (n.op) {
      case kConst:
        AddNodeAttr("dtype", dtype, def);
        AddNodeAttr("value", ScalarProto(dtype, n.value), def);
        break;
      case kPlaceholder:
        AddNodeAttr("dtype", dtype, def);
        break;
      case kVariableV2:
        AddNodeAttr("dtype", dtype, def);
        AddNodeAttr("shape", TensorShape(), def);
        break;
      case kMerge:
        AddNodeAttr("T", dtype, def);
        AddNodeAttr("N", static_cast<int64_t>(n.merge_n), def);
        break;
      case kEnter:
        AddNodeAttr("T", dtype, def);
        AddNodeAttr("frame_name", n.frame == 1 ? "f1" : "f0", def);
        AddNodeAttr("is_constant", n.frame == 2, def);
        break;
      case kNoOp:
      case kLoopCond:
        break;
      default:
        AddNodeAttr("T", dtype, def);
        break;
    }
    if (n.colocate > 0) {
      AddNodeAttr("_class",
                  std::vector<std::string>{absl::StrCat(
                      "loc:@", SpecNodeName(spec, n.colocate - 1))},
                  def);
    }
  }
  return gdef;
}

}  // namespace stepflow::fuzzing
