// TF_TString (TensorFlow's 24-byte string layout) and the legacy
// varint-length string encoding (TF_StringEncode / TF_StringDecode).
//
// Layout facts relied on (little-endian; the header states them): the low
// two bits of byte 0 select the representation; SMALL keeps size << 2 in
// byte 0 and up to 22 bytes inline; LARGE and VIEW keep size << 2 in their
// first size_t; OFFSET keeps size << 2 in its first uint32 and the data
// `offset` bytes after the TF_TString.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/c/c_api.h"
#include "runtime/c/c_api_internal.h"

static_assert(sizeof(TF_TString) == 24, "TF_TString must be 24 bytes");
static_assert(sizeof(void*) == 8, "TF_TString layout assumes 64-bit");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "TF_TString support assumes a little-endian machine"
#endif

namespace {

constexpr size_t kSmallCapacity = TF_TString_SmallCapacity;

size_t Packed(size_t size, TF_TString_Type type) { return (size << 2) | type; }

// Capacity for a LARGE string of at least `size` bytes: 16k - 1 (the +1 is
// the NUL).
size_t LargeCapacity(size_t size) {
  return ((size + 1 + 15) & ~size_t{15}) - 1;
}

void SetSmall(TF_TString* str, size_t size) {
  str->u.smll.size = static_cast<uint8_t>(Packed(size, TF_TSTR_SMALL));
  str->u.smll.str[size] = '\0';
}

void SetLarge(TF_TString* str, char* ptr, size_t size, size_t cap) {
  str->u.large.size = Packed(size, TF_TSTR_LARGE);
  str->u.large.cap = cap;
  str->u.large.ptr = ptr;
  ptr[size] = '\0';
}

}  // namespace

extern "C" {

void TF_TString_Init(TF_TString* str) { std::memset(str, 0, sizeof(*str)); }

TF_TString_Type TF_TString_GetType(const TF_TString* str) {
  return static_cast<TF_TString_Type>(str->u.raw.raw[0] & TF_TSTR_TYPE_MASK);
}

void TF_TString_Dealloc(TF_TString* str) {
  if (TF_TString_GetType(str) == TF_TSTR_LARGE) {
    std::free(str->u.large.ptr);
    str->u.large.ptr = nullptr;
  }
}

size_t TF_TString_GetSize(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.size >> 2;
    case TF_TSTR_LARGE:
      return str->u.large.size >> 2;
    case TF_TSTR_OFFSET:
      return str->u.offset.size >> 2;
    default:
      return str->u.view.size >> 2;
  }
}

size_t TF_TString_GetCapacity(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return kSmallCapacity;
    case TF_TSTR_LARGE:
      return str->u.large.cap;
    default:
      return 0;
  }
}

const char* TF_TString_GetDataPointer(const TF_TString* str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    case TF_TSTR_OFFSET:
      return reinterpret_cast<const char*>(str) + str->u.offset.offset;
    default:
      return str->u.view.ptr;
  }
}

char* TF_TString_ResizeUninitialized(TF_TString* str, size_t new_size) {
  const TF_TString_Type type = TF_TString_GetType(str);
  const size_t size = TF_TString_GetSize(str);
  const size_t keep = size < new_size ? size : new_size;
  const char* old = TF_TString_GetDataPointer(str);
  if (new_size <= kSmallCapacity) {
    if (type == TF_TSTR_SMALL) {
      SetSmall(str, new_size);
      return str->u.smll.str;
    }
    char inline_copy[kSmallCapacity + 1];
    if (keep > 0) std::memcpy(inline_copy, old, keep);
    if (type == TF_TSTR_LARGE) std::free(str->u.large.ptr);
    if (keep > 0) std::memcpy(str->u.smll.str, inline_copy, keep);
    SetSmall(str, new_size);
    return str->u.smll.str;
  }
  const size_t cap = TF_TString_GetCapacity(str);
  size_t new_cap = cap;
  if (new_size > cap) {
    new_cap = LargeCapacity(new_size);
  } else if (new_size < size && new_size < cap / 2) {
    new_cap = LargeCapacity(cap / 2);  // Shrink a mostly empty buffer.
  }
  char* ptr;
  if (type == TF_TSTR_LARGE) {
    ptr = new_cap == cap
              ? str->u.large.ptr
              : static_cast<char*>(std::realloc(str->u.large.ptr, new_cap + 1));
    if (ptr == nullptr) return nullptr;
  } else {
    ptr = static_cast<char*>(std::malloc(new_cap + 1));
    if (ptr == nullptr) return nullptr;
    if (keep > 0) std::memcpy(ptr, old, keep);
  }
  SetLarge(str, ptr, new_size, new_cap);
  return ptr;
}

