// TensorId: "node:index" endpoint names. "node" means "node:0"; "^node" is a
// control dependency (index kControlSlot).
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_ID_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_ID_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace stepflow {

inline constexpr int kControlSlot = -1;

struct TensorId {
  std::string node;
  int index = 0;

  std::string ToString() const {
    if (index == kControlSlot) return absl::StrCat("^", node);
    return absl::StrCat(node, ":", index);
  }
  bool operator==(const TensorId& o) const {
    return node == o.node && index == o.index;
  }
  bool operator<(const TensorId& o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

// Never fails: "a:b" with a non-numeric suffix is a node named "a:b", index 0.
TensorId ParseTensorName(absl::string_view name);

// The one spelling of an endpoint, ParseTensorName(name).ToString(), as
// TensorFlow's TensorId prints it: "x" -> "x:0"; "x:1" stays; "^ctrl" (a
// control input) stays "^ctrl", never "^ctrl:0" (callers that accept only
// tensors reject it later, naming it as the user wrote it). Sessions key
// feeds and fetches by this form, so "x" and "x:0" are the same tensor.
std::string CanonicalTensorName(absl::string_view name);

// `names` sorted with duplicates removed: the order-insensitive form of a
// list of fetches or targets (a session keys its cached executors by it;
// feeds keep their duplicates so pruning can reject them).
std::vector<std::string> SortedUnique(std::vector<std::string> names);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_TENSOR_ID_H_
