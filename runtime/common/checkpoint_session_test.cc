// Checkpoints through DirectSession with the graphs tf.train.Saver (V2)
// builds: train a small model, save (SaveV2 over the variables, plain and
// sharded with StringJoin/ShardedFilename/MergeV2Checkpoints), keep
// training, restore into a fresh session built from the same GraphDef
// (RestoreV2 + Assign) and compare bit for bit. Corrupt, truncated,
// missing and half-written checkpoints fail the restore step with a clear
// status and never change a variable.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/common/session.h"
#include "runtime/env/real/real_env.h"
#include "runtime/graph/graph_def_io.h"
#include "runtime/graph/graph_test_util.h"
#include "runtime/kernels/checkpoint_test_util.h"

namespace stepflow {
namespace {

using test::ParseGraphDefOrFail;

using test::ListDir;
using test::MakeTempDir;
using test::ReadFileOrDie;

std::string Inputs(const std::vector<std::string>& inputs) {
  std::string out;
  for (const auto& i : inputs) absl::StrAppend(&out, " input: '", i, "'");
  return out;
}

std::string Shape(const std::vector<int>& dims) {
  std::string out = "shape {";
  for (int d : dims) absl::StrAppend(&out, " dim { size: ", d, " }");
  return out + " }";
}

std::string Variable(const std::string& name, const std::string& dtype,
                     const std::vector<int>& dims) {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'VariableV2' attr { key: 'dtype' value { type: ", dtype,
      " } } attr { key: 'shape' value { ", Shape(dims), " } } }\n");
}

// A Const of `dtype` with the given `*_val` entries and dims.
std::string Const(const std::string& name, const std::string& dtype,
                  const std::vector<int>& dims, const std::string& field,
                  const std::vector<std::string>& values) {
  std::string tensor_shape = "tensor_shape {";
  for (int d : dims) absl::StrAppend(&tensor_shape, " dim { size: ", d, " }");
  tensor_shape += " }";
  std::string vals;
  for (const auto& v : values) absl::StrAppend(&vals, " ", field, ": ", v);
  return absl::StrCat("node { name: '", name,
                      "' op: 'Const' attr { key: 'dtype' value { type: ", dtype,
                      " } } attr { key: 'value' value { tensor { dtype: ",
                      dtype, " ", tensor_shape, vals, " } } } }\n");
}

std::string StringsConst(const std::string& name,
                         const std::vector<std::string>& values) {
  std::vector<std::string> quoted;
  for (const auto& v : values) quoted.push_back("'" + v + "'");
  return Const(name, "DT_STRING", {static_cast<int>(values.size())},
               "string_val", quoted);
}

std::string Node(const std::string& op, const std::string& name,
                 const std::vector<std::string>& inputs,
                 const std::string& attrs = "") {
  return absl::StrCat("node { name: '", name, "' op: '", op, "'",
                      Inputs(inputs), attrs, " }\n");
}

std::string TypeAttr(const std::string& key, const std::string& dtype) {
  return absl::StrCat(" attr { key: '", key, "' value { type: ", dtype, " } }");
}

std::string TypeListAttr(const std::string& key,
                         const std::vector<std::string>& dtypes) {
  std::string list;
  for (const auto& d : dtypes) absl::StrAppend(&list, " type: ", d);
  return absl::StrCat(" attr { key: '", key, "' value { list {", list,
                      " } } }");
}

struct Var {
  std::string name;
  std::string dtype;
};

// The model: y = w * x + b elementwise (w: float[2], b: float), trained by
// ApplyGradientDescent; global_step (int64) counts steps; tag (string) is
// set once. Variables in Saver order (sorted by name).
const std::vector<Var>& ModelVars() {
  static const auto* vars = new std::vector<Var>{{"b", "DT_FLOAT"},
                                                 {"global_step", "DT_INT64"},
                                                 {"tag", "DT_STRING"},
                                                 {"w", "DT_FLOAT"}};
  return *vars;
}

std::string ModelGraph() {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  return Variable("w", "DT_FLOAT", {2}) + Variable("b", "DT_FLOAT", {}) +
         Variable("global_step", "DT_INT64", {}) +
         Variable("tag", "DT_STRING", {}) +
         Const("w/initial_value", "DT_FLOAT", {2}, "float_val",
               {"0.5", "-0.25"}) +
         Node("Assign", "w/Assign", {"w", "w/initial_value"}, f) +
         Const("b/initial_value", "DT_FLOAT", {}, "float_val", {"0.125"}) +
         Node("Assign", "b/Assign", {"b", "b/initial_value"}, f) +
         Const("global_step/initial_value", "DT_INT64", {}, "int64_val",
               {"0"}) +
         Node("Assign", "global_step/Assign",
              {"global_step", "global_step/initial_value"},
              TypeAttr("T", "DT_INT64")) +
         Const("tag/initial_value", "DT_STRING", {}, "string_val",
               {"'run-1\\000\\377'"}) +
         Node("Assign", "tag/Assign", {"tag", "tag/initial_value"},
              TypeAttr("T", "DT_STRING")) +
         Node(
             "NoOp", "init",
             {"^w/Assign", "^b/Assign", "^global_step/Assign", "^tag/Assign"}) +
         Const("x", "DT_FLOAT", {2}, "float_val", {"1.5", "-2"}) +
         Const("y", "DT_FLOAT", {2}, "float_val", {"0.3", "0.7"}) +
         Node("Mul", "wx", {"w", "x"}, f) +
         Node("AddV2", "pred", {"wx", "b"}, f) +
         Node("Sub", "err", {"pred", "y"}, f) +
         Node("Mul", "grad_w", {"err", "x"}, f) +
         Const("axis", "DT_INT32", {1}, "int_val", {"0"}) +
         Node("Mean", "grad_b", {"err", "axis"},
              f + TypeAttr("Tidx", "DT_INT32")) +
         Const("lr", "DT_FLOAT", {}, "float_val", {"0.1"}) +
         Node("ApplyGradientDescent", "update_w", {"w", "lr", "grad_w"}, f) +
         Node("ApplyGradientDescent", "update_b", {"b", "lr", "grad_b"}, f) +
         Const("one", "DT_INT64", {}, "int64_val", {"1"}) +
         Node("AssignAdd", "inc_step", {"global_step", "one"},
              TypeAttr("T", "DT_INT64")) +
         Node("NoOp", "train", {"^update_w", "^update_b", "^inc_step"});
}

// The nodes tf.train.Saver adds for `vars` (its default filename "model",
// fed through save/Const:0), restore half first.
std::string SaverRestoreNodes(const std::vector<Var>& vars,
                              const std::string& restore_deps_node) {
  std::vector<std::string> names, slices, dtypes;
  for (const Var& v : vars) {
    names.push_back(v.name);
    slices.push_back("");
    dtypes.push_back(v.dtype);
  }
  std::string g = StringsConst("save/RestoreV2/tensor_names", names) +
                  StringsConst("save/RestoreV2/shape_and_slices", slices) +
                  Node("RestoreV2", "save/RestoreV2",
                       {"save/Const", "save/RestoreV2/tensor_names",
                        "save/RestoreV2/shape_and_slices"},
                       TypeListAttr("dtypes", dtypes));
  std::vector<std::string> assigns;
  for (size_t i = 0; i < vars.size(); ++i) {
    const std::string assign =
        i == 0 ? "save/Assign" : absl::StrCat("save/Assign_", i);
    g += Node("Assign", assign,
              {vars[i].name, absl::StrCat("save/RestoreV2:", i)},
              TypeAttr("T", vars[i].dtype));
    assigns.push_back("^" + assign);
  }
  g += Node("NoOp", restore_deps_node, assigns);
  if (restore_deps_node != "save/restore_all") {
    g += Node("NoOp", "save/restore_all", {"^" + restore_deps_node});
  }
  return g;
}

std::string SaverCommon(const std::vector<Var>& vars) {
  std::vector<std::string> names, slices, dtypes, inputs;
  for (const Var& v : vars) {
    names.push_back(v.name);
    slices.push_back("");
    dtypes.push_back(v.dtype);
  }
  return Const("save/filename/input", "DT_STRING", {}, "string_val",
               {"'model'"}) +
         Node("PlaceholderWithDefault", "save/filename",
              {"save/filename/input"},
              TypeAttr("dtype", "DT_STRING") +
                  " attr { key: 'shape' value { shape {} } }") +
         Node("PlaceholderWithDefault", "save/Const", {"save/filename"},
              TypeAttr("dtype", "DT_STRING") +
                  " attr { key: 'shape' value { shape {} } }") +
         StringsConst("save/SaveV2/tensor_names", names) +
         StringsConst("save/SaveV2/shape_and_slices", slices);
}

std::vector<std::string> SaveInputs(const std::string& prefix_node,
                                    const std::vector<Var>& vars) {
  std::vector<std::string> in = {prefix_node, "save/SaveV2/tensor_names",
                                 "save/SaveV2/shape_and_slices"};
  for (const Var& v : vars) in.push_back(v.name);
  return in;
}

std::vector<std::string> Dtypes(const std::vector<Var>& vars) {
  std::vector<std::string> d;
  for (const Var& v : vars) d.push_back(v.dtype);
  return d;
}

// Saver(sharded=False): save = save/control_dependency (Identity of the
// prefix after SaveV2).
std::string PlainSaver(const std::vector<Var>& vars) {
  return SaverCommon(vars) +
         Node("SaveV2", "save/SaveV2", SaveInputs("save/Const", vars),
              TypeListAttr("dtypes", Dtypes(vars))) +
         Node("Identity", "save/control_dependency",
              {"save/Const", "^save/SaveV2"}, TypeAttr("T", "DT_STRING")) +
         SaverRestoreNodes(vars, "save/restore_all");
}

// Saver(sharded=True), TensorFlow 1.x: shards go to
// "<prefix>_temp_<uuid>/part-00000-of-00001", MergeV2Checkpoints makes the
// final checkpoint; save = save/Identity.
std::string ShardedSaver(const std::vector<Var>& vars) {
  return SaverCommon(vars) +
         Const("save/StringJoin/inputs_1", "DT_STRING", {}, "string_val",
               {"'_temp_6e3b1f0c2d5a4e7f9a8b7c6d5e4f3a2b/part'"}) +
         Node("StringJoin", "save/StringJoin",
              {"save/Const", "save/StringJoin/inputs_1"},
              " attr { key: 'N' value { i: 2 } }"
              " attr { key: 'separator' value { s: '' } }") +
         Const("save/num_shards", "DT_INT32", {}, "int_val", {"1"}) +
         Const("save/ShardedFilename/shard", "DT_INT32", {}, "int_val", {"0"}) +
         Node("ShardedFilename", "save/ShardedFilename",
              {"save/StringJoin", "save/ShardedFilename/shard",
               "save/num_shards"}) +
         Node("SaveV2", "save/SaveV2", SaveInputs("save/ShardedFilename", vars),
              TypeListAttr("dtypes", Dtypes(vars))) +
         Node("Identity", "save/control_dependency",
              {"save/ShardedFilename", "^save/SaveV2"},
              TypeAttr("T", "DT_STRING")) +
         Node("Pack", "save/MergeV2Checkpoints/checkpoint_prefixes",
              {"save/ShardedFilename", "^save/control_dependency"},
              TypeAttr("T", "DT_STRING") +
                  " attr { key: 'N' value { i: 1 } }"
                  " attr { key: 'axis' value { i: 0 } }") +
         Node("MergeV2Checkpoints", "save/MergeV2Checkpoints",
              {"save/MergeV2Checkpoints/checkpoint_prefixes", "save/Const",
               "^save/control_dependency"},
              " attr { key: 'delete_old_dirs' value { b: true } }") +
         Node("Identity", "save/Identity",
              {"save/Const", "^save/MergeV2Checkpoints"},
              TypeAttr("T", "DT_STRING")) +
         SaverRestoreNodes(vars, "save/restore_shard");
}

// Fetched variable values, deep-copied (a fetched ref shares the
// variable's buffer, which training changes in place).
struct Snapshot {
  std::vector<Tensor> values;
};

void ExpectBitIdentical(const Snapshot& a, const Snapshot& b) {
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const Tensor& x = a.values[i];
    const Tensor& y = b.values[i];
    ASSERT_EQ(x.dtype(), y.dtype()) << i;
    ASSERT_EQ(x.shape(), y.shape()) << i;
    if (x.dtype() == DT_STRING) {
      for (int64_t k = 0; k < x.NumElements(); ++k) {
        EXPECT_EQ(x.base<std::string>()[k], y.base<std::string>()[k]) << i;
      }
    } else {
      EXPECT_EQ(std::memcmp(x.raw_data(), y.raw_data(), x.TotalBytes()), 0)
          << "variable " << ModelVars()[i].name << ": " << x.DebugString()
          << " vs " << y.DebugString();
    }
  }
}

class CheckpointSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = RealEnv::Create(4);
    dir_ = MakeTempDir();
    prefix_ = dir_ + "/model.ckpt";
  }

