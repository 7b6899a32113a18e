// TF_TString layout and operations, the legacy string encoding, TF_STRING
// tensors through TF_SessionRun and string-valued tensor attributes, and
// the tensor calls added with them (alignment, reshaping, bitcasts, moves,
// status payloads).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::NewStatus;
using c_api_test::StatusPtr;

TEST(CApiTStringTest, SmallLargeViewAndOffset) {
  TF_TString s;
  TF_StringInit(&s);
  EXPECT_EQ(TF_StringGetType(&s), TF_TSTR_SMALL);
  EXPECT_EQ(TF_StringGetSize(&s), 0u);
  EXPECT_EQ(TF_StringGetCapacity(&s), 22u);

  TF_StringCopy(&s, "hello", 5);
  EXPECT_EQ(TF_StringGetType(&s), TF_TSTR_SMALL);
  EXPECT_EQ(std::string(TF_StringGetDataPointer(&s), TF_StringGetSize(&s)),
            "hello");
  // The layout: size << 2 in byte 0, bytes from byte 1.
  EXPECT_EQ(s.u.raw.raw[0], 5 << 2);
  EXPECT_EQ(std::memcmp(&s.u.raw.raw[1], "hello", 5), 0);

  const std::string big(40, 'x');
  TF_StringCopy(&s, big.data(), big.size());
  EXPECT_EQ(TF_StringGetType(&s), TF_TSTR_LARGE);
  EXPECT_EQ(TF_StringGetSize(&s), 40u);
  EXPECT_EQ(TF_StringGetCapacity(&s), 47u);  // 16k - 1.
  EXPECT_EQ(std::string(TF_StringGetDataPointer(&s), 40), big);

  TF_TString copy;
  TF_TString_Init(&copy);
  TF_TString_Assign(&copy, &s);
  EXPECT_EQ(TF_TString_GetType(&copy), TF_TSTR_LARGE);
  EXPECT_NE(TF_TString_GetDataPointer(&copy), TF_StringGetDataPointer(&s));
  TF_TString_AppendN(&copy, "yz", 2);
  EXPECT_EQ(TF_TString_GetSize(&copy), 42u);
  TF_TString_Resize(&copy, 3, 'q');
  EXPECT_EQ(TF_TString_GetType(&copy), TF_TSTR_SMALL);
  EXPECT_EQ(std::string(TF_TString_GetDataPointer(&copy), 3), "xxx");
  TF_TString_Resize(&copy, 5, 'q');
  EXPECT_EQ(std::string(TF_TString_GetDataPointer(&copy), 5), "xxxqq");
  TF_TString_Dealloc(&copy);

  const char* text = "a view of some bytes";
  TF_StringAssignView(&s, text, 6);  // Frees the large buffer.
  EXPECT_EQ(TF_StringGetType(&s), TF_TSTR_VIEW);
  EXPECT_EQ(TF_StringGetDataPointer(&s), text);
  EXPECT_EQ(TF_StringGetCapacity(&s), 0u);
  char* mutable_data = TF_TString_GetMutableDataPointer(&s);
  EXPECT_EQ(TF_StringGetType(&s), TF_TSTR_SMALL);
  EXPECT_EQ(std::string(mutable_data, 6), "a view");

  // OFFSET: the bytes lie `offset` bytes after the TF_TString.
  struct {
    TF_TString str;
    char bytes[8];
  } block;
  block.str.u.offset.size = 4 << 2 | TF_TSTR_OFFSET;
  block.str.u.offset.offset = sizeof(TF_TString);
  block.str.u.offset.count = 0;
  std::memcpy(block.bytes, "abcd", 4);
  EXPECT_EQ(TF_StringGetType(&block.str), TF_TSTR_OFFSET);
  EXPECT_EQ(std::string(TF_StringGetDataPointer(&block.str), 4), "abcd");
  TF_TString moved;
  TF_TString_Init(&moved);
  TF_TString_Move(&moved, &block.str);
  EXPECT_EQ(TF_TString_GetType(&moved), TF_TSTR_VIEW);
  TF_StringDealloc(&s);
}

