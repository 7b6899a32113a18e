// Stateful property: random sequences of TF_NewGraph, TF_GraphImportGraphDef
// (growing each graph in stages, or bad bytes), TF_NewSession,
// TF_SessionRun, TF_CloseSession, TF_DeleteSession and TF_DeleteGraph over
// several graphs and sessions, checked against a model of the graph
// refcount:
//   - after every command the number of live TF_Graphs equals the model's
//     (a graph is freed exactly when its deletion was requested and its
//     last session is gone) — and under ASan nothing touches freed memory;
//   - runs on open sessions return the value the graph's current stage
//     computes (so the session was extended with every node imported since
//     its previous run); runs on closed sessions fail with TF_CANCELLED.
//
// Graph g at stage k holds: stage 1: x (float placeholder), c = g + 2,
// z = x + c; stage 2: w = z * z; stage 3: u = w + x. Later stages take
// inputs from nodes imported earlier.
#include <array>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "runtime/c/c_api.h"
#include "runtime/c/c_api_test_util.h"
#include "runtime/c/c_api_testlib.h"

namespace stepflow {
namespace {

using c_api_test::BinaryNode;
using c_api_test::ConstFloatNode;
using c_api_test::FloatScalar;
using c_api_test::FloatValue;
using c_api_test::ImportText;
using c_api_test::PlaceholderNode;

constexpr int kMaxStage = 3;
constexpr int kMaxGraphs = 4;
constexpr int kMaxLiveSessions = 6;

// ---- Model ------------------------------------------------------------------

struct GraphModel {
  bool delete_requested = false;
  bool freed = false;
  int stage = 0;
};

struct SessionModel {
  int graph = 0;
  bool closed = false;
  bool deleted = false;
};

struct Model {
  std::vector<GraphModel> graphs;
  std::vector<SessionModel> sessions;

  int64_t LiveGraphs() const {
    int64_t n = 0;
    for (const GraphModel& g : graphs) n += g.freed ? 0 : 1;
    return n;
  }
  int LiveSessions() const {
    int n = 0;
    for (const SessionModel& s : sessions) n += s.deleted ? 0 : 1;
    return n;
  }
  bool HasSessions(int g) const {
    for (const SessionModel& s : sessions) {
      if (!s.deleted && s.graph == g) return true;
    }
    return false;
  }
  // The user may still call graph functions on `g`.
  bool GraphUsable(int g) const {
    return g >= 0 && g < static_cast<int>(graphs.size()) &&
           !graphs[g].delete_requested;
  }
  bool SessionUsable(int s) const {
    return s >= 0 && s < static_cast<int>(sessions.size()) &&
           !sessions[s].deleted;
  }
};

// The value stage `stage` of graph `g` computes for x.
float Expected(int g, int stage, float x) {
  const float z = x + static_cast<float>(g + 2);
  const float w = z * z;
  return stage == 1 ? z : stage == 2 ? w : w + x;
}

std::string StageNodes(int g, int stage) {
  switch (stage) {
    case 1:
      return PlaceholderNode("x") +
             ConstFloatNode("c", static_cast<float>(g + 2)) +
             BinaryNode("AddV2", "z", "x", "c");
    case 2:
      return BinaryNode("Mul", "w", "z", "z");
    default:
      return BinaryNode("AddV2", "u", "w", "x");
  }
}

const char* const kStageOutput[kMaxStage + 1] = {"", "z", "w", "u"};

// ---- System under test
// --------------------------------------------------------

struct Sut {
  Sut() : baseline(TF_TestOnlyLiveGraphCount()), opts(TF_NewSessionOptions()) {}
  // Releases whatever a (possibly failed) sequence left behind.
  ~Sut() {
    for (size_t i = 0; i < sessions.size(); ++i) {
      if (!session_deleted[i]) {
        TF_Status* st = TF_NewStatus();
        TF_DeleteSession(sessions[i], st);
        TF_DeleteStatus(st);
      }
    }
    for (size_t i = 0; i < graphs.size(); ++i) {
      if (!graph_delete_called[i]) TF_DeleteGraph(graphs[i]);
    }
    TF_DeleteSessionOptions(opts);
  }
  int64_t Live() const { return TF_TestOnlyLiveGraphCount() - baseline; }

