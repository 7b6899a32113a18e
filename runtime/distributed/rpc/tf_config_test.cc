#include "runtime/distributed/rpc/tf_config.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/distributed/rpc/cluster_spec.h"

namespace stepflow {
namespace {

constexpr char kThreeJobs[] = R"({
  "cluster": {"chief": ["127.0.0.1:2222"], "ps": ["127.0.0.1:2223"],
              "worker": ["127.0.0.1:2224", "127.0.0.1:2225"]},
  "task": {"type": "worker", "index": 1},
  "environment": "cloud"})";

TEST(TfConfigTest, ParsesClusterAndTask) {
  TfConfig c;
  ASSERT_TRUE(ParseTfConfig(kThreeJobs, &c).ok());
  EXPECT_EQ(c.task_type, "worker");
  EXPECT_EQ(c.task_index, 1);
  std::map<std::string, std::string> want = {
      {"/job:chief/replica:0/task:0", "127.0.0.1:2222"},
      {"/job:ps/replica:0/task:0", "127.0.0.1:2223"},
      {"/job:worker/replica:0/task:0", "127.0.0.1:2224"},
      {"/job:worker/replica:0/task:1", "127.0.0.1:2225"}};
  EXPECT_EQ(c.cluster.TaskAddresses(), want);
}

TEST(TfConfigTest, SparseTasksAsAnObject) {
  TfConfig c;
  ASSERT_TRUE(ParseTfConfig(R"({"cluster": {"worker": {"0": "h:1", "3": "h:4"}},
                                "task": {"type": "worker", "index": "3"}})",
                            &c)
                  .ok());
  std::string address;
  ASSERT_TRUE(c.cluster.FindTask("worker", 3, &address).ok());
  EXPECT_EQ(address, "h:4");
  EXPECT_EQ(c.task_index, 3);
  absl::Status s = c.cluster.FindTask("worker", 1, &address);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("{0, 3}"), std::string::npos) << s;
}

// `status` is InvalidArgument and says `says`.
void ExpectRefused(const absl::Status& status, const std::string& says) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find(says), std::string::npos)
      << status << " (want '" << says << "')";
}

// ParseTfConfig refuses `json`, blaming TF_CONFIG and saying `says`.
void ExpectInvalid(const std::string& json, const std::string& says) {
  TfConfig c;
  absl::Status s = ParseTfConfig(json, &c);
  ExpectRefused(s, "TF_CONFIG: ");
  ExpectRefused(s, says);
  EXPECT_EQ(s.message().find('\n'), absl::string_view::npos)
      << "not one line: " << s;
}

TEST(TfConfigTest, MalformedIsInvalidArgument) {
  ExpectInvalid(R"({"cluster": {"worker": ["h:1"]})", "not a JSON object");
  ExpectInvalid("not json", "not a JSON object");
  ExpectInvalid(R"(["h:1"])", "not a JSON object");
  ExpectInvalid(R"({"cluster": ["h:1"]})", "\"cluster\" must be an object");
  ExpectInvalid(R"({"cluster": {"worker": "h:1"}})",
                "job worker must be a list");
  ExpectInvalid(R"({"cluster": {"worker": []}})", "job worker lists no task");
  ExpectInvalid(R"({"cluster": {"worker": [7]}})", "not a string");
  ExpectInvalid(R"({"cluster": {"worker": ["h"]}})", "'h' is not host:port");
  ExpectInvalid(R"({"cluster": {"Worker!": ["h:1"]}})", "is not a job name");
  ExpectInvalid(R"({"cluster": {"worker": {"x": "h:1"}}})",
                "'x' is not a task index");
  ExpectInvalid(R"({"task": "worker"})", "\"task\" must be an object");
  ExpectInvalid(R"({"task": {"type": 1}})", "\"task.type\" must be a string");
  ExpectInvalid(R"({"task": {"index": -1}})", "\"task.index\" must be");
  ExpectInvalid(R"({"task": {"index": 0.5}})", "\"task.index\" must be");
}

