// Seed inputs for grpc_server_fuzzer (fuzz/server_calls.h layout): valid
// call sequences for every MasterService and WorkerService method (a
// session created, extended, run, partially run and closed; a worker
// session with a graph registered, run, cleaned up and deregistered;
// status, devices, resets), calls that overlap, timers let run, and a few
// malformed requests. Requests are written as protobuf text and encoded
// with the production protos; handles use the "@n" placeholders.
//
// Deterministic; no global state. Aborts if a seed's text does not parse
// (a bug in this file).
#ifndef STEPFLOW_FUZZ_GRPC_SERVER_SEEDS_H_
#define STEPFLOW_FUZZ_GRPC_SERVER_SEEDS_H_

#include <vector>

#include "fuzz/seed_specs.h"

namespace stepflow::fuzzing {

std::vector<Seed> GrpcServerSeeds();

}  // namespace stepflow::fuzzing

#endif  // STEPFLOW_FUZZ_GRPC_SERVER_SEEDS_H_
