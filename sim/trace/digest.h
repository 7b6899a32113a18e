// Digests for the simulator: the fixed, unsalted FNV-1a hash
// (runtime/framework/fnv64.h: Fnv64, Fnv1a64 — used wherever a value must
// hash the same in every process and on every run: stream names, trace
// records, tensor contents) and a bit mixer.
//
// Thread-safety: plain functions and values.
#ifndef STEPFLOW_SIM_DIGEST_H_
#define STEPFLOW_SIM_DIGEST_H_

#include <cstdint>

#include "runtime/framework/fnv64.h"

namespace stepflow {

// A strong 64-bit bit mixer (the splitmix64 finaliser). Bijective.
uint64_t Mix64(uint64_t x);

}  // namespace stepflow

#endif  // STEPFLOW_SIM_DIGEST_H_
