#include "testing/tf_oracle/stepflow_runner.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/common/session.h"
#include "runtime/saved_model/constants.h"
#include "runtime/saved_model/loader.h"
#include "runtime/saved_model/signature.h"

namespace stepflow {
namespace oracle {

namespace {

// Sets the working directory to a fresh scratch directory and back.
class ScopedScratchDir {
 public:
  ScopedScratchDir() {
    std::error_code ec;
    previous_ = std::filesystem::current_path(ec);
    char tmpl[] = "/tmp/stepflow_oracle_XXXXXX";
    if (mkdtemp(tmpl) != nullptr) {
      dir_ = tmpl;
      std::filesystem::current_path(dir_, ec);
    }
  }
  ~ScopedScratchDir() {
    std::error_code ec;
    std::filesystem::current_path(previous_, ec);
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  bool ok() const { return !dir_.empty(); }

 private:
  std::filesystem::path previous_;
  std::string dir_;
};

// Runs the case's init targets and steps on `session` (which holds the
// graph), feeding `feeds` and fetching `fetches` (tensor names).
CaseOutcome RunSteps(const LoadedCase& c, const Session::FeedList& feeds,
                     const std::vector<std::string>& fetches,
                     Session* session) {
  CaseOutcome out;
  const std::vector<std::string> targets(c.spec.targets().begin(),
                                         c.spec.targets().end());
  const std::vector<std::string> init(c.spec.init_targets().begin(),
                                      c.spec.init_targets().end());
  std::vector<Tensor> values;
  for (const std::string& target : init) {
    out.phase = "init";
    out.status = session->Run(feeds, {}, {target}, &values);
    if (!out.status.ok()) return out;
  }
  out.phase = "step";
  const int steps = c.spec.steps() > 0 ? c.spec.steps() : 1;
  for (int step = 0; step < steps; ++step) {
    out.status = session->Run(feeds, fetches, targets, &values);
    if (!out.status.ok()) return out;
    // Deep copies: a fetched variable shares its buffer with the variable,
    // which later steps update in place.
    std::vector<Tensor> copies;
    for (const Tensor& v : values) copies.push_back(v.DeepCopy());
    out.steps.push_back(std::move(copies));
  }
  if (c.spec.scratch_outputs_size() > 0) {
    std::vector<Tensor> files;
    for (const std::string& name : c.spec.scratch_outputs()) {
      std::string bytes;
      if (ReadFileToString(name, &bytes).ok()) {
        files.push_back(Tensor::Scalar<std::string>(std::move(bytes)));
      } else {
        files.emplace_back(DT_STRING, TensorShape({0}));
      }
    }
    out.steps.push_back(std::move(files));
  }
  out.phase.clear();
  return out;
}

CaseOutcome RunGraphCase(const LoadedCase& c, Env* env) {
  CaseOutcome out;
  SessionOptions options;
  options.env = env;
  std::unique_ptr<Session> session;
  out.phase = "import";
  out.status = NewSession(options, &session);
  if (out.status.ok()) out.status = session->Create(c.graph);
  if (!out.status.ok()) return out;
  out = RunSteps(c, c.feeds,
                 std::vector<std::string>(c.spec.fetches().begin(),
                                          c.spec.fetches().end()),
                 session.get());
  session->Close().IgnoreError();
  return out;
}

// Loads the case's SavedModel (phase "import", as TensorFlow's side) and
// runs its signature: feeds and fetches name the signature's keys.
CaseOutcome RunSavedModelCase(const LoadedCase& c, Env* env) {
  CaseOutcome out;
  out.phase = "import";
  SessionOptions options;
  options.env = env;
  SavedModelBundle bundle;
  const std::unordered_set<std::string> tags(c.spec.tags().begin(),
                                             c.spec.tags().end());
  out.status = LoadSavedModel(
      options, RunOptions(), c.dir + "/" + c.spec.saved_model(), tags, &bundle);
  if (!out.status.ok()) return out;
  const std::string key = c.spec.signature().empty()
                              ? kDefaultServingSignatureDefKey
                              : c.spec.signature();
  const SignatureDef* signature = nullptr;
  out.status = FindSignature(bundle.meta_graph_def, key, &signature);
  Session::FeedList feeds;
  for (size_t i = 0; out.status.ok() && i < c.feeds.size(); ++i) {
    TensorInfo info;
    out.status = SignatureInputTensor(*signature, key, c.feeds[i].first, &info);
    feeds.emplace_back(info.name(), c.feeds[i].second);
  }
  std::vector<std::string> fetches;
  for (int i = 0; out.status.ok() && i < c.spec.fetches_size(); ++i) {
    TensorInfo info;
    out.status =
        SignatureOutputTensor(*signature, key, c.spec.fetches(i), &info);
    fetches.push_back(info.name());
  }
  if (!out.status.ok()) return out;
  out = RunSteps(c, feeds, fetches, bundle.session.get());
  bundle.session->Close().IgnoreError();
  return out;
}

// Copies the case's scratch inputs into the (current) scratch directory.
absl::Status CopyScratchInputs(const LoadedCase& c) {
  for (const std::string& rel : c.spec.scratch_inputs()) {
    std::error_code ec;
    const std::filesystem::path from = std::filesystem::path(c.dir) / rel;
    std::filesystem::copy_file(
        from, from.filename(),
        std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      return absl::NotFoundError("cannot copy scratch input " + from.string() +
                                 ": " + ec.message());
    }
  }
  return absl::OkStatus();
}

}  // namespace

CaseOutcome RunCaseInStepflow(const LoadedCase& c, Env* env) {
  auto run = c.spec.saved_model().empty() ? RunGraphCase : RunSavedModelCase;
  if (!c.spec.run_in_scratch_dir()) return run(c, env);
  ScopedScratchDir scratch;
  if (!scratch.ok()) {
    CaseOutcome out;
    out.phase = "load";
    out.status = absl::UnavailableError("cannot create a scratch directory");
    return out;
  }
  absl::Status s = CopyScratchInputs(c);
  if (!s.ok()) {
    CaseOutcome out;
    out.phase = "load";
    out.status = s;
    return out;
  }
  return run(c, env);
}

}  // namespace oracle
}  // namespace stepflow
