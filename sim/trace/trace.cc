#include "sim/trace/trace.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"

namespace stepflow {

// ---------------------------------------------------------------------------
// TraceEvent

absl::InlinedVector<TraceFieldRef, 8> TraceFieldRefs(
    const TraceFields& fields) {
  absl::InlinedVector<TraceFieldRef, 8> refs;
  refs.reserve(fields.size());
  for (const auto& [key, value] : fields) refs.push_back({key, value});
  return refs;
}

void TraceEvent::HashInto(Fnv64* h) const {
  HashTraceRecord(time_nanos, sequence, kind, task, fields, payload_digest, h);
}

std::string TraceEvent::DebugString() const {
  std::string s = absl::StrCat("t=", time_nanos, " seq=", sequence, " ",
                               SimEventKind_Name(kind), " task=", task);
  for (const auto& [key, value] : fields)
    absl::StrAppend(&s, " ", key, "=", value);
  absl::StrAppend(&s, absl::StrFormat(" digest=%016x", payload_digest));
  return s;
}

std::string TraceEvent::Field(const std::string& key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return v;
  }
  return "";
}

void TraceEvent::ToProto(SimTraceEvent* proto) const {
  proto->Clear();
  proto->set_time_nanos(time_nanos);
  proto->set_sequence(sequence);
  proto->set_kind(kind);
  proto->set_task(task);
  for (const auto& [key, value] : fields) {
    SimTraceField* f = proto->add_fields();
    f->set_key(key);
    f->set_value(value);
  }
  proto->set_payload_digest(payload_digest);
  proto->set_payload(payload);
}

TraceEvent TraceEvent::FromProto(const SimTraceEvent& proto) {
  TraceEvent e;
  e.time_nanos = proto.time_nanos();
  e.sequence = proto.sequence();
  e.kind = proto.kind();
  e.task = proto.task();
  for (const SimTraceField& f : proto.fields()) {
    e.fields.emplace_back(f.key(), f.value());
  }
  e.payload_digest = proto.payload_digest();
  e.payload = proto.payload();
  return e;
}

TraceEvent TraceEvent::FromView(const TraceRecordView& view) {
  TraceEvent e;
  e.time_nanos = view.time_nanos;
  e.sequence = view.sequence;
  e.kind = view.kind;
  e.task = std::string(view.task);
  e.fields.reserve(view.fields.size());
  for (const TraceFieldRef& f : view.fields) {
    e.fields.emplace_back(std::string(f.key), std::string(f.value.view()));
  }
  e.payload_digest = view.payload_digest;
  return e;
}

bool TraceEvent::operator==(const TraceEvent& o) const {
  return time_nanos == o.time_nanos && sequence == o.sequence &&
         kind == o.kind && task == o.task && fields == o.fields &&
         payload_digest == o.payload_digest;
}

int64_t FirstDivergence(const std::vector<TraceEvent>& a,
                        const std::vector<TraceEvent>& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  if (a.size() != b.size()) return static_cast<int64_t>(n);
  return -1;
}

std::string TraceHeader::Param(const std::string& key) const {
  for (const auto& [k, v] : params) {
    if (k == key) return v;
  }
  return "";
}

// ---------------------------------------------------------------------------
// TraceRecorder

TraceRecorder::~TraceRecorder() { Close().IgnoreError(); }

absl::Status TraceRecorder::OpenFile(const std::string& path,
                                     const TraceHeader& header) {
  if (out_ != nullptr || !path_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("Trace file already opened: ", path_));
  }
  if (event_count_ > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Trace file ", path, " must be opened before the first event (",
        event_count_, " already recorded)"));
  }
  auto out = std::make_unique<std::ofstream>(
      path, std::ios::binary | std::ios::out | std::ios::trunc);
  if (!out->is_open()) {
    return absl::UnavailableError(
        absl::StrCat("Cannot create trace file ", path));
  }
  SimTraceRecord record;
  SimTraceHeader* h = record.mutable_header();
  h->set_format(kSimTraceFormat);
  h->set_seed(header.seed);
  h->set_workload(header.workload);
  h->set_workload_name(header.workload_name);
  h->set_plan(header.plan);
  for (const auto& [key, value] : header.params) {
    SimTraceField* f = h->add_params();
    f->set_key(key);
    f->set_value(value);
  }
  if (!google::protobuf::util::SerializeDelimitedToOstream(record, out.get())) {
    write_failed_ = true;
  }
  out_ = std::move(out);
  path_ = path;
  return absl::OkStatus();
}

void TraceRecorder::Record(TraceEvent event) {
  event.HashInto(&hash_);
  ++event_count_;
  if (options_.view_observer) {
    const absl::InlinedVector<TraceFieldRef, 8> refs =
        TraceFieldRefs(event.fields);
    options_.view_observer(TraceRecordView{event.time_nanos, event.sequence,
                                           event.kind, event.task, refs,
                                           event.payload_digest});
  }
  Deliver(std::move(event));
}

void TraceRecorder::Record(const TraceRecordView& record) {
  record.HashInto(&hash_);
  ++event_count_;
  if (options_.view_observer) options_.view_observer(record);
  if (out_ == nullptr && !options_.observer && !options_.keep_events) return;
  Deliver(TraceEvent::FromView(record));
}

