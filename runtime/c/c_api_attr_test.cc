// Attribute round trips: every TF_SetAttr* read back through
// TF_OperationGetAttrMetadata and the matching TF_OperationGetAttr*, attrs
// by position, and the errors for missing or mistyped attributes. The
// attributes ride on a NoOp under names starting with '_' (which any op
// accepts).
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/attr_value.pb.h"
#include "proto/tensor_shape.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::NewStatus;
using c_api_test::StatusPtr;

class CApiAttrTest : public ::testing::Test {
 protected:
  void SetUp() override { desc_ = TF_NewOperation(graph_, "NoOp", "op"); }
  void TearDown() override { TF_DeleteGraph(graph_); }

  TF_Operation* Finish() {
    TF_Operation* op = TF_FinishOperation(desc_, status_.get());
    EXPECT_EQ(TF_GetCode(status_.get()), TF_OK) << TF_Message(status_.get());
    return op;
  }

  void ExpectMetadata(TF_Operation* op, const char* name, bool is_list,
                      int64_t list_size, TF_AttrType type, int64_t total_size) {
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(op, name, status_.get());
    ASSERT_EQ(TF_GetCode(status_.get()), TF_OK) << name;
    EXPECT_EQ(m.is_list, is_list ? 1 : 0) << name;
    EXPECT_EQ(m.list_size, list_size) << name;
    EXPECT_EQ(m.type, type) << name;
    EXPECT_EQ(m.total_size, total_size) << name;
  }

  TF_Graph* graph_ = TF_NewGraph();
  StatusPtr status_ = NewStatus();
  TF_OperationDescription* desc_ = nullptr;
};

