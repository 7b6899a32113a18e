// NumPy's .npy format (versions 1.0, 2.0 and 3.0) for Tensors: the exchange
// format between stepflow's tools (run_graph feeds and --output_dir, the
// benchmarks' dumps) and Python, where `numpy.load`/`numpy.save` read and
// write it.
//
// Mapping (little-endian only; '|' and '<' byte orders, '>' is refused):
//   b1 <-> bool, i1/i2/i4/i8 <-> int8..int64, u1/u2/u4/u8 <-> uint8..uint64,
//   f2 <-> half, f4 <-> float, f8 <-> double, c8 <-> complex64,
//   c16 <-> complex128,
//   |Sn (bytes) <-> string: each element is n bytes, trailing NULs removed
//     (NumPy's own rule for bytes arrays, so a string that ends in NUL
//     bytes does not survive a round trip through .npy; TensorProto does),
//   <Un (UTF-32) -> string (decoded to UTF-8; written only as |Sn).
// Object arrays ('O', pickled) and bfloat16 (no NumPy dtype) are refused
// with InvalidArgument; so are Fortran-ordered arrays and malformed or
// truncated files. A rank above TensorFlow's limit (254) is refused.
//
// Thread-safety: pure functions.
#ifndef STEPFLOW_RUNTIME_FRAMEWORK_NPY_H_
#define STEPFLOW_RUNTIME_FRAMEWORK_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/tensor.h"

namespace stepflow {

// Appends the .npy encoding of `tensor` (version 1.0 header) to `*out`.
// InvalidArgument for a dtype .npy cannot hold (see above) or an
// uninitialized tensor.
absl::Status EncodeNpy(const Tensor& tensor, std::string* out);

// Decodes a whole .npy file held in `bytes` into `*tensor`. InvalidArgument
// naming what is wrong for anything but a well-formed file of a supported
// dtype; the data must be exactly as long as the header's shape says.
absl::Status DecodeNpy(absl::string_view bytes, Tensor* tensor);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_FRAMEWORK_NPY_H_
