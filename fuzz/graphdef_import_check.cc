#include "fuzz/graphdef_import_check.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_constructor.h"
#include "runtime/graph/graph_def_io.h"

namespace stepflow::fuzzing {
namespace {

[[noreturn]] void Fail(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "GraphDef contract violated: %s\nstatus: %s\n",
               what.c_str(), s.ToString().c_str());
  std::abort();
}

// Byte-exact (map fields in key order; NaN payloads compare by bits).
std::string Canonical(const GraphDef& gdef) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    gdef.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace

void CheckImport(const GraphDef& gdef) {
  for (bool internal : {false, true}) {
    GraphConstructorOptions opts;
    opts.allow_internal_ops = internal;
    Graph g;
    absl::Status s = ConvertGraphDefToGraph(opts, gdef, &g);
    if (!s.ok()) {
      if (s.code() != absl::StatusCode::kInvalidArgument &&
          s.code() != absl::StatusCode::kNotFound &&
          s.code() != absl::StatusCode::kUnimplemented) {
        Fail("import returned an undocumented status code", s);
      }
      if (g.num_op_nodes() != 0) {
        Fail("a failed import left op nodes in the graph", s);
      }
      continue;
    }
    GraphDef first;
    g.ToGraphDef(&first);
    Graph again;
    s = ConvertGraphDefToGraph(opts, first, &again);
    if (!s.ok()) Fail("the imported graph's GraphDef does not re-import", s);
    GraphDef second;
    again.ToGraphDef(&second);
    if (Canonical(first) != Canonical(second)) {
      Fail("re-importing the imported graph's GraphDef changed it", s);
    }
  }
}

void CheckTextRoundTrip(const GraphDef& gdef) {
  const std::string text = GraphDefToText(gdef);
  GraphDef back;
  absl::Status s = ParseGraphDefFromText(text, &back);
  if (!s.ok()) Fail("GraphDefToText output does not parse", s);
  if (Canonical(gdef) != Canonical(back)) {
    Fail("GraphDefToText does not round trip", s);
  }
}

}  // namespace stepflow::fuzzing