  std::unique_ptr<Session> NewSessionWith(const std::string& graph_text) {
    SessionOptions opts;
    opts.env = env_->env();
    std::unique_ptr<Session> session;
    absl::Status s = NewSession(opts, &session);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return nullptr;
    s = session->Create(ParseGraphDefOrFail(graph_text));
    EXPECT_TRUE(s.ok()) << s;
    return session;
  }

  absl::Status RunTarget(Session* s, const std::string& target,
                         const Session::FeedList& feeds = {}) {
    std::vector<Tensor> out;
    return s->Run(feeds, {}, {target}, &out);
  }

  void Train(Session* s, int steps) {
    for (int i = 0; i < steps; ++i) {
      absl::Status st = RunTarget(s, "train");
      ASSERT_TRUE(st.ok()) << st;
    }
  }

  Snapshot Fetch(Session* s) {
    std::vector<std::string> names;
    for (const Var& v : ModelVars()) names.push_back(v.name);
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, names, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
    Snapshot snap;
    for (const Tensor& t : out) snap.values.push_back(t.DeepCopy());
    return snap;
  }

  Session::FeedList PrefixFeed() const {
    return {{"save/Const:0", Tensor::Scalar<std::string>(prefix_)}};
  }

  // Runs the save op (`save_tensor`, as Saver.save does) and checks it
  // returns the prefix.
  absl::Status Save(Session* s, const std::string& save_tensor) {
    std::vector<Tensor> out;
    absl::Status st = s->Run(PrefixFeed(), {save_tensor}, {}, &out);
    if (st.ok()) {
      EXPECT_EQ(out[0].scalar<std::string>(), prefix_);
    }
    return st;
  }

