#include "fuzz/server_calls.h"

#include <algorithm>

#include "runtime/distributed/methods.h"

namespace stepflow::fuzzing {
namespace {

constexpr uint8_t kMethodBits = 0x1f;
constexpr uint8_t kIdleBit = 0x20;
constexpr uint8_t kAsyncBit = 0x80;

}  // namespace

const std::vector<std::string>& ServerCallMethods() {
  static const std::vector<std::string>* methods = [] {
    auto* m = new std::vector<std::string>(ListMethods());
    m->push_back(kUnknownMethod);
    return m;
  }();
  return *methods;
}

std::vector<ServerCall> DecodeServerCalls(const uint8_t* data, size_t size) {
  const std::vector<std::string>& methods = ServerCallMethods();
  std::vector<ServerCall> calls;
  size_t pos = 0;
  while (pos < size && calls.size() < kMaxServerCalls) {
    const uint8_t flags = data[pos++];
    size_t len = 0;
    if (pos < size) len = data[pos++];
    if (pos < size) len |= static_cast<size_t>(data[pos++]) << 8;
    len = std::min(len, size - pos);
    ServerCall call;
    call.method = methods[(flags & kMethodBits) % methods.size()];
    call.idle_before = (flags & kIdleBit) != 0;
    call.async = (flags & kAsyncBit) != 0;
    call.body.assign(reinterpret_cast<const char*>(data + pos), len);
    pos += len;
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string EncodeServerCalls(const std::vector<ServerCall>& calls) {
  const std::vector<std::string>& methods = ServerCallMethods();
  std::string out;
  for (const ServerCall& call : calls) {
    auto it = std::find(methods.begin(), methods.end(), call.method);
    if (it == methods.end()) it = methods.end() - 1;  // kUnknownMethod.
    uint8_t flags = static_cast<uint8_t>(it - methods.begin());
    if (call.idle_before) flags |= kIdleBit;
    if (call.async) flags |= kAsyncBit;
    const size_t len = std::min<size_t>(call.body.size(), 0xffff);
    out.push_back(static_cast<char>(flags));
    out.push_back(static_cast<char>(len & 0xff));
    out.push_back(static_cast<char>(len >> 8));
    out.append(call.body, 0, len);
  }
  return out;
}

}  // namespace stepflow::fuzzing