char* TF_TString_GetMutableDataPointer(TF_TString* str) {
  const TF_TString_Type type = TF_TString_GetType(str);
  if (type == TF_TSTR_OFFSET || type == TF_TSTR_VIEW) {
    return TF_TString_ResizeUninitialized(str, TF_TString_GetSize(str));
  }
  return type == TF_TSTR_SMALL ? str->u.smll.str : str->u.large.ptr;
}

char* TF_TString_Resize(TF_TString* str, size_t new_size, char c) {
  const size_t size = TF_TString_GetSize(str);
  char* data = TF_TString_ResizeUninitialized(str, new_size);
  if (data != nullptr && new_size > size) {
    std::memset(data + size, c, new_size - size);
  }
  return data;
}

void TF_TString_Reserve(TF_TString* str, size_t new_cap) {
  if (new_cap <= kSmallCapacity) return;
  const TF_TString_Type type = TF_TString_GetType(str);
  if (type == TF_TSTR_LARGE && new_cap <= str->u.large.cap) return;
  const size_t size = TF_TString_GetSize(str);
  const size_t cap = LargeCapacity(new_cap > size ? new_cap : size);
  if (type == TF_TSTR_LARGE) {
    char* ptr = static_cast<char*>(std::realloc(str->u.large.ptr, cap + 1));
    if (ptr == nullptr) return;
    str->u.large.ptr = ptr;
    str->u.large.cap = cap;
    return;
  }
  char* ptr = static_cast<char*>(std::malloc(cap + 1));
  if (ptr == nullptr) return;
  if (size > 0) std::memcpy(ptr, TF_TString_GetDataPointer(str), size);
  SetLarge(str, ptr, size, cap);
}

void TF_TString_Copy(TF_TString* dst, const char* src, size_t size) {
  char* data = TF_TString_ResizeUninitialized(dst, size);
  if (data != nullptr && size > 0) std::memcpy(data, src, size);
}

void TF_TString_AssignView(TF_TString* dst, const char* src, size_t size) {
  TF_TString_Dealloc(dst);
  dst->u.view.size = Packed(size, TF_TSTR_VIEW);
  dst->u.view.ptr = src;
  dst->u.view.owner_ref = nullptr;
}

void TF_TString_Assign(TF_TString* dst, const TF_TString* src) {
  if (dst == src) return;
  switch (TF_TString_GetType(src)) {
    case TF_TSTR_SMALL:
    case TF_TSTR_VIEW:
      TF_TString_Dealloc(dst);
      *dst = *src;
      return;
    case TF_TSTR_LARGE:
      TF_TString_Dealloc(dst);
      TF_TString_Init(dst);
      TF_TString_Copy(dst, src->u.large.ptr, TF_TString_GetSize(src));
      return;
    default:
      TF_TString_AssignView(dst, TF_TString_GetDataPointer(src),
                            TF_TString_GetSize(src));
      return;
  }
}

