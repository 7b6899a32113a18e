#include "runtime/framework/tensor_util.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>

namespace stepflow {
namespace {

// A 2x3 tensor of `T` with distinct values.
template <typename T>
Tensor Sample(T (*make)(int)) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) t.flat<T>()(i) = make(i);
  return t;
}

template <typename T>
void ExpectRoundTrips(const Tensor& t) {
  for (bool content : {true, false}) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(t.dtype()) << " content=" << content);
    TensorProto proto;
    TensorToProto(t, &proto, content);
    if (content && DataTypeIsMemcpyable(t.dtype())) {
      EXPECT_FALSE(proto.tensor_content().empty());
    } else {
      EXPECT_TRUE(proto.tensor_content().empty());
    }
    // Through the wire format too.
    TensorProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(proto.SerializeAsString()));
    Tensor back;
    ASSERT_TRUE(TensorFromProto(parsed, &back).ok());
    EXPECT_TRUE(TensorsEqual(t, back))
        << t.DebugString() << " vs " << back.DebugString();
  }
}

TEST(TensorUtilTest, EveryDtypeRoundTripsBothForms) {
  ExpectRoundTrips<float>(Sample<float>([](int i) { return i * 1.5f - 2; }));
  ExpectRoundTrips<double>(
      Sample<double>([](int i) { return i * 0.25 - 1e300; }));
  ExpectRoundTrips<int32_t>(Sample<int32_t>([](int i) { return i * -100000; }));
  ExpectRoundTrips<int64_t>(
      Sample<int64_t>([](int i) { return (int64_t{1} << 40) * i - 7; }));
  ExpectRoundTrips<int16_t>(
      Sample<int16_t>([](int i) { return int16_t(-3000 * i); }));
  ExpectRoundTrips<int8_t>(
      Sample<int8_t>([](int i) { return int8_t(-20 * i); }));
  ExpectRoundTrips<uint8_t>(
      Sample<uint8_t>([](int i) { return uint8_t(250 - i); }));
  ExpectRoundTrips<uint16_t>(
      Sample<uint16_t>([](int i) { return uint16_t(65530 + i / 2); }));
  ExpectRoundTrips<uint32_t>(
      Sample<uint32_t>([](int i) { return 4000000000u + i; }));
  ExpectRoundTrips<uint64_t>(
      Sample<uint64_t>([](int i) { return ~uint64_t{0} - i; }));
  ExpectRoundTrips<bool>(Sample<bool>([](int i) { return i % 2 == 0; }));
  ExpectRoundTrips<half>(
      Sample<half>([](int i) { return half(i * 0.5f - 1); }));
  ExpectRoundTrips<bfloat16>(
      Sample<bfloat16>([](int i) { return bfloat16(i * 2.0f - 3); }));
  ExpectRoundTrips<complex64>(
      Sample<complex64>([](int i) { return complex64(i, -i * 0.5f); }));
  ExpectRoundTrips<complex128>(
      Sample<complex128>([](int i) { return complex128(-i, i * 0.25); }));
  ExpectRoundTrips<std::string>(Sample<std::string>(
      [](int i) { return std::string(i, static_cast<char>('a' + i)); }));
  Tensor r(DT_RESOURCE, TensorShape({2}));
  r.flat<ResourceHandleProto>()(0).set_name("a");
  r.flat<ResourceHandleProto>()(1).set_container("c");
  ExpectRoundTrips<ResourceHandleProto>(r);
}

TEST(TensorUtilTest, HalfUsesRawBits) {
  TensorProto p;
  p.set_dtype(DT_HALF);
  p.add_half_val(0x3c00);  // 1.0 in IEEE half.
  Tensor t;
  ASSERT_TRUE(TensorFromProto(p, &t).ok());
  EXPECT_EQ(static_cast<float>(t.scalar<half>()), 1.0f);
  p.set_dtype(DT_BFLOAT16);
  p.set_half_val(0, 0x3f80);  // 1.0 in bfloat16.
  ASSERT_TRUE(TensorFromProto(p, &t).ok());
  EXPECT_EQ(static_cast<float>(t.scalar<bfloat16>()), 1.0f);
}

TEST(TensorUtilTest, LastValueRepeats) {
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(4);
  p.add_float_val(1);
  p.add_float_val(2);
  Tensor t;
  ASSERT_TRUE(TensorFromProto(p, &t).ok());
  EXPECT_EQ(t.SummarizeValue(10), "[1 2 2 2]");

  TensorProto s;
  s.set_dtype(DT_STRING);
  s.mutable_tensor_shape()->add_dim()->set_size(3);
  s.add_string_val("x");
  ASSERT_TRUE(TensorFromProto(s, &t).ok());
  EXPECT_EQ(t.SummarizeValue(10), "[x x x]");

  TensorProto c;
  c.set_dtype(DT_COMPLEX64);
  c.mutable_tensor_shape()->add_dim()->set_size(2);
  c.add_scomplex_val(1);
  c.add_scomplex_val(2);
  ASSERT_TRUE(TensorFromProto(c, &t).ok());
  EXPECT_EQ(t.flat<complex64>()(1), complex64(1, 2));
}

TEST(TensorUtilTest, EmptyFieldMeansZeros) {
  TensorProto p;
  p.set_dtype(DT_INT64);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  Tensor t;
  ASSERT_TRUE(TensorFromProto(p, &t).ok());
  EXPECT_EQ(t.SummarizeValue(10), "[0 0 0]");
}

