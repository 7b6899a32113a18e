// NodeDef builders shared by the functional-op lowerings: plain nodes in
// GraphDef syntax, on the device of the node being lowered.
#ifndef STEPFLOW_RUNTIME_FUNCTION_LOWERING_NODES_H_
#define STEPFLOW_RUNTIME_FUNCTION_LOWERING_NODES_H_

#include <string>
#include <vector>

#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/framework/types.h"

namespace stepflow {

// A node named `name` running `op` on `inputs` (GraphDef syntax), on
// `device`.
NodeDef LoweredNode(const std::string& name, const std::string& op,
                    const std::string& device,
                    const std::vector<std::string>& inputs);

// A scalar int32 Const that waits for `control` (a node name).
NodeDef Int32Const(const std::string& name, const std::string& device,
                   int value, const std::string& control);

// A PartitionedCall of `f` with the given argument and result types.
NodeDef LoweredCall(const std::string& name, const std::string& device,
                    const NameAttrList& f,
                    const std::vector<std::string>& inputs,
                    const AttrValue& tin, const AttrValue& tout);

// The node that takes the lowered op's name: IdentityN of `outputs` (types
// `types`) or, without outputs, a NoOp; either waits for `controls`.
NodeDef LoweredResult(const std::string& name, const std::string& device,
                      const std::vector<std::string>& outputs,
                      const AttrValue& types,
                      const std::vector<std::string>& controls);

// Splits `node`'s inputs into data inputs and "^x" control inputs.
void SplitInputs(const NodeDef& node, std::vector<std::string>* data,
                 std::vector<std::string>* controls);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FUNCTION_LOWERING_NODES_H_
