// FunctionCallFrame: the CallFrameInterface a session hands to its
// executors. The caller sets the arguments (feeds) before the step starts;
// _Arg kernels read them and _Retval kernels write results (fetches), which
// the caller takes with ConsumeRetvals once the step is done.
//
// Errors (all InvalidArgument, naming the index and the types involved):
// SetArgs with the wrong count or a dtype differing from the declared arg
// type; GetArg out of range or before SetArgs; SetRetval out of range, with
// the wrong dtype, or twice for one index; ConsumeRetvals while a retval is
// missing.
//
// Thread-safety: all methods are thread-safe (several executors read args
// and write retvals concurrently). Pointers returned by GetArg stay valid
// until the next SetArgs or destruction; SetArgs must not race with a
// running step.
#ifndef STEPFLOW_RUNTIME_COMMON_FUNCTION_CALL_FRAME_H_
#define STEPFLOW_RUNTIME_COMMON_FUNCTION_CALL_FRAME_H_

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/call_frame.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/types.h"

namespace stepflow {

class FunctionCallFrame : public CallFrameInterface {
 public:
  FunctionCallFrame(DataTypeVector arg_types, DataTypeVector ret_types);
  ~FunctionCallFrame() override;
  FunctionCallFrame(const FunctionCallFrame&) = delete;
  FunctionCallFrame& operator=(const FunctionCallFrame&) = delete;

  // Caller side.
  absl::Status SetArgs(std::vector<Tensor> args);
  // Moves every retval into `*rets` (in index order) and clears them.
  absl::Status ConsumeRetvals(std::vector<Tensor>* rets);

  // CallFrameInterface (kernel side).
  size_t num_args() const override { return arg_types_.size(); }
  size_t num_retvals() const override { return ret_types_.size(); }
  absl::Status GetArg(int index, const Tensor** val) override;
  absl::Status SetRetval(int index, const Tensor& val) override;

 private:
  const DataTypeVector arg_types_;
  const DataTypeVector ret_types_;

  absl::Mutex mu_;
  bool args_set_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Tensor> args_ ABSL_GUARDED_BY(mu_);
  struct Retval {
    bool has_val = false;
    Tensor val;
  };
  std::vector<Retval> rets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_FUNCTION_CALL_FRAME_H_
