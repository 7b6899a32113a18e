#include "runtime/framework/versions.h"

#include "absl/strings/str_cat.h"

namespace stepflow {

absl::Status CheckGraphDefVersions(const VersionDef& versions) {
  if (versions.producer() < kGraphDefVersionMinProducer) {
    return absl::InvalidArgumentError(
        absl::StrCat("GraphDef producer version ", versions.producer(),
                     " below min producer ", kGraphDefVersionMinProducer,
                     " supported by this runtime (version ", kGraphDefVersion,
                     "). Please regenerate your graph."));
  }
  if (versions.min_consumer() > kGraphDefVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("GraphDef min consumer version ", versions.min_consumer(),
                     " above current version ", kGraphDefVersion,
                     " for this runtime. Please upgrade the runtime."));
  }
  for (int bad : versions.bad_consumers()) {
    if (bad == kGraphDefVersion) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GraphDef disallows consumer version ", bad,
          " (this runtime's version). Please upgrade the runtime."));
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
