// Fuzzes TensorProto decoding: bytes -> TensorProto::ParseFromString ->
// TensorFromProto. A tensor that decodes must survive TensorToProto (both
// tensor_content and typed-field encodings) and the wire format and decode
// back bit-identical. Protos that would decode to more than kMaxBytes of
// element storage are skipped (their size is legal; allocating it would
// only trip the fuzzer's memory limit).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "proto/tensor.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/framework/types.h"

namespace {

using stepflow::DataType;
using stepflow::Tensor;
using stepflow::TensorProto;

constexpr int64_t kMaxBytes = int64_t{64} << 20;
// Object-valued tensors (strings, resource handles) tried at most.
constexpr int64_t kMaxObjects = int64_t{1} << 14;

// True when decoding could allocate more than kMaxBytes: every dim is known
// and non-negative and the element count fits in int64 (anything else must
// be rejected before allocating, so it is worth running).
bool TooLargeToTry(const TensorProto& proto) {
  int64_t elements = 1;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0) return false;
    if (d.size() != 0 && elements > INT64_MAX / d.size()) return false;
    elements *= d.size();
  }
  // Strings and resource handles are objects: ~64 bytes each plus their
  // contents, and the last value given fills every remaining element (a
  // few hundred bytes of proto can describe a large tensor of handles).
  // Each is copied and re-encoded several times per round trip, so they
  // are also capped by count, not only by bytes.
  if (proto.dtype() == stepflow::DT_STRING ||
      proto.dtype() == stepflow::DT_RESOURCE) {
    if (elements > kMaxObjects) return true;
  }
  int64_t per_element = 64;
  for (const auto& v : proto.string_val()) {
    per_element =
        std::max<int64_t>(per_element, 64 + static_cast<int64_t>(v.size()));
  }
  for (const auto& h : proto.resource_handle_val()) {
    per_element = std::max<int64_t>(
        per_element, 64 + 4 * static_cast<int64_t>(h.ByteSizeLong()));
  }
  return elements > kMaxBytes / per_element;
}

[[noreturn]] void Fail(const char* what, const Tensor& t) {
  std::fprintf(stderr, "TensorProto round trip violated: %s\ntensor: %s\n",
               what, t.DebugString().c_str());
  std::abort();
}

bool SameBits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized()) return true;
  const int64_t n = a.NumElements();
  if (a.dtype() == stepflow::DT_STRING) {
    for (int64_t i = 0; i < n; ++i) {
      if (a.base<const std::string>()[i] != b.base<const std::string>()[i]) {
        return false;
      }
    }
    return true;
  }
  if (a.dtype() == stepflow::DT_RESOURCE) {
    for (int64_t i = 0; i < n; ++i) {
      if (a.base<const stepflow::ResourceHandleProto>()[i]
              .SerializeAsString() !=
          b.base<const stepflow::ResourceHandleProto>()[i]
              .SerializeAsString()) {
        return false;
      }
    }
    return true;
  }
  return a.TotalBytes() == b.TotalBytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Parse errors are expected; protobuf's log lines only slow the run.
  google::protobuf::LogSilencer quiet;
  TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (TooLargeToTry(proto)) return 0;
  Tensor t;
  if (!stepflow::TensorFromProto(proto, &t).ok()) return 0;
  if (!t.IsInitialized()) Fail("decoded tensor is uninitialized", t);
  if (t.dtype() != proto.dtype()) Fail("decoded dtype differs", t);
  for (bool use_tensor_content : {true, false}) {
    TensorProto encoded;
    stepflow::TensorToProto(t, &encoded, use_tensor_content);
    TensorProto wire;
    if (!wire.ParseFromString(encoded.SerializeAsString())) {
      Fail("encoded proto does not parse", t);
    }
    Tensor back;
    if (!stepflow::TensorFromProto(wire, &back).ok()) {
      Fail("encoded proto does not decode", t);
    }
    if (!SameBits(t, back)) Fail("decoded tensor differs", t);
    // Where NaN cannot get in the way, the library's own equality agrees.
    if (!stepflow::DataTypeIsFloating(t.dtype()) &&
        !stepflow::DataTypeIsComplex(t.dtype()) &&
        !stepflow::TensorsEqual(t, back)) {
      Fail("TensorsEqual disagrees with a bit-identical round trip", t);
    }
  }
  return 0;
}
