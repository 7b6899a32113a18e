// CApi: one implementation of TensorFlow's C API, as a table of the entry
// points the TensorFlow-peer benchmarks call.
//
// Two implementations share the TF_* names and signatures: stepflow's,
// linked into the binary (runtime/c/c_api.h, which gives every member its
// type), and TensorFlow's, taken from its shared library at run time
// (benchmarks/tf_c_api_library.h fills a table with dlsym). Code written
// against a CApi (benchmarks/c_session.h) drives either one with the same
// calls.
//
// A table is a plain value: copyable, immutable once filled, safe to read
// from any thread. The functions it points to are as thread-safe as their
// implementation says.
#ifndef STEPFLOW_BENCHMARKS_C_API_TABLE_H_
#define STEPFLOW_BENCHMARKS_C_API_TABLE_H_

#include <string>

#include "runtime/c/c_api.h"

// The entry points in a CApi: X(fn) for each.
// clang-format off
#define STEPFLOW_BENCH_C_API_FUNCTIONS(X)                                   \
  X(TF_Version)                                                             \
  X(TF_NewStatus) X(TF_DeleteStatus) X(TF_GetCode) X(TF_Message)            \
  X(TF_NewBufferFromString) X(TF_DeleteBuffer)                              \
  X(TF_AllocateTensor) X(TF_DeleteTensor) X(TF_TensorType) X(TF_NumDims)    \
  X(TF_Dim) X(TF_TensorByteSize) X(TF_TensorData)                           \
  X(TF_NewGraph) X(TF_DeleteGraph) X(TF_NewImportGraphDefOptions)           \
  X(TF_DeleteImportGraphDefOptions) X(TF_GraphImportGraphDef)               \
  X(TF_GraphOperationByName)                                                \
  X(TF_NewSessionOptions) X(TF_SetConfig) X(TF_DeleteSessionOptions)        \
  X(TF_NewSession) X(TF_CloseSession) X(TF_DeleteSession) X(TF_SessionRun)
// clang-format on

namespace stepflow::bench {

struct CApi {
  // "TensorFlow 2.21.0" or "stepflow": prefixes the errors of code that
  // calls through the table.
  std::string name;
#define STEPFLOW_BENCH_C_API_MEMBER(fn) decltype(&::fn) fn = nullptr;
  STEPFLOW_BENCH_C_API_FUNCTIONS(STEPFLOW_BENCH_C_API_MEMBER)
#undef STEPFLOW_BENCH_C_API_MEMBER
};

// Stepflow's C API, linked into this binary. Never null members; lives for
// the whole process.
const CApi& StepflowCApi();

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_C_API_TABLE_H_