TEST(CApiTStringTest, LegacyEncoding) {
  StatusPtr status = NewStatus();
  const std::string src(300, 'k');
  const size_t size = TF_StringEncodedSize(src.size());
  EXPECT_EQ(size, 302u);  // Two varint bytes.
  std::string dst(size, '\0');
  EXPECT_EQ(TF_StringEncode(src.data(), src.size(), &dst[0], dst.size(),
                            status.get()),
            size);
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  const char* out = nullptr;
  size_t out_len = 0;
  EXPECT_EQ(
      TF_StringDecode(dst.data(), dst.size(), &out, &out_len, status.get()),
      size);
  EXPECT_EQ(std::string(out, out_len), src);
  EXPECT_EQ(
      TF_StringEncode(src.data(), src.size(), &dst[0], size - 1, status.get()),
      0u);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TF_StringDecode(dst.data(), size - 1, &out, &out_len, status.get()),
            0u);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
}

// A [2] TF_STRING tensor with the given values.
TF_Tensor* StringVector(const std::string& a, const std::string& b) {
  const int64_t dims[] = {2};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 2 * sizeof(TF_TString));
  auto* data = static_cast<TF_TString*>(TF_TensorData(t));
  TF_StringCopy(&data[0], a.data(), a.size());
  TF_StringCopy(&data[1], b.data(), b.size());
  return t;
}

std::string Element(const TF_Tensor* t, int i) {
  const auto* data = static_cast<const TF_TString*>(TF_TensorData(t));
  return std::string(TF_StringGetDataPointer(&data[i]),
                     TF_StringGetSize(&data[i]));
}

