// NonMaxSuppressionV3, V4 and V5 (soft NMS): greedy selection of boxes by
// descending score (ties: lower index first), as TensorFlow's CPU kernel
// selects them. Only boxes scoring above score_threshold are candidates; a
// candidate is compared with the boxes selected since it was last looked
// at, newest first; its score decays by exp(-0.5 * iou^2 / sigma) per
// overlap (soft NMS, sigma > 0), and an overlap above iou_threshold
// suppresses it. A candidate whose score decayed goes back into the queue
// while it stays above score_threshold; one that did not is selected.
// Corners may come in either order; a box of non-positive area overlaps
// nothing. V4/V5 pad the outputs with zeros to max_output_size on request.
//
// Sequential; computes in float. Errors: InvalidArgument naming the node
// for wrong ranks and sizes, an iou_threshold outside [0, 1], a negative
// max_output_size or soft_nms_sigma.
#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

float BoxIoU(const float* a, const float* b) {
  const float ymin_a = std::min(a[0], a[2]), ymax_a = std::max(a[0], a[2]);
  const float xmin_a = std::min(a[1], a[3]), xmax_a = std::max(a[1], a[3]);
  const float ymin_b = std::min(b[0], b[2]), ymax_b = std::max(b[0], b[2]);
  const float xmin_b = std::min(b[1], b[3]), xmax_b = std::max(b[1], b[3]);
  const float area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a);
  const float area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float iy =
      std::max(std::min(ymax_a, ymax_b) - std::max(ymin_a, ymin_b), 0.0f);
  const float ix =
      std::max(std::min(xmax_a, xmax_b) - std::max(xmin_a, xmin_b), 0.0f);
  const float inter = iy * ix;
  return inter / (area_a + area_b - inter);
}

struct Candidate {
  int index;
  float score;
  int suppress_begin;  // selected boxes before this one were compared
};

// Orders the queue: highest score first, then the lower index.
struct CandidateLess {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  }
};

