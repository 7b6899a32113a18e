#include "runtime/framework/npy.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace stepflow {
namespace {

// A version 1.0 file as numpy.save lays it out: the header dict padded with
// spaces so that the data starts at a multiple of 64 bytes.
std::string NumpyFile(std::string header, const void* data, size_t size) {
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(static_cast<const char*>(data), size);
  return out;
}

// What numpy.save writes for np.array([[1.5, -2], [0, 3]], np.float32).
std::string NumpyFloat2x2() {
  const float v[] = {1.5f, -2.f, 0.f, 3.f};
  return NumpyFile(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", v,
      sizeof(v));
}

TEST(NpyTest, DecodesWhatNumpyWrites) {
  Tensor t;
  ASSERT_TRUE(DecodeNpy(NumpyFloat2x2(), &t).ok());
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.shape(), TensorShape({2, 2}));
  EXPECT_EQ(t.flat<float>()(0), 1.5f);
  EXPECT_EQ(t.flat<float>()(3), 3.f);
}

TEST(NpyTest, EncodesTheSameBytesNumpyWrites) {
  Tensor t(DT_FLOAT, TensorShape({2, 2}));
  const float v[] = {1.5f, -2.f, 0.f, 3.f};
  std::memcpy(t.raw_data(), v, sizeof(v));
  std::string out;
  ASSERT_TRUE(EncodeNpy(t, &out).ok());
  EXPECT_EQ(out, NumpyFloat2x2());
}

TEST(NpyTest, RoundTripsEveryNumericTypeScalarsAndEmpty) {
  for (DataType dt : {DT_BOOL, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
                      DT_UINT16, DT_UINT32, DT_UINT64, DT_HALF, DT_FLOAT,
                      DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128}) {
    for (const TensorShape& shape :
         {TensorShape({}), TensorShape({3}), TensorShape({0, 2}),
          TensorShape({2, 1, 3})}) {
      Tensor t(dt, shape);
      uint8_t* b = static_cast<uint8_t*>(t.raw_data());
      for (size_t i = 0; i < t.TotalBytes(); ++i) {
        b[i] = dt == DT_BOOL ? (i % 2) : static_cast<uint8_t>(i * 7 + 1);
      }
      std::string bytes;
      ASSERT_TRUE(EncodeNpy(t, &bytes).ok()) << DataTypeString(dt);
      Tensor back;
      absl::Status s = DecodeNpy(bytes, &back);
      ASSERT_TRUE(s.ok()) << DataTypeString(dt) << " " << s;
      EXPECT_EQ(back.dtype(), dt);
      EXPECT_EQ(back.shape(), shape);
      ASSERT_EQ(back.TotalBytes(), t.TotalBytes());
      EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), t.TotalBytes()), 0)
          << DataTypeString(dt) << shape.DebugString();
    }
  }
}

TEST(NpyTest, StringsAsBytesAndUnicode) {
  Tensor t(DT_STRING, TensorShape({3}));
  t.flat<std::string>()(0) = "abc";
  t.flat<std::string>()(1) = "";
  t.flat<std::string>()(2) = std::string("x\0y", 3);
  std::string bytes;
  ASSERT_TRUE(EncodeNpy(t, &bytes).ok());
  EXPECT_NE(bytes.find("'descr': '|S3'"), std::string::npos);
  Tensor back;
  ASSERT_TRUE(DecodeNpy(bytes, &back).ok());
  ASSERT_EQ(back.NumElements(), 3);
  EXPECT_EQ(back.flat<std::string>()(0), "abc");
  EXPECT_EQ(back.flat<std::string>()(1), "");
  EXPECT_EQ(back.flat<std::string>()(2), std::string("x\0y", 3));

  // np.array(["h\u00e9"]) is '<U2': UTF-32 code units, decoded to UTF-8.
  const uint32_t cps[] = {'h', 0xE9};
  const std::string u =
      NumpyFile("{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }",
                cps, sizeof(cps));
  ASSERT_TRUE(DecodeNpy(u, &back).ok());
  EXPECT_EQ(back.flat<std::string>()(0), "h\xC3\xA9");
}

TEST(NpyTest, RefusesMalformedAndUnsupportedInput) {
  Tensor t;
  const std::string good = NumpyFloat2x2();
  EXPECT_EQ(DecodeNpy("", &t).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeNpy("not numpy at all", &t).code(),
            absl::StatusCode::kInvalidArgument);
  // Every truncation fails cleanly.
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_FALSE(DecodeNpy(good.substr(0, len), &t).ok()) << len;
  }
  EXPECT_FALSE(DecodeNpy(good + "x", &t).ok());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string b = good;
    b.replace(b.find(from), from.size(), to);
    return DecodeNpy(b, &t);
  };
  EXPECT_NE(with("'<f4'", "'>f4'").message().find("big-endian"),
            std::string::npos);
  EXPECT_NE(with("False", "True ").message().find("Fortran"),
            std::string::npos);
  EXPECT_NE(with("'<f4'", "'|O4'").message().find("object"), std::string::npos);
  EXPECT_FALSE(with("(2, 2)", "(2, 9)").ok());
  EXPECT_FALSE(with("(2, 2)", "(-1, 4)").ok());
  // A huge shape with no data never allocates.
  EXPECT_FALSE(with("(2, 2)", "(4294967296,)").ok());
  EXPECT_FALSE(with("(2, 2)", "(9223372036854775807, 9)").ok());
  Tensor bf(DT_BFLOAT16, TensorShape({1}));
  std::string out;
  EXPECT_EQ(EncodeNpy(bf, &out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeNpy(Tensor(), &out).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepflow
