#include "runtime/common/op_segment.h"

#include "google/protobuf/util/message_differencer.h"
#include "runtime/framework/op.h"
#include "runtime/framework/status_macros.h"

namespace stepflow {
namespace {

bool SameDef(const NodeDef& a, const NodeDef& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

}  // namespace

bool OpSegment::ShouldShare(const NodeDef& ndef) {
  if (ndef.op().empty() || ndef.op()[0] == '_') return false;
  const OpDef* op_def = OpRegistry::Global()->LookUpOrNull(ndef.op());
  return op_def != nullptr && op_def->is_stateful();
}

absl::Status OpSegment::GetOrCreateKernel(Device* device, const NodeDef& ndef,
                                          std::shared_ptr<OpKernel>* kernel,
                                          bool ndef_outlives_kernel) {
  const bool share = ShouldShare(ndef);
  if (share) {
    absl::MutexLock l(&mu_);
    auto it = kernels_.find({device->name(), ndef.name()});
    if (it != kernels_.end() && SameDef(it->second.def, ndef)) {
      *kernel = it->second.kernel;
      return absl::OkStatus();
    }
  }
  std::unique_ptr<OpKernel> made;
  SF_RETURN_IF_ERROR(
      !share && ndef_outlives_kernel
          ? CreateOpKernelBorrowingDef(device->device_type(), device, ndef,
                                       &made)
          : CreateOpKernel(device->device_type(), device, ndef, &made));
  *kernel = std::move(made);
  if (share) *kernel = Insert(device->name(), ndef, *kernel);
  return absl::OkStatus();
}

std::shared_ptr<OpKernel> OpSegment::Insert(const std::string& device,
                                            const NodeDef& ndef,
                                            std::shared_ptr<OpKernel> made) {
  absl::MutexLock l(&mu_);
  auto [it, inserted] =
      kernels_.try_emplace({device, ndef.name()}, Entry{ndef, made});
  return SameDef(it->second.def, ndef) ? it->second.kernel : made;
}

size_t OpSegment::size() const {
  absl::MutexLock l(&mu_);
  return kernels_.size();
}

}  // namespace stepflow