  absl::Status Restore(Session* s) {
    return RunTarget(s, "save/restore_all", PrefixFeed());
  }

  // A trained session and a checkpoint of it; `saved` holds the values.
  std::unique_ptr<Session> TrainAndSave(const std::string& graph,
                                        const std::string& save_tensor,
                                        Snapshot* saved) {
    auto s = NewSessionWith(graph);
    EXPECT_TRUE(RunTarget(s.get(), "init").ok());
    Train(s.get(), 3);
    *saved = Fetch(s.get());
    absl::Status st = Save(s.get(), save_tensor);
    EXPECT_TRUE(st.ok()) << st;
    return s;
  }

  // Expects every model variable of a fresh session to be uninitialized.
  void ExpectUninitialized(Session* s) {
    for (const Var& v : ModelVars()) {
      std::vector<Tensor> out;
      absl::Status st = s->Run({}, {v.name}, {}, &out);
      EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition)
          << v.name << ": " << st;
    }
  }

  std::unique_ptr<RealEnv> env_;
  std::string dir_;
  std::string prefix_;
};

TEST_F(CheckpointSessionTest, SaveTrainRestoreIntoFreshSessionBitForBit) {
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  Snapshot saved;
  auto a = TrainAndSave(graph, "save/control_dependency", &saved);
  EXPECT_EQ(saved.values[1].scalar<int64_t>(), 3);  // global_step.
  EXPECT_EQ(ListDir(dir_),
            (std::vector<std::string>{"model.ckpt.data-00000-of-00001",
                                      "model.ckpt.index"}));

  // Keep training: the values move on.
  Train(a.get(), 3);
  const Snapshot later = Fetch(a.get());
  EXPECT_NE(
      std::memcmp(later.values[3].raw_data(), saved.values[3].raw_data(), 8),
      0);

  // A fresh session from the same GraphDef: no init, only the restore.
  auto b = NewSessionWith(graph);
  ExpectUninitialized(b.get());
  absl::Status st = Restore(b.get());
  ASSERT_TRUE(st.ok()) << st;
  ExpectBitIdentical(Fetch(b.get()), saved);

  // Training on from the restored state retraces the original run.
  Train(b.get(), 3);
  ExpectBitIdentical(Fetch(b.get()), later);

  // Restoring in the original session rolls it back.
  ASSERT_TRUE(Restore(a.get()).ok());
  ExpectBitIdentical(Fetch(a.get()), saved);
}

