// TensorFlow's text summaries of a tensor's values, character for
// character, as its logging ops print them:
//
//  * SummarizeForPrint: the first `max_entries` values in row-major order
//    (all of them when negative), innermost rows bracketed ("1 2 3" for a
//    vector, "[1 2][3 4]" for a matrix), "..." after a cut; strings raw.
//    What Print and Assert show, each inside "[...]".
//  * SummarizeForFormat: NumPy-like nesting with `max_entries` values kept
//    at each end of every dimension and "..." between ("[1 2 ... 9]"),
//    rows of a matrix on new lines, strings quoted and C-escaped (UTF-8
//    kept). What
//    StringFormat (tf.strings.format, tf.print) shows.
//
// Numbers print as TensorFlow's StrCat does: floats and halfs with the
// fewest of 6 or 9 significant digits that read back exactly (15 or 17 for
// doubles), bools as 1 and 0; values of other types (complex, resource,
// variant) as "?"; a bool tensor with no value shown as "". Pure
// functions; thread-safe.
#ifndef STEPFLOW_RUNTIME_KERNELS_TENSOR_SUMMARY_H_
#define STEPFLOW_RUNTIME_KERNELS_TENSOR_SUMMARY_H_

#include <cstdint>
#include <string>

#include "runtime/framework/tensor.h"

namespace stepflow {

std::string SummarizeForPrint(const Tensor& t, int64_t max_entries);
std::string SummarizeForFormat(const Tensor& t, int64_t max_entries);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_KERNELS_TENSOR_SUMMARY_H_
