#include "runtime/distributed/rpc/wire_coding.h"

#include <string>
#include <utility>

#include <grpc/slice.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include "google/protobuf/io/coded_stream.h"
#include "proto/worker.pb.h"

namespace stepflow {
namespace {

using google::protobuf::io::CodedOutputStream;

// Wire tags: field number << 3 | wire type 2 (length-delimited).
constexpr uint32_t kRecvTensorResponseTensorTag = (1 << 3) | 2;
constexpr uint32_t kTensorProtoContentTag = (4 << 3) | 2;

}  // namespace

grpc::ByteBuffer SerializeToByteBuffer(
    const google::protobuf::Message& message) {
  const size_t size = message.ByteSizeLong();
  grpc_slice raw = grpc_slice_malloc_large(size);
  message.SerializeWithCachedSizesToArray(GRPC_SLICE_START_PTR(raw));
  grpc::Slice slice(raw, grpc::Slice::STEAL_REF);
  return grpc::ByteBuffer(&slice, 1);
}

grpc::ByteBuffer EncodeResponse(
    std::unique_ptr<google::protobuf::Message> response) {
  auto* recv = dynamic_cast<RecvTensorResponse*>(response.get());
  if (recv == nullptr || !recv->has_tensor() ||
      recv->tensor().tensor_content().size() < kZeroCopyMinBytes) {
    return SerializeToByteBuffer(*response);
  }
  // Take the content out (a move: the large buffer stays where it is), then
  // the tensor's other fields, then the response's other fields.
  auto* content = new std::string(
      std::move(*recv->mutable_tensor()->mutable_tensor_content()));
  recv->mutable_tensor()->clear_tensor_content();
  const size_t tensor_rest = recv->tensor().ByteSizeLong();
  const size_t content_size = content->size();
  const size_t tensor_size =
      tensor_rest + CodedOutputStream::VarintSize32(kTensorProtoContentTag) +
      CodedOutputStream::VarintSize64(content_size) + content_size;
  TensorProto tensor;
  tensor.Swap(recv->mutable_tensor());
  recv->clear_tensor();
  const size_t response_rest = recv->ByteSizeLong();

  const size_t head_size =
      response_rest +
      CodedOutputStream::VarintSize32(kRecvTensorResponseTensorTag) +
      CodedOutputStream::VarintSize64(tensor_size) + tensor_rest +
      CodedOutputStream::VarintSize32(kTensorProtoContentTag) +
      CodedOutputStream::VarintSize64(content_size);
  grpc_slice head = grpc_slice_malloc(head_size);
  uint8_t* p = GRPC_SLICE_START_PTR(head);
  p = recv->SerializeWithCachedSizesToArray(p);
  p = CodedOutputStream::WriteVarint32ToArray(kRecvTensorResponseTensorTag, p);
  p = CodedOutputStream::WriteVarint64ToArray(tensor_size, p);
  tensor.ByteSizeLong();  // Caches sizes for the write below.
  p = tensor.SerializeWithCachedSizesToArray(p);
  p = CodedOutputStream::WriteVarint32ToArray(kTensorProtoContentTag, p);
  CodedOutputStream::WriteVarint64ToArray(content_size, p);

  grpc::Slice slices[2] = {
      grpc::Slice(head, grpc::Slice::STEAL_REF),
      grpc::Slice(
          content->data(), content_size,
          [](void* s) { delete static_cast<std::string*>(s); }, content)};
  return grpc::ByteBuffer(slices, 2);
}

bool ParseFromByteBuffer(grpc::ByteBuffer* buffer,
                         google::protobuf::Message* message) {
  grpc::ProtoBufferReader reader(buffer);
  return message->ParseFromZeroCopyStream(&reader);
}

}  // namespace stepflow