void TraceRecorder::Deliver(TraceEvent event) {
  if (out_ != nullptr && !write_failed_) {
    SimTraceRecord record;
    event.ToProto(record.mutable_event());
    if (!google::protobuf::util::SerializeDelimitedToOstream(record,
                                                             out_.get())) {
      write_failed_ = true;
    }
  }
  if (options_.observer) options_.observer(event);
  if (options_.keep_events) events_.push_back(std::move(event));
}

void TraceRecorder::Flush() {
  if (out_ != nullptr) out_->flush();
}

absl::Status TraceRecorder::Close() {
  if (out_ == nullptr) return absl::OkStatus();
  SimTraceRecord record;
  record.mutable_footer()->set_event_count(event_count_);
  record.mutable_footer()->set_hash(hash_.value());
  if (!write_failed_ && !google::protobuf::util::SerializeDelimitedToOstream(
                            record, out_.get())) {
    write_failed_ = true;
  }
  out_->close();
  if (out_->fail()) write_failed_ = true;
  out_.reset();
  if (write_failed_) {
    return absl::DataLossError(
        absl::StrCat("Writing trace file ", path_, " failed"));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// TraceReader

struct TraceReader::Impl {
  std::ifstream in;
  std::unique_ptr<google::protobuf::io::IstreamInputStream> stream;
  std::string path;

  // False at a clean end of file; sets *error on a broken record.
  bool ReadRecord(SimTraceRecord* record, bool* error) {
    bool clean_eof = false;
    record->Clear();
    if (google::protobuf::util::ParseDelimitedFromZeroCopyStream(
            record, stream.get(), &clean_eof)) {
      return true;
    }
    *error = !clean_eof;
    return false;
  }
};

absl::Status TraceReader::Open(const std::string& path,
                               std::unique_ptr<TraceReader>* reader) {
  std::unique_ptr<TraceReader> r(new TraceReader());
  r->impl_ = std::make_shared<Impl>();
  r->impl_->path = path;
  r->impl_->in.open(path, std::ios::binary | std::ios::in);
  if (!r->impl_->in.is_open()) {
    return absl::NotFoundError(absl::StrCat("Cannot open trace file ", path));
  }
  r->impl_->stream =
      std::make_unique<google::protobuf::io::IstreamInputStream>(&r->impl_->in);
  SimTraceRecord record;
  bool error = false;
  if (!r->impl_->ReadRecord(&record, &error) || !record.has_header() ||
      record.header().format() != kSimTraceFormat) {
    return absl::DataLossError(
        absl::StrCat(path, " is not a stepflow simulation trace (expected a '",
                     kSimTraceFormat, "' header)"));
  }
  const SimTraceHeader& h = record.header();
  r->header_.seed = h.seed();
  r->header_.workload = h.workload();
  r->header_.workload_name = h.workload_name();
  r->header_.plan = h.plan();
  for (const SimTraceField& f : h.params()) {
    r->header_.params.emplace_back(f.key(), f.value());
  }
  *reader = std::move(r);
  return absl::OkStatus();
}

bool TraceReader::Next(TraceEvent* event) {
  if (done_) return false;
  SimTraceRecord record;
  bool error = false;
  if (!impl_->ReadRecord(&record, &error)) {
    done_ = true;
    if (error) {
      status_ = absl::DataLossError(absl::StrCat(
          impl_->path, ": truncated or corrupt record after event ",
          event_count_));
    }
    return false;
  }
  if (record.has_event()) {
    *event = TraceEvent::FromProto(record.event());
    event->HashInto(&hash_);
    ++event_count_;
    return true;
  }
  done_ = true;
  if (!record.has_footer()) {
    status_ = absl::DataLossError(absl::StrCat(
        impl_->path, ": unexpected record after event ", event_count_));
    return false;
  }
  has_footer_ = true;
  const SimTraceFooter& f = record.footer();
  if (f.event_count() != event_count_ || f.hash() != hash_.value()) {
    status_ = absl::DataLossError(absl::StrFormat(
        "%s: footer says %d events with hash %016x but the file holds %d "
        "events hashing to %016x",
        impl_->path, f.event_count(), f.hash(), event_count_, hash_.value()));
    return false;
  }
  if (impl_->ReadRecord(&record, &error) || error) {
    status_ = absl::DataLossError(
        absl::StrCat(impl_->path, ": data after the trace footer"));
  }
  return false;
}

absl::Status TraceReader::ReadAll(const std::string& path, TraceHeader* header,
                                  std::vector<TraceEvent>* events,
                                  uint64_t* hash) {
  std::unique_ptr<TraceReader> reader;
  absl::Status s = Open(path, &reader);
  if (!s.ok()) return s;
  events->clear();
  TraceEvent e;
  while (reader->Next(&e)) events->push_back(std::move(e));
  if (!reader->status().ok()) return reader->status();
  if (header != nullptr) *header = reader->header();
  if (hash != nullptr) *hash = reader->hash();
  return absl::OkStatus();
}

}  // namespace stepflow
