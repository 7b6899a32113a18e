#include "testing/tf_oracle/oracle_client.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace stepflow {
namespace oracle {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

absl::Status TensorFlowPython(std::string* python) {
  const char* p = std::getenv("STEPFLOW_TF_PYTHON");
  if (p == nullptr || p[0] == '\0' || access(p, X_OK) != 0) {
    return absl::FailedPreconditionError(
        "TensorFlow is not installed: run tools/install_tf.sh and set "
        "STEPFLOW_TF_PYTHON to the interpreter it prints (tools/test.sh "
        "does both)");
  }
  *python = p;
  return absl::OkStatus();
}

bool RequireTensorFlow() {
  const char* r = std::getenv("STEPFLOW_REQUIRE_TF");
  return r != nullptr && std::string(r) == "1";
}

std::string OracleScriptPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr) {
    return absl::StrCat(srcdir, "/", ws != nullptr ? ws : "stepflow",
                        "/testing/tf_oracle/tf_oracle.py");
  }
  return "testing/tf_oracle/tf_oracle.py";
}

absl::Status OracleClient::Start(const std::string& python,
                                 const std::string& script,
                                 std::unique_ptr<OracleClient>* out) {
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0) return absl::UnavailableError("pipe failed");
  if (pipe(out_pipe) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return absl::UnavailableError("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  std::vector<std::string> args = {python, script, "serve"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawn(&pid, python.c_str(), &actions, nullptr,
                             argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    return absl::UnavailableError(
        absl::StrCat("cannot start ", python, ": ", std::strerror(rc)));
  }
  out->reset(
      new OracleClient(pid, fdopen(in_pipe[1], "w"), fdopen(out_pipe[0], "r")));
  return absl::OkStatus();
}

OracleClient::~OracleClient() {
  if (to_child_ != nullptr) std::fclose(to_child_);  // EOF ends the loop.
  if (from_child_ != nullptr) std::fclose(from_child_);
  int status;
  waitpid(pid_, &status, 0);
}

absl::Status OracleClient::Run(const std::string& case_dir,
                               const std::string& result_dir) {
  if (to_child_ == nullptr) return absl::UnavailableError("oracle is gone");
  const std::string request =
      absl::StrCat("{\"case\": ", JsonString(case_dir),
                   ", \"result\": ", JsonString(result_dir), "}\n");
  if (std::fputs(request.c_str(), to_child_) < 0 ||
      std::fflush(to_child_) != 0) {
    return absl::UnavailableError("the TensorFlow oracle process died");
  }
  std::string reply;
  char buf[4096];
  while (std::fgets(buf, sizeof(buf), from_child_) != nullptr) {
    reply += buf;
    if (!reply.empty() && reply.back() == '\n') break;
  }
  if (reply.empty() || reply.back() != '\n') {
    return absl::UnavailableError("the TensorFlow oracle process died");
  }
  if (absl::StrContains(reply, "\"error\"")) {
    return absl::UnavailableError(absl::StrCat("oracle: ", reply));
  }
  return absl::OkStatus();
}

}  // namespace oracle
}  // namespace stepflow
