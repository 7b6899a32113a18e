// Where tests write scratch files: $TEST_TMPDIR, which Bazel gives every
// test (a fresh, private directory), or /tmp when a test binary is run by
// hand. The one home of that rule for the project's tests.
//
// Pure functions of the environment; thread-safe.
#ifndef STEPFLOW_TESTING_TEST_TMPDIR_H_
#define STEPFLOW_TESTING_TEST_TMPDIR_H_

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace stepflow {
namespace test {

// The scratch directory (no trailing slash).
inline std::string TestTmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

// TestTmpDir() + "/" + name.
inline std::string TestTmpPath(absl::string_view name) {
  return absl::StrCat(TestTmpDir(), "/", name);
}

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TEST_TMPDIR_H_
