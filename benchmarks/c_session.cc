#include "benchmarks/c_session.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "proto/config.pb.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/framework/types.h"

namespace stepflow::bench {
namespace {

// A C API tensor holding a copy of `t` (numeric and bool types only).
absl::Status ToCTensor(const CApi& api, const Tensor& t, TF_Tensor** out) {
  if (!DataTypeIsMemcpyable(t.dtype())) {
    return absl::UnimplementedError(absl::StrCat(
        "a ", DataTypeString(t.dtype()), " feed (numeric and bool only)"));
  }
  std::vector<int64_t> dims(t.shape().dim_sizes().begin(),
                            t.shape().dim_sizes().end());
  TF_Tensor* c =
      api.TF_AllocateTensor(static_cast<TF_DataType>(t.dtype()), dims.data(),
                            static_cast<int>(dims.size()), t.TotalBytes());
  if (c == nullptr) return absl::InternalError("TF_AllocateTensor failed");
  if (t.TotalBytes() > 0) {
    std::memcpy(api.TF_TensorData(c), t.raw_data(), t.TotalBytes());
  }
  *out = c;
  return absl::OkStatus();
}

// A stepflow Tensor holding a copy of `c` (numeric and bool types only).
absl::Status FromCTensor(const CApi& api, const TF_Tensor* c, Tensor* out) {
  const DataType dtype = static_cast<DataType>(api.TF_TensorType(c));
  if (!DataTypeIsMemcpyable(dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "a fetched ", DataTypeString(dtype), " (numeric and bool only)"));
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < api.TF_NumDims(c); ++d) dims.push_back(api.TF_Dim(c, d));
  Tensor t(dtype, TensorShape(dims));
  if (api.TF_TensorByteSize(c) != t.TotalBytes()) {
    return absl::InternalError("fetched tensor of unexpected size");
  }
  if (t.TotalBytes() > 0) {
    std::memcpy(t.raw_data(), api.TF_TensorData(c), t.TotalBytes());
  }
  *out = std::move(t);
  return absl::OkStatus();
}

}  // namespace

std::string SessionConfig(int threads) {
  ConfigProto config;
  config.set_intra_op_parallelism_threads(threads);
  config.set_inter_op_parallelism_threads(threads);
  config.set_use_per_session_threads(true);
  return config.SerializeAsString();
}

absl::Status CSession::Create(
    const CApi& api, const GraphDef& graph, const std::string& config,
    const std::function<void(TF_SessionOptions*)>& customize,
    std::unique_ptr<CSession>* out) {
  std::unique_ptr<CSession> s(new CSession(api));
  const std::string bytes = graph.SerializeAsString();
  TF_Buffer* buf = api.TF_NewBufferFromString(bytes.data(), bytes.size());
  TF_ImportGraphDefOptions* import = api.TF_NewImportGraphDefOptions();
  api.TF_GraphImportGraphDef(s->graph_, buf, import, s->status_);
  api.TF_DeleteImportGraphDefOptions(import);
  api.TF_DeleteBuffer(buf);
  absl::Status st = s->Check("import");
  if (!st.ok()) return st;
  TF_SessionOptions* opts = api.TF_NewSessionOptions();
  api.TF_SetConfig(opts, config.data(), config.size(), s->status_);
  if (customize) customize(opts);
  if (api.TF_GetCode(s->status_) == TF_OK) {
    s->session_ = api.TF_NewSession(s->graph_, opts, s->status_);
  }
  api.TF_DeleteSessionOptions(opts);
  st = s->Check("session");
  if (!st.ok()) return st;
  *out = std::move(s);
  return absl::OkStatus();
}

CSession::CSession(const CApi& api)
    : api_(api), status_(api.TF_NewStatus()), graph_(api.TF_NewGraph()) {}

CSession::~CSession() {
  ClearPrepared();
  if (session_ != nullptr) {
    api_.TF_CloseSession(session_, status_);
    api_.TF_DeleteSession(session_, status_);
  }
  api_.TF_DeleteGraph(graph_);
  api_.TF_DeleteStatus(status_);
}

absl::Status CSession::Prepare(const FeedList& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets) {
  ClearPrepared();
  for (const auto& [name, value] : feeds) {
    TF_Output o;
    absl::Status s = Endpoint(name, &o);
    TF_Tensor* t = nullptr;
    if (s.ok()) s = ToCTensor(api_, value, &t);
    if (!s.ok()) return s;
    feeds_.push_back(o);
    feed_values_.push_back(t);
  }
  for (const std::string& name : fetches) {
    TF_Output o;
    absl::Status s = Endpoint(name, &o);
    if (!s.ok()) return s;
    fetches_.push_back(o);
  }
  for (const std::string& name : targets) {
    TF_Operation* op = api_.TF_GraphOperationByName(graph_, name.c_str());
    if (op == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(api_.name, ": no operation ", name));
    }
    targets_.push_back(op);
  }
  fetched_.assign(fetches_.size(), nullptr);
  return absl::OkStatus();
}

absl::Status CSession::RunPrepared() {
  DeleteFetched();
  api_.TF_SessionRun(session_, nullptr, feeds_.data(), feed_values_.data(),
                     static_cast<int>(feeds_.size()), fetches_.data(),
                     fetched_.data(), static_cast<int>(fetches_.size()),
                     targets_.data(), static_cast<int>(targets_.size()),
                     nullptr, status_);
  return Check("run");
}

absl::Status CSession::Fetched(std::vector<Tensor>* out) const {
  out->clear();
  for (TF_Tensor* t : fetched_) {
    if (t == nullptr) return absl::InternalError("nothing fetched");
    Tensor v;
    absl::Status s = FromCTensor(api_, t, &v);
    if (!s.ok()) return s;
    out->push_back(std::move(v));
  }
  return absl::OkStatus();
}

absl::Status CSession::Run(const FeedList& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets,
                           std::vector<Tensor>* out) {
  absl::Status s = Prepare(feeds, fetches, targets);
  if (s.ok()) s = RunPrepared();
  if (s.ok()) s = Fetched(out);
  return s;
}

absl::Status CSession::Check(const char* what) const {
  const TF_Code code = api_.TF_GetCode(status_);
  if (code == TF_OK) return absl::OkStatus();
  return absl::Status(
      static_cast<absl::StatusCode>(code),
      absl::StrCat(api_.name, " ", what, ": ", api_.TF_Message(status_)));
}

absl::Status CSession::Endpoint(const std::string& name, TF_Output* out) {
  const TensorId id = ParseTensorName(name);
  TF_Operation* op = api_.TF_GraphOperationByName(graph_, id.node.c_str());
  if (op == nullptr || id.index < 0) {
    return absl::NotFoundError(absl::StrCat(api_.name, ": no endpoint ", name));
  }
  *out = {op, id.index};
  return absl::OkStatus();
}

void CSession::DeleteFetched() {
  for (TF_Tensor*& t : fetched_) {
    if (t != nullptr) api_.TF_DeleteTensor(t);
    t = nullptr;
  }
}

void CSession::ClearPrepared() {
  DeleteFetched();
  for (TF_Tensor* t : feed_values_) api_.TF_DeleteTensor(t);
  feeds_.clear();
  feed_values_.clear();
  fetches_.clear();
  fetched_.clear();
  targets_.clear();
}

}  // namespace stepflow::bench
