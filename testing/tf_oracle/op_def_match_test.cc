// Every op stepflow registers has TensorFlow 2.21's OpDef: the same
// argument lists, the same attrs with the same types, defaults, minimums
// and allowed values, and the same flags (stateful, commutative,
// aggregate, uninitialized input). A GraphDef TensorFlow wrote carries
// every attr of its OpDefs, so a missing attr makes import fail, a missing
// default makes an older graph fail, and a missing stateful flag lets
// graph rewrites merge or fold what must run every time.
//
// The reference is goldens/tf_op_defs.pbtxt, written by
// dump_tf_op_defs.py from the installed TensorFlow.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/op_def.pb.h"
#include "runtime/framework/op.h"
#include "runtime/framework/types.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow {
namespace oracle {
namespace {

std::string GoldenPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      ws != nullptr ? ws : "stepflow",
                      "/testing/tf_oracle/goldens/tf_op_defs.pbtxt");
}

std::string ArgString(const OpDef::ArgDef& a) {
  return absl::StrCat(a.name(), ":", a.is_ref() ? "Ref(" : "",
                      !a.number_attr().empty() ? a.number_attr() + "*" : "",
                      !a.type_attr().empty()        ? a.type_attr()
                      : !a.type_list_attr().empty() ? a.type_list_attr()
                                                    : DataTypeString(a.type()),
                      a.is_ref() ? ")" : "");
}

std::string Args(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) out.push_back(ArgString(a));
  return absl::StrJoin(out, ", ");
}

std::string Text(const google::protobuf::Message& m) {
  std::string s;
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  p.PrintToString(m, &s);
  return s;
}

// The differences of `ours` from `tf`, one line each.
std::vector<std::string> Differences(const OpDef& tf, const OpDef& ours) {
  std::vector<std::string> d;
  if (Args(tf.input_arg()) != Args(ours.input_arg())) {
    d.push_back(absl::StrCat("inputs: (", Args(ours.input_arg()),
                             ") should be (", Args(tf.input_arg()), ")"));
  }
  if (Args(tf.output_arg()) != Args(ours.output_arg())) {
    d.push_back(absl::StrCat("outputs: (", Args(ours.output_arg()),
                             ") should be (", Args(tf.output_arg()), ")"));
  }
  std::map<std::string, const OpDef::AttrDef*> mine;
  for (const auto& a : ours.attr()) mine[a.name()] = &a;
  for (const auto& want : tf.attr()) {
    auto it = mine.find(want.name());
    if (it == mine.end()) {
      d.push_back(absl::StrCat("missing attr ", Text(want)));
      continue;
    }
    const OpDef::AttrDef& got = *it->second;
    mine.erase(it);
    if (got.type() != want.type()) {
      d.push_back(absl::StrCat("attr ", want.name(), ": type ", got.type(),
                               " should be ", want.type()));
    }
    if (got.has_default_value() != want.has_default_value() ||
        !google::protobuf::util::MessageDifferencer::Equivalent(
            got.default_value(), want.default_value())) {
      d.push_back(absl::StrCat("attr ", want.name(), ": default {",
                               Text(got.default_value()), "} should be {",
                               Text(want.default_value()), "}"));
    }
    if (got.has_minimum() != want.has_minimum() ||
        got.minimum() != want.minimum()) {
      d.push_back(absl::StrCat(
          "attr ", want.name(), ": minimum ",
          got.has_minimum() ? absl::StrCat(got.minimum()) : "none",
          " should be ",
          want.has_minimum() ? absl::StrCat(want.minimum()) : "none"));
    }
    const auto& gl = got.allowed_values().list();
    const auto& wl = want.allowed_values().list();
    const std::set<int> gt(gl.type().begin(), gl.type().end());
    const std::set<int> wt(wl.type().begin(), wl.type().end());
    const std::set<std::string> gs(gl.s().begin(), gl.s().end());
    const std::set<std::string> ws(wl.s().begin(), wl.s().end());
    if (gt != wt || gs != ws) {
      std::vector<std::string> missing, extra;
      for (int t : wt) {
        if (!gt.count(t))
          missing.push_back(DataTypeString(static_cast<DataType>(t)));
      }
      for (int t : gt) {
        if (!wt.count(t))
          extra.push_back(DataTypeString(static_cast<DataType>(t)));
      }
      for (const auto& s : ws) {
        if (!gs.count(s)) missing.push_back("\"" + s + "\"");
      }
      for (const auto& s : gs) {
        if (!ws.count(s)) extra.push_back("\"" + s + "\"");
      }
      d.push_back(absl::StrCat("attr ", want.name(), ": allowed values lack {",
                               absl::StrJoin(missing, ", "), "}, have extra {",
                               absl::StrJoin(extra, ", "), "}"));
    }
  }
  for (const auto& [name, attr] : mine) {
    d.push_back(absl::StrCat("extra attr ", name, " (TensorFlow has none)"));
  }
  auto flag = [&](const char* what, bool got, bool want) {
    if (got != want)
      d.push_back(absl::StrCat(what, " is ", got, ", should be ", want));
  };
  flag("is_stateful", ours.is_stateful(), tf.is_stateful());
  flag("is_commutative", ours.is_commutative(), tf.is_commutative());
  flag("is_aggregate", ours.is_aggregate(), tf.is_aggregate());
  flag("allows_uninitialized_input", ours.allows_uninitialized_input(),
       tf.allows_uninitialized_input());
  return d;
}

