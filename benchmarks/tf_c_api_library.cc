#include "benchmarks/tf_c_api_library.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stepflow::bench {
namespace {

constexpr char kTfLibrary[] = "libtensorflow_cc.so.2";
constexpr char kInstallHint[] =
    "run tools/install_tf.sh and set STEPFLOW_TF_PYTHON to the interpreter "
    "it prints";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string EnvOr(const char* name, const char* otherwise) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : otherwise;
}

// The library in the virtualenv of `python` (<venv>/bin/python, the package
// in <venv>/lib/python3.*/site-packages/tensorflow), or "".
std::string FindInVirtualenv(const std::string& python) {
  const std::filesystem::path bin = std::filesystem::path(python).parent_path();
  const std::string pattern = (bin / ".." / "lib" / "python3*" /
                               "site-packages" / "tensorflow" / kTfLibrary)
                                  .string();
  glob_t matches;
  std::memset(&matches, 0, sizeof(matches));
  std::string path;
  if (glob(pattern.c_str(), 0, nullptr, &matches) == 0 &&
      matches.gl_pathc > 0) {
    path = matches.gl_pathv[0];
  }
  globfree(&matches);
  return path;
}

// The library in the tensorflow package that `python` finds (find_spec
// does not import it), or "".
std::string FindWithInterpreter(const std::string& python) {
  const std::string command = absl::StrCat(
      ShellQuote(python),
      " -c 'import importlib.util as u; s = u.find_spec(\"tensorflow\"); "
      "print(s.submodule_search_locations[0] if s else \"\")' 2>/dev/null");
  std::string dir;
  if (FILE* p = popen(command.c_str(), "r")) {
    char line[4096];
    if (std::fgets(line, sizeof(line), p) != nullptr) dir = line;
    pclose(p);
  }
  while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) {
    dir.pop_back();
  }
  std::error_code ec;
  if (dir.empty() ||
      !std::filesystem::exists(std::filesystem::path(dir) / kTfLibrary, ec)) {
    return "";
  }
  return (std::filesystem::path(dir) / kTfLibrary).string();
}

// The wheel's library for the interpreter $STEPFLOW_TF_PYTHON.
absl::Status FindTensorFlowLibrary(std::string* path) {
  const char* python = std::getenv("STEPFLOW_TF_PYTHON");
  if (python == nullptr || *python == '\0') {
    return absl::FailedPreconditionError(
        absl::StrCat("STEPFLOW_TF_PYTHON is not set: ", kInstallHint));
  }
  *path = FindInVirtualenv(python);
  if (path->empty()) *path = FindWithInterpreter(python);
  if (!path->empty()) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat("no tensorflow/", kTfLibrary,
                                          " for STEPFLOW_TF_PYTHON=", python,
                                          ": ", kInstallHint));
}

// Fills tf->api from `handle`; Unavailable naming what is missing.
absl::Status TakeEntryPoints(void* handle, TensorFlowLibrary* tf) {
  std::vector<std::string> missing;
#define STEPFLOW_BENCH_C_API_DLSYM(fn)                                \
  tf->api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn)); \
  if (tf->api.fn == nullptr) missing.push_back(#fn);
  STEPFLOW_BENCH_C_API_FUNCTIONS(STEPFLOW_BENCH_C_API_DLSYM)
#undef STEPFLOW_BENCH_C_API_DLSYM
  if (missing.empty()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(tf->path, " does not export ",
                                             absl::StrJoin(missing, ", ")));
}

TensorFlowLibrary* LoadTensorFlowOnce() {
  TensorFlowLibrary* tf = new TensorFlowLibrary;
  tf->status = FindTensorFlowLibrary(&tf->path);
  if (!tf->status.ok()) return tf;
  // Read once, when TensorFlow makes its first device.
  setenv("TF_OVERRIDE_GLOBAL_THREADPOOL", "1", /*overwrite=*/0);
  tf->override_global_threadpool =
      EnvOr("TF_OVERRIDE_GLOBAL_THREADPOOL", "unset");
  void* handle =
      dlopen(tf->path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    const char* error = dlerror();
    tf->status = absl::UnavailableError(
        absl::StrCat("dlopen ", tf->path, ": ", error ? error : "?"));
    return tf;
  }
  tf->status = TakeEntryPoints(handle, tf);
  if (!tf->status.ok()) return tf;
  tf->version = tf->api.TF_Version();
  tf->api.name = absl::StrCat("TensorFlow ", tf->version);
  auto is_mkl_enabled = reinterpret_cast<bool (*)()>(
      dlsym(handle, "_ZN10tensorflow12IsMKLEnabledEv"));
  tf->onednn = absl::StrCat(
      is_mkl_enabled == nullptr ? "unknown" : (is_mkl_enabled() ? "on" : "off"),
      " (TF_ENABLE_ONEDNN_OPTS=",
      EnvOr("TF_ENABLE_ONEDNN_OPTS", "unset: TensorFlow's default"), ")");
  return tf;
}

}  // namespace

const TensorFlowLibrary& LoadTensorFlow() {
  static const TensorFlowLibrary* tf = LoadTensorFlowOnce();
  return *tf;
}

}  // namespace stepflow::bench
