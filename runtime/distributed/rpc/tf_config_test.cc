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

void ExpectInvalid(const std::string& json, const std::string& says) {
  TfConfig c;
  absl::Status s = ParseTfConfig(json, &c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << json << ": " << s;
  EXPECT_NE(s.message().find("TF_CONFIG: "), std::string::npos) << s;
  EXPECT_NE(s.message().find(says), std::string::npos)
      << json << ": " << s << " (want '" << says << "')";
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

TEST(TfConfigTest, ResolveFromTfConfigAlone) {
  ClusterSpec cluster;
  std::string job;
  int task = -7;
  ASSERT_TRUE(
      ResolveServerTask(ServerTaskFlags(), kThreeJobs, &cluster, &job, &task)
          .ok());
  EXPECT_EQ(job, "worker");
  EXPECT_EQ(task, 1);
  EXPECT_EQ(cluster.jobs().size(), 3u);
}

TEST(TfConfigTest, FlagsWinOverTfConfig) {
  ClusterSpec cluster;
  std::string job;
  int task = -7;
  ServerTaskFlags flags;
  flags.job = "ps";
  flags.task = 0;
  ASSERT_TRUE(ResolveServerTask(flags, kThreeJobs, &cluster, &job, &task).ok());
  EXPECT_EQ(job, "ps");
  EXPECT_EQ(task, 0);
  EXPECT_EQ(cluster.jobs().size(), 3u);  // TF_CONFIG's cluster.

  flags = ServerTaskFlags();
  flags.cluster = "worker=127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
  flags.task = 2;
  ASSERT_TRUE(ResolveServerTask(flags, kThreeJobs, &cluster, &job, &task).ok());
  EXPECT_EQ(job, "worker");  // TF_CONFIG's type.
  EXPECT_EQ(task, 2);
  EXPECT_EQ(cluster.TaskAddresses(),
            (std::map<std::string, std::string>{
                {"/job:worker/replica:0/task:0", "127.0.0.1:1"},
                {"/job:worker/replica:0/task:1", "127.0.0.1:2"},
                {"/job:worker/replica:0/task:2", "127.0.0.1:3"}}));
}

TEST(TfConfigTest, FlagsAloneDefaultToWorkerZero) {
  ClusterSpec cluster;
  std::string job;
  int task = -7;
  ServerTaskFlags flags;
  flags.cluster = "worker=127.0.0.1:1;ps=127.0.0.1:2";
  ASSERT_TRUE(ResolveServerTask(flags, nullptr, &cluster, &job, &task).ok());
  EXPECT_EQ(job, "worker");
  EXPECT_EQ(task, 0);
  EXPECT_EQ(cluster.jobs().size(), 2u);
  ASSERT_TRUE(ResolveServerTask(flags, "", &cluster, &job, &task).ok());
}

TEST(TfConfigTest, UnknownTaskTypeAndIndexOutOfRange) {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  absl::Status s = ResolveServerTask(
      ServerTaskFlags(),
      R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "evaluator"}})",
      &cluster, &job, &task);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("task type 'evaluator' is not a job of the "
                             "cluster (worker)"),
            std::string::npos)
      << s;
  s = ResolveServerTask(ServerTaskFlags(),
                        R"({"cluster": {"worker": ["h:1", "h:2"]},
          "task": {"type": "worker", "index": 2}})",
                        &cluster, &job, &task);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("task index 2 is out of range: job worker has "
                             "tasks {0, 1}"),
            std::string::npos)
      << s;
  ServerTaskFlags flags;
  flags.task = 5;
  s = ResolveServerTask(flags, kThreeJobs, &cluster, &job, &task);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(TfConfigTest, NoClusterAnywhere) {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  absl::Status s = ResolveServerTask(
      ServerTaskFlags(), R"({"task": {"type": "worker", "index": 0}})",
      &cluster, &job, &task);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no cluster"), std::string::npos) << s;
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
