// The oneDNN peer of conv_benchmark: one convolution of
// benchmarks/conv_shapes.h run by oneDNN (Debian libdnnl-dev), to decide
// whether oneDNN should replace the im2col + OpenBLAS engine
// (runtime/kernels/conv_engine.h). Built only with --define=with_onednn=1.
//
// OneDnnConv::Create builds the primitive of the shape's op (Conv2D and
// DepthwiseConv2dNative: forward inference; Conv2DBackpropInput: backward
// data; Conv2DBackpropFilter: backward weights), with the activations and
// their gradients in NHWC (the layout stepflow's kernels take and give) and
// the filter in the layout oneDNN prefers for the primitive (format_tag::
// any), filled with fixed values; reordering the filter from HWIO is done
// once here, outside Run, as for a constant filter. Run executes the
// primitive once and waits for it.
//
// Threads: Debian's oneDNN uses OpenMP; SetOneDnnThreads sets the OpenMP
// thread count for the calling thread's later parallel regions.
//
// Errors: InvalidArgument (oneDNN's message) when oneDNN rejects the
// shape. Thread-compatible.
#ifndef STEPFLOW_BENCHMARKS_CONV_ONEDNN_H_
#define STEPFLOW_BENCHMARKS_CONV_ONEDNN_H_

#include <memory>

#include "absl/status/status.h"
#include "benchmarks/conv_shapes.h"

namespace stepflow::bench {

class OneDnnConv {
 public:
  static absl::Status Create(const ConvShape& c,
                             std::unique_ptr<OneDnnConv>* out);
  virtual ~OneDnnConv() = default;

  virtual void Run() = 0;
  // Which implementation oneDNN picked (e.g. "brgconv:avx2").
  virtual const char* ImplInfo() const = 0;
};

void SetOneDnnThreads(int threads);

}  // namespace stepflow::bench

#endif  // STEPFLOW_BENCHMARKS_CONV_ONEDNN_H_
