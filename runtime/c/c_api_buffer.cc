// TF_Buffer.
#include <cstdlib>
#include <cstring>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

namespace {

void FreeBytes(void* data, size_t) { std::free(data); }

}  // namespace

extern "C" {

TF_Buffer* TF_NewBuffer(void) { return new TF_Buffer{nullptr, 0, nullptr}; }

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  TF_Buffer* buf = TF_NewBuffer();
  if (proto == nullptr || proto_len == 0) return buf;
  void* copy = std::malloc(proto_len);
  if (copy == nullptr) return buf;
  std::memcpy(copy, proto, proto_len);
  buf->data = copy;
  buf->length = proto_len;
  buf->data_deallocator = FreeBytes;
  return buf;
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  delete buffer;
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) {
  return buffer == nullptr ? TF_Buffer{nullptr, 0, nullptr} : *buffer;
}

}  // extern "C"

namespace stepflow {
namespace c_api {

std::string SerializeDeterministic(
    const google::protobuf::MessageLite& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&out);
  out.Trim();
  return bytes;
}

void SetBufferBytes(const std::string& bytes, TF_Buffer* buffer) {
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  buffer->data = nullptr;
  buffer->length = 0;
  buffer->data_deallocator = nullptr;
  // malloc(0) may return null; keep a valid pointer for empty payloads.
  void* copy = std::malloc(bytes.empty() ? 1 : bytes.size());
  if (copy == nullptr) return;
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  buffer->data = copy;
  buffer->length = bytes.size();
  buffer->data_deallocator = FreeBytes;
}

}  // namespace c_api
}  // namespace stepflow
