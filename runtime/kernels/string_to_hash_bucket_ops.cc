// StringToHashBucketFast, StringToHashBucketStrong and StringToHashBucket:
// each string's hash modulo num_buckets (int64), with the hash of
// TensorFlow's op of the same name: Fingerprint64, SipHash-2-4 under the
// two-element `key`, and Hash64 with seed 0xDECAFCAFFE.
//
// Errors: a `key` without exactly two elements is InvalidArgument at
// construction, naming the node.
#include <string>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/string_hash.h"

namespace stepflow {
namespace {

// Hasher: uint64_t(const std::string&) const.
template <typename Hasher>
class HashBucketOp : public OpKernel {
 public:
  explicit HashBucketOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
    OP_REQUIRES_OK(ctx, hasher_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.base<const std::string>();
    int64_t* dst = out->base<int64_t>();
    const uint64_t buckets = static_cast<uint64_t>(num_buckets_);
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      dst[i] = static_cast<int64_t>(hasher_(src[i]) % buckets);
    }
  }

  bool IsExpensive() const override { return false; }

 private:
  int64_t num_buckets_ = 1;
  Hasher hasher_;
};

struct FastHasher {
  absl::Status Init(OpKernelConstruction*) { return absl::OkStatus(); }
  uint64_t operator()(const std::string& s) const { return Fingerprint64(s); }
};

struct LegacyHasher {
  absl::Status Init(OpKernelConstruction*) { return absl::OkStatus(); }
  uint64_t operator()(const std::string& s) const {
    return Hash64(s, 0xDECAFCAFFEULL);
  }
};

struct StrongHasher {
  absl::Status Init(OpKernelConstruction* ctx) {
    std::vector<int64_t> key;
    absl::Status s = ctx->GetAttr("key", &key);
    if (!s.ok()) return s;
    if (key.size() != 2) {
      return AttachDef(absl::InvalidArgumentError("Key must have 2 elements"),
                       ctx->def().name());
    }
    key_[0] = static_cast<uint64_t>(key[0]);
    key_[1] = static_cast<uint64_t>(key[1]);
    return absl::OkStatus();
  }
  uint64_t operator()(const std::string& s) const { return SipHash24(key_, s); }
  uint64_t key_[2] = {0, 0};
};

REGISTER_KERNEL_BUILDER(Name("StringToHashBucketFast").Device(DEVICE_CPU),
                        HashBucketOp<FastHasher>);
REGISTER_KERNEL_BUILDER(Name("StringToHashBucketStrong").Device(DEVICE_CPU),
                        HashBucketOp<StrongHasher>);
REGISTER_KERNEL_BUILDER(Name("StringToHashBucket").Device(DEVICE_CPU),
                        HashBucketOp<LegacyHasher>);

}  // namespace
}  // namespace stepflow
