#include "benchmarks/conv_onednn.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"

// OpenMP's entry point (libgomp, which Debian's oneDNN is built against);
// declared here so that the benchmark needs no OpenMP headers or flags.
extern "C" void omp_set_num_threads(int);

namespace stepflow::bench {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// Fixed values in [-0.5, 0.5) (a linear congruential sequence).
void Fill(const memory& m, uint32_t seed) {
  float* p = static_cast<float*>(m.get_data_handle());
  const size_t n = m.get_desc().get_size() / sizeof(float);
  uint32_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<float>((x >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

class OneDnnConvImpl : public OneDnnConv {
 public:
  explicit OneDnnConvImpl(const ConvShape& c)
      : c_(c), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

  void Build() {
    const std::string op = c_.op;
    const bool depthwise = op == "DepthwiseConv2dNative";
    const int64_t oh = (c_.height + c_.stride - 1) / c_.stride;
    const int64_t ow = (c_.width + c_.stride - 1) / c_.stride;
    const int64_t out_depth =
        depthwise ? c_.in_depth * c_.out_depth : c_.out_depth;
    const memory::dims strides = {c_.stride, c_.stride};
    const int64_t pad_h =
        std::max<int64_t>((oh - 1) * c_.stride + c_.filter - c_.height, 0);
    const int64_t pad_w =
        std::max<int64_t>((ow - 1) * c_.stride + c_.filter - c_.width, 0);
    const memory::dims pad_l = {pad_h / 2, pad_w / 2};
    const memory::dims pad_r = {pad_h - pad_h / 2, pad_w - pad_w / 2};
    const memory::desc src({c_.batch, c_.in_depth, c_.height, c_.width},
                           memory::data_type::f32, Tag::nhwc);
    const memory::desc dst({c_.batch, out_depth, oh, ow},
                           memory::data_type::f32, Tag::nhwc);
    const memory::dims wdims =
        depthwise
            ? memory::dims{c_.in_depth, c_.out_depth, 1, c_.filter, c_.filter}
            : memory::dims{c_.out_depth, c_.in_depth, c_.filter, c_.filter};
    const memory::desc w_any(wdims, memory::data_type::f32, Tag::any);
    const memory::desc w_user(wdims, memory::data_type::f32,
                              depthwise ? Tag::hwigo : Tag::hwio);
    const auto algo = dnnl::algorithm::convolution_direct;
    const dnnl::convolution_forward::desc fwd(
        dnnl::prop_kind::forward_inference, algo, src, w_any, dst, strides,
        pad_l, pad_r);
    const dnnl::convolution_forward::primitive_desc fwd_pd(fwd, engine_);
    if (op == "Conv2DBackpropFilter") {
      const dnnl::convolution_backward_weights::desc bwd(algo, src, w_user, dst,
                                                         strides, pad_l, pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(bwd, engine_,
                                                            fwd_pd);
      args_ = {
          {DNNL_ARG_SRC, Filled(pd.src_desc(), 1)},
          {DNNL_ARG_DIFF_DST, Filled(pd.diff_dst_desc(), 3)},
          {DNNL_ARG_DIFF_WEIGHTS, memory(pd.diff_weights_desc(), engine_)}};
      info_ = pd.impl_info_str();
      primitive_ = dnnl::convolution_backward_weights(pd);
      return;
    }
    if (op == "Conv2DBackpropInput") {
      const dnnl::convolution_backward_data::desc bwd(algo, src, w_any, dst,
                                                      strides, pad_l, pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(bwd, engine_, fwd_pd);
      args_ = {{DNNL_ARG_WEIGHTS, Weights(w_user, pd.weights_desc())},
               {DNNL_ARG_DIFF_DST, Filled(pd.diff_dst_desc(), 3)},
               {DNNL_ARG_DIFF_SRC, memory(pd.diff_src_desc(), engine_)}};
      info_ = pd.impl_info_str();
      primitive_ = dnnl::convolution_backward_data(pd);
      return;
    }
    args_ = {{DNNL_ARG_SRC, Filled(fwd_pd.src_desc(), 1)},
             {DNNL_ARG_WEIGHTS, Weights(w_user, fwd_pd.weights_desc())},
             {DNNL_ARG_DST, memory(fwd_pd.dst_desc(), engine_)}};
    info_ = fwd_pd.impl_info_str();
    primitive_ = dnnl::convolution_forward(fwd_pd);
  }

  void Run() override {
    primitive_.execute(stream_, args_);
    stream_.wait();
  }
  const char* ImplInfo() const override { return info_.c_str(); }

 private:
  memory Filled(const memory::desc& d, uint32_t seed) {
    memory m(d, engine_);
    Fill(m, seed);
    return m;
  }

  // The filter filled in the user's layout, reordered once into `want`.
  memory Weights(const memory::desc& user, const memory::desc& want) {
    memory u = Filled(user, 2);
    if (user == want) return u;
    memory w(want, engine_);
    dnnl::reorder(u, w).execute(stream_, u, w);
    stream_.wait();
    return w;
  }

  const ConvShape c_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive primitive_;
  std::unordered_map<int, memory> args_;
  std::string info_;
};

}  // namespace

absl::Status OneDnnConv::Create(const ConvShape& c,
                                std::unique_ptr<OneDnnConv>* out) {
  try {
    auto impl = std::make_unique<OneDnnConvImpl>(c);
    impl->Build();
    *out = std::move(impl);
  } catch (const dnnl::error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("oneDNN rejects ", c.name, ": ", e.what()));
  }
  return absl::OkStatus();
}

void SetOneDnnThreads(int threads) { omp_set_num_threads(threads); }

}  // namespace stepflow::bench
