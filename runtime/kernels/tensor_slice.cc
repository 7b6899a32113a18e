#include "runtime/kernels/tensor_slice.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

// Order-preserving key encodings: an unsigned number as its byte count then
// its big-endian bytes; a string with 0x00 and 0xff escaped, ended by
// 0x00 0x01; a signed number as a self-delimiting big-endian two's
// complement whose leading bits give the length.
void AppendUnsigned(uint64_t v, std::string* out) {
  char bytes[8];
  int n = 0;
  for (; v != 0; v >>= 8) bytes[n++] = static_cast<char>(v & 0xff);
  out->push_back(static_cast<char>(n));
  while (n > 0) out->push_back(bytes[--n]);
}

void AppendEscaped(absl::string_view s, std::string* out) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\x00') out->push_back('\xff');
    if (c == '\xff') out->push_back('\x00');
  }
  out->append("\x00\x01", 2);
}

void AppendSigned(int64_t v, std::string* out) {
  const uint64_t magnitude =
      v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int bits = 0;  // Significant bits of the magnitude.
  for (uint64_t m = magnitude; m != 0; m >>= 1) ++bits;
  // One sign bit and one length bit per byte: 7 payload bits per byte.
  const int len = (bits + 1 + 6) / 7;
  // The value sign-extended to 10 bytes, big-endian.
  unsigned char buf[10];
  const uint64_t u = static_cast<uint64_t>(v);
  buf[0] = buf[1] = v < 0 ? 0xff : 0x00;
  for (int i = 0; i < 8; ++i)
    buf[2 + i] = static_cast<unsigned char>(u >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  // The length as that many leading one bits (then a zero), flipping the
  // sign-extension bits there.
  for (int bit = 0; bit < len; ++bit) begin[bit / 8] ^= 0x80 >> (bit % 8);
  out->append(reinterpret_cast<const char*>(begin), len);
}

absl::Status BadSpec(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid shape_and_slice '", spec, "': ", why));
}

template <typename U>
void CopyRegion(const Tensor& src, const TensorSlice& src_slice,
                const TensorSlice& region, const TensorSlice& dst_slice,
                Tensor* dst) {
  const int rank = region.dims();
  const U* in = src.base<const U>();
  U* out = dst->base<U>();
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  for (int d = 0; d < rank; ++d) {
    if (region.length(d) == 0) return;
  }
  // Offset of the region's first element in each tensor, and strides.
  std::vector<int64_t> src_stride(rank), dst_stride(rank);
  int64_t src_s = 1, dst_s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    src_stride[d] = src_s;
    dst_stride[d] = dst_s;
    src_s *= src_slice.length(d);
    dst_s *= dst_slice.length(d);
  }
  const int64_t run = region.length(rank - 1);
  std::vector<int64_t> idx(rank, 0);  // Over all dims but the last.
  while (true) {
    int64_t src_off = 0, dst_off = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t i = region.start(d) + (d < rank - 1 ? idx[d] : 0);
      src_off += (i - src_slice.start(d)) * src_stride[d];
      dst_off += (i - dst_slice.start(d)) * dst_stride[d];
    }
    std::copy(in + src_off, in + src_off + run, out + dst_off);
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < region.length(d)) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

TensorSlice TensorSlice::Full(int rank) {
  TensorSlice s;
  s.start_.assign(rank, 0);
  s.length_.assign(rank, kFullExtent);
  return s;
}

absl::Status TensorSlice::ParseShapeAndSlice(absl::string_view spec,
                                             TensorShape* full_shape,
                                             TensorSlice* slice) {
  const std::vector<absl::string_view> parts = absl::StrSplit(spec, ' ');
  if (parts.empty()) return BadSpec(spec, "expected dims and a slice");
  const size_t rank = parts.size() - 1;
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (!absl::SimpleAtoi(parts[d], &dims[d]) || dims[d] < 0) {
      return BadSpec(spec, absl::StrCat("bad dimension '", parts[d], "'"));
    }
  }
  absl::Status s = TensorShape::BuildTensorShape(dims, full_shape);
  if (!s.ok()) return BadSpec(spec, s.message());
  TensorSlice out;
  if (!parts.back().empty()) {
    for (absl::string_view extent : absl::StrSplit(parts.back(), ':')) {
      int64_t start = 0, length = kFullExtent;
      if (extent != "-") {
        const std::vector<absl::string_view> sl = absl::StrSplit(extent, ',');
        if (sl.size() != 2 || !absl::SimpleAtoi(sl[0], &start) ||
            !absl::SimpleAtoi(sl[1], &length) || start < 0 || length < 0) {
          return BadSpec(spec, absl::StrCat("bad extent '", extent, "'"));
        }
      }
      out.start_.push_back(start);
      out.length_.push_back(length);
    }
  }
  if (out.dims() != static_cast<int>(rank)) {
    return BadSpec(spec, absl::StrCat("the slice has ", out.dims(),
                                      " extents for ", rank, " dims"));
  }
  if (!out.FitsIn(*full_shape)) {
    return BadSpec(spec, "the slice does not lie inside the shape");
  }
  *slice = std::move(out);
  return absl::OkStatus();
}