// stepflow's own internal ops, which only its graph rewrites put in a
// graph (a user graph may not hold an op whose name starts with '_'), and
// which TensorFlow therefore does not have.
const std::set<std::string>& StepflowInternalOps() {
  static const auto* ops = new std::set<std::string>{
      "_Conv2DWithEpilogue",  // runtime/graph/conv_epilogue_fusion.h
      "_DepthwiseConv2dNativeWithEpilogue",
  };
  return *ops;
}

TEST(OpDefMatchTest, EveryRegisteredOpHasTensorFlowsOpDef) {
  std::string text;
  ASSERT_TRUE(ReadFileToString(GoldenPath(), &text).ok()) << GoldenPath();
  OpList golden;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);  // TensorFlow's full-type annotations.
  ASSERT_TRUE(parser.ParseFromString(text, &golden));
  std::map<std::string, const OpDef*> tf;
  for (const OpDef& op : golden.op()) tf[op.name()] = &op;
  ASSERT_GT(tf.size(), 100u);

  std::vector<std::string> report;
  int compared = 0;
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    auto it = tf.find(name);
    if (StepflowInternalOps().count(name) != 0) {
      if (it != tf.end()) {
        report.push_back(absl::StrCat(name, ": listed as stepflow's own but ",
                                      "TensorFlow has it"));
      }
      continue;
    }
    if (it == tf.end()) {
      report.push_back(absl::StrCat(
          name,
          ": not in the golden; regenerate it with dump_tf_op_defs.py "
          "(or the op is not TensorFlow's)"));
      continue;
    }
    ++compared;
    for (const std::string& diff :
         Differences(*it->second, *OpRegistry::Global()->LookUpOrNull(name))) {
      report.push_back(absl::StrCat(name, ": ", diff));
    }
  }
  EXPECT_TRUE(report.empty())
      << report.size() << " differences from TensorFlow's "
      << "OpDefs:\n  " << absl::StrJoin(report, "\n  ");
  std::cout << "compared " << compared << " OpDefs with TensorFlow's\n";
}

// The comparison itself can fail: a changed default, a missing attr and a
// lost flag are each reported.
TEST(OpDefMatchTest, DifferencesAreReported) {
  OpDef tf;
  google::protobuf::TextFormat::ParseFromString(
      "name: 'X' input_arg { name: 'a' type_attr: 'T' } "
      "output_arg { name: 'y' type_attr: 'T' } "
      "attr { name: 'T' type: 'type' allowed_values { list { type: DT_FLOAT "
      "type: DT_INT32 } } } "
      "attr { name: 'k' type: 'bool' default_value { b: false } } "
      "is_stateful: true",
      &tf);
  EXPECT_TRUE(Differences(tf, tf).empty());
  OpDef ours = tf;
  ours.mutable_attr(1)->mutable_default_value()->set_b(true);
  EXPECT_EQ(Differences(tf, ours).size(), 1u);
  ours = tf;
  ours.mutable_attr()->RemoveLast();
  EXPECT_EQ(Differences(tf, ours).size(), 1u);
  ours = tf;
  ours.set_is_stateful(false);
  EXPECT_EQ(Differences(tf, ours).size(), 1u);
  ours = tf;
  ours.mutable_attr(0)->mutable_allowed_values()->mutable_list()->add_type(
      DT_DOUBLE);
  EXPECT_EQ(Differences(tf, ours).size(), 1u);
  ours = tf;
  ours.mutable_input_arg(0)->set_is_ref(true);
  EXPECT_EQ(Differences(tf, ours).size(), 1u);
}

}  // namespace
}  // namespace oracle
}  // namespace stepflow
