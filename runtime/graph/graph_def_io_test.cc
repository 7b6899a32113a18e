#include "runtime/graph/graph_def_io.h"
#include "testing/test_tmpdir.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

namespace stepflow {
namespace {

using test::TestTmpDir;
using test::TestTmpPath;

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

constexpr char kText[] = R"pb(
  # A comment line.
  node {
    name: "x"  # trailing comment
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "Identity"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    device: "/cpu:0"
  }
  versions { producer: 27 min_consumer: 12 }
)pb";

GraphDef Sample() {
  GraphDef def;
  EXPECT_TRUE(ParseGraphDefFromText(kText, &def).ok());
  return def;
}

void WriteRaw(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(GraphDefIoTest, ParsesTextWithEnumNamesAndComments) {
  GraphDef def;
  absl::Status s = ParseGraphDefFromText(kText, &def);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(def.node_size(), 2);
  EXPECT_EQ(def.node(0).name(), "x");
  EXPECT_EQ(def.node(0).attr().at("dtype").type(), DT_FLOAT);
  EXPECT_EQ(def.node(1).input(0), "x");
  EXPECT_EQ(def.node(1).device(), "/cpu:0");
  EXPECT_EQ(def.versions().producer(), 27);
  // Numeric enum values are accepted as well.
  ASSERT_TRUE(
      ParseGraphDefFromText(
          R"(node { name: "a" attr { key: "T" value { type: 3 } } })", &def)
          .ok());
  EXPECT_EQ(def.node(0).attr().at("T").type(), DT_INT32);
}

TEST(GraphDefIoTest, TextErrorsGiveLineAndColumn) {
  GraphDef def;
  absl::Status s =
      ParseGraphDefFromText("node {\n  name: \"a\"\n  bogus: 1\n}\n", &def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Could not parse GraphDef"));
  EXPECT_THAT(s.message(), HasSubstr("line 3"));
  EXPECT_THAT(s.message(), HasSubstr("bogus"));
  EXPECT_EQ(def.node_size(), 0);

  s = ParseGraphDefFromText(
      "node { attr { key: \"T\" value { type: DT_NOPE } } }", &def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("DT_NOPE"));

  s = ParseGraphDefFromText("node { name: \"unterminated", &def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(GraphDefIoTest, BinaryRoundTrip) {
  GraphDef def = Sample();
  std::string bytes;
  ASSERT_TRUE(def.SerializeToString(&bytes));
  GraphDef back;
  ASSERT_TRUE(ParseGraphDefFromBinary(bytes, &back).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(back, def));
  EXPECT_EQ(back.node(1).name(), "y");
}

TEST(GraphDefIoTest, TruncatedAndGarbageBytesAreInvalidArgument) {
  std::string bytes = Sample().SerializeAsString();
  int rejected = 0;
  for (size_t len = 1; len < bytes.size(); ++len) {
    GraphDef def;
    absl::Status s = ParseGraphDefFromBinary(bytes.substr(0, len), &def);
    if (!s.ok()) {
      ++rejected;
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(s.message(), HasSubstr("Could not parse GraphDef"));
    }
  }
  EXPECT_GT(rejected, 0);
  // Cut in the middle of the first node's length-delimited payload.
  GraphDef def;
  EXPECT_EQ(ParseGraphDefFromBinary(bytes.substr(0, 5), &def).code(),
            absl::StatusCode::kInvalidArgument);

  const std::string garbage[] = {
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11),
      std::string("\x0a\xff\xff\xff\xff\x0f", 6),  // Huge length.
      std::string("\x07", 1),                      // Bad wire type.
      std::string("\x00\x00", 2),                  // Field number 0.
  };
  for (const std::string& g : garbage) {
    EXPECT_EQ(ParseGraphDefFromBinary(g, &def).code(),
              absl::StatusCode::kInvalidArgument);
  }
  // Deterministic random bytes: never a crash.
  uint64_t state = 99;
  for (int i = 0; i < 2000; ++i) {
    std::string junk;
    const int len = static_cast<int>(i % 64);
    for (int k = 0; k < len; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      junk.push_back(static_cast<char>(state >> 56));
    }
    absl::Status s = ParseGraphDefFromBinary(junk, &def);
    EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kInvalidArgument);
    s = ParseGraphDefFromText(junk, &def);
    EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST(GraphDefIoTest, FileRoundTripsBothFormats) {
  GraphDef def = Sample();
  const std::string text_path = TestTmpPath("g.pbtxt");
  const std::string bin_path = TestTmpPath("g.pb");
  ASSERT_TRUE(WriteTextGraphDef(text_path, def).ok());
  ASSERT_TRUE(WriteBinaryGraphDef(bin_path, def).ok());
  GraphDef a, b;
  ASSERT_TRUE(ReadGraphDefFromFile(text_path, &a).ok());
  ASSERT_TRUE(ReadGraphDefFromFile(bin_path, &b).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(a, def));
  EXPECT_TRUE(MessageDifferencer::Equals(b, def));
  EXPECT_THAT(GraphDefToText(def), HasSubstr("DT_FLOAT"));
}

TEST(GraphDefIoTest, FormatChosenByExtensionAndContent) {
  GraphDef def = Sample();
  // Text in a .pb file: binary fails, text is tried next.
  const std::string text_in_pb = TestTmpPath("text_in.pb");
  WriteRaw(text_in_pb, kText);
  GraphDef out;
  absl::Status s = ReadGraphDefFromFile(text_in_pb, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out.node_size(), 2);
  // Binary with no telling extension: detected by its bytes.
  const std::string bin_noext = TestTmpPath("graph_binary");
  WriteRaw(bin_noext, def.SerializeAsString());
  ASSERT_TRUE(ReadGraphDefFromFile(bin_noext, &out).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(out, def));
  // Text with no extension.
  const std::string text_noext = TestTmpPath("graph_text");
  WriteRaw(text_noext, kText);
  ASSERT_TRUE(ReadGraphDefFromFile(text_noext, &out).ok());
  EXPECT_EQ(out.node(0).name(), "x");
  // .pbtxt forces text: binary content is an error naming the file.
  const std::string bin_as_text = TestTmpPath("bin.pbtxt");
  WriteRaw(bin_as_text, def.SerializeAsString());
  s = ReadGraphDefFromFile(bin_as_text, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(bin_as_text));
}

TEST(GraphDefIoTest, FileErrors) {
  GraphDef out;
  const std::string missing = TestTmpPath("does_not_exist.pb");
  absl::Status s = ReadGraphDefFromFile(missing, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(missing));

  const std::string junk = TestTmpPath("junk.pb");
  WriteRaw(junk, std::string("\x0a\xff\xff\xff\xff\x0f garbage {{{", 17));
  s = ReadGraphDefFromFile(junk, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Could not parse GraphDef"));
  EXPECT_THAT(s.message(), HasSubstr(junk));

  s = ReadGraphDefFromFile(TestTmpDir(), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);

  s = WriteTextGraphDef("/nonexistent_dir_xyz/g.pbtxt", GraphDef());
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent_dir_xyz/g.pbtxt"));
}

// A length-delimited field (wire type 2) of `bytes`.
std::string Field(int number, const std::string& bytes) {
  std::string out(1, static_cast<char>((number << 3) | 2));
  for (size_t n = bytes.size();; n >>= 7) {
    out.push_back(static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
    if (n < 0x80) break;
  }
  return out + bytes;
}

// What tf.saved_model.save writes as saved_model.pb: schema version 1 and
// one MetaGraphDef whose graph_def (field 2) is a GraphDef.
std::string SavedModelBytes() {
  std::string graph;
  EXPECT_TRUE(Sample().SerializeToString(&graph));
  const std::string meta_graph =
      Field(1, Field(1, "1.0")) +  // meta_info_def { meta_graph_version }
      Field(2, graph);
  return std::string("\x08\x01", 2) + Field(2, meta_graph);
}

void ExpectSavedModelError(const absl::Status& s, const std::string& path) {
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_THAT(s.message(), HasSubstr("is a SavedModel, not a GraphDef"));
  EXPECT_THAT(s.message(), HasSubstr("--saved_model=DIR"));
  EXPECT_THAT(s.message(), HasSubstr("convert_variables_to_constants_v2"));
}

// A SavedModel, given as its directory or its saved_model.pb(txt), is named
// as such with what to do instead, rather than failing to parse (or parsing
// into a GraphDef of garbage).
TEST(GraphDefIoTest, SavedModelsAreRecognisedAndExplained) {
  GraphDef out;
  const std::string dir = TestTmpPath("exported_model");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  WriteRaw(dir + "/saved_model.pb", SavedModelBytes());
  ExpectSavedModelError(ReadGraphDefFromFile(dir, &out), dir);
  ExpectSavedModelError(ReadGraphDefFromFile(dir + "/saved_model.pb", &out),
                        dir + "/saved_model.pb");
  EXPECT_EQ(out.node_size(), 0);
  // Whatever the file is called.
  WriteRaw(TestTmpPath("model.bin"), SavedModelBytes());
  ExpectSavedModelError(ReadGraphDefFromFile(TestTmpPath("model.bin"), &out),
                        TestTmpPath("model.bin"));

  const std::string text_dir = TestTmpPath("exported_text_model");
  ASSERT_EQ(mkdir(text_dir.c_str(), 0755), 0);
  WriteRaw(text_dir + "/saved_model.pbtxt",
           "# written by TensorFlow\nsaved_model_schema_version: 1\n"
           "meta_graphs {\n  graph_def { node { name: 'x' op: 'NoOp' } }\n}\n");
  ExpectSavedModelError(ReadGraphDefFromFile(text_dir, &out), text_dir);
  ExpectSavedModelError(
      ReadGraphDefFromFile(text_dir + "/saved_model.pbtxt", &out),
      text_dir + "/saved_model.pbtxt");

  // A GraphDef that merely starts with a varint field 1 is still not taken
  // for a SavedModel unless the rest matches.
  std::string graph;
  ASSERT_TRUE(Sample().SerializeToString(&graph));
  WriteRaw(TestTmpPath("odd.pb"), std::string("\x08\x01", 2) + graph);
  absl::Status s = ReadGraphDefFromFile(TestTmpPath("odd.pb"), &out);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(out.node_size(), 2);
}

}  // namespace
}  // namespace stepflow