TEST_F(CheckpointSessionTest, ShardedSaverGraph) {
  const std::string graph = ModelGraph() + ShardedSaver(ModelVars());
  Snapshot saved;
  auto a = TrainAndSave(graph, "save/Identity", &saved);
  // The temporary shard directory was merged and removed.
  EXPECT_EQ(ListDir(dir_),
            (std::vector<std::string>{"model.ckpt.data-00000-of-00001",
                                      "model.ckpt.index"}));
  Train(a.get(), 2);

  auto b = NewSessionWith(graph);
  absl::Status st = Restore(b.get());
  ASSERT_TRUE(st.ok()) << st;
  ExpectBitIdentical(Fetch(b.get()), saved);

  // Saving again replaces the checkpoint.
  const Snapshot later = Fetch(a.get());
  ASSERT_TRUE(Save(a.get(), "save/Identity").ok());
  ASSERT_TRUE(Restore(b.get()).ok());
  ExpectBitIdentical(Fetch(b.get()), later);
  EXPECT_EQ(ListDir(dir_),
            (std::vector<std::string>{"model.ckpt.data-00000-of-00001",
                                      "model.ckpt.index"}));
}

TEST_F(CheckpointSessionTest, CorruptCheckpointIsDataLossAndChangesNothing) {
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  Snapshot saved;
  auto a = TrainAndSave(graph, "save/control_dependency", &saved);
  Train(a.get(), 2);
  const Snapshot current = Fetch(a.get());
  struct Damage {
    std::string path;
    const char* what;
    std::string contents;
  };
  std::vector<Damage> damages;
  std::vector<std::pair<std::string, std::string>> good;
  for (const char* suffix : {".index", ".data-00000-of-00001"}) {
    const std::string path = prefix_ + suffix;
    const std::string bytes = ReadFileOrDie(path);
    good.emplace_back(path, bytes);
    for (size_t offset : {size_t{0}, size_t{3}, bytes.size() / 2,
                          bytes.size() - 20, bytes.size() - 1}) {
      std::string bad = bytes;
      bad[offset] = static_cast<char>(bad[offset] ^ 0x40);
      damages.push_back({path, "flipped byte", bad});
    }
    for (size_t size :
         {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
      damages.push_back({path, "truncated", bytes.substr(0, size)});
    }
  }
  for (const Damage& d : damages) {
    SCOPED_TRACE(
        absl::StrCat(d.path, ": ", d.what, ", ", d.contents.size(), " bytes"));
    for (const auto& [path, bytes] : good) test::WriteFileOrDie(path, bytes);
    test::WriteFileOrDie(d.path, d.contents);
    // A fresh session: the restore step fails; nothing gets a value.
    auto b = NewSessionWith(graph);
    absl::Status st = Restore(b.get());
    EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
    EXPECT_TRUE(absl::StrContains(st.message(), d.path)) << st;
    EXPECT_TRUE(absl::StrContains(st.message(), "{{node save/RestoreV2}}"))
        << st;
    ExpectUninitialized(b.get());
    // The trained session keeps its current values.
    st = Restore(a.get());
    EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss) << st;
    ExpectBitIdentical(Fetch(a.get()), current);
  }
  for (const auto& [path, bytes] : good) test::WriteFileOrDie(path, bytes);
  // Repaired, it restores again.
  ASSERT_TRUE(Restore(a.get()).ok());
  ExpectBitIdentical(Fetch(a.get()), saved);
}

