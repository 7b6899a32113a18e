// TensorFlow's C API, loaded at run time from the TensorFlow wheel.
//
// LoadTensorFlow() finds site-packages/tensorflow/libtensorflow_cc.so.2 of
// the virtualenv whose interpreter $STEPFLOW_TF_PYTHON names (or, failing
// that, wherever that interpreter finds the tensorflow package, asked with
// importlib's find_spec, which does not import it) and dlopen()s it; it is
// never linked. The first call loads, later calls return the same result.
//
// Loading:
//  * sets TF_OVERRIDE_GLOBAL_THREADPOOL=1 unless it is already set, before
//    TensorFlow makes its first device: sessions whose ConfigProto sets
//    use_per_session_threads then own intra-op pools of their own size,
//    instead of all sharing the pools that the process's first session
//    sized, so rows with different thread counts can share a process;
//  * opens the library RTLD_LOCAL | RTLD_DEEPBIND: its symbols stay out of
//    the global scope, and its own definitions win over the global scope's
//    for its own references. The binary exports stepflow's TF_* functions
//    and links Debian's libprotobuf, whose google::protobuf symbols
//    libtensorflow_framework.so.2 also defines (for another protobuf
//    version), unversioned;
//  * takes every entry point of a CApi (benchmarks/c_api_table.h) with
//    dlsym, and asks tensorflow::IsMKLEnabled() whether oneDNN's kernels
//    and graph rewrites are on (TF_ENABLE_ONEDNN_OPTS, or the platform's
//    default).
//
// Errors (TensorFlowLibrary::status; the other fields mean something only
// when it is OK):
// FailedPrecondition when $STEPFLOW_TF_PYTHON is unset, NotFound when no
// library is found for it, Unavailable when dlopen fails or an entry point
// is missing. The messages name tools/install_tf.sh where it would help.
//
// Ownership: the library stays loaded, and the result alive, until the
// process exits. Thread-safety: LoadTensorFlow() may be called from any
// thread; the result is immutable.
#ifndef STEPFLOW_BENCHMARKS_TF_C_API_LIBRARY_H_
#define STEPFLOW_BENCHMARKS_TF_C_API_LIBRARY_H_

#include <string>

#include "absl/status/status.h"
#include "benchmarks/c_api_table.h"

namespace stepflow::bench {

struct TensorFlowLibrary {
  absl::Status status;  // Why TensorFlow is unavailable; OK when loaded.
  std::string path;     // The shared library's path.
  std::string version;  // TF_Version().
  // "on" / "off" / "unknown" (no IsMKLEnabled), and TF_ENABLE_ONEDNN_OPTS.
  std::string onednn;
  // TF_OVERRIDE_GLOBAL_THREADPOOL as TensorFlow was loaded with.
  std::string override_global_threadpool;
  CApi api;  // api.name: "TensorFlow <version>".
};

const TensorFlowLibrary& LoadTensorFlow();

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_TF_C_API_LIBRARY_H_