TEST_F(CApiAttrTest, Scalars) {
  TF_SetAttrString(desc_, "_s", "bunny", 5);
  TF_SetAttrInt(desc_, "_i", 31415);
  TF_SetAttrFloat(desc_, "_f", 2.5f);
  TF_SetAttrBool(desc_, "_b", 1);
  TF_SetAttrType(desc_, "_t", TF_COMPLEX128);
  TF_SetAttrPlaceholder(desc_, "_p", "T");
  TF_SetAttrFuncName(desc_, "_fn", "my_function_x", 11);
  TF_Operation* op = Finish();

  ExpectMetadata(op, "_s", false, -1, TF_ATTR_STRING, 5);
  char s[5];
  TF_OperationGetAttrString(op, "_s", s, sizeof(s), status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(std::string(s, 5), "bunny");

  ExpectMetadata(op, "_i", false, -1, TF_ATTR_INT, -1);
  int64_t i = 0;
  TF_OperationGetAttrInt(op, "_i", &i, status_.get());
  EXPECT_EQ(i, 31415);

  ExpectMetadata(op, "_f", false, -1, TF_ATTR_FLOAT, -1);
  float f = 0;
  TF_OperationGetAttrFloat(op, "_f", &f, status_.get());
  EXPECT_EQ(f, 2.5f);

  ExpectMetadata(op, "_b", false, -1, TF_ATTR_BOOL, -1);
  unsigned char b = 0;
  TF_OperationGetAttrBool(op, "_b", &b, status_.get());
  EXPECT_EQ(b, 1);

  ExpectMetadata(op, "_t", false, -1, TF_ATTR_TYPE, -1);
  TF_DataType t = TF_FLOAT;
  TF_OperationGetAttrType(op, "_t", &t, status_.get());
  EXPECT_EQ(t, TF_COMPLEX128);

  ExpectMetadata(op, "_p", false, -1, TF_ATTR_PLACEHOLDER, -1);
  ExpectMetadata(op, "_fn", false, -1, TF_ATTR_FUNC, -1);
  TF_Buffer* buf = TF_NewBuffer();
  TF_OperationGetAttrValueProto(op, "_fn", buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  AttrValue value;
  ASSERT_TRUE(value.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(value.func().name(), "my_function");
  TF_DeleteBuffer(buf);

  // Attrs by position, in name order.
  EXPECT_EQ(TF_OperationGetNumAttrs(op), 7);
  ASSERT_EQ(TF_OperationGetAttrNameLength(op, 0), 2);
  char name[2];
  TF_OperationGetAttrName(op, 0, name, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(std::string(name, 2), "_b");
  EXPECT_EQ(TF_OperationGetAttrNameLength(op, 7), -1);
  TF_OperationGetAttrName(op, 7, name, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_OUT_OF_RANGE);
}

TEST_F(CApiAttrTest, Lists) {
  const void* strings[] = {"bugs", "bunny", "duck"};
  const size_t lengths[] = {4, 5, 4};
  TF_SetAttrStringList(desc_, "_s", strings, lengths, 3);
  const int64_t ints[] = {1, 2, 3, 4};
  TF_SetAttrIntList(desc_, "_i", ints, 4);
  const float floats[] = {1.5f, -2};
  TF_SetAttrFloatList(desc_, "_f", floats, 2);
  const unsigned char bools[] = {1, 0, 1};
  TF_SetAttrBoolList(desc_, "_b", bools, 3);
  const TF_DataType types[] = {TF_FLOAT, TF_STRING};
  TF_SetAttrTypeList(desc_, "_t", types, 2);
  TF_SetAttrIntList(desc_, "_empty", nullptr, 0);
  TF_Operation* op = Finish();

  ExpectMetadata(op, "_s", true, 3, TF_ATTR_STRING, 13);
  void* values[3];
  size_t got_lengths[3];
  char storage[13];
  TF_OperationGetAttrStringList(op, "_s", values, got_lengths, 3, storage,
                                sizeof(storage), status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(std::string(static_cast<char*>(values[1]), got_lengths[1]),
            "bunny");
  TF_OperationGetAttrStringList(op, "_s", values, got_lengths, 3, storage, 12,
                                status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  ExpectMetadata(op, "_i", true, 4, TF_ATTR_INT, -1);
  int64_t got_ints[4] = {};
  TF_OperationGetAttrIntList(op, "_i", got_ints, 2, status_.get());
  EXPECT_EQ(got_ints[0], 1);
  EXPECT_EQ(got_ints[1], 2);
  EXPECT_EQ(got_ints[2], 0);  // Only max_values copied.

  float got_floats[2];
  TF_OperationGetAttrFloatList(op, "_f", got_floats, 2, status_.get());
  EXPECT_EQ(got_floats[1], -2);
  unsigned char got_bools[3];
  TF_OperationGetAttrBoolList(op, "_b", got_bools, 3, status_.get());
  EXPECT_EQ(got_bools[1], 0);
  EXPECT_EQ(got_bools[2], 1);
  TF_DataType got_types[2];
  TF_OperationGetAttrTypeList(op, "_t", got_types, 2, status_.get());
  EXPECT_EQ(got_types[1], TF_STRING);
  ExpectMetadata(op, "_empty", true, 0, TF_ATTR_STRING, 0);
}

TEST_F(CApiAttrTest, ShapesAndShapeProtos) {
  const int64_t dims[] = {2, -1, 7};
  TF_SetAttrShape(desc_, "_shape", dims, 3);
  TF_SetAttrShape(desc_, "_unknown", nullptr, -1);
  const int64_t d0[] = {1};
  const int64_t d1[] = {4, 5};
  const int64_t* list[] = {d0, nullptr, d1};
  const int num_dims[] = {1, -1, 2};
  TF_SetAttrShapeList(desc_, "_shapes", list, num_dims, 3);
  TensorShapeProto proto;
  proto.add_dim()->set_size(9);
  const std::string bytes = proto.SerializeAsString();
  TF_SetAttrTensorShapeProto(desc_, "_proto", bytes.data(), bytes.size(),
                             status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  const void* protos[] = {bytes.data()};
  const size_t proto_lens[] = {bytes.size()};
  TF_SetAttrTensorShapeProtoList(desc_, "_protos", protos, proto_lens, 1,
                                 status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_SetAttrTensorShapeProto(desc_, "_bad", "\xff\xff", 2, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_Operation* op = Finish();

  ExpectMetadata(op, "_shape", false, -1, TF_ATTR_SHAPE, 3);
  int64_t got[3];
  TF_OperationGetAttrShape(op, "_shape", got, 3, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[2], 7);
  ExpectMetadata(op, "_unknown", false, -1, TF_ATTR_SHAPE, -1);

  ExpectMetadata(op, "_shapes", true, 3, TF_ATTR_SHAPE, 3);
  int64_t* got_dims[3];
  int got_num_dims[3];
  int64_t storage[3];
  TF_OperationGetAttrShapeList(op, "_shapes", got_dims, got_num_dims, 3,
                               storage, 3, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(got_num_dims[0], 1);
  EXPECT_EQ(got_dims[0][0], 1);
  EXPECT_EQ(got_num_dims[1], -1);
  EXPECT_EQ(got_num_dims[2], 2);
  EXPECT_EQ(got_dims[2][1], 5);
  TF_OperationGetAttrShapeList(op, "_shapes", got_dims, got_num_dims, 3,
                               storage, 2, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);

  TF_Buffer* buf = TF_NewBuffer();
  TF_OperationGetAttrTensorShapeProto(op, "_proto", buf, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TensorShapeProto back;
  ASSERT_TRUE(back.ParseFromArray(buf->data, static_cast<int>(buf->length)));
  EXPECT_EQ(back.dim(0).size(), 9);
  TF_DeleteBuffer(buf);
  TF_Buffer* bufs[1] = {nullptr};
  TF_OperationGetAttrTensorShapeProtoList(op, "_protos", bufs, 1,
                                          status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  ASSERT_NE(bufs[0], nullptr);
  EXPECT_EQ(bufs[0]->length, bytes.size());
  TF_DeleteBuffer(bufs[0]);
}

TEST_F(CApiAttrTest, TensorsAndValueProtos) {
  TF_Tensor* t = FloatScalar(4.5f);
  TF_SetAttrTensor(desc_, "_tensor", t, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Tensor* list[] = {t, t};
  TF_SetAttrTensorList(desc_, "_tensors", list, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_DeleteTensor(t);
  TF_SetAttrTensor(desc_, "_null", nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  AttrValue value;
  value.set_i(7);
  const std::string bytes = value.SerializeAsString();
  TF_SetAttrValueProto(desc_, "_value", bytes.data(), bytes.size(),
                       status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  TF_Operation* op = Finish();

  ExpectMetadata(op, "_tensor", false, -1, TF_ATTR_TENSOR, -1);
  TF_Tensor* back = nullptr;
  TF_OperationGetAttrTensor(op, "_tensor", &back, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(TF_TensorType(back), TF_FLOAT);
  EXPECT_EQ(FloatValue(back), 4.5f);
  TF_DeleteTensor(back);
  ExpectMetadata(op, "_tensors", true, 2, TF_ATTR_TENSOR, -1);
  TF_Tensor* backs[2] = {nullptr, nullptr};
  TF_OperationGetAttrTensorList(op, "_tensors", backs, 2, status_.get());
  ASSERT_EQ(TF_GetCode(status_.get()), TF_OK);
  EXPECT_EQ(FloatValue(backs[1]), 4.5f);
  TF_DeleteTensor(backs[0]);
  TF_DeleteTensor(backs[1]);
  int64_t i = 0;
  TF_OperationGetAttrInt(op, "_value", &i, status_.get());
  EXPECT_EQ(i, 7);
}

TEST_F(CApiAttrTest, Errors) {
  TF_SetAttrInt(desc_, "_i", 1);
  TF_Operation* op = Finish();
  float f;
  TF_OperationGetAttrFloat(op, "_i", &f, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(status_.get()),
               "AttrValue had value with type 'int' when 'float' expected");
  int64_t list[1];
  TF_OperationGetAttrIntList(op, "_i", list, 1, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_OperationGetAttrInt(op, "_missing", list, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(status_.get()),
               "Operation 'op' has no attr named '_missing'.");
  TF_OperationGetAttrInt(op, nullptr, list, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_OperationGetAttrInt(nullptr, "_i", list, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_OperationGetAttrInt(op, "_i", nullptr, status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  TF_AttrMetadata m =
      TF_OperationGetAttrMetadata(op, "_missing", status_.get());
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  EXPECT_EQ(m.list_size, -1);

  // An attr the op does not declare (without '_') fails validation.
  TF_OperationDescription* d = TF_NewOperation(graph_, "NoOp", "other");
  TF_SetAttrInt(d, "undeclared", 1);
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
  // A mistyped declared attr too.
  d = TF_NewOperation(graph_, "Placeholder", "p");
  TF_SetAttrInt(d, "dtype", 1);
  EXPECT_EQ(TF_FinishOperation(d, status_.get()), nullptr);
  EXPECT_EQ(TF_GetCode(status_.get()), TF_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace stepflow
