// Entry points of TensorFlow's C API that this runtime accepts but does
// not act on: filesystem plugins (loading code into the process, like
// TF_LoadLibrary, is TF_UNIMPLEMENTED with a clear message) and full types
// (TF_SetFullType: the runtime does not track full types, so the call is
// accepted and the type is not kept).
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

using stepflow::c_api::Set;

extern "C" {

void TF_RegisterFilesystemPlugin(const char* plugin_filename,
                                 TF_Status* status) {
  Set(status, absl::UnimplementedError(absl::StrCat(
                  "loading filesystem plugins is not supported (",
                  plugin_filename == nullptr ? "" : plugin_filename, ")")));
}

void TF_SetFullType(TF_Graph* graph, TF_Operation* op,
                    const TF_Buffer* full_type_proto) {
  (void)graph;
  (void)op;
  (void)full_type_proto;
}

}  // extern "C"
