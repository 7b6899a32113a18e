// Test-only: a float GraphDef of convolutions and the element-wise nodes
// after them, built node by node (the convolution epilogue fusion's graph
// and session tests). Nodes are not validated until the GraphDef is
// imported.
#ifndef STEPFLOW_RUNTIME_GRAPH_CONV_GRAPH_TEST_UTIL_H_
#define STEPFLOW_RUNTIME_GRAPH_CONV_GRAPH_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/graph.pb.h"
#include "proto/node_def.pb.h"
#include "runtime/framework/tensor.h"

namespace stepflow {
namespace test {

class ConvGraphDef {
 public:
  // A node with T = float (none when !typed); returned for extra attrs.
  NodeDef* Add(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, bool typed = true);
  // A float Const holding `value`.
  void Const(const std::string& name, const Tensor& value);
  // A float Const of zeros shaped `dims` (when only the shape matters).
  void Const(const std::string& name, const std::vector<int64_t>& dims);
  void Placeholder(const std::string& name);
  // `op` (Conv2D or DepthwiseConv2dNative) with strides [1, s, s, 1].
  void Conv(const std::string& name, const std::string& op,
            const std::string& input, const std::string& filter, int stride = 1,
            const std::string& padding = "SAME",
            const std::string& data_format = "NHWC");

  const GraphDef& def() const { return def_; }

 private:
  GraphDef def_;
};

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_GRAPH_CONV_GRAPH_TEST_UTIL_H_