void ExpectInvalid(const TensorProto& p, const std::string& substr) {
  Tensor t;
  absl::Status s = TensorFromProto(p, &t);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(substr), std::string::npos) << s;
}

TEST(TensorUtilTest, MalformedProtosAreInvalidArgument) {
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(2);
  p.set_tensor_content(std::string(7, '\0'));
  ExpectInvalid(p, "tensor_content of 7 bytes; expected 8");

  p.clear_tensor_content();
  for (int i = 0; i < 3; ++i) p.add_float_val(i);
  ExpectInvalid(p, "has 3 values but only 2 elements");

  TensorProto neg;
  neg.set_dtype(DT_INT32);
  neg.mutable_tensor_shape()->add_dim()->set_size(-5);
  ExpectInvalid(neg, "shape");

  TensorProto unknown;
  unknown.set_dtype(DT_INT32);
  unknown.mutable_tensor_shape()->set_unknown_rank(true);
  ExpectInvalid(unknown, "shape");

  TensorProto huge;
  huge.set_dtype(DT_FLOAT);
  for (int i = 0; i < 3; ++i) {
    huge.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 20);
  }
  huge.add_float_val(1);
  ExpectInvalid(huge, "too large");

  TensorProto overflow;
  overflow.set_dtype(DT_FLOAT);
  for (int i = 0; i < 4; ++i) {
    overflow.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  }
  ExpectInvalid(overflow, "shape");

  TensorProto bad_type;
  bad_type.set_dtype(DT_VARIANT);
  ExpectInvalid(bad_type, "unsupported dtype");
  bad_type.set_dtype(DT_FLOAT_REF);
  ExpectInvalid(bad_type, "unsupported dtype");
  bad_type.set_dtype(static_cast<DataType>(77));
  ExpectInvalid(bad_type, "unsupported dtype");

  TensorProto odd;
  odd.set_dtype(DT_COMPLEX128);
  odd.add_dcomplex_val(1);
  ExpectInvalid(odd, "odd number");

  TensorProto str_content;
  str_content.set_dtype(DT_STRING);
  str_content.set_tensor_content("abc");
  ExpectInvalid(str_content, "tensor_content");

  TensorProto bad_bool;
  bad_bool.set_dtype(DT_BOOL);
  bad_bool.set_tensor_content(std::string(1, '\x07'));
  ExpectInvalid(bad_bool, "bool");

  TensorProto zero_elems;
  zero_elems.set_dtype(DT_INT32);
  zero_elems.mutable_tensor_shape()->add_dim()->set_size(0);
  zero_elems.add_int_val(3);
  ExpectInvalid(zero_elems, "1 values but only 0 elements");
}

// TensorFlow's clients send fed strings in tensor_content: the lengths as
// varint32s, then the bytes (what tf.compat.v1.Saver's filename feed
// arrives as through TensorFlow's GrpcSession).
TEST(TensorUtilTest, StringTensorContent) {
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(
      std::string("\x02\x00\x03"
                  "abxyz",
                  8));
  Tensor t;
  ASSERT_TRUE(TensorFromProto(p, &t).ok());
  ASSERT_EQ(t.NumElements(), 3);
  EXPECT_EQ(t.base<std::string>()[0], "ab");
  EXPECT_EQ(t.base<std::string>()[1], "");
  EXPECT_EQ(t.base<std::string>()[2], "xyz");

  // A 200-byte string: its length takes two varint bytes.
  TensorProto scalar;
  scalar.set_dtype(DT_STRING);
  scalar.set_tensor_content(std::string("\xc8\x01", 2) + std::string(200, 'q'));
  ASSERT_TRUE(TensorFromProto(scalar, &t).ok());
  EXPECT_EQ(t.base<std::string>()[0], std::string(200, 'q'));

  p.set_tensor_content(
      std::string("\x02\x00\x04"
                  "abxyz",
                  8));
  ExpectInvalid(p, "add up to 6 bytes but holds 5");
  p.set_tensor_content(std::string("\x02\x80", 2));
  ExpectInvalid(p, "too few for 3 strings");
  p.set_tensor_content(std::string("\x02\x00\x80", 3));
  ExpectInvalid(p, "malformed string length");
}

TEST(TensorUtilTest, TensorsEqual) {
  Tensor a = Tensor::Vector<float>({1, 2});
  EXPECT_TRUE(TensorsEqual(a, a.DeepCopy()));
  EXPECT_FALSE(TensorsEqual(a, Tensor::Vector<float>({1, 3})));
  EXPECT_FALSE(TensorsEqual(a, Tensor::Vector<double>({1, 2})));
  Tensor b;
  ASSERT_TRUE(b.BitcastFrom(a, TensorShape({2, 1})).ok());
  EXPECT_FALSE(TensorsEqual(a, b));
  Tensor nan = Tensor::Scalar<float>(std::nanf(""));
  EXPECT_FALSE(TensorsEqual(nan, nan));
  EXPECT_TRUE(TensorsEqual(Tensor(), Tensor()));
}

TEST(TensorUtilTest, VariantsAreNotEncodable) {
  EXPECT_TRUE(CheckEncodable(Tensor(DT_FLOAT, TensorShape({2}))).ok());
  const absl::Status s = CheckEncodable(Tensor(DT_VARIANT, TensorShape({})));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("another process"), absl::string_view::npos);
}

}  // namespace
}  // namespace stepflow