  const int64_t baseline;
  TF_SessionOptions* const opts;
  std::vector<TF_Graph*> graphs;
  std::vector<bool> graph_delete_called;
  // Per graph: x and the output operation of each stage (valid while the
  // graph is alive, even after TF_DeleteGraph).
  std::vector<std::array<TF_Operation*, kMaxStage + 1>> ops;
  std::vector<TF_Session*> sessions;
  std::vector<bool> session_deleted;
};

using Command = rc::state::Command<Model, Sut>;

// Picks a graph the user may still call, or discards the command.
int PickUsableGraph(const Model& m) {
  std::vector<int> usable;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g) {
    if (m.GraphUsable(g)) usable.push_back(g);
  }
  RC_PRE(!usable.empty());
  return *rc::gen::elementOf(usable);
}

// Picks a session not yet deleted, or discards the command.
int PickLiveSession(const Model& m) {
  std::vector<int> live;
  for (int s = 0; s < static_cast<int>(m.sessions.size()); ++s) {
    if (m.SessionUsable(s)) live.push_back(s);
  }
  RC_PRE(!live.empty());
  return *rc::gen::elementOf(live);
}

// (RC_ASSERT cannot print pointers to the C API's incomplete types.)
bool IsSet(const void* p) { return p != nullptr; }

void CheckLive(const Model& after, const Sut& sut) {
  RC_ASSERT(sut.Live() == after.LiveGraphs());
}

// ---- Commands
// -----------------------------------------------------------------

struct NewGraph : Command {
  explicit NewGraph(const Model& m) {
    RC_PRE(static_cast<int>(m.graphs.size()) < kMaxGraphs);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<int>(m.graphs.size()) < kMaxGraphs);
  }
  void apply(Model& m) const override { m.graphs.emplace_back(); }
  void run(const Model& m, Sut& sut) const override {
    RC_ASSERT(sut.graphs.size() == m.graphs.size());
    sut.graphs.push_back(TF_NewGraph());
    sut.graph_delete_called.push_back(false);
    sut.ops.push_back({});
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override { os << "NewGraph"; }
};

struct ImportNextStage : Command {
  int g;
  explicit ImportNextStage(const Model& m) : g(PickUsableGraph(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.GraphUsable(g));
    RC_PRE(m.graphs[g].stage < kMaxStage);
  }
  void apply(Model& m) const override { ++m.graphs[g].stage; }
  void run(const Model& m, Sut& sut) const override {
    const int stage = m.graphs[g].stage + 1;
    std::string msg;
    RC_ASSERT(ImportText(sut.graphs[g], StageNodes(g, stage), "", &msg) ==
              TF_OK);
    if (stage == 1) {
      sut.ops[g][0] = TF_GraphOperationByName(sut.graphs[g], "x");
      RC_ASSERT(IsSet(sut.ops[g][0]));
    }
    sut.ops[g][stage] =
        TF_GraphOperationByName(sut.graphs[g], kStageOutput[stage]);
    RC_ASSERT(IsSet(sut.ops[g][stage]));
    RC_ASSERT(TF_GraphNumOperations(sut.graphs[g]) == stage + 2);
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "ImportNextStage(g" << g << ")";
  }
};

struct ImportBadBytes : Command {
  int g;
  explicit ImportBadBytes(const Model& m) : g(PickUsableGraph(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.GraphUsable(g));
  }
  void run(const Model& m, Sut& sut) const override {
    const int before = TF_GraphNumOperations(sut.graphs[g]);
    const char bytes[] = "\x0a\xff\xff\xff\x0f garbage";
    TF_Buffer* buf = TF_NewBufferFromString(bytes, sizeof(bytes));
    TF_Status* st = TF_NewStatus();
    TF_GraphImportGraphDef(sut.graphs[g], buf, nullptr, st);
    const TF_Code code = TF_GetCode(st);
    TF_DeleteStatus(st);
    TF_DeleteBuffer(buf);
    RC_ASSERT(code == TF_INVALID_ARGUMENT);
    RC_ASSERT(TF_GraphNumOperations(sut.graphs[g]) == before);
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "ImportBadBytes(g" << g << ")";
  }
};

struct NewSession : Command {
  int g;
  explicit NewSession(const Model& m) : g(PickUsableGraph(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.GraphUsable(g));
    RC_PRE(m.LiveSessions() < kMaxLiveSessions);
  }
  void apply(Model& m) const override {
    SessionModel s;
    s.graph = g;
    m.sessions.push_back(s);
  }
  void run(const Model& m, Sut& sut) const override {
    RC_ASSERT(sut.sessions.size() == m.sessions.size());
    TF_Status* st = TF_NewStatus();
    TF_Session* s = TF_NewSession(sut.graphs[g], sut.opts, st);
    const TF_Code code = TF_GetCode(st);
    TF_DeleteStatus(st);
    RC_ASSERT(code == TF_OK);
    RC_ASSERT(IsSet(s));
    sut.sessions.push_back(s);
    sut.session_deleted.push_back(false);
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "NewSession(g" << g << ")";
  }
};

struct Run : Command {
  int s;
  int fetch_stage = 0;  // 0: no fetch (only for a graph at stage 0).
  float x = 0;
  explicit Run(const Model& m) : s(PickLiveSession(m)) {
    const int stage = m.graphs[m.sessions[s].graph].stage;
    fetch_stage = stage == 0 ? 0 : *rc::gen::inRange(1, stage + 1);
    x = static_cast<float>(*rc::gen::inRange(-50, 51));
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.SessionUsable(s));
    const int stage = m.graphs[m.sessions[s].graph].stage;
    RC_PRE(fetch_stage <= stage);
    RC_PRE(stage == 0 || fetch_stage >= 1);
  }
  void run(const Model& m, Sut& sut) const override {
    const SessionModel& sm = m.sessions[s];
    const int g = sm.graph;
    TF_Status* st = TF_NewStatus();
    TF_Tensor* in = FloatScalar(x);
    TF_Tensor* out = nullptr;
    if (fetch_stage == 0) {
      TF_SessionRun(sut.sessions[s], nullptr, nullptr, nullptr, 0, nullptr,
                    nullptr, 0, nullptr, 0, nullptr, st);
    } else {
      TF_Output feed{sut.ops[g][0], 0};
      TF_Output fetch{sut.ops[g][fetch_stage], 0};
      TF_SessionRun(sut.sessions[s], nullptr, &feed, &in, 1, &fetch, &out, 1,
                    nullptr, 0, nullptr, st);
    }
    const TF_Code code = TF_GetCode(st);
    const std::string msg = TF_Message(st);
    TF_DeleteStatus(st);
    TF_DeleteTensor(in);
    float value = 0;
    if (out != nullptr) {
      value = FloatValue(out);
      TF_DeleteTensor(out);
    }
    if (sm.closed) {
      RC_ASSERT(code == TF_CANCELLED);
      RC_ASSERT(!IsSet(out));
    } else if (fetch_stage == 0) {
      RC_ASSERT(code == TF_INVALID_ARGUMENT);  // Nothing in the graph yet.
    } else {
      if (code != TF_OK) RC_FAIL("run failed: " + msg);
      RC_ASSERT(IsSet(out));
      RC_ASSERT(value == Expected(g, fetch_stage, x));
    }
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "Run(s" << s << ", stage " << fetch_stage << ", x=" << x << ")";
  }
};

