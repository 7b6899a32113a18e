#include "runtime/kernels/conv_epilogue.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/status_macros.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {

absl::Status ConvEpilogue::FromAttrs(OpKernelConstruction* ctx,
                                     std::vector<Step>* steps) {
  std::vector<std::string> names;
  SF_RETURN_IF_ERROR(ctx->GetAttr("epilogue", &names));
  int64_t num_args = 0;
  SF_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
  steps->clear();
  int64_t with_arg = 0;
  for (const std::string& name : names) {
    if (name == "Mul") {
      steps->push_back(Step::kMul);
      ++with_arg;
    } else if (name == "BiasAdd") {
      steps->push_back(Step::kBiasAdd);
      ++with_arg;
    } else if (name == "Relu") {
      steps->push_back(Step::kRelu);
    } else if (name == "Relu6") {
      steps->push_back(Step::kRelu6);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown epilogue step '", name, "' in [",
                       absl::StrJoin(names, ", "), "]"));
    }
  }
  if (with_arg != num_args) {
    return absl::InvalidArgumentError(
        absl::StrCat("The epilogue [", absl::StrJoin(names, ", "), "] takes ",
                     with_arg, " arguments but num_args is ", num_args));
  }
  return absl::OkStatus();
}

absl::Status ConvEpilogue::Bind(OpKernelContext* ctx,
                                const std::vector<Step>& steps, int first_arg,
                                int64_t channels, ConvEpilogue* out) {
  out->steps_ = steps;
  out->channels_ = channels;
  out->tile_rows_ =
      std::max<int64_t>(1, kTileFloats / std::max<int64_t>(1, channels));
  out->tiled_args_.assign(steps.size(), {});
  int next = first_arg;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step step = steps[i];
    if (step != Step::kMul && step != Step::kBiasAdd) continue;
    const Tensor& arg = ctx->input(next);
    bool per_channel = arg.dims() >= 1 && arg.dims() <= 4 &&
                       arg.dim_size(arg.dims() - 1) == channels;
    for (int d = 0; per_channel && d + 1 < arg.dims(); ++d) {
      per_channel = arg.dim_size(d) == 1;
    }
    if (!per_channel) {
      return NodeInvalidArgument(ctx, "epilogue argument ", next - first_arg,
                                 " must hold one value ",
                                 "for each of the output's ", channels,
                                 " channels: ", arg.shape().DebugString());
    }
    std::vector<float>& tiled = out->tiled_args_[i];
    tiled.resize(out->tile_rows_ * channels);
    const float* values = arg.base<float>();
    for (int64_t r = 0; r < out->tile_rows_; ++r) {
      std::copy_n(values, channels, tiled.data() + r * channels);
    }
    ++next;
  }
  return absl::OkStatus();
}

namespace {

// Four floats as one SIMD register where the target has one (GCC's and
// Clang's vector extension; plain arithmetic, so the rounding is the same
// as the scalar ops').
typedef float Float4 __attribute__((vector_size(16)));

// The steps' element-wise functions, written once for a float and for a
// Float4. Relu and Relu6 are std::max / std::min's comparisons, which is
// what the Relu and Relu6 kernels' Eigen expressions compute: NaN stays
// NaN and -0 stays -0.
template <typename V>
inline V Relu(V x) {
  const V zero = V{} * 0.0f;
  return x < zero ? zero : x;
}
template <typename V>
inline V Relu6(V x) {
  const V six = V{} * 0.0f + 6.0f;
  const V y = Relu(x);
  return six < y ? six : y;
}

inline Float4 Load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline void Store4(float* p, Float4 v) { std::memcpy(p, &v, sizeof(v)); }

}  // namespace

void ConvEpilogue::Apply(float* rows, int64_t num_rows) const {
  const int64_t c = channels_;
  if (c == 0) return;
  // A chunk of tile_rows_ rows (about 4 KB) goes through every step while
  // it is in L1; each step is one flat loop over the chunk, against the
  // arguments tiled to the chunk's length.
  for (int64_t r0 = 0; r0 < num_rows; r0 += tile_rows_) {
    const int64_t n = std::min(tile_rows_, num_rows - r0) * c;
    float* v = rows + r0 * c;
    for (size_t i = 0; i < steps_.size(); ++i) {
      const float* a = tiled_args_[i].data();
      int64_t k = 0;
      switch (steps_[i]) {
        case Step::kMul:
          for (; k + 4 <= n; k += 4) Store4(v + k, Load4(v + k) * Load4(a + k));
          for (; k < n; ++k) v[k] = v[k] * a[k];
          break;
        case Step::kBiasAdd:
          for (; k + 4 <= n; k += 4) Store4(v + k, Load4(v + k) + Load4(a + k));
          for (; k < n; ++k) v[k] = v[k] + a[k];
          break;
        case Step::kRelu:
          for (; k + 4 <= n; k += 4) Store4(v + k, Relu(Load4(v + k)));
          for (; k < n; ++k) v[k] = Relu(v[k]);
          break;
        case Step::kRelu6:
          for (; k + 4 <= n; k += 4) Store4(v + k, Relu6(Load4(v + k)));
          for (; k < n; ++k) v[k] = Relu6(v[k]);
          break;
      }
    }
  }
}

}  // namespace stepflow
