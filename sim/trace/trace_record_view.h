// TraceRecordView: a trace record as the simulator hands it to the
// recorder, borrowed instead of owned, and its canonical hash.
//
// Recording a TraceEvent (sim/trace/trace.h) costs a string per key and
// value and a vector per record, most of them thrown away at once when the
// recorder only hashes. The simulator's components record through views
// instead: keys and string values are borrowed for the duration of the
// call, integer values are formatted in place (decimal, as absl::StrCat
// writes them), and nothing is allocated unless the recorder keeps, writes
// or hands out the record as a TraceEvent.
//
// The canonical bytes are defined once, in HashTraceRecord below: a view
// and the TraceEvent built from it hash to the same value.
//
// Thread-safety: plain values.
#ifndef STEPFLOW_SIM_TRACE_RECORD_VIEW_H_
#define STEPFLOW_SIM_TRACE_RECORD_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/sim_trace.pb.h"
#include "sim/trace/digest.h"

namespace stepflow {

// A field's value: a borrowed string (which must outlive the Trace or
// Record call it is passed to), or an integer kept as its decimal digits.
// Copyable (it never points into itself).
class TraceValue {
 public:
  TraceValue(absl::string_view s)  // NOLINT(runtime/explicit)
      : data_(s.data()), size_(s.size()) {}
  TraceValue(const std::string& s)  // NOLINT(runtime/explicit)
      : data_(s.data()), size_(s.size()) {}
  TraceValue(const char* s)  // NOLINT(runtime/explicit)
      : TraceValue(absl::string_view(s)) {}
  template <typename Int,
            typename std::enable_if<std::is_integral<Int>::value &&
                                        !std::is_same<Int, bool>::value &&
                                        !std::is_same<Int, char>::value,
                                    int>::type = 0>
  TraceValue(Int v) {  // NOLINT(runtime/explicit)
    if constexpr (std::is_signed<Int>::value) {
      FormatSigned(static_cast<int64_t>(v));
    } else {
      FormatUnsigned(static_cast<uint64_t>(v), false);
    }
  }

  absl::string_view view() const {
    return data_ != nullptr
               ? absl::string_view(data_, size_)
               : absl::string_view(digits_ + kDigits - size_, size_);
  }

 private:
  static constexpr size_t kDigits = 21;  // "-9223372036854775808".

  void FormatSigned(int64_t v) {
    const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v)
                                     : static_cast<uint64_t>(v);
    FormatUnsigned(magnitude, v < 0);
  }
  // Right-aligns the digits in digits_.
  void FormatUnsigned(uint64_t v, bool negative) {
    char* p = digits_ + kDigits;
    do {
      *--p = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    if (negative) *--p = '-';
    size_ = static_cast<size_t>(digits_ + kDigits - p);
  }

  // Null: the value is in digits_ (a default string_view, also null,
  // reads as empty there too).
  const char* data_ = nullptr;
  size_t size_ = 0;
  char digits_[kDigits];
};

// One key/value of a record being recorded.
struct TraceFieldRef {
  absl::string_view key;
  TraceValue value;
};

inline absl::string_view TraceFieldKey(const TraceFieldRef& f) { return f.key; }
inline absl::string_view TraceFieldValue(const TraceFieldRef& f) {
  return f.value.view();
}
inline absl::string_view TraceFieldKey(
    const std::pair<std::string, std::string>& f) {
  return f.first;
}
inline absl::string_view TraceFieldValue(
    const std::pair<std::string, std::string>& f) {
  return f.second;
}

// Feeds the canonical bytes of one record into `h` (integers little-endian,
// strings prefixed by their 64-bit length): time_nanos, sequence, kind,
// task, number of fields, then each key and value, then payload_digest.
// `Fields` is a range of TraceFieldRef or of TraceEvent's (key, value)
// string pairs.
template <typename Fields>
void HashTraceRecord(int64_t time_nanos, uint64_t sequence, SimEventKind kind,
                     absl::string_view task, const Fields& fields,
                     uint64_t payload_digest, Fnv64* h) {
  h->UpdateI64(time_nanos);
  h->UpdateU64(sequence);
  h->UpdateU64(static_cast<uint64_t>(kind));
  h->UpdateString(task);
  h->UpdateU64(static_cast<uint64_t>(fields.size()));
  for (const auto& f : fields) {
    h->UpdateString(TraceFieldKey(f));
    h->UpdateString(TraceFieldValue(f));
  }
  h->UpdateU64(payload_digest);
}

// A record, borrowed: the content of a TraceEvent without its request
// payload (which only recorded runs carry; they record TraceEvents).
struct TraceRecordView {
  int64_t time_nanos = 0;
  uint64_t sequence = 0;
  SimEventKind kind = SIM_EVENT_UNKNOWN;
  absl::string_view task;
  absl::Span<const TraceFieldRef> fields;
  uint64_t payload_digest = 0;

  void HashInto(Fnv64* h) const {
    HashTraceRecord(time_nanos, sequence, kind, task, fields, payload_digest,
                    h);
  }
  // The value of field `key`, or "" if absent.
  absl::string_view Field(absl::string_view key) const {
    for (const TraceFieldRef& f : fields) {
      if (f.key == key) return f.value.view();
    }
    return absl::string_view();
  }
};

}  // namespace stepflow

#endif  // STEPFLOW_SIM_TRACE_RECORD_VIEW_H_
