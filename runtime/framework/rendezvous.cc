#include "runtime/framework/rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/framework/node_def_util.h"

namespace stepflow {
namespace {

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool ParseHex64(absl::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    int digit;
    if (u >= '0' && u <= '9') {
      digit = u - '0';
    } else if (u >= 'a' && u <= 'f') {
      digit = u - 'a' + 10;
    } else if (u >= 'A' && u <= 'F') {
      digit = u - 'A' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  *out = v;
  return true;
}

absl::Status BadKey(absl::string_view key, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid rendezvous key '", key, "': ", why));
}

}  // namespace

std::string Rendezvous::CreateKey(absl::string_view src_device,
                                  uint64_t src_incarnation,
                                  absl::string_view dst_device,
                                  absl::string_view name,
                                  const FrameAndIter& frame_iter) {
  return absl::StrCat(
      src_device, ";", absl::Hex(src_incarnation, absl::kZeroPad16), ";",
      dst_device, ";", name, ";", frame_iter.frame_id, ":", frame_iter.iter_id);
}

absl::Status Rendezvous::ParseKey(absl::string_view key, ParsedKey* out) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  if (parts.size() != 5) {
    return BadKey(key, absl::StrCat("expected 5 ';'-separated parts, got ",
                                    parts.size()));
  }
  ParsedKey parsed;
  if (parts[0].empty() ||
      !DeviceNameUtils::ParseFullName(parts[0], &parsed.src)) {
    return BadKey(key, absl::StrCat("bad source device '", parts[0], "'"));
  }
  if (!ParseHex64(parts[1], &parsed.src_incarnation)) {
    return BadKey(key, absl::StrCat("source incarnation '", parts[1],
                                    "' is not a hex number"));
  }
  if (parts[2].empty() ||
      !DeviceNameUtils::ParseFullName(parts[2], &parsed.dst)) {
    return BadKey(key, absl::StrCat("bad destination device '", parts[2], "'"));
  }
  if (parts[3].empty()) return BadKey(key, "empty tensor name");
  std::vector<absl::string_view> fi = absl::StrSplit(parts[4], ':');
  if (fi.size() != 2 || !AllDigits(fi[0]) || !AllDigits(fi[1]) ||
      !absl::SimpleAtoi(fi[0], &parsed.frame_iter.frame_id) ||
      !absl::SimpleAtoi(fi[1], &parsed.frame_iter.iter_id)) {
    return BadKey(key, absl::StrCat("bad frame:iter '", parts[4], "'"));
  }
  parsed.src_device = std::string(parts[0]);
  parsed.dst_device = std::string(parts[2]);
  parsed.edge_name = std::string(parts[3]);
  parsed.full_key =
      CreateKey(parsed.src_device, parsed.src_incarnation, parsed.dst_device,
                parsed.edge_name, parsed.frame_iter);
  *out = std::move(parsed);
  return absl::OkStatus();
}

absl::Status SendRecvKey::FromNodeDef(const NodeDef& def, SendRecvKey* key) {
  SendRecvKey k;
  k.node_name_ = def.name();
  int64_t incarnation = 0;
  for (absl::Status s :
       {GetNodeAttr(def, "send_device", &k.send_device_),
        GetNodeAttr(def, "send_device_incarnation", &incarnation),
        GetNodeAttr(def, "recv_device", &k.recv_device_),
        GetNodeAttr(def, "tensor_name", &k.tensor_name_)}) {
    if (!s.ok()) return AttachDef(s, def.name());
  }
  k.incarnation_ = static_cast<uint64_t>(incarnation);
  absl::Status s = k.Parse(FrameAndIter(), &k.root_);
  if (!s.ok()) return s;
  *key = std::move(k);
  return absl::OkStatus();
}

absl::Status SendRecvKey::Get(const FrameAndIter& frame_iter,
                              Rendezvous::ParsedKey* key) const {
  if (frame_iter == FrameAndIter()) {
    *key = root_;
    return absl::OkStatus();
  }
  return Parse(frame_iter, key);
}

absl::Status SendRecvKey::Parse(const FrameAndIter& frame_iter,
                                Rendezvous::ParsedKey* key) const {
  return AttachDef(
      Rendezvous::ParseKey(
          Rendezvous::CreateKey(send_device_, incarnation_, recv_device_,
                                tensor_name_, frame_iter),
          key),
      node_name_);
}

}  // namespace stepflow
