// RandomShuffle: the input with its first dimension permuted uniformly at
// random, as TensorFlow's CPU kernel permutes it.
//
// For a first dimension of n > 1 (and more than one element) the kernel
// reserves ceil((n - 1) / 4) blocks of the node's seeded stream and reads
// its words one at a time: for i = 0 .. n - 2 it swaps position i with
// i + (word % (n - i)) (a Fisher-Yates shuffle from the front). A vector is
// shuffled in place; a higher-rank tensor has a permutation of the row
// indices shuffled so and its rows gathered through it. Otherwise the input
// is forwarded and the stream does not advance. Every dtype that can be
// copied (memcpy-able or string) is supported; runs on the calling thread.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/random_op_util.h"

namespace stepflow {
namespace {

// The permutation of [0, n) for the words of `gen`.
std::vector<int64_t> ShufflePermutation(int64_t n, const PhiloxRandom& gen) {
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  RandomWordStream words(gen);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const uint32_t range = static_cast<uint32_t>(n - i);
    std::swap(perm[i], perm[i + words.Next32() % range]);
  }
  return perm;
}

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
      ctx->set_output(0, input);
      return;
    }
    const int64_t n = input.dim_size(0);
    const int64_t row = input.NumElements() / n;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const PhiloxRandom gen =
        generator_.ReserveBlocks(static_cast<uint64_t>(n - 1 + 3) / 4);
    const std::vector<int64_t> perm = ShufflePermutation(n, gen);
    const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* src = input.base<U>();
      U* dst = out->base<U>();
      for (int64_t i = 0; i < n; ++i) {
        std::copy(src + perm[i] * row, src + (perm[i] + 1) * row,
                  dst + i * row);
      }
    });
    OP_REQUIRES(ctx, ok,
                NodeInvalidArgument(ctx, "RandomShuffle does not support ",
                                    DataTypeString(input.dtype())));
  }

 private:
  GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL_BUILDER(
    Name("RandomShuffle").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    RandomShuffleOp);

}  // namespace
}  // namespace stepflow
