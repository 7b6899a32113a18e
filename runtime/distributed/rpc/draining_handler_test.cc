// DrainingHandler: passes calls through until draining, then refuses new
// ones (except the always-allowed) while those in flight finish.
#include "runtime/distributed/rpc/draining_handler.h"

#include <vector>

#include <gtest/gtest.h>

#include "google/protobuf/empty.pb.h"

namespace stepflow {
namespace {

// Holds every call until the test answers it.
class HeldHandler : public RpcHandler {
 public:
  void Handle(absl::string_view method, const google::protobuf::Message&,
              google::protobuf::Message*, DoneCallback done) override {
    methods.emplace_back(method);
    pending.push_back(std::move(done));
  }
  std::vector<std::string> methods;
  std::vector<DoneCallback> pending;
};

TEST(DrainingHandlerTest, RefusesNewCallsAndAwaitsThoseInFlight) {
  HeldHandler inner;
  DrainingHandler draining(&inner, {"MasterService/CloseSession"});
  google::protobuf::Empty request, response;
  absl::Status first = absl::UnknownError("not answered");
  draining.Handle("MasterService/RunStep", request, &response,
                  [&](const absl::Status& s) { first = s; });
  EXPECT_EQ(draining.InFlight(), 1);
  EXPECT_TRUE(draining.AwaitIdle(absl::ZeroDuration()) == false);

  draining.StartDraining("task 0 is shutting down");
  absl::Status late;
  draining.Handle("MasterService/RunStep", request, &response,
                  [&](const absl::Status& s) { late = s; });
  EXPECT_TRUE(absl::IsUnavailable(late)) << late;
  EXPECT_EQ(late.message(), "task 0 is shutting down");
  absl::Status close = absl::UnknownError("not answered");
  draining.Handle("MasterService/CloseSession", request, &response,
                  [&](const absl::Status& s) { close = s; });
  EXPECT_EQ(inner.methods,
            (std::vector<std::string>{"MasterService/RunStep",
                                      "MasterService/CloseSession"}));
  EXPECT_FALSE(draining.AwaitIdle(absl::Milliseconds(10)));

  inner.pending[0](absl::OkStatus());
  inner.pending[1](absl::OkStatus());
  EXPECT_TRUE(first.ok());
  EXPECT_TRUE(close.ok());
  EXPECT_TRUE(draining.AwaitIdle(absl::Seconds(5)));
  EXPECT_EQ(draining.InFlight(), 0);
}

}  // namespace
}  // namespace stepflow
