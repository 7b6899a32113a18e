#include "runtime/framework/types.h"

#include <gtest/gtest.h>

namespace stepflow {
namespace {

TEST(TypesTest, NamesMatchTensorFlow) {
  EXPECT_EQ(DataTypeString(DT_FLOAT), "float");
  EXPECT_EQ(DataTypeString(DT_INT32), "int32");
  EXPECT_EQ(DataTypeString(DT_STRING), "string");
  EXPECT_EQ(DataTypeString(DT_HALF), "half");
  EXPECT_EQ(DataTypeString(DT_BFLOAT16), "bfloat16");
  EXPECT_EQ(DataTypeString(DT_COMPLEX128), "complex128");
  EXPECT_EQ(DataTypeString(DT_RESOURCE), "resource");
  EXPECT_EQ(DataTypeString(DT_FLOAT_REF), "float_ref");
  EXPECT_EQ(DataTypeString(DT_INT64_REF), "int64_ref");
  EXPECT_EQ(DataTypeString(DT_INVALID), "INVALID");
}

TEST(TypesTest, FromStringAcceptsBothSpellings) {
  for (int v = 1; v < 200; ++v) {
    if (!DataType_IsValid(v)) continue;
    const DataType dt = static_cast<DataType>(v);
    DataType parsed = DT_INVALID;
    ASSERT_TRUE(DataTypeFromString(DataTypeString(dt), &parsed))
        << DataTypeString(dt);
    EXPECT_EQ(parsed, dt);
    parsed = DT_INVALID;
    ASSERT_TRUE(DataTypeFromString(DataType_Name(dt), &parsed))
        << DataType_Name(dt);
    EXPECT_EQ(parsed, dt);
  }
  DataType dt;
  EXPECT_FALSE(DataTypeFromString("floaty", &dt));
  EXPECT_FALSE(DataTypeFromString("", &dt));
  EXPECT_FALSE(DataTypeFromString("DT_NOPE", &dt));
  EXPECT_FALSE(DataTypeFromString("DT_INVALID", &dt));
  EXPECT_FALSE(DataTypeFromString("_ref", &dt));
}

TEST(TypesTest, RefHelpers) {
  EXPECT_TRUE(IsRefType(DT_FLOAT_REF));
  EXPECT_FALSE(IsRefType(DT_FLOAT));
  EXPECT_EQ(MakeRefType(DT_INT32), DT_INT32_REF);
  EXPECT_EQ(MakeRefType(DT_INT32_REF), DT_INT32_REF);
  EXPECT_EQ(BaseType(DT_INT32_REF), DT_INT32);
  EXPECT_TRUE(TypeCompatible(DT_FLOAT, DT_FLOAT_REF));
  EXPECT_TRUE(TypeCompatible(DT_FLOAT, DT_FLOAT));
  EXPECT_FALSE(TypeCompatible(DT_FLOAT_REF, DT_FLOAT));
  EXPECT_FALSE(TypeCompatible(DT_FLOAT, DT_INT32));
}

TEST(TypesTest, SizesAndCategories) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4);
  EXPECT_EQ(DataTypeSize(DT_HALF), 2);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16);
  EXPECT_EQ(DataTypeSize(DT_BOOL), 1);
  EXPECT_EQ(DataTypeSize(DT_STRING), 0);
  EXPECT_EQ(DataTypeSize(DT_RESOURCE), 0);
  EXPECT_TRUE(DataTypeIsMemcpyable(DT_UINT64));
  EXPECT_FALSE(DataTypeIsMemcpyable(DT_STRING));
  EXPECT_TRUE(DataTypeIsFloating(DT_BFLOAT16));
  EXPECT_FALSE(DataTypeIsFloating(DT_INT8));
  EXPECT_TRUE(DataTypeIsInteger(DT_UINT16));
  EXPECT_FALSE(DataTypeIsInteger(DT_BOOL));
  EXPECT_TRUE(DataTypeIsComplex(DT_COMPLEX64));
  EXPECT_TRUE(DataTypeIsSupported(DT_RESOURCE));
  EXPECT_TRUE(DataTypeIsSupported(DT_VARIANT));
  EXPECT_FALSE(DataTypeIsSupported(DT_QINT8));
  EXPECT_FALSE(DataTypeIsSupported(DT_FLOAT_REF));
}

TEST(TypesTest, VectorString) {
  EXPECT_EQ(DataTypeVectorString({DT_FLOAT, DT_INT32_REF}), "float, int32_ref");
  EXPECT_EQ(DataTypeVectorString({}), "");
}

}  // namespace
}  // namespace stepflow
