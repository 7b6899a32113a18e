// RandomShuffle and StatelessShuffle: the input with its first dimension
// permuted uniformly at random, as TensorFlow's CPU kernels permute it.
//
// For a first dimension of n > 1 (and more than one element) RandomShuffle
// reserves ceil((n - 1) / 4) blocks of the node's seeded stream
// (StatelessShuffle starts at its key and counter) and reads
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

#include "runtime/framework/node_def_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/philox_random.h"
#include "runtime/kernels/random_distributions.h"
#include "runtime/kernels/random_op_util.h"
#include "runtime/kernels/stateless_random_seed.h"

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

// Writes `input` with its first dimension permuted (or forwards it when
// there is nothing to permute) to output 0; `reserve(n)` gives the stream
// for a permutation of n rows.
template <typename ReserveFn>
void ShuffleFirstDim(OpKernelContext* ctx, const Tensor& input,
                     ReserveFn reserve) {
  if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
    ctx->set_output(0, input);
    return;
  }
  const int64_t n = input.dim_size(0);
  const int64_t row = input.NumElements() / n;
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  const std::vector<int64_t> perm = ShufflePermutation(n, reserve(n));
  const bool ok = DispatchByElementSize(input.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* src = input.base<U>();
    U* dst = out->base<U>();
    for (int64_t i = 0; i < n; ++i) {
      std::copy(src + perm[i] * row, src + (perm[i] + 1) * row, dst + i * row);
    }
  });
  OP_REQUIRES(ctx, ok,
              NodeInvalidArgument(ctx, "cannot shuffle elements of type ",
                                  DataTypeString(input.dtype())));
}

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitGeneratorFromAttrs(ctx, &generator_));
  }

  void Compute(OpKernelContext* ctx) override {
    ShuffleFirstDim(ctx, ctx->input(0), [this](int64_t n) {
      return generator_.ReserveBlocks(static_cast<uint64_t>(n - 1 + 3) / 4);
    });
  }

 private:
  GuardedPhiloxRandom generator_;
};

// StatelessShuffle(value, key, counter, alg): the same permutation drawn
// from the key/counter stream (stateless_random_seed.h); an algorithm other
// than Philox is an error even when nothing needs permuting.
class StatelessShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int32_t alg = 0;
    PhiloxRandom gen;
    absl::Status s =
        CheckKeyCounterAlg(ctx->input(1), ctx->input(2), ctx->input(3), &alg);
    if (s.ok())
      s = PhiloxFromKeyCounter(alg, ctx->input(1), ctx->input(2), &gen);
    OP_REQUIRES(ctx, s.ok(), AttachDef(s, name()));
    ShuffleFirstDim(ctx, ctx->input(0), [&gen](int64_t) { return gen; });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("RandomShuffle").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    RandomShuffleOp);
REGISTER_KERNEL_BUILDER(
    Name("StatelessShuffle").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()),
    StatelessShuffleOp);

}  // namespace
}  // namespace stepflow
