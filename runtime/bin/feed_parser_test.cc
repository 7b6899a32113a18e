#include "runtime/bin/feed_parser.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "proto/tensor.pb.h"
#include "runtime/framework/npy.h"
#include "runtime/framework/tensor_util.h"
#include "runtime/graph/graph_def_io.h"
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace {

using test::TestTmpDir;

GraphDef TestGraph() {
  GraphDef g;
  EXPECT_TRUE(ParseGraphDefFromText(R"pb(
                                      node {
                                        name: "x"
                                        op: "Placeholder"
                                        attr {
                                          key: "dtype"
                                          value { type: DT_INT32 }
                                        }
                                      }
                                      node {
                                        name: "m"
                                        op: "Placeholder"
                                        attr {
                                          key: "dtype"
                                          value { type: DT_FLOAT }
                                        }
                                        attr {
                                          key: "shape"
                                          value {
                                            shape {
                                              dim { size: 2 }
                                              dim { size: 2 }
                                            }
                                          }
                                        }
                                      }
                                      node {
                                        name: "s"
                                        op: "Placeholder"
                                        attr {
                                          key: "dtype"
                                          value { type: DT_STRING }
                                        }
                                      }
                                      node { name: "c" op: "NoOp" }
                                      node {
                                        name: "b"
                                        op: "Placeholder"
                                        attr {
                                          key: "dtype"
                                          value { type: DT_BOOL }
                                        }
                                      }
                                    )pb",
                                    &g)
                  .ok());
  return g;
}

using ::testing::HasSubstr;

// Writes `bytes` to TestTmpDir()/name; returns the full path.
std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = TestTmpDir() + "/" + name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// A version 1.0 .npy file as numpy.save writes it: the header dict padded
// with spaces to a 64-byte boundary and ended by a newline.
std::string NumpySaved(const std::string& descr, const std::string& shape,
                       const std::string& data) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

// NumPy's '<U' element: `width` little-endian UTF-32 code points, NUL-padded.
std::string Utf32(const std::u32string& text, size_t width) {
  std::string out;
  for (size_t i = 0; i < width; ++i) {
    const char32_t c = i < text.size() ? text[i] : 0;
    for (int b = 0; b < 4; ++b)
      out.push_back(static_cast<char>((c >> (8 * b)) & 0xff));
  }
  return out;
}

TEST(FeedParserTest, Scalar) {
  std::pair<std::string, Tensor> feed;
  ASSERT_TRUE(ParseFeed("x=42", TestGraph(), &feed).ok());
  EXPECT_EQ(feed.first, "x");
  EXPECT_EQ(feed.second.dtype(), DT_INT32);
  EXPECT_EQ(feed.second.dims(), 0);
  EXPECT_EQ(feed.second.scalar<int32_t>(), 42);
}

TEST(FeedParserTest, FlatListAndNestedBrackets) {
  Tensor t;
  ASSERT_TRUE(ParseTensorValue("1,2,3", DT_INT32, &t).ok());
  EXPECT_EQ(t.shape(), TensorShape({3}));
  ASSERT_TRUE(ParseTensorValue("[[1,2],[3,4],[5,6]]", DT_FLOAT, &t).ok());
  EXPECT_EQ(t.shape(), TensorShape({3, 2}));
  EXPECT_FLOAT_EQ(t.flat<float>()(5), 6.0f);
  ASSERT_TRUE(ParseTensorValue("[]", DT_FLOAT, &t).ok());
  EXPECT_EQ(t.shape(), TensorShape({0}));
}

TEST(FeedParserTest, ReshapesToDeclaredShape) {
  std::pair<std::string, Tensor> feed;
  ASSERT_TRUE(ParseFeed("m=1,2,3,4", TestGraph(), &feed).ok());
  EXPECT_EQ(feed.second.shape(), TensorShape({2, 2}));
  // Another element count keeps its own shape (not enforced, as in TF).
  ASSERT_TRUE(ParseFeed("m=1,2,3", TestGraph(), &feed).ok());
  EXPECT_EQ(feed.second.shape(), TensorShape({3}));
}

TEST(FeedParserTest, Strings) {
  std::pair<std::string, Tensor> feed;
  ASSERT_TRUE(ParseFeed("s=hello", TestGraph(), &feed).ok());
  EXPECT_EQ(feed.second.scalar<std::string>(), "hello");
}

