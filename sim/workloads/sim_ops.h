// Simulator-only ops: kernels that model the passage of virtual time.
//
// SimDelay(input: T) -> output: T, attrs T: type, delay_ns: int >= 0.
//   Forwards its input after `delay_ns` nanoseconds of the Env's clock: it
//   arms a timer on env->scheduler and completes when the timer fires (a
//   "slow kernel"). If the step is cancelled first (Session::Close, a
//   RunOptions timeout) it cancels the timer and fails with Cancelled
//   naming the node. Stateful, so it is never constant-folded or shared.
//
// SimFail(input: T) -> output: T, attrs T: type, code: int.
//   A "failing kernel": every time it runs it fails the step with status
//   code `code` (an absl::StatusCode value; OK or an unknown value is
//   reported as InvalidArgument at kernel construction) and a message naming
//   the node. Stateful, so it is never constant-folded or shared.
//
// Linking //sim:sim_ops registers the op and its CPU kernel.
#ifndef STEPFLOW_SIM_SIM_OPS_H_
#define STEPFLOW_SIM_SIM_OPS_H_

namespace stepflow {

inline constexpr char kSimDelayOp[] = "SimDelay";
inline constexpr char kSimFailOp[] = "SimFail";

}  // namespace stepflow

#endif  // STEPFLOW_SIM_SIM_OPS_H_
