// Entry points of TensorFlow's C API that this runtime does not provide
// yet: building functions from graphs and symbolic gradients.
// Each reports TF_UNIMPLEMENTED (or returns an empty result) so programs
// that merely reference them still link and fail cleanly at run time.
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

void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x, int nx,
                     TF_Output* dx, TF_Status* status, TF_Output* dy) {
  TF_AddGradientsWithPrefix(g, nullptr, y, ny, x, nx, dx, status, dy);
}

void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix, TF_Output* y,
                               int ny, TF_Output* x, int nx, TF_Output* dx,
                               TF_Status* status, TF_Output* dy) {
  (void)g;
  (void)prefix;
  (void)y;
  (void)ny;
  (void)x;
  (void)nx;
  (void)dx;
  (void)dy;
  Unimplemented(status, "TF_AddGradients");
}

TF_Function* TF_GraphToFunction(const TF_Graph* fn_body, const char* fn_name,
                                unsigned char append_hash_to_fn_name,
                                int num_opers, const TF_Operation* const* opers,
                                int ninputs, const TF_Output* inputs,
                                int noutputs, const TF_Output* outputs,
                                const char* const* output_names,
                                const TF_FunctionOptions* opts,
                                const char* description, TF_Status* status) {
  (void)fn_body;
  (void)fn_name;
  (void)append_hash_to_fn_name;
  (void)num_opers;
  (void)opers;
  (void)ninputs;
  (void)inputs;
  (void)noutputs;
  (void)outputs;
  (void)output_names;
  (void)opts;
  (void)description;
  Unimplemented(status, "TF_GraphToFunction");
  return nullptr;
}

}  // extern "C"
