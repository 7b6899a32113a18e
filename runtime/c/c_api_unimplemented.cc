// Entry points of TensorFlow's C API that this runtime does not provide
// yet: API definition maps, filesystem plugins, the while-loop input hack
// and resource handle shapes. Each reports TF_UNIMPLEMENTED (or returns an
// empty result) so programs that merely reference them still link and fail
// cleanly at run time.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

using stepflow::c_api::Set;

namespace {

void Unimplemented(TF_Status* status, const char* what) {
  Set(status, absl::UnimplementedError(
                  absl::StrCat(what, " is not supported by this runtime yet")));
}

}  // namespace

extern "C" {

void TF_AddWhileInputHack(TF_Graph* graph, TF_Output new_src, TF_Operation* dst,
                          TF_Status* status) {
  (void)graph;
  (void)new_src;
  (void)dst;
  Unimplemented(status, "TF_AddWhileInputHack");
}

TF_ApiDefMap* TF_NewApiDefMap(TF_Buffer* op_list_buffer, TF_Status* status) {
  (void)op_list_buffer;
  Unimplemented(status, "TF_NewApiDefMap");
  return nullptr;
}

void TF_DeleteApiDefMap(TF_ApiDefMap* apimap) { (void)apimap; }

void TF_ApiDefMapPut(TF_ApiDefMap* api_def_map, const char* text,
                     size_t text_len, TF_Status* status) {
  (void)api_def_map;
  (void)text;
  (void)text_len;
  Unimplemented(status, "TF_ApiDefMapPut");
}

TF_Buffer* TF_ApiDefMapGet(TF_ApiDefMap* api_def_map, const char* name,
                           size_t name_len, TF_Status* status) {
  (void)api_def_map;
  (void)name;
  (void)name_len;
  Unimplemented(status, "TF_ApiDefMapGet");
  return nullptr;
}

void TF_RegisterFilesystemPlugin(const char* plugin_filename,
                                 TF_Status* status) {
  (void)plugin_filename;
  Unimplemented(status, "TF_RegisterFilesystemPlugin");
}

void TF_SetFullType(TF_Graph* graph, TF_Operation* op,
                    const TF_Buffer* full_type_proto) {
  // Full types are not tracked by this runtime.
  (void)graph;
  (void)op;
  (void)full_type_proto;
}

void TF_SetRequireShapeInferenceFns(TF_Graph* graph, bool require) {
  // There is no shape inference to require.
  (void)graph;
  (void)require;
}

TF_Buffer* TF_GetHandleShapeAndType(TF_Graph* graph, TF_Output output) {
  // No handle shapes are tracked: an empty CppShapeInferenceResult.
  (void)graph;
  (void)output;
  return TF_NewBuffer();
}

void TF_SetHandleShapeAndType(TF_Graph* graph, TF_Output output,
                              const void* proto, size_t proto_len,
                              TF_Status* status) {
  (void)graph;
  (void)output;
  (void)proto;
  (void)proto_len;
  Unimplemented(status, "TF_SetHandleShapeAndType");
}

}  // extern "C"
