// How GrpcTransport turns messages into gRPC byte buffers and back.
//
// SerializeToByteBuffer(message) writes the message into one uninitialised
// slice in a single pass (no zero-fill, no intermediate string).
//
// EncodeResponse(response) takes ownership of a handler's finished
// response. A RecvTensorResponse whose tensor_content is at least
// kZeroCopyMinBytes long goes out without copying that content: the buffer
// is a small slice holding every other field plus the content's field
// header, followed by a slice that borrows the content string itself and
// frees it (with nothing else) when gRPC releases the buffer. The bytes
// are exactly the protobuf encoding of the message (fields in another
// order, which protobuf parsers accept), so any client parses them as
// usual. Every other response is serialised as above.
//
// ParseFromByteBuffer(buffer, message) parses straight from the received
// slices. False if they are not a valid encoding of the message's type.
//
// Thread-safety: plain functions.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_WIRE_CODING_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_WIRE_CODING_H_

#include <cstddef>
#include <memory>

#include <grpcpp/support/byte_buffer.h>

#include "google/protobuf/message.h"

namespace stepflow {

inline constexpr size_t kZeroCopyMinBytes = 64 * 1024;

grpc::ByteBuffer SerializeToByteBuffer(
    const google::protobuf::Message& message);

grpc::ByteBuffer EncodeResponse(
    std::unique_ptr<google::protobuf::Message> response);

bool ParseFromByteBuffer(grpc::ByteBuffer* buffer,
                         google::protobuf::Message* message);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_WIRE_CODING_H_
