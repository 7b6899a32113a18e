#include "benchmarks/tf_peer_zoo.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmarks/c_session.h"
#include "benchmarks/state_util.h"
#include "benchmarks/stepflow_session.h"
#include "benchmarks/tf_c_api_library.h"
#include "benchmarks/tf_peer_sessions.h"
#include "benchmarks/tf_peer_training.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_id.h"
#include "runtime/framework/types.h"
#include "testing/tf_oracle/compare.h"
#include "testing/tf_oracle/oracle_case.h"

namespace stepflow::bench {
namespace {

using FeedList = CSession::FeedList;

constexpr int kLargeBatch = 32;

struct ZooCase {
  std::string name;  // The rows' name: the case's, less a "/batch<N>" suffix
                     // when the rows resize the batch.
  oracle::LoadedCase loaded;
  std::vector<std::string> fetches;
  std::vector<std::string> init_targets;
  bool training = false;     // A training case (tf_peer_training.h).
  bool rebatchable = false;  // Some feed's leading dimension is free.
  int64_t own_batch = 1;     // The leading dimension of the stored feeds.
};

std::vector<std::unique_ptr<ZooCase>>& ZooCases() {
  static auto* cases = new std::vector<std::unique_ptr<ZooCase>>;
  return *cases;
}

// Whether the placeholder fed by `feed` leaves its leading dimension unknown.
bool LeadingDimFree(const GraphDef& graph, const std::string& feed) {
  const TensorId id = ParseTensorName(feed);
  for (const NodeDef& n : graph.node()) {
    if (n.name() != id.node) continue;
    if (n.op() != "Placeholder" && n.op() != "PlaceholderWithDefault") {
      return false;
    }
    auto it = n.attr().find("shape");
    if (it == n.attr().end()) return true;  // No shape: any.
    const TensorShapeProto& shape = it->second.shape();
    if (shape.unknown_rank()) return true;
    return shape.dim_size() > 0 && shape.dim(0).size() < 0;
  }
  return false;
}

// `t` with its rows along dimension 0 repeated (or cut) to `rows` rows.
Tensor Replicate(const Tensor& t, int64_t rows) {
  std::vector<int64_t> dims(t.shape().dim_sizes().begin(),
                            t.shape().dim_sizes().end());
  const int64_t have = dims[0];
  dims[0] = rows;
  Tensor out(t.dtype(), TensorShape(dims));
  const size_t row_bytes = have > 0 ? t.TotalBytes() / have : 0;
  for (int64_t r = 0; r < rows && row_bytes > 0; ++r) {
    std::memcpy(static_cast<char*>(out.raw_data()) + r * row_bytes,
                static_cast<const char*>(t.raw_data()) + (r % have) * row_bytes,
                row_bytes);
  }
  return out;
}

// The case's feeds at `batch`: as stored at its own batch; otherwise each
// feed whose leading dimension is free cut or repeated to `batch` rows.
absl::Status FeedsAt(const ZooCase& c, int64_t batch, FeedList* out) {
  out->clear();
  for (const auto& [name, value] : c.loaded.feeds) {
    if (batch == c.own_batch || !LeadingDimFree(c.loaded.graph, name) ||
        value.dims() == 0) {
      out->emplace_back(name, value);
      continue;
    }
    if (!DataTypeIsMemcpyable(value.dtype()) || value.dim_size(0) == 0) {
      return absl::UnimplementedError(
          absl::StrCat("cannot replicate feed ", name, " to batch ", batch));
    }
    out->emplace_back(name, Replicate(value, batch));
  }
  return absl::OkStatus();
}

// TensorFlow's values for the case at `batch` (a 1-thread session).
absl::Status TensorFlowValues(const ZooCase& c, int64_t batch,
                              std::vector<Tensor>* out) {
  FeedList feeds;
  std::unique_ptr<CSession> tf;
  std::vector<Tensor> unused;
  absl::Status s = FeedsAt(c, batch, &feeds);
  if (s.ok()) s = NewTfSession(c.loaded.graph, 1, &tf);
  for (const std::string& t : c.init_targets) {
    if (s.ok()) s = tf->Run(feeds, {}, {t}, &unused);
  }
  if (s.ok()) s = tf->Run(feeds, c.fetches, {}, out);
  return s;
}

// The case's expected/ values (its own batch).
absl::Status ExpectedValues(const ZooCase& c, std::vector<Tensor>* out) {
  oracle::CaseOutcome expected;
  absl::Status s = oracle::LoadOutcome(c.loaded.dir + "/expected", &expected);
  if (!s.ok()) return s;
  if (!expected.status.ok() || expected.steps.empty()) {
    return absl::NotFoundError("expected/ holds no values");
  }
  *out = expected.steps[0];
  return absl::OkStatus();
}

// TensorFlow's values for the case at `batch`, or, without TensorFlow, the
// case's expected/ result at its own batch. Cached.
absl::Status Reference(const ZooCase& c, int64_t batch,
                       const std::vector<Tensor>** out) {
  static auto* cache =
      new std::map<std::string, std::pair<absl::Status, std::vector<Tensor>>>;
  const std::string key = absl::StrCat(c.name, "|", batch);
  auto it = cache->find(key);
  if (it == cache->end()) {
    std::pair<absl::Status, std::vector<Tensor>> entry;
    if (LoadTensorFlow().status.ok()) {
      entry.first = TensorFlowValues(c, batch, &entry.second);
    } else if (batch == c.own_batch) {
      entry.first = ExpectedValues(c, &entry.second);
    } else {
      entry.first = LoadTensorFlow().status;
    }
    it = cache->emplace(key, std::move(entry)).first;
  }
  if (!it->second.first.ok()) return it->second.first;
  *out = &it->second.second;
  return absl::OkStatus();
}

absl::Status CompareWith(const ZooCase& c, const std::vector<Tensor>& want,
                         const std::vector<Tensor>& got) {
  if (want.size() != got.size()) {
    return absl::InternalError("fetched a different number of values");
  }
  for (size_t i = 0; i < want.size(); ++i) {
    absl::Status s =
        oracle::CompareTensors(want[i], got[i], c.loaded.graph, c.fetches[i]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// A session of one side opened on a case at (batch, threads), its one step
// run and checked. Kept between the calls google-benchmark makes for one
// row (one fixture per side, so that at most two models are in memory).
struct InferenceFixture {
  std::string key;
  absl::Status run;     // Import, init or the first step failed.
  absl::Status check;   // The values differ from the reference.
  std::string checked;  // What the values were checked against.
  std::vector<std::string> fetches;
  FeedList feeds;
  std::vector<Tensor> out;
  StepflowSession stepflow;
  std::unique_ptr<CSession> tf;

  absl::Status status() const { return run.ok() ? check : run; }
  absl::Status Step() {
    if (tf != nullptr) return tf->RunPrepared();
    return stepflow.session->Run(feeds, fetches, {}, &out);
  }
};

// Opens f's session of one side, runs the case's init targets and its
// first step.
absl::Status OpenAndRun(bool tensorflow, const ZooCase& c, int threads,
                        InferenceFixture* f) {
  std::vector<Tensor> unused;
  absl::Status s;
  if (tensorflow) {
    s = NewTfSession(c.loaded.graph, threads, &f->tf);
    for (const std::string& t : c.init_targets) {
      if (s.ok()) s = f->tf->Run(f->feeds, {}, {t}, &unused);
    }
    if (s.ok()) s = f->tf->Prepare(f->feeds, c.fetches, {});
    if (s.ok()) s = f->tf->RunPrepared();
    if (s.ok()) s = f->tf->Fetched(&f->out);
    return s;
  }
  s = f->stepflow.Create(c.loaded.graph, threads);
  for (const std::string& t : c.init_targets) {
    if (s.ok()) s = f->stepflow.session->Run(f->feeds, {}, {t}, &unused);
  }
  if (s.ok()) s = f->Step();
  return s;
}

// Sets f->checked and f->check from f->out and the case's reference.
void CheckAgainstReference(const ZooCase& c, int64_t batch,
                           InferenceFixture* f) {
  const std::vector<Tensor>* want = nullptr;
  absl::Status r = Reference(c, batch, &want);
  if (!r.ok()) {
    f->checked = absl::StrCat("unchecked: ", r.message());
    return;
  }
  f->checked = LoadTensorFlow().status.ok() ? "checked against TensorFlow"
                                            : "checked against expected/";
  f->check = CompareWith(c, *want, f->out);
  if (!f->check.ok()) {
    f->check = absl::Status(
        f->check.code(),
        absl::StrCat(f->checked, ": differs: ", f->check.message()));
  }
}

// Opens (or reuses) the fixture of one side for (c, batch, threads).
InferenceFixture* OpenInference(bool tensorflow, const ZooCase& c,
                                int64_t batch, int threads) {
  static auto* slots = new std::unique_ptr<InferenceFixture>[2];
  std::unique_ptr<InferenceFixture>& slot = slots[tensorflow ? 1 : 0];
  const std::string key = absl::StrCat(c.name, "|", batch, "|", threads);
  if (slot != nullptr && slot->key == key) return slot.get();
  slot.reset();  // Free the previous model first.
  auto f = std::make_unique<InferenceFixture>();
  f->key = key;
  f->fetches = c.fetches;
  f->run = FeedsAt(c, batch, &f->feeds);
  if (f->run.ok()) f->run = OpenAndRun(tensorflow, c, threads, f.get());
  if (f->run.ok()) CheckAgainstReference(c, batch, f.get());
  slot = std::move(f);
  return slot.get();
}

void RunInference(benchmark::State& state, bool tensorflow, const ZooCase* c) {
  const int64_t batch = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  InferenceFixture* f = OpenInference(tensorflow, *c, batch, threads);
  if (!f->status().ok()) return SkipWithStatus(state, f->status());
  absl::Status s;
  for (auto _ : state) {
    s = f->Step();
    if (!s.ok()) break;
  }
  if (!s.ok()) {
    f->run = s;
    return SkipWithStatus(state, s);
  }
  state.SetLabel(f->checked);
  SetSecondsPerIteration(state, "per_run");
}

// The name of a case's rows: "zoo/m/batch2" becomes "zoo/m" when the
// rows resize the batch, unless that name is taken.
std::string RowName(const ZooCase& c, const std::set<std::string>& taken) {
  const std::string& name = c.loaded.spec.name();
  const size_t slash = name.rfind('/');
  if (!c.rebatchable || slash == std::string::npos ||
      name.compare(slash + 1, 5, "batch") != 0 || slash + 6 >= name.size() ||
      name.find_first_not_of("0123456789", slash + 6) != std::string::npos ||
      taken.count(name.substr(0, slash)) > 0) {
    return name;
  }
  return name.substr(0, slash);
}

// Sets c->rebatchable and c->own_batch: the stored batch is the leading
// dimension of the first feed whose placeholder leaves it free, else of
// the first feed with one.
void FindBatch(ZooCase* c) {
  int64_t first_free = -1, first_any = -1;
  for (const auto& [feed, value] : c->loaded.feeds) {
    if (value.dims() == 0) continue;
    if (first_any < 0) first_any = value.dim_size(0);
    if (first_free < 0 && LeadingDimFree(c->loaded.graph, feed)) {
      first_free = value.dim_size(0);
    }
  }
  c->rebatchable = first_free >= 0;
  c->own_batch = first_free >= 0 ? first_free : std::max<int64_t>(first_any, 1);
}

// Loads the case in `dir` into *out, or leaves *out null (saying why on
// stderr) when it is left out. `seen` maps each kept case's graph bytes,
// fetches and init targets to its name. Errors: reading the graph.
absl::Status LoadInferenceCase(const std::string& dir,
                               std::map<std::string, std::string>* seen,
                               std::unique_ptr<ZooCase>* out) {
  auto c = std::make_unique<ZooCase>();
  absl::Status s = oracle::LoadCase(dir, &c->loaded);
  if (c->loaded.spec.name().empty()) {
    c->loaded.spec.set_name(std::filesystem::path(dir).filename().string());
  }
  const std::string& case_name = c->loaded.spec.name();
  if (!s.ok()) {
    std::fprintf(stderr, "tf_peer_benchmark: %s: cannot load: %s\n",
                 dir.c_str(), s.ToString().c_str());
    return absl::OkStatus();
  }
  const oracle::OracleCase& spec = c->loaded.spec;
  c->training = IsTrainingCase(spec);
  if (!c->training && (!spec.saved_model().empty() || spec.targets_size() > 0 ||
                       spec.steps() > 1 || spec.fetches_size() == 0 ||
                       spec.run_in_scratch_dir())) {
    std::fprintf(stderr,
                 "tf_peer_benchmark: %s: neither an inference case (a "
                 "GraphDef, fetches, no targets, one step, no files "
                 "written) nor a training case: left out\n",
                 case_name.c_str());
    return absl::OkStatus();
  }
  c->fetches.assign(spec.fetches().begin(), spec.fetches().end());
  c->init_targets.assign(spec.init_targets().begin(),
                         spec.init_targets().end());
  std::string identity;
  s = oracle::ReadFileToString(
      (std::filesystem::path(dir) / spec.graph()).string(), &identity);
  if (!s.ok()) return s;
  absl::StrAppend(&identity, "|", absl::StrJoin(c->fetches, ","), "|",
                  absl::StrJoin(c->init_targets, ","));
  auto [it, fresh] = seen->emplace(std::move(identity), case_name);
  if (!fresh) {
    std::fprintf(stderr,
                 "tf_peer_benchmark: %s: same graph and fetches as %s: "
                 "left out\n",
                 case_name.c_str(), it->second.c_str());
    return absl::OkStatus();
  }
  FindBatch(c.get());
  *out = std::move(c);
  return absl::OkStatus();
}

// Registers the rows of a loaded case: both sides at its batches and 1 and
// 2 threads when stepflow runs it (the trial is kept as the first row's
// stepflow fixture), else one skipped row with stepflow's error.
void RegisterCaseRows(const ZooCase* zc) {
  const int64_t first_batch = zc->rebatchable ? 1 : zc->own_batch;
  InferenceFixture* trial = OpenInference(false, *zc, first_batch, 1);
  if (!trial->run.ok()) {
    const std::string reason =
        absl::StrCat("stepflow cannot run this case: ", trial->run.ToString());
    std::fprintf(stderr, "tf_peer_benchmark: %s: %s\n", zc->name.c_str(),
                 reason.c_str());
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_StepflowInference/", zc->name).c_str(),
        [reason](benchmark::State& state) {
          state.SkipWithError(reason.c_str());
          for (auto _ : state) {
          }
        })
        ->Iterations(1);
    return;
  }
  std::vector<int64_t> batches = {first_batch};
  if (zc->rebatchable) batches.push_back(kLargeBatch);
  for (bool tensorflow : {true, false}) {
    benchmark::RegisterBenchmark(
        absl::StrCat(tensorflow ? "BM_TfInference/" : "BM_StepflowInference/",
                     zc->name)
            .c_str(),
        [tensorflow, zc](benchmark::State& state) {
          RunInference(state, tensorflow, zc);
        })
        ->ArgNames({"batch", "threads"})
        ->ArgsProduct({batches, {1, 2}})
        ->UseRealTime();
  }
}

}  // namespace

absl::Status RegisterZooBenchmarks(const std::string& root) {
  std::vector<std::string> dirs;
  absl::Status s = oracle::FindCaseDirs(root, &dirs);
  if (!s.ok()) return s;
  if (dirs.empty()) {
    return absl::NotFoundError(absl::StrCat("no case.json under ", root));
  }
  std::map<std::string, std::string> seen;  // Graph bytes + fetches -> case.
  std::set<std::string> taken;
  for (const std::string& dir : dirs) {
    std::unique_ptr<ZooCase> c;
    s = LoadInferenceCase(dir, &seen, &c);
    if (!s.ok()) return s;
    if (c == nullptr) continue;
    c->name = RowName(*c, taken);
    taken.insert(c->name);
    ZooCases().push_back(std::move(c));
    const ZooCase* zc = ZooCases().back().get();
    if (zc->training) {
      RegisterTrainingRows(zc->name, &zc->loaded);
    } else {
      RegisterCaseRows(zc);
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow::bench
