// How closely stepflow's values must match TensorFlow's: the one table of
// tolerances for the differential tests.
//
// A value passes when every element satisfies |got - want| <= rtol * |want|
// + atol (complex: each component; NaN must meet NaN, an infinity the same
// infinity; integers, bools and strings must be equal). The defaults per
// dtype are tight (float32: rtol 1e-5, atol 1e-6). An op whose result
// TensorFlow's own documentation or implementation leaves inexact
// (different but equally valid approximations, e.g. special functions)
// widens the tolerance of every value a graph with that op computes; the
// per-op entries live in tolerance.cc, each with its reason.
//
// Thread-safety: pure functions over immutable tables.
#ifndef STEPFLOW_TESTING_TF_ORACLE_TOLERANCE_H_
#define STEPFLOW_TESTING_TF_ORACLE_TOLERANCE_H_

#include <string>
#include <vector>

#include "proto/graph.pb.h"
#include "proto/types.pb.h"

namespace stepflow {
namespace oracle {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// The default for values of `dtype` (zero for exact types).
Tolerance DefaultTolerance(DataType dtype);

// The tolerance for a value of `dtype` that `graph` computes: the default,
// widened by every inexact op in the graph or its function library.
// `reasons`, if given, receives "Op: reason" for each widening applied.
Tolerance ToleranceFor(const GraphDef& graph, DataType dtype,
                       std::vector<std::string>* reasons = nullptr);

}  // namespace oracle
}  // namespace stepflow

#endif  // STEPFLOW_TESTING_TF_ORACLE_TOLERANCE_H_
