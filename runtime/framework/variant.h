// Variant: the element type of DT_VARIANT tensors, a typed, immutable,
// refcounted payload (a TensorList, for instance) behind a value handle.
//
// Copying a Variant shares its payload (cheap); payloads are immutable once
// wrapped, so sharing is never observable; an op that "changes" one builds
// a new payload (and may reuse the old one's parts). A default Variant is
// empty (no payload).
//
// Variants live only in memory: they have no TensorProto encoding here, so
// a DT_VARIANT tensor cannot cross a process boundary (tensor_util's
// CheckEncodable refuses it with Unimplemented); within a process it flows
// through the executor and the local rendezvous like any tensor.
// Thread-safety: a Variant is a value; the payload is immutable and its
// refcount atomic.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_VARIANT_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_VARIANT_H_

#include <memory>
#include <string>
#include <utility>

namespace stepflow {

// What a Variant holds. Subclasses name their type (TensorFlow's type
// names, e.g. "tensorflow::TensorList", so errors read alike).
class VariantPayload {
 public:
  virtual ~VariantPayload() = default;
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const = 0;
};

class Variant {
 public:
  Variant() = default;
  explicit Variant(std::shared_ptr<const VariantPayload> payload)
      : payload_(std::move(payload)) {}

  bool is_empty() const { return payload_ == nullptr; }
  // "" when empty.
  std::string TypeName() const {
    return payload_ == nullptr ? std::string() : payload_->TypeName();
  }
  // The payload as a T, or nullptr if empty or of another type.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(payload_.get());
  }
  // The shared payload (to test whether this Variant is its only owner).
  const std::shared_ptr<const VariantPayload>& payload() const {
    return payload_;
  }
  std::string DebugString() const {
    return payload_ == nullptr ? "Variant<empty>" : payload_->DebugString();
  }
  // Equal when they share a payload (payloads have no value equality).
  bool operator==(const Variant& o) const { return payload_ == o.payload_; }

 private:
  std::shared_ptr<const VariantPayload> payload_;
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_VARIANT_H_