TEST(CApiStringTensorTest, FeedFetchAndAttrs) {
  StatusPtr status = NewStatus();
  TF_Graph* graph = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(graph, "Placeholder", "feed");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation* feed = TF_FinishOperation(d, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  d = TF_NewOperation(graph, "Const", "words");
  TF_Tensor* words = StringVector("short", std::string(50, 'L'));
  TF_SetAttrTensor(d, "value", words, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation* konst = TF_FinishOperation(d, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  d = TF_NewOperation(graph, "StringJoin", "join");
  TF_Output join_inputs[] = {{feed, 0}, {konst, 0}};
  TF_AddInputList(d, join_inputs, 2);
  TF_SetAttrString(d, "separator", "+", 1);
  TF_Operation* join = TF_FinishOperation(d, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(TF_OperationInputListLength(join, "inputs", status.get()), 2);

  // The attr reads back as TF_TString elements.
  TF_Tensor* attr = nullptr;
  TF_OperationGetAttrTensor(konst, "value", &attr, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_EQ(TF_TensorType(attr), TF_STRING);
  EXPECT_EQ(TF_TensorByteSize(attr), 2 * sizeof(TF_TString));
  EXPECT_EQ(Element(attr, 1), std::string(50, 'L'));
  TF_DeleteTensor(attr);

  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(graph, opts, status.get());
  TF_DeleteSessionOptions(opts);
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK);
  TF_Tensor* input = StringVector("a", "bb");
  TF_Output feed_out{feed, 0};
  TF_Output fetches[] = {{join, 0}, {konst, 0}};
  TF_Tensor* results[2] = {nullptr, nullptr};
  TF_SessionRun(session, nullptr, &feed_out, &input, 1, fetches, results, 2,
                nullptr, 0, nullptr, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(TF_TensorType(results[0]), TF_STRING);
  EXPECT_EQ(TF_TensorElementCount(results[0]), 2);
  EXPECT_EQ(Element(results[0], 0), "a+short");
  EXPECT_EQ(Element(results[0], 1), "bb+" + std::string(50, 'L'));
  EXPECT_EQ(Element(results[1], 0), "short");
  TF_DeleteTensor(results[0]);
  TF_DeleteTensor(results[1]);

  // Too few bytes for the shape.
  const int64_t dims[] = {3};
  TF_Tensor* short_tensor = TF_NewTensor(
      TF_STRING, dims, 1, TF_TensorData(input), 2 * sizeof(TF_TString),
      [](void*, size_t, void*) {}, nullptr);
  EXPECT_EQ(short_tensor, nullptr);

  TF_DeleteTensor(input);
  TF_DeleteTensor(words);
  TF_DeleteSession(session, status.get());
  TF_DeleteGraph(graph);
}

TEST(CApiTensorExtrasTest, AlignmentShapesBitcastAndMove) {
  StatusPtr status = NewStatus();
  EXPECT_EQ(TF_TensorDefaultAlignment(), 64u);
  const int64_t dims[] = {2, 3};
  TF_Tensor* t = TF_AllocateTensor(TF_INT32, dims, 2, 6 * sizeof(int32_t));
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(TF_TensorIsAligned(t));
  EXPECT_EQ(TF_TensorMaybeMove(t), t);
  int32_t* data = static_cast<int32_t*>(TF_TensorData(t));
  for (int i = 0; i < 6; ++i) data[i] = i;

  const int64_t flat[] = {6};
  TF_SetShape(t, flat, 1);
  EXPECT_EQ(TF_NumDims(t), 1);
  const int64_t wrong[] = {7};
  TF_SetShape(t, wrong, 1);  // Ignored: the element count would change.
  EXPECT_EQ(TF_Dim(t, 0), 6);

  // Bitcast to float shares the bytes.
  TF_Tensor* f = TF_AllocateTensor(TF_FLOAT, nullptr, 0, sizeof(float));
  const int64_t three_two[] = {3, 2};
  TF_TensorBitcastFrom(t, TF_FLOAT, f, three_two, 2, status.get());
  ASSERT_EQ(TF_GetCode(status.get()), TF_OK) << TF_Message(status.get());
  EXPECT_EQ(TF_TensorType(f), TF_FLOAT);
  EXPECT_EQ(TF_TensorData(f), TF_TensorData(t));
  EXPECT_EQ(TF_TensorMaybeMove(t), nullptr);  // Shared now.
  const int64_t too_big[] = {7};
  TF_TensorBitcastFrom(t, TF_FLOAT, f, too_big, 1, status.get());
  EXPECT_EQ(TF_GetCode(status.get()), TF_INVALID_ARGUMENT);
  TF_DeleteTensor(t);
  EXPECT_EQ(static_cast<int32_t*>(TF_TensorData(f))[5], 5);
  TF_DeleteTensor(f);

  // Unaligned caller data is copied and released at once.
  static bool released = false;
  char* raw = static_cast<char*>(std::malloc(64 + sizeof(float)));
  float* unaligned = reinterpret_cast<float*>(raw + 4);
  *unaligned = 7.5f;
  TF_Tensor* copied = TF_NewTensor(
      TF_FLOAT, nullptr, 0, unaligned, sizeof(float),
      [](void*, size_t, void* arg) {
        released = true;
        std::free(arg);
      },
      raw);
  ASSERT_NE(copied, nullptr);
  EXPECT_TRUE(released);
  EXPECT_TRUE(TF_TensorIsAligned(copied));
  EXPECT_EQ(*static_cast<float*>(TF_TensorData(copied)), 7.5f);
  EXPECT_EQ(TF_TensorMaybeMove(copied), copied);
  TF_DeleteTensor(copied);

  // NULL tensors never crash.
  EXPECT_EQ(TF_NumDims(nullptr), 0);
  EXPECT_EQ(TF_TensorData(nullptr), nullptr);
  EXPECT_EQ(TF_TensorMaybeMove(nullptr), nullptr);
  EXPECT_FALSE(TF_TensorIsAligned(nullptr));
}

TEST(CApiStatusExtrasTest, PayloadsAndIOErrors) {
  StatusPtr status = NewStatus();
  TF_SetPayload(status.get(), "ignored", "while ok");
  TF_SetStatus(status.get(), TF_ABORTED, "retry");
  TF_SetPayload(status.get(), "b", "2");
  TF_SetPayload(status.get(), "a", "1");
  std::map<std::string, std::string> seen;
  TF_ForEachPayload(
      status.get(),
      [](const char* key, const char* value, void* capture) {
        (*static_cast<std::map<std::string, std::string>*>(capture))[key] =
            value;
      },
      &seen);
  EXPECT_EQ(seen, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  TF_SetStatusFromIOError(status.get(), ENOENT, "opening /x");
  EXPECT_EQ(TF_GetCode(status.get()), TF_NOT_FOUND);
  EXPECT_EQ(std::string(TF_Message(status.get())).rfind("opening /x; ", 0), 0u);
  TF_SetStatusFromIOError(status.get(), EACCES, "x");
  EXPECT_EQ(TF_GetCode(status.get()), TF_PERMISSION_DENIED);
}

}  // namespace
}  // namespace stepflow
