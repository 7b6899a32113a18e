// NodeDef helpers: attr access, default filling, validation against an
// OpDef, and input/output type computation.
//
// Error codes: a missing attr is NotFound; an attr of the wrong kind, a type
// outside the allowed set, a value below the minimum, or a wrong number of
// inputs is InvalidArgument. Messages name the node (SummarizeNodeDef).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_NODE_DEF_UTIL_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_NODE_DEF_UTIL_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/types.h"

namespace stepflow {

// InvalidArgument unless `name` matches [A-Za-z0-9.][A-Za-z0-9_./-]*.
// (Internal ops' names such as "_SOURCE" or "_arg_x_0_0" are produced by
// the runtime itself and are not checked here.)
absl::Status ValidateNodeName(absl::string_view name);

// "{{node <name>}} = <op>[attrs](inputs) @ <device>" style summary for
// error messages.
std::string SummarizeNodeDef(const NodeDef& def);
// "{{node <name>}}": how every error names a node.
std::string FormatNodeName(absl::string_view name);

// `status` with the node it came from attached, TensorFlow's AttachDef: the
// same code, the message followed by "\n\t [[{{node <name>}}]]". The one way
// runtime code names the node of an error it passes on (kernels, kernel
// construction, sessions); messages that name a node where they are built
// use FormatNodeName instead.
//  * OK stays OK.
//  * A message that already names a node (contains "{{node ") keeps that
//    node as the one tools and tests pick out: as in TensorFlow, only the
//    plain name is appended ("\n\t [[<name>]]").
//  * Attaching the node a message already names ("{{node <name>}}") is a
//    no-op, so a kernel's own tagged error passes unchanged through the
//    framework's attach on the way out (TensorFlow would repeat the name).
// Pure function; thread-safe.
absl::Status AttachDef(const absl::Status& status, absl::string_view node_name);
inline absl::Status AttachDef(const absl::Status& status, const NodeDef& def) {
  return AttachDef(status, def.name());
}
// Short text of an attr value: 3, 1.5, true, "s", DT_FLOAT, [2,3], [1, 2].
std::string SummarizeAttrValue(const AttrValue& value);
// The kind of value `v` holds, as an OpDef attr type string: "int",
// "list(float)", "list" for an empty list, "<unset>" for none.
std::string AttrValueKind(const AttrValue& v);

// Attr getters. NotFound if absent; InvalidArgument if the wrong kind.
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::string* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         int64_t* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         int32_t* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, float* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name, bool* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         DataType* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         TensorShape* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         PartialTensorShape* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         TensorProto* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<std::string>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int64_t>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<int32_t>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<float>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<DataType>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<TensorShape>* v);
absl::Status GetNodeAttr(const NodeDef& def, absl::string_view name,
                         std::vector<PartialTensorShape>* v);
bool HasNodeAttr(const NodeDef& def, absl::string_view name);
const AttrValue* FindNodeAttr(const NodeDef& def, absl::string_view name);

// Setters (overwrite).
void AddNodeAttr(absl::string_view name, const std::string& v, NodeDef* def);
void AddNodeAttr(absl::string_view name, const char* v, NodeDef* def);
void AddNodeAttr(absl::string_view name, int64_t v, NodeDef* def);
void AddNodeAttr(absl::string_view name, int v, NodeDef* def);
void AddNodeAttr(absl::string_view name, float v, NodeDef* def);
void AddNodeAttr(absl::string_view name, bool v, NodeDef* def);
void AddNodeAttr(absl::string_view name, DataType v, NodeDef* def);
void AddNodeAttr(absl::string_view name, const TensorShape& v, NodeDef* def);
void AddNodeAttr(absl::string_view name, const TensorProto& v, NodeDef* def);
void AddNodeAttr(absl::string_view name, const std::vector<std::string>& v,
                 NodeDef* def);
void AddNodeAttr(absl::string_view name, const std::vector<int64_t>& v,
                 NodeDef* def);
void AddNodeAttr(absl::string_view name, const std::vector<DataType>& v,
                 NodeDef* def);
void AddNodeAttr(absl::string_view name, const AttrValue& v, NodeDef* def);

// Fills attrs that `op_def` gives defaults for and `def` lacks.
void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* def);
// Whether AddDefaultsToNodeDef would leave `def` unchanged.
bool HasAllAttrDefaults(const OpDef& op_def, const NodeDef& def);

// Checks `def` against `op_def`: op name matches, every attr without a
// default is present and of the right kind, no unknown attrs (except ones
// starting with '_'), allowed-values and minimums hold, and the number of
// data inputs equals what the op's input args expand to. Control inputs
// ("^x") must follow all data inputs.
absl::Status ValidateNodeDef(const NodeDef& def, const OpDef& op_def);

// Input and output dtypes of `def` (ref types for Ref() args).
absl::Status InOutTypesForNode(const NodeDef& def, const OpDef& op_def,
                               DataTypeVector* inputs, DataTypeVector* outputs);
absl::Status OutputTypesForNode(const NodeDef& def, const OpDef& op_def,
                                DataTypeVector* outputs);

// For each arg name, the half-open [start, end) range of flat indices it
// covers (lists expand to several).
using NameRangeMap = std::map<std::string, std::pair<int, int>, std::less<>>;
absl::Status NameRangesForNode(const NodeDef& def, const OpDef& op_def,
                               NameRangeMap* inputs, NameRangeMap* outputs);

// The same ranges by the arg's position in the OpDef (input_arg/output_arg
// order): what a kernel keeps, a few bytes per arg.
using ArgRanges = absl::InlinedVector<std::pair<int, int>, 2>;
absl::Status ArgRangesForNode(const NodeDef& def, const OpDef& op_def,
                              ArgRanges* inputs, ArgRanges* outputs);

// Number of data (non-control) inputs listed in `def`.
int NumDataInputs(const NodeDef& def);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_NODE_DEF_UTIL_H_
