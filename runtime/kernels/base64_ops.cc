// EncodeBase64 and DecodeBase64: web-safe base64 ('-' and '_' for '+' and
// '/'), element-wise. Encoding pads with '=' only when `pad`; decoding
// takes padded or unpadded text.
//
// Errors: DecodeBase64 of text whose length is 1 modulo 4 (after padding
// is removed) or that holds a character outside the alphabet is
// InvalidArgument naming the node.
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/kernels/kernel_util.h"

namespace stepflow {
namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(absl::string_view s, bool pad) {
  std::string out;
  out.reserve((s.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  for (; n >= 3; n -= 3, p += 3) {
    out += kAlphabet[p[0] >> 2];
    out += kAlphabet[((p[0] & 0x03) << 4) | (p[1] >> 4)];
    out += kAlphabet[((p[1] & 0x0F) << 2) | (p[2] >> 6)];
    out += kAlphabet[p[2] & 0x3F];
  }
  if (n == 2) {
    out += kAlphabet[p[0] >> 2];
    out += kAlphabet[((p[0] & 0x03) << 4) | (p[1] >> 4)];
    out += kAlphabet[(p[1] & 0x0F) << 2];
    if (pad) out += '=';
  } else if (n == 1) {
    out += kAlphabet[p[0] >> 2];
    out += kAlphabet[(p[0] & 0x03) << 4];
    if (pad) out += "==";
  }
  return out;
}

// The 6-bit value of a base64 character, or -1.
int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Decodes the group of four characters at `g` into three bytes.
bool DecodeGroup(const char* g, std::string* out) {
  uint32_t packed = 0;
  for (int i = 0; i < 4; ++i) {
    const int v = Sextet(g[i]);
    if (v < 0) return false;
    packed = (packed << 6) | static_cast<uint32_t>(v);
  }
  *out += static_cast<char>(packed >> 16);
  *out += static_cast<char>((packed >> 8) & 0xFF);
  *out += static_cast<char>(packed & 0xFF);
  return true;
}

absl::Status Decode(absl::string_view s, std::string* out) {
  out->clear();
  if (s.empty()) return absl::OkStatus();
  const absl::Status bad_char =
      absl::InvalidArgumentError("Invalid character found in base64.");
  size_t end = s.size();
  size_t at = 0;
  for (; end - at > 4; at += 4) {
    if (!DecodeGroup(s.data() + at, out)) return bad_char;
  }
  if (end - at == 4) {
    if (s[at + 2] == '=' && s[at + 3] == '=') {
      end -= 2;
    } else if (s[at + 3] == '=') {
      end -= 1;
    }
  }
  const size_t remain = end - at;
  if (remain == 1) {
    return absl::InvalidArgumentError(
        "Base64 string length cannot be 1 modulo 4.");
  }
  char tail[4] = {'A', 'A', 'A', 'A'};
  for (size_t i = 0; i < remain; ++i) tail[i] = s[at + i];
  if (!DecodeGroup(tail, out)) return bad_char;
  out->resize(out->size() - 3 + (remain - 1));
  return absl::OkStatus();
}

class EncodeBase64Op : public OpKernel {
 public:
  explicit EncodeBase64Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad", &pad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.base<const std::string>();
    std::string* dst = out->base<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i)
      dst[i] = Encode(src[i], pad_);
  }

 private:
  bool pad_ = false;
};

class DecodeBase64Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.base<const std::string>();
    std::string* dst = out->base<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      OP_REQUIRES_OK(ctx, AttachDef(Decode(src[i], &dst[i]), name()));
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("EncodeBase64").Device(DEVICE_CPU),
                        EncodeBase64Op);
REGISTER_KERNEL_BUILDER(Name("DecodeBase64").Device(DEVICE_CPU),
                        DecodeBase64Op);

}  // namespace
}  // namespace stepflow
