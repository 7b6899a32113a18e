// CheckImport: the import contract the GraphDef fuzzers enforce.
//
// For allow_internal_ops false and true, ConvertGraphDefToGraph(gdef) must
// either fail with InvalidArgument, NotFound or (a function call)
// Unimplemented and leave the graph without op nodes, or succeed; on success
// Graph::ToGraphDef must re-import under the same options into a graph whose
// ToGraphDef is identical (import is idempotent on its own output).
// CheckTextRoundTrip: GraphDefToText must parse back (ParseGraphDefFromText) to
// the same message.
//
// A broken contract prints what broke and calls abort(), which is what a
// fuzzer reports as a crash. Deterministic; uses the global op registry.
#ifndef STEPFLOW_FUZZ_GRAPHDEF_IMPORT_CHECK_H_
#define STEPFLOW_FUZZ_GRAPHDEF_IMPORT_CHECK_H_

#include "proto/graph.pb.h"

namespace stepflow::fuzzing {

void CheckImport(const GraphDef& gdef);
void CheckTextRoundTrip(const GraphDef& gdef);

}  // namespace stepflow::fuzzing

#endif  // STEPFLOW_FUZZ_GRAPHDEF_IMPORT_CHECK_H_
