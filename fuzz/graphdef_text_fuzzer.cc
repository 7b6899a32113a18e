// Fuzzes text GraphDef parsing and import: bytes -> ParseGraphDefFromText ->
// ConvertGraphDefToGraph (with and without internal ops). Errors are fine;
// crashes, sanitizer reports and broken error contracts are not.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fuzz/graphdef_import_check.h"
#include "google/protobuf/stubs/logging.h"
#include "proto/graph.pb.h"
#include "runtime/graph/graph_def_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Parse errors are expected; protobuf's log lines only slow the run.
  google::protobuf::LogSilencer quiet;
  stepflow::GraphDef gdef;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  if (!stepflow::ParseGraphDefFromText(text, &gdef).ok()) return 0;
  stepflow::fuzzing::CheckTextRoundTrip(gdef);
  stepflow::fuzzing::CheckImport(gdef);
  return 0;
}
