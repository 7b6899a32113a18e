// Names of loop-frame instances, the same on every device and in every
// process, so that the two sides of a Send/Recv pair inside a loop build
// the same rendezvous key.
//
// A frame instance is named by its path: "" for a step's root frame, and
// for the frame `frame_name` entered from iteration `parent_iter` of the
// frame instance at `parent_path`, ChildFramePath(parent_path, parent_iter,
// frame_name). Its frame id (FrameAndIter::frame_id, part of every
// rendezvous key and of OpKernelContext::Params::frame_iter) is
// FrameIdFromPath(path). executor.h includes this header: these functions
// are part of the executor's public contract.
//
// Thread-safety: pure functions.
#ifndef STEPFLOW_RUNTIME_COMMON_FRAME_PATH_H_
#define STEPFLOW_RUNTIME_COMMON_FRAME_PATH_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace stepflow {

// The frame id of the frame instance whose path is `path`: 0 for the root
// frame (""), otherwise a fixed 64-bit hash (FNV-1a) of the path, never 0.
uint64_t FrameIdFromPath(absl::string_view path);
// The path of the child frame `frame_name` entered from iteration
// `parent_iter` of the frame instance at `parent_path`:
// "<parent_path>;<parent_iter>;<frame_name>".
std::string ChildFramePath(absl::string_view parent_path, int64_t parent_iter,
                           absl::string_view frame_name);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_COMMON_FRAME_PATH_H_