absl::Status TensorSlice::FromProto(const TensorSliceProto& proto,
                                    TensorSlice* slice) {
  TensorSlice out;
  for (const TensorSliceProto::Extent& e : proto.extent()) {
    const int64_t length =
        e.has_length_case() == TensorSliceProto::Extent::kLength ? e.length()
                                                                 : kFullExtent;
    if (e.start() < 0 || (length < 0 && length != kFullExtent) ||
        (length == kFullExtent && e.start() != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad slice extent: start ", e.start(), ", length ", length));
    }
    out.start_.push_back(e.start());
    out.length_.push_back(length);
  }
  *slice = std::move(out);
  return absl::OkStatus();
}

void TensorSlice::AsProto(TensorSliceProto* proto) const {
  proto->Clear();
  for (int d = 0; d < dims(); ++d) {
    TensorSliceProto::Extent* e = proto->add_extent();
    if (IsFullAt(d)) continue;
    if (start_[d] != 0) e->set_start(start_[d]);
    e->set_length(length_[d]);
  }
}

bool TensorSlice::IsFull() const {
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d)) return false;
  }
  return true;
}

bool TensorSlice::FitsIn(const TensorShape& shape) const {
  if (shape.dims() != dims()) return false;
  for (int d = 0; d < dims(); ++d) {
    if (IsFullAt(d)) continue;
    const int64_t dim = shape.dim_size(d);
    if (start_[d] > dim || length_[d] > dim - start_[d]) return false;
  }
  return true;
}

TensorShape TensorSlice::SliceShape(const TensorShape& full) const {
  return TensorShape(absl::MakeConstSpan(Resolved(full).length_));
}

TensorSlice TensorSlice::Resolved(const TensorShape& full) const {
  TensorSlice out = *this;
  for (int d = 0; d < dims(); ++d) {
    if (IsFullAt(d)) {
      out.start_[d] = 0;
      out.length_[d] = full.dim_size(d);
    }
  }
  return out;
}

bool TensorSlice::Intersect(const TensorSlice& other, TensorSlice* out) const {
  if (other.dims() != dims()) return false;
  TensorSlice r;
  for (int d = 0; d < dims(); ++d) {
    const int64_t lo = std::max(start_[d], other.start_[d]);
    const int64_t hi =
        std::min(start_[d] + length_[d], other.start_[d] + other.length_[d]);
    if (hi <= lo) return false;
    r.start_.push_back(lo);
    r.length_.push_back(hi - lo);
  }
  *out = std::move(r);
  return true;
}

std::string TensorSlice::DebugString() const {
  std::vector<std::string> parts;
  for (int d = 0; d < dims(); ++d) {
    parts.push_back(IsFullAt(d) ? "-"
                                : absl::StrCat(start_[d], ",", length_[d]));
  }
  return absl::StrJoin(parts, ":");
}

std::string EncodeSliceKey(absl::string_view name, const TensorSlice& slice) {
  std::string key;
  AppendUnsigned(0, &key);
  AppendEscaped(name, &key);
  AppendUnsigned(static_cast<uint64_t>(slice.dims()), &key);
  for (int d = 0; d < slice.dims(); ++d) {
    AppendSigned(slice.start(d), &key);
    AppendSigned(slice.length(d), &key);
  }
  return key;
}

void CopySliceRegion(const Tensor& src, const TensorSlice& src_slice,
                     const TensorSlice& region, const TensorSlice& dst_slice,
                     Tensor* dst) {
  DispatchByElementSize(src.dtype(), [&](auto tag) {
    CopyRegion<decltype(tag)>(src, src_slice, region, dst_slice, dst);
  });
}

}  // namespace stepflow