TEST_F(CheckpointSessionTest, MissingCheckpointOrTensorIsNotFound) {
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  auto a = NewSessionWith(graph);
  absl::Status st = Restore(a.get());
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), prefix_)) << st;

  // A checkpoint of a model without `global_step`, restored by one with it.
  std::vector<Var> fewer = {
      {"b", "DT_FLOAT"}, {"tag", "DT_STRING"}, {"w", "DT_FLOAT"}};
  auto old = NewSessionWith(ModelGraph() + PlainSaver(fewer));
  ASSERT_TRUE(RunTarget(old.get(), "init").ok());
  ASSERT_TRUE(Save(old.get(), "save/control_dependency").ok());
  st = Restore(a.get());
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "Key global_step not found"))
      << st;
  ExpectUninitialized(a.get());
}

TEST_F(CheckpointSessionTest, DtypeMismatchIsInvalidArgument) {
  // A checkpoint where "b" was an int64 (here: global_step saved as "b").
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  auto a = NewSessionWith(graph);
  const std::string odd_saver =
      ModelGraph() + SaverCommon({{"b", "DT_INT64"}}) +
      Node("SaveV2", "save/SaveV2",
           {"save/Const", "save/SaveV2/tensor_names",
            "save/SaveV2/shape_and_slices", "global_step"},
           TypeListAttr("dtypes", {"DT_INT64"}));
  auto odd = NewSessionWith(odd_saver);
  ASSERT_TRUE(RunTarget(odd.get(), "init").ok());
  ASSERT_TRUE(RunTarget(odd.get(), "save/SaveV2", PrefixFeed()).ok());
  absl::Status st = Restore(a.get());
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_TRUE(
      absl::StrContains(st.message(),
                        "tensor_name = b; expected dtype float does not equal "
                        "restored dtype int64"))
      << st;
}