template <typename T, typename TThreshold>
class NonMaxSuppressionOp : public OpKernel {
 public:
  NonMaxSuppressionOp(OpKernelConstruction* ctx, int version)
      : OpKernel(ctx), version_(version) {
    if (version >= 4) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_size = ctx->input(2);
    OP_REQUIRES(ctx, max_size.dims() == 0,
                NodeInvalidArgument(ctx,
                                    "max_output_size must be 0-D, got "
                                    "shape ",
                                    max_size.shape().DebugString()));
    static const char* const kNames[] = {"iou_threshold", "score_threshold",
                                         "soft_nms_sigma"};
    float values[3] = {0, 0, 0};
    for (int i = 0; i < (version_ == 5 ? 3 : 2); ++i) {
      const Tensor& t = ctx->input(3 + i);
      OP_REQUIRES(
          ctx, t.dims() == 0,
          NodeInvalidArgument(ctx, kNames[i], " must be 0-D, got shape ",
                              t.shape().DebugString()));
      values[i] = static_cast<float>(t.base<TThreshold>()[0]);
    }
    const float iou_threshold = values[0];
    const float score_threshold = values[1];
    const float sigma = values[2];
    OP_REQUIRES(ctx, iou_threshold >= 0 && iou_threshold <= 1,
                NodeInvalidArgument(ctx, "iou_threshold must be in [0, 1]"));
    OP_REQUIRES(
        ctx, sigma >= 0,
        NodeInvalidArgument(ctx, "soft_nms_sigma must be non-negative"));
    OP_REQUIRES(ctx, boxes.dims() == 2,
                NodeInvalidArgument(ctx, "boxes must be 2-D",
                                    boxes.shape().DebugString()));
    const int64_t n = boxes.dim_size(0);
    OP_REQUIRES(ctx, boxes.dim_size(1) == 4,
                NodeInvalidArgument(ctx, "boxes must have 4 columns"));
    OP_REQUIRES(ctx, scores.dims() == 1,
                NodeInvalidArgument(ctx, "scores must be 1-D",
                                    scores.shape().DebugString()));
    OP_REQUIRES(ctx, scores.dim_size(0) == n,
                NodeInvalidArgument(ctx, "scores has incompatible shape"));
    const int max_output = max_size.base<int32_t>()[0];
    OP_REQUIRES(
        ctx, max_output >= 0,
        NodeInvalidArgument(ctx, "max_output_size must be non-negative"));

    std::vector<float> box(n * 4);
    for (int64_t i = 0; i < n * 4; ++i) {
      box[i] = static_cast<float>(boxes.base<T>()[i]);
    }
    std::priority_queue<Candidate, std::vector<Candidate>, CandidateLess> queue;
    for (int64_t i = 0; i < n; ++i) {
      const float s = static_cast<float>(scores.base<T>()[i]);
      if (s > score_threshold) {
        queue.push(Candidate{static_cast<int>(i), s, 0});
      }
    }
    const float scale = sigma > 0 ? -0.5f / sigma : 0.0f;
    std::vector<int> selected;
    std::vector<float> selected_scores;
    while (static_cast<int>(selected.size()) < max_output && !queue.empty()) {
      Candidate next = queue.top();
      queue.pop();
      const float original = next.score;
      bool hard_suppressed = false;
      for (int j = static_cast<int>(selected.size()) - 1;
           j >= next.suppress_begin; --j) {
        const float iou = BoxIoU(&box[next.index * 4], &box[selected[j] * 4]);
        next.score *= iou <= iou_threshold ? std::exp(scale * iou * iou) : 0.0f;
        if (sigma <= 0 && iou > iou_threshold) {
          hard_suppressed = true;
          break;
        }
        if (next.score <= score_threshold) break;
      }
      next.suppress_begin = static_cast<int>(selected.size());
      if (hard_suppressed) continue;
      if (next.score == original) {
        selected.push_back(next.index);
        selected_scores.push_back(next.score);
      } else if (next.score > score_threshold) {
        queue.push(next);
      }
    }
    const int valid = static_cast<int>(selected.size());
    const int64_t size = pad_ ? max_output : valid;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &indices));
    std::fill(indices->base<int32_t>(), indices->base<int32_t>() + size, 0);
    std::copy(selected.begin(), selected.end(), indices->base<int32_t>());
    int valid_index = 1;
    if (version_ == 5) {
      Tensor* out_scores = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(1, TensorShape({size}), &out_scores));
      T* s = out_scores->base<T>();
      std::fill(s, s + size, T(0));
      for (int i = 0; i < valid; ++i) s[i] = static_cast<T>(selected_scores[i]);
      valid_index = 2;
    }
    if (version_ >= 4) {
      Tensor* v = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(valid_index, TensorShape({}), &v));
      v->base<int32_t>()[0] = valid;
    }
  }

 private:
  const int version_;
  bool pad_ = false;
};

template <typename T, typename TThreshold, int kVersion>
class NonMaxSuppressionKernel : public NonMaxSuppressionOp<T, TThreshold> {
 public:
  explicit NonMaxSuppressionKernel(OpKernelConstruction* ctx)
      : NonMaxSuppressionOp<T, TThreshold>(ctx, kVersion) {}
};

#define SF_REGISTER_NMS(T, TT)                                    \
  REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV3")             \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<TT>("T_threshold"), \
                          NonMaxSuppressionKernel<T, TT, 3>);     \
  REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV4")             \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<TT>("T_threshold"), \
                          NonMaxSuppressionKernel<T, TT, 4>);
SF_REGISTER_NMS(float, float)
SF_REGISTER_NMS(float, half)
SF_REGISTER_NMS(half, float)
SF_REGISTER_NMS(half, half)
#undef SF_REGISTER_NMS

REGISTER_KERNEL_BUILDER(
    Name("NonMaxSuppressionV5").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    NonMaxSuppressionKernel<float, float, 5>);
REGISTER_KERNEL_BUILDER(
    Name("NonMaxSuppressionV5").Device(DEVICE_CPU).TypeConstraint<half>("T"),
    NonMaxSuppressionKernel<half, half, 5>);

}  // namespace
}  // namespace stepflow
