// Runs the run_graph binary as a user would: on the TensorFlow-written
// graphs (when ../shared is present), on the example we ship, and on bad
// input, checking output and exit status.
#include <sys/wait.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "runtime/framework/npy.h"
#include "runtime/framework/tensor.h"
#include "runtime/saved_model/saved_model_test_util.h"
#include "testing/test_tmpdir.h"
#include "testing/tf_testdata.h"

namespace stepflow {
namespace {

using test::TestTmpPath;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr.
};

std::string Runfile(const std::string& path) {
  return absl::StrCat(getenv("TEST_SRCDIR"), "/", getenv("TEST_WORKSPACE"), "/",
                      path);
}

Result RunGraph(const std::string& args) {
  const std::string cmd =
      absl::StrCat(Runfile("runtime/bin/run_graph"), " ", args, " 2>&1");
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(RunGraphTest, TensorFlowAdditionInt32) {
  auto file = TfTestdataFile("addition_int32.pb");
  if (!file) GTEST_SKIP() << "../shared/testdata/tf not found; skipping";
  Result r = RunGraph(absl::StrCat("--graph=", *file, " --fetch=z x=2 y=40"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "z = 42\n");
}

TEST(RunGraphTest, TensorFlowMultiplicationFloat) {
  auto file = TfTestdataFile("multiplication_float.pb");
  if (!file) GTEST_SKIP() << "../shared/testdata/tf not found; skipping";
  Result r = RunGraph(
      absl::StrCat("--graph=", *file, " --fetch=c a=[1,2,3] b=[4,5,6]"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "c = [4 10 18]\n");
}

TEST(RunGraphTest, ShippedExampleOnTwoDevices) {
  Result r =
      RunGraph(absl::StrCat("--graph=", Runfile("examples/affine.pbtxt"),
                            " --fetch=y,total --cpus=2 'x=[[1,2],[3,4]]'"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y = [[5.5 1.5 0][11.5 1.5 0]]\ntotal = 20\n");
}

TEST(RunGraphTest, DeviceRequestsPlaceNodes) {
  Result r = RunGraph(
      absl::StrCat("--graph=", Runfile("examples/affine.pbtxt"),
                   " --fetch=y,total --cpus=2 --log_device_placement",
                   " --device=matmul=/cpu:1,y=/cpu:1 'x=[[1,2],[3,4]]'"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("y = [[5.5 1.5 0][11.5 1.5 0]]\ntotal = 20\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("matmul: (MatMul): /job:localhost/replica:0/task:0/"
                          "device:CPU:1"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("y: (Relu): /job:localhost/replica:0/task:0/"
                          "device:CPU:1"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("total: (Sum): /job:localhost/replica:0/task:0/"
                          "device:CPU:0"),
            std::string::npos)
      << r.output;
}

// The value printed for `name` at the last report ("name = value").
double LastValue(const std::string& output, const std::string& name) {
  const std::string key = "\n" + name + " = ";
  size_t pos = ("\n" + output).rfind(key);
  if (pos == std::string::npos) return -1e30;
  return std::strtod(output.c_str() + pos + key.size() - 1, nullptr);
}

TEST(RunGraphTest, ShippedTrainingExampleLearnsTheLine) {
  std::string xs, ys;
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&xs, i ? "," : "", i / 20.0);
    absl::StrAppend(&ys, i ? "," : "", 0.1 * i / 20.0 + 0.3);
  }
  Result r = RunGraph(absl::StrCat(
      "--graph=", Runfile("examples/linear_regression.pbtxt"),
      " --cpus=2 --init=init --target=train --steps=200 --print_every=100",
      " --fetch=w,b,loss x=", xs, " y=", ys));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step 100:"), std::string::npos) << r.output;
  EXPECT_NEAR(LastValue(r.output, "w"), 0.1, 1e-3) << r.output;
  EXPECT_NEAR(LastValue(r.output, "b"), 0.3, 1e-3) << r.output;
  EXPECT_LT(LastValue(r.output, "loss"), 1e-6) << r.output;
}

TEST(RunGraphTest, BadInputsExitNonZeroWithAMessage) {
  const std::string example = Runfile("examples/affine.pbtxt");
  struct Case {
    std::string args;
    std::string expect;
  };
  const Case cases[] = {
      {"", "--graph is required"},
      {"--graph=/no/such/file.pb --fetch=y", "/no/such/file.pb"},
      {absl::StrCat("--graph=", example, " --fetch=nope 'x=[[1,2]]'"), "nope"},
      {absl::StrCat("--graph=", example, " --fetch=y 'x=[[1,2],[3]]'"),
       "ragged"},
      {absl::StrCat("--graph=", example, " --fetch=y x=abc"), "abc"},
      {absl::StrCat("--graph=", example, " --fetch=y"), "x"},
      {absl::StrCat("--graph=", example, " --fetch=y --cpus=0 'x=[[1,2]]'"),
       "--cpus"},
      {absl::StrCat("--graph=", example, " 'x=[[1,2]]'"), "nothing to do"},
      {absl::StrCat("--graph=", example,
                    " --fetch=y --device=nope=/cpu:0 'x=[[1,2]]'"),
       "no node is named 'nope'"},
      {absl::StrCat("--graph=", example, " --fetch=y --device=y 'x=[[1,2]]'"),
       "PREFIX=DEVICE"},
      // --target=grpc://... is the session target: nothing listens there.
      {absl::StrCat("--graph=", example,
                    " --fetch=y --target=grpc://127.0.0.1:1 'x=[[1,2]]'"),
       "127.0.0.1:1"},
      {absl::StrCat("--graph=", example,
                    " --fetch=y --session_target=grpc://a:1",
                    " --target=grpc://b:2 'x=[[1,2]]'"),
       "two session targets"},
  };
  for (const Case& c : cases) {
    Result r = RunGraph(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n"
                                                          << r.output;
  }
}

TEST(RunGraphTest, GarbageGraphFileIsAnError) {
  const std::string path = TestTmpPath("garbage.pb");
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const unsigned char bytes[] = {0x0a, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x01};
  fwrite(bytes, 1, sizeof(bytes), f);
  fclose(f);
  Result r = RunGraph(absl::StrCat("--graph=", path, " --fetch=x"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("loading the graph"), std::string::npos) << r.output;
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = TestTmpPath(name);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)),
                     std::istreambuf_iterator<char>());
}

std::string NpyOf(const Tensor& t) {
  std::string bytes;
  EXPECT_TRUE(EncodeNpy(t, &bytes).ok());
  return bytes;
}

// A variable whose initial value is fed (as a Saver restore feeds its
// filename): --init runs with the command-line feeds it depends on; `x`,
// which only the step needs, is left out of the init run.
TEST(RunGraphTest, InitRunsWithTheFeedsItNeeds) {
  const std::string graph = WriteTemp("fed_init.pbtxt", R"pb(
    node {
      name: "v"
      op: "VariableV2"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value { shape {} }
      }
    }
    node {
      name: "v0"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "v/Assign"
      op: "Assign"
      input: "v"
      input: "v0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node { name: "init" op: "NoOp" input: "^v/Assign" }
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "y"
      op: "Mul"
      input: "v"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  Result r = RunGraph(
      absl::StrCat("--graph=", graph, " --init=init --fetch=y v0=3 x=2"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y = 6\n");
  // With --target the init feeds are the same.
  r = RunGraph(absl::StrCat("--graph=", graph,
                            " --init=init --target=y --fetch=y v0=4 x=2"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y = 8\n");
}

constexpr char kIdentities[] = R"pb(
  node {
    name: "s"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "b"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "f"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "scope/s"
    op: "Identity"
    input: "s"
    attr {
      key: "T"
      value { type: DT_STRING }
    }
  }
  node { name: "not_b" op: "LogicalNot" input: "b" }
  node {
    name: "f2"
    op: "Identity"
    input: "f"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "empty"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 2 }
            dim { size: 0 }
          }
        }
      }
    }
  }
)pb";

// Feeds from .npy files (string, bool, float) and --output_dir writing each
// fetch as .npy, read back with the same codec numpy.load agrees with.
TEST(RunGraphTest, NpyFeedsAndOutputDir) {
  const std::string graph = WriteTemp("identities.pbtxt", kIdentities);
  const std::string s_file =
      WriteTemp("s.npy", NpyOf(Tensor::Vector<std::string>({"ab", "", "xyz"})));
  const std::string b_file =
      WriteTemp("b.npy", NpyOf(Tensor::Vector<bool>({true, false})));
  Tensor f(DT_FLOAT, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) f.flat<float>()(i) = 1.5f * i;
  const std::string f_file = WriteTemp("f.npy", NpyOf(f));
  const std::string out_dir = TestTmpPath("fetched");
  Result r = RunGraph(absl::StrCat(
      "--graph=", graph, " --fetch=scope/s,not_b:0,f2,empty --output_dir=",
      out_dir, " s=@", s_file, " b=@", b_file, " f=@", f_file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "scope/s = [ab  xyz]\nnot_b:0 = [0 1]\nf2 = [[0 1.5][3 4.5]]\n"
            "empty = [] (shape [2,0])\n");

  Tensor t;
  ASSERT_TRUE(DecodeNpy(ReadAll(out_dir + "/scope+s_0.npy"), &t).ok());
  ASSERT_EQ(t.dtype(), DT_STRING);
  ASSERT_EQ(t.NumElements(), 3);
  EXPECT_EQ(t.flat<std::string>()(0), "ab");
  EXPECT_EQ(t.flat<std::string>()(1), "");
  EXPECT_EQ(t.flat<std::string>()(2), "xyz");
  ASSERT_TRUE(DecodeNpy(ReadAll(out_dir + "/not_b_0.npy"), &t).ok());
  ASSERT_EQ(t.dtype(), DT_BOOL);
  ASSERT_EQ(t.NumElements(), 2);
  EXPECT_FALSE(t.flat<bool>()(0));
  EXPECT_TRUE(t.flat<bool>()(1));
  ASSERT_TRUE(DecodeNpy(ReadAll(out_dir + "/f2_0.npy"), &t).ok());
  ASSERT_EQ(t.shape(), TensorShape({2, 2}));
  EXPECT_EQ(t.flat<float>()(3), 4.5f);
  ASSERT_TRUE(DecodeNpy(ReadAll(out_dir + "/empty_0.npy"), &t).ok());
  EXPECT_EQ(t.shape(), TensorShape({2, 0}));
}

TEST(RunGraphTest, FileFeedErrorsNameTheFile) {
  const std::string graph = WriteTemp("identities2.pbtxt", kIdentities);
  const std::string f8 =
      WriteTemp("f8.npy", NpyOf(Tensor::Vector<double>({1.0, 2.0})));
  Result r = RunGraph(absl::StrCat("--graph=", graph, " --fetch=f2 f=@", f8));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(
                absl::StrCat("feed 'f': file '", f8, "' holds double values")),
            std::string::npos)
      << r.output;
  r = RunGraph(absl::StrCat("--graph=", graph, " --fetch=f2 f=@",
                            TestTmpPath("missing.npy")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(TestTmpPath("missing.npy")), std::string::npos)
      << r.output;
}

// A SavedModel directory is named as such, with how to freeze it.
TEST(RunGraphTest, SavedModelDirectoryIsExplained) {
  const std::string dir = TestTmpPath("saved_model_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  WriteTemp("saved_model_dir/saved_model.pb", std::string("\x08\x01", 2));
  Result r = RunGraph(absl::StrCat("--graph=", dir, " --fetch=y"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("is a SavedModel, not a GraphDef"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("convert_variables_to_constants_v2"),
            std::string::npos)
      << r.output;
}

// --saved_model restores the variables, runs the init op and feeds and
// fetches by signature keys.
TEST(RunGraphTest, SavedModelBySignatureKeys) {
  const std::string dir = TestTmpPath("export_for_run_graph");
  ASSERT_TRUE(test::WriteTestSavedModel(dir).ok());
  Result r = RunGraph(absl::StrCat("--saved_model=", dir, " x=[1,2]"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            absl::StrCat("asset = ", dir, "/assets/vocab.txt\nlocal = 5\n",
                         "y = [11 22]\n"));
  r = RunGraph(absl::StrCat("--saved_model=", dir,
                            " --tags=serve --signature=serving_default"
                            " --fetch=y x=[1,2]"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "y = [11 22]\n");
  const std::string out = TestTmpPath("saved_model_out");
  r = RunGraph(absl::StrCat("--saved_model=", dir,
                            " --fetch=y --output_dir=", out, " x=[1,2]"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  struct stat st;
  EXPECT_EQ(stat(absl::StrCat(out, "/y_0.npy").c_str(), &st), 0);
}

TEST(RunGraphTest, SavedModelErrorsNameWhatExists) {
  const std::string dir = TestTmpPath("export_for_run_graph_errors");
  ASSERT_TRUE(test::WriteTestSavedModel(dir).ok());
  Result r = RunGraph(absl::StrCat("--saved_model=", dir, " --tags=train"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("{ serve }"), std::string::npos) << r.output;
  r = RunGraph(absl::StrCat("--saved_model=", dir, " --signature=predict"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("signatures are: serving_default"), std::string::npos)
      << r.output;
  r = RunGraph(absl::StrCat("--saved_model=", dir, " z=1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("its inputs are: x"), std::string::npos) << r.output;
  r = RunGraph(absl::StrCat("--saved_model=", dir, " --fetch=nope x=1"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("its outputs are: asset, local, y"),
            std::string::npos)
      << r.output;
  r = RunGraph(absl::StrCat("--saved_model=", TestTmpPath("no_such_export")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no_such_export"), std::string::npos) << r.output;
  r = RunGraph(absl::StrCat("--saved_model=", dir, " --graph=", dir));
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

}  // namespace
}  // namespace stepflow