// "name=@file.npy": what numpy.save writes for float, bool, str ('<U')
// and 0-d arrays; the tensor keeps the file's shape.
TEST(FeedParserTest, NpyFileFeeds) {
  const GraphDef g = TestGraph();
  std::pair<std::string, Tensor> feed;

  Tensor m(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) m.flat<float>()(i) = 0.5f * i;
  std::string bytes;
  ASSERT_TRUE(EncodeNpy(m, &bytes).ok());
  absl::Status s = ParseFeed("m=@" + WriteTemp("m.npy", bytes), g, &feed);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(feed.first, "m");
  EXPECT_EQ(feed.second.shape(), TensorShape({2, 3}));
  EXPECT_TRUE(TensorsEqual(feed.second, m));

  s = ParseFeed(
      "b=@" + WriteTemp("b.npy", NumpySaved("|b1", "(3,)",
                                            std::string("\x01\x00\x01", 3))),
      g, &feed);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(feed.second.dtype(), DT_BOOL);
  ASSERT_EQ(feed.second.NumElements(), 3);
  EXPECT_TRUE(feed.second.flat<bool>()(0));
  EXPECT_FALSE(feed.second.flat<bool>()(1));
  EXPECT_TRUE(feed.second.flat<bool>()(2));

  s = ParseFeed(
      "s=@" + WriteTemp("s.npy",
                        NumpySaved("<U3", "(2,)",
                                   Utf32(U"ab", 3) + Utf32(U"c\u00e9d", 3))),
      g, &feed);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(feed.second.dtype(), DT_STRING);
  ASSERT_EQ(feed.second.shape(), TensorShape({2}));
  EXPECT_EQ(feed.second.flat<std::string>()(0), "ab");
  EXPECT_EQ(feed.second.flat<std::string>()(1),
            "c\xc3\xa9"
            "d");

  s = ParseFeed(
      "x:0=@" + WriteTemp("x.npy", NumpySaved("<i4", "()",
                                              std::string("\x07\0\0\0", 4))),
      g, &feed);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(feed.first, "x:0");
  EXPECT_EQ(feed.second.dims(), 0);
  EXPECT_EQ(feed.second.scalar<int32_t>(), 7);
}

TEST(FeedParserTest, TensorProtoFileFeedsAndRelativePaths) {
  TensorProto proto;
  TensorToProto(Tensor::Vector<int32_t>({4, 5, 6}), &proto);
  WriteTemp("x.pb", proto.SerializeAsString());
  std::pair<std::string, Tensor> feed;
  // Relative to base_dir, as run_graph resolves it under `bazel run`.
  absl::Status s = ParseFeed("x=@x.pb", TestGraph(), &feed, TestTmpDir());
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(TensorsEqual(feed.second, Tensor::Vector<int32_t>({4, 5, 6})));
  // "@@" is a literal '@'.
  ASSERT_TRUE(ParseFeed("s=@@x.pb", TestGraph(), &feed).ok());
  EXPECT_EQ(feed.second.scalar<std::string>(), "@x.pb");
}

TEST(FeedParserTest, FileFeedErrorsNameTheFeedAndTheFile) {
  const GraphDef g = TestGraph();
  std::pair<std::string, Tensor> feed;
  // numpy's default float64 for a float32 placeholder.
  const std::string f8 =
      WriteTemp("f8.npy", NumpySaved("<f8", "(1,)", std::string(8, '\0')));
  absl::Status s = ParseFeed("m=@" + f8, g, &feed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("feed 'm'"));
  EXPECT_THAT(s.message(), HasSubstr(f8));
  EXPECT_THAT(s.message(), HasSubstr("double"));
  EXPECT_THAT(s.message(), HasSubstr("float"));

  const std::string missing = TestTmpDir() + "/no_such_feed.npy";
  s = ParseFeed("m=@" + missing, g, &feed);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(s.message(), HasSubstr("feed 'm'"));
  EXPECT_THAT(s.message(), HasSubstr(missing));

  s = ParseFeed("m=@" + TestTmpDir(), g, &feed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(TestTmpDir()));

  const std::string junk = WriteTemp("junk.pb", "\xff\xff\xff not a proto");
  s = ParseFeed("m=@" + junk, g, &feed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(junk));

  const std::string bad_npy = WriteTemp("bad.npy", "\x93NUMPY garbage");
  s = ParseFeed("m=@" + bad_npy, g, &feed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(bad_npy));
}

TEST(FeedParserTest, Errors) {
  std::pair<std::string, Tensor> feed;
  GraphDef g = TestGraph();
  EXPECT_EQ(ParseFeed("x", g, &feed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseFeed("=3", g, &feed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseFeed("nope=3", g, &feed).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ParseFeed("x=abc", g, &feed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseFeed("x=99999999999", g, &feed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseFeed("c=1", g, &feed).code(),
            absl::StatusCode::kInvalidArgument);
  Tensor t;
  EXPECT_FALSE(ParseTensorValue("[[1,2],[3]]", DT_INT32, &t).ok());
  EXPECT_FALSE(ParseTensorValue("[1,2", DT_INT32, &t).ok());
  EXPECT_FALSE(ParseTensorValue("[1,2]]", DT_INT32, &t).ok());
  EXPECT_FALSE(ParseTensorValue("[1,,2]", DT_INT32, &t).ok());
  EXPECT_FALSE(ParseTensorValue("maybe", DT_BOOL, &t).ok());
}

TEST(FeedParserTest, DeepNestingIsRefusedWithoutExhaustingTheStack) {
  Tensor t;
  // 50,000 open brackets used to recurse until the stack overflowed.
  absl::Status s = ParseTensorValue(std::string(50000, '['), DT_FLOAT, &t);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("nested deeper than 254"), std::string::npos);
  // Rank 20,000, well formed: refused too (TensorFlow's limit is 254).
  const std::string deep =
      std::string(20000, '[') + "1" + std::string(20000, ']');
  s = ParseTensorValue(deep, DT_FLOAT, &t);
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  // Rank 254 is the highest allowed.
  const std::string max = std::string(254, '[') + "1" + std::string(254, ']');
  ASSERT_TRUE(ParseTensorValue(max, DT_FLOAT, &t).ok());
  EXPECT_EQ(t.dims(), 254);
  EXPECT_FALSE(ParseTensorValue("[" + max + "]", DT_FLOAT, &t).ok());
}

}  // namespace
}  // namespace stepflow
