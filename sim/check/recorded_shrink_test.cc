// Well-formed subsets of a recorded run's client calls (recorded_shrink.h):
// a call naming a handle that a removed call created goes with it.
#include "sim/check/recorded_shrink.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/master.pb.h"

namespace stepflow {
namespace {

RecordedCall Call(const std::string& method,
                  const google::protobuf::Message& request,
                  const std::string& handle = "") {
  RecordedCall c;
  c.method = method;
  c.request = request.SerializeAsString();
  c.handle = handle;
  c.outcome = "code=OK";
  return c;
}

RecordedRun TwoSessions() {
  RecordedRun run;
  CreateSessionRequest create;
  RunStepRequest step_a, step_b;
  step_a.set_session_handle("A");
  step_b.set_session_handle("B");
  PartialRunSetupRequest setup;
  setup.set_session_handle("A");
  RunStepRequest partial;
  partial.set_session_handle("A");
  partial.set_partial_run_handle("P");
  CloseSessionRequest close_b;
  close_b.set_session_handle("B");
  RunStepRequest unknown;  // A handle no recorded call created: kept.
  unknown.set_session_handle("gone");
  run.calls = {Call("MasterService/CreateSession", create, "A"),   // 0
               Call("MasterService/CreateSession", create, "B"),   // 1
               Call("MasterService/RunStep", step_a),              // 2
               Call("MasterService/PartialRunSetup", setup, "P"),  // 3
               Call("MasterService/RunStep", partial),             // 4
               Call("MasterService/RunStep", step_b),              // 5
               Call("MasterService/CloseSession", close_b),        // 6
               Call("MasterService/RunStep", unknown)};            // 7
  return run;
}

TEST(RecordedShrinkTest, RemovingACreatorRemovesItsUsers) {
  const RecordedRun run = TwoSessions();
  EXPECT_EQ(WellFormedCalls(run, {0, 1, 2, 3, 4, 5, 6, 7}),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Without session A's creation: its step, setup and partial run go.
  EXPECT_EQ(WellFormedCalls(run, {1, 2, 3, 4, 5, 6, 7}),
            (std::vector<int>{1, 5, 6, 7}));
  // Without the partial run's setup: the partial run goes.
  EXPECT_EQ(WellFormedCalls(run, {0, 2, 4}), (std::vector<int>{0, 2}));
  // Without session B's creation.
  EXPECT_EQ(WellFormedCalls(run, {0, 5, 6, 7}), (std::vector<int>{0, 7}));
}

TEST(RecordedShrinkTest, NeedsAPlantedBug) {
  RecordedShrinkResult result;
  EXPECT_TRUE(absl::IsInvalidArgument(
      ShrinkRecordedRun(TwoSessions(), PlantedBug::kNone, 10, &result)));
}

}  // namespace
}  // namespace stepflow
