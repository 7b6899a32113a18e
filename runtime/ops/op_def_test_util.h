// Test helpers for OpDef signature tests: look up a registered OpDef and
// render its args and attrs as compact strings to compare with
// TensorFlow's signatures.
//
// Testonly. Lookups read OpRegistry::Global(), so a test sees the ops of
// the //runtime/ops libraries it links. Failures are reported as gtest
// failures (EXPECT/ADD_FAILURE) and return an empty value; they never
// abort.
#ifndef STEPFLOW_RUNTIME_OPS_OP_DEF_TEST_UTIL_H_
#define STEPFLOW_RUNTIME_OPS_OP_DEF_TEST_UTIL_H_

#include <string>

#include <google/protobuf/repeated_field.h>

#include "proto/op_def.pb.h"
#include "runtime/framework/types.h"

namespace stepflow {
namespace test {

// The registered OpDef `name`; an empty OpDef (and a test failure) when
// there is none.
const OpDef& Op(const std::string& name);

// "name:type" per arg, comma-separated. `type` is the type attr or the
// concrete type ("float"), a type-list attr in brackets ("[T]"), wrapped
// as "Ref(T)" for a ref arg and prefixed "N*" for a list of `N` tensors.
std::string Args(const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args);

// "name:type" per attr, comma-separated, in declaration order.
std::string Attrs(const OpDef& op);

// As Attrs, with "=default" after attrs that have one: strings quoted
// ('x'), ints and bools as written, lists as "[]", anything else as "?".
std::string AttrsWithDefaults(const OpDef& op);

// The attr `name` of `op`, or null when it has none.
const OpDef::AttrDef* FindAttr(const OpDef& op, const std::string& name);

// The attr `attr` of the registered op `op`; an empty AttrDef (and a test
// failure) when there is none.
const OpDef::AttrDef& Attr(const std::string& op, const std::string& attr);

// Whether attr `attr` of the registered op `op` allows type `t` (true when
// the attr has no allowed-values list; a test failure when there is no
// such attr).
bool Allows(const std::string& op, const std::string& attr, DataType t);

// The allowed types of attr `attr` of `op`, comma-separated ("" when any
// type is allowed, "<no attr>" when there is no such attr).
std::string Allowed(const OpDef& op, const std::string& attr);

}  // namespace test
}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_OPS_OP_DEF_TEST_UTIL_H_