void TF_TString_Move(TF_TString* dst, TF_TString* src) {
  if (dst == src) return;
  TF_TString_Dealloc(dst);
  if (TF_TString_GetType(src) == TF_TSTR_OFFSET) {
    TF_TString_AssignView(dst, TF_TString_GetDataPointer(src),
                          TF_TString_GetSize(src));
    return;
  }
  *dst = *src;
  if (TF_TString_GetType(src) != TF_TSTR_SMALL) TF_TString_Init(src);
}

void TF_TString_AppendN(TF_TString* dst, const char* src, size_t size) {
  if (size == 0) return;
  const size_t old = TF_TString_GetSize(dst);
  const size_t cap = TF_TString_GetCapacity(dst);
  if (old + size > cap) {
    // Amortised growth: at least double.
    TF_TString_Reserve(dst, old + size > 2 * cap ? old + size : 2 * cap);
  }
  char* data = TF_TString_ResizeUninitialized(dst, old + size);
  if (data != nullptr) std::memcpy(data + old, src, size);
}

void TF_TString_Append(TF_TString* dst, const TF_TString* src) {
  TF_TString_AppendN(dst, TF_TString_GetDataPointer(src),
                     TF_TString_GetSize(src));
}

void TF_StringInit(TF_TString* t) { TF_TString_Init(t); }

void TF_StringCopy(TF_TString* dst, const char* src, size_t size) {
  TF_TString_Copy(dst, src, size);
}

void TF_StringAssignView(TF_TString* dst, const char* src, size_t size) {
  TF_TString_AssignView(dst, src, size);
}

const char* TF_StringGetDataPointer(const TF_TString* tstr) {
  return TF_TString_GetDataPointer(tstr);
}

TF_TString_Type TF_StringGetType(const TF_TString* str) {
  return TF_TString_GetType(str);
}

size_t TF_StringGetSize(const TF_TString* tstr) {
  return TF_TString_GetSize(tstr);
}

size_t TF_StringGetCapacity(const TF_TString* str) {
  return TF_TString_GetCapacity(str);
}

void TF_StringDealloc(TF_TString* tstr) { TF_TString_Dealloc(tstr); }

size_t TF_StringEncodedSize(size_t len) {
  size_t varint = 1;
  for (uint64_t v = len; v >= 0x80; v >>= 7) ++varint;
  return varint + len;
}

size_t TF_StringEncode(const char* src, size_t src_len, char* dst,
                       size_t dst_len, TF_Status* status) {
  const size_t needed = TF_StringEncodedSize(src_len);
  if (dst == nullptr || (src == nullptr && src_len > 0) || dst_len < needed) {
    stepflow::c_api::Set(
        status, absl::InvalidArgumentError(absl::StrCat(
                    "dst_len (", dst_len, ") too small to encode a ", src_len,
                    "-byte string (needs ", needed, ")")));
    return 0;
  }
  size_t pos = 0;
  uint64_t v = src_len;
  while (v >= 0x80) {
    dst[pos++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  dst[pos++] = static_cast<char>(v);
  if (src_len > 0) std::memcpy(dst + pos, src, src_len);
  stepflow::c_api::Set(status, absl::OkStatus());
  return needed;
}

size_t TF_StringDecode(const char* src, size_t src_len, const char** dst,
                       size_t* dst_len, TF_Status* status) {
  uint64_t len = 0;
  size_t pos = 0;
  bool done = false;
  if (src != nullptr && dst != nullptr && dst_len != nullptr) {
    for (int shift = 0; pos < src_len && shift <= 63; shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(src[pos++]);
      len |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        done = true;
        break;
      }
    }
  }
  if (!done || len > src_len - pos) {
    stepflow::c_api::Set(
        status, absl::InvalidArgumentError(
                    "invalid string encoding or truncated src buffer"));
    return 0;
  }
  *dst = src + pos;
  *dst_len = static_cast<size_t>(len);
  stepflow::c_api::Set(status, absl::OkStatus());
  return pos + static_cast<size_t>(len);
}

}  // extern "C"