// What ResolveServerTask made of `flags` and `tf_config`.
struct Resolved {
  absl::Status status;
  ClusterSpec cluster;
  std::string job;
  int task = -7;
};

Resolved Resolve(const ServerTaskFlags& flags, const char* tf_config) {
  Resolved r;
  r.status = ResolveServerTask(flags, tf_config, &r.cluster, &r.job, &r.task);
  return r;
}

TEST(TfConfigTest, ResolveFromTfConfigAlone) {
  Resolved r = Resolve(ServerTaskFlags(), kThreeJobs);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.job, "worker");
  EXPECT_EQ(r.task, 1);
  EXPECT_EQ(r.cluster.jobs().size(), 3u);
}

TEST(TfConfigTest, FlagsWinOverTfConfig) {
  ServerTaskFlags flags;
  flags.job = "ps";
  flags.task = 0;
  Resolved r = Resolve(flags, kThreeJobs);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.job, "ps");
  EXPECT_EQ(r.task, 0);
  EXPECT_EQ(r.cluster.jobs().size(), 3u);  // TF_CONFIG's cluster.

  flags = ServerTaskFlags();
  flags.cluster = "worker=127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
  flags.task = 2;
  r = Resolve(flags, kThreeJobs);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.job, "worker");  // TF_CONFIG's type.
  EXPECT_EQ(r.task, 2);
  EXPECT_EQ(r.cluster.TaskAddresses(),
            (std::map<std::string, std::string>{
                {"/job:worker/replica:0/task:0", "127.0.0.1:1"},
                {"/job:worker/replica:0/task:1", "127.0.0.1:2"},
                {"/job:worker/replica:0/task:2", "127.0.0.1:3"}}));
}

TEST(TfConfigTest, FlagsAloneDefaultToWorkerZero) {
  ServerTaskFlags flags;
  flags.cluster = "worker=127.0.0.1:1;ps=127.0.0.1:2";
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    Resolved r = Resolve(flags, unset);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.job, "worker");
    EXPECT_EQ(r.task, 0);
    EXPECT_EQ(r.cluster.jobs().size(), 2u);
  }
}

TEST(TfConfigTest, UnknownTaskTypeAndIndexOutOfRange) {
  ExpectRefused(
      Resolve(
          ServerTaskFlags(),
          R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "evaluator"}})")
          .status,
      "task type 'evaluator' is not a job of the cluster (worker)");
  ExpectRefused(Resolve(ServerTaskFlags(),
                        R"({"cluster": {"worker": ["h:1", "h:2"]},
                            "task": {"type": "worker", "index": 2}})")
                    .status,
                "task index 2 is out of range: job worker has tasks {0, 1}");
  ServerTaskFlags flags;
  flags.task = 5;
  ExpectRefused(Resolve(flags, kThreeJobs).status,
                "task index 5 is out of range: job worker has tasks {0, 1}");
  flags.task = -2;
  ExpectRefused(Resolve(flags, kThreeJobs).status, "task index -2 is negative");
}

TEST(TfConfigTest, NoClusterAnywhere) {
  ExpectRefused(
      Resolve(ServerTaskFlags(), R"({"task": {"type": "worker", "index": 0}})")
          .status,
      "no cluster");
}

TEST(ClusterFlagTest, SeveralJobs) {
  ClusterSpec c;
  ASSERT_TRUE(ParseClusterFlag("worker=h:1,h:2;ps=h:3;chief=h:4", &c).ok());
  EXPECT_EQ(c.TaskAddresses(), (std::map<std::string, std::string>{
                                   {"/job:chief/replica:0/task:0", "h:4"},
                                   {"/job:ps/replica:0/task:0", "h:3"},
                                   {"/job:worker/replica:0/task:0", "h:1"},
                                   {"/job:worker/replica:0/task:1", "h:2"}}));
  for (const char* bad : {"", "h:1,h:2", "worker=", "worker=h:1;worker=h:2",
                          "worker=h:x", "=h:1", "Job=h:1"}) {
    absl::Status s = ParseClusterFlag(bad, &c);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace stepflow
