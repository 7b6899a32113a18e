// TF_Function: a FunctionDef held by the caller (TF_FunctionDebugString
// prints it), and the functions of a graph's library
// (TF_GraphCopyFunction, TF_GraphNumFunctions, TF_GraphGetFunctions,
// TF_GraphRemoveFunction). Building a function from a graph is
// c_api_graph_to_function.cc.
//
// Copying a function into a graph merges it into the graph's
// FunctionDefLibrary by name: the same definition again is a no-op, a
// different one under a taken name is InvalidArgument.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

namespace stepflow {
namespace c_api {
namespace {

// Adds `fdef` to `lib`; InvalidArgument if another definition has its name.
absl::Status AddFunction(const FunctionDef& fdef, FunctionDefLibrary* lib) {
  const std::string& name = fdef.signature().name();
  if (name.empty()) {
    return absl::InvalidArgumentError("function has no name");
  }
  for (const FunctionDef& existing : lib->function()) {
    if (existing.signature().name() != name) continue;
    if (google::protobuf::util::MessageDifferencer::Equals(existing, fdef)) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot add function '", name,
                     "' because a different function with the same name "
                     "already exists."));
  }
  *lib->add_function() = fdef;
  return absl::OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace stepflow

using stepflow::c_api::Set;

extern "C" {

TF_Function* TF_FunctionImportFunctionDef(const void* proto, size_t proto_len,
                                          TF_Status* status) {
  auto* func = new TF_Function;
  if ((proto == nullptr && proto_len > 0) ||
      !func->fdef.ParseFromArray(proto, static_cast<int>(proto_len))) {
    delete func;
    Set(status,
        absl::InvalidArgumentError(
            "Invalid FunctionDef given to TF_FunctionImportFunctionDef"));
    return nullptr;
  }
  Set(status, absl::OkStatus());
  return func;
}

void TF_FunctionToFunctionDef(TF_Function* func, TF_Buffer* output_func_def,
                              TF_Status* status) {
  if (func == nullptr || output_func_def == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_FunctionToFunctionDef: function and buffer are "
                    "required"));
    return;
  }
  stepflow::c_api::SetBufferBytes(
      stepflow::c_api::SerializeDeterministic(func->fdef), output_func_def);
  Set(status, absl::OkStatus());
}

const char* TF_FunctionName(TF_Function* func) {
  return func == nullptr ? "" : func->fdef.signature().name().c_str();
}

void TF_FunctionSetAttrValueProto(TF_Function* func, const char* attr_name,
                                  const void* proto, size_t proto_len,
                                  TF_Status* status) {
  stepflow::AttrValue value;
  if (func == nullptr || attr_name == nullptr ||
      (proto == nullptr && proto_len > 0) ||
      !value.ParseFromArray(proto, static_cast<int>(proto_len))) {
    Set(status,
        absl::InvalidArgumentError("Unparseable AttrValue proto passed to "
                                   "TF_FunctionSetAttrValueProto"));
    return;
  }
  (*func->fdef.mutable_attr())[attr_name] = std::move(value);
  Set(status, absl::OkStatus());
}

void TF_FunctionGetAttrValueProto(TF_Function* func, const char* attr_name,
                                  TF_Buffer* output_attr_value,
                                  TF_Status* status) {
  if (func == nullptr || attr_name == nullptr || output_attr_value == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_FunctionGetAttrValueProto: bad arguments"));
    return;
  }
  auto it = func->fdef.attr().find(attr_name);
  if (it == func->fdef.attr().end()) {
    Set(status, absl::InvalidArgumentError(
                    absl::StrCat("Function '", func->fdef.signature().name(),
                                 "' has no attr named '", attr_name, "'.")));
    return;
  }
  stepflow::c_api::SetBufferBytes(it->second.SerializeAsString(),
                                  output_attr_value);
  Set(status, absl::OkStatus());
}

void TF_DeleteFunction(TF_Function* func) { delete func; }

void TF_GraphCopyFunction(TF_Graph* g, const TF_Function* func,
                          const TF_Function* grad, TF_Status* status) {
  if (g == nullptr || func == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphCopyFunction: graph and function are required"));
    return;
  }
  absl::MutexLock l(&g->mu);
  stepflow::FunctionDefLibrary lib = g->graph.library();
  absl::Status s = stepflow::c_api::AddFunction(func->fdef, &lib);
  if (s.ok() && grad != nullptr) {
    s = stepflow::c_api::AddFunction(grad->fdef, &lib);
    if (s.ok()) {
      stepflow::GradientDef* gd = lib.add_gradient();
      gd->set_function_name(func->fdef.signature().name());
      gd->set_gradient_func(grad->fdef.signature().name());
    }
  }
  if (s.ok()) g->graph.set_library(lib);
  Set(status, std::move(s));
}

int TF_GraphNumFunctions(TF_Graph* g) {
  if (g == nullptr) return 0;
  absl::MutexLock l(&g->mu);
  return g->graph.library().function_size();
}

int TF_GraphGetFunctions(TF_Graph* g, TF_Function** funcs, int max_func,
                         TF_Status* status) {
  if (g == nullptr || max_func < 0 || (max_func > 0 && funcs == nullptr)) {
    Set(status,
        absl::InvalidArgumentError("TF_GraphGetFunctions: bad arguments"));
    return 0;
  }
  absl::MutexLock l(&g->mu);
  const auto& functions = g->graph.library().function();
  int n = 0;
  for (; n < max_func && n < functions.size(); ++n) {
    funcs[n] = new TF_Function{functions.Get(n)};
  }
  Set(status, absl::OkStatus());
  return n;
}

void TF_GraphRemoveFunction(TF_Graph* g, const char* func_name,
                            TF_Status* status) {
  if (g == nullptr || func_name == nullptr) {
    Set(status, absl::InvalidArgumentError(
                    "TF_GraphRemoveFunction: graph and name are required"));
    return;
  }
  absl::MutexLock l(&g->mu);
  stepflow::FunctionDefLibrary lib = g->graph.library();
  auto* functions = lib.mutable_function();
  const int before = functions->size();
  functions->erase(std::remove_if(functions->begin(), functions->end(),
                                  [func_name](const stepflow::FunctionDef& f) {
                                    return f.signature().name() == func_name;
                                  }),
                   functions->end());
  if (functions->size() == before) {
    Set(status,
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to remove non-existent function '", func_name, "'.")));
    return;
  }
  // Its registered gradient goes with it (the gradient function stays).
  auto* gradients = lib.mutable_gradient();
  gradients->erase(std::remove_if(gradients->begin(), gradients->end(),
                                  [func_name](const stepflow::GradientDef& gd) {
                                    return gd.function_name() == func_name;
                                  }),
                   gradients->end());
  g->graph.set_library(lib);
  Set(status, absl::OkStatus());
}

char* TF_FunctionDebugString(TF_Function* func, size_t* len) {
  if (func == nullptr) return nullptr;
  // The FunctionDef in protobuf text form (TensorFlow prints its own
  // summary form; both name the function and its nodes).
  std::string text;
  google::protobuf::TextFormat::PrintToString(func->fdef, &text);
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.c_str(), text.size() + 1);
  if (len != nullptr) *len = text.size();
  return out;
}

}  // extern "C"