// A save that dies half-way leaves at most a temporary file, which a
// restore never reads: with an earlier checkpoint the restore returns it
// intact, without one the restore is NotFound.
TEST_F(CheckpointSessionTest, InterruptedSaveNeverLeavesARestorableHalfFile) {
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  Snapshot saved;
  auto a = TrainAndSave(graph, "save/control_dependency", &saved);
  const std::string path = prefix_ + ".index";
  const std::string good = ReadFileOrDie(path);
  // The crashed second save: a prefix of a newer file under a temporary
  // name (as AtomicFileWriter names it).
  Train(a.get(), 2);
  test::WriteFileOrDie(path + ".tmp-00000000deadbeef",
                       good.substr(0, good.size() - 20));
  auto b = NewSessionWith(graph);
  ASSERT_TRUE(Restore(b.get()).ok());
  ExpectBitIdentical(Fetch(b.get()), saved);

  // Without the committed index only the stale temporary exists.
  ASSERT_EQ(std::remove(path.c_str()), 0);
  auto c = NewSessionWith(graph);
  absl::Status st = Restore(c.get());
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  ExpectUninitialized(c.get());
}

TEST_F(CheckpointSessionTest, FailedRenameFailsTheSaveAndLeavesNothing) {
  const std::string graph = ModelGraph() + PlainSaver(ModelVars());
  auto a = NewSessionWith(graph);
  ASSERT_TRUE(RunTarget(a.get(), "init").ok());
  // The checkpoint's index name is taken by a directory: the final rename
  // fails after the data was written.
  const std::string path = prefix_ + ".index";
  test::WriteFileOrDie(dir_ + "/unrelated", "x");
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  test::WriteFileOrDie(path + "/occupant", "x");
  std::vector<Tensor> out;
  absl::Status st = a->Run(PrefixFeed(), {"save/control_dependency"}, {}, &out);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(absl::StrContains(st.message(), "rename")) << st;
  EXPECT_TRUE(absl::StrContains(st.message(), "{{node save/SaveV2}}")) << st;
  // No temporary file is left, and nothing can be restored.
  EXPECT_EQ(ListDir(dir_),
            (std::vector<std::string>{"model.ckpt.index", "unrelated"}));
  auto b = NewSessionWith(graph);
  st = Restore(b.get());
  EXPECT_FALSE(st.ok());
  ExpectUninitialized(b.get());
}

}  // namespace
}  // namespace stepflow