struct CloseSession : Command {
  int s;
  explicit CloseSession(const Model& m) : s(PickLiveSession(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.SessionUsable(s));
  }
  void apply(Model& m) const override { m.sessions[s].closed = true; }
  void run(const Model& m, Sut& sut) const override {
    TF_Status* st = TF_NewStatus();
    TF_CloseSession(sut.sessions[s], st);
    const TF_Code code = TF_GetCode(st);
    TF_DeleteStatus(st);
    RC_ASSERT(code == TF_OK);
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "CloseSession(s" << s << ")";
  }
};

struct DeleteSession : Command {
  int s;
  explicit DeleteSession(const Model& m) : s(PickLiveSession(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.SessionUsable(s));
  }
  void apply(Model& m) const override {
    m.sessions[s].deleted = true;
    const int g = m.sessions[s].graph;
    if (m.graphs[g].delete_requested && !m.HasSessions(g))
      m.graphs[g].freed = true;
  }
  void run(const Model& m, Sut& sut) const override {
    TF_Status* st = TF_NewStatus();
    TF_DeleteSession(sut.sessions[s], st);
    sut.session_deleted[s] = true;
    const TF_Code code = TF_GetCode(st);
    TF_DeleteStatus(st);
    RC_ASSERT(code == TF_OK);
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "DeleteSession(s" << s << ")";
  }
};

struct DeleteGraph : Command {
  int g;
  explicit DeleteGraph(const Model& m) : g(PickUsableGraph(m)) {
    checkPreconditions(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.GraphUsable(g));
  }
  void apply(Model& m) const override {
    m.graphs[g].delete_requested = true;
    if (!m.HasSessions(g)) m.graphs[g].freed = true;
  }
  void run(const Model& m, Sut& sut) const override {
    TF_DeleteGraph(sut.graphs[g]);
    sut.graph_delete_called[g] = true;
    CheckLive(nextState(m), sut);
  }
  void show(std::ostream& os) const override {
    os << "DeleteGraph(g" << g << ")";
  }
};

RC_GTEST_PROP(CApiRefcountProperty, GraphsFreedExactlyWhenTheModelSays, ()) {
  const int64_t live_before = TF_TestOnlyLiveGraphCount();
  Model initial;
  {
    Sut sut;
    rc::state::check(initial, sut,
                     rc::state::gen::execOneOfWithArgs<
                         NewGraph, ImportNextStage, ImportBadBytes, NewSession,
                         Run, CloseSession, DeleteSession, DeleteGraph>());
  }
  // ~Sut deleted every remaining session and graph: nothing may survive.
  RC_ASSERT(TF_TestOnlyLiveGraphCount() == live_before);
}

}  // namespace
}  // namespace stepflow
