// What a served master/worker call answered, in a form two runs of the same
// calls can compare: the real server that recorded them
// (call_recorder.h) and the simulator that replays them
// (sim/workloads/recorded_replay.h) describe outcomes with these functions,
// so "the same outcome" means the same string.
//
// DescribeCallOutcome(method, status, response): "code=<CODE>" then, for an
// OK answer, what the response says that a replay must reproduce and that
// does not depend on handles, step ids, incarnations or timing:
//   MasterService/RunStep      tensors=<n> values=<digest> (and the in-body
//                              status code when the body carries one)
//   MasterService/RunCallable  tensors=<n> values=<digest>
//   MasterService/CreateSession graph_version=<v>
//   MasterService/ExtendSession graph_version=<v>
//   MasterService/ListDevices  devices=<n>
//   WorkerService/RunGraph     tensors=<n> values=<digest>
//   WorkerService/RecvTensor   values=<digest>
// Everything else is the code alone. A value digest is FNV-1a over each
// fetched tensor's name and its canonical encoding (decoded and encoded
// again, so a tensor sent as tensor_content or as typed values digests the
// same).
//
// CallResultHandle(method, response): the handle an OK answer created that
// later requests name — CreateSession's session handle, PartialRunSetup's
// partial run handle, MakeCallable's callable handle (decimal) — or "".
//
// Thread-safety: plain functions.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_CALL_OUTCOME_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_CALL_OUTCOME_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace stepflow {

std::string DescribeCallOutcome(absl::string_view method,
                                const absl::Status& status,
                                const google::protobuf::Message& response);

std::string CallResultHandle(absl::string_view method,
                             const google::protobuf::Message& response);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_CALL_OUTCOME_H_
