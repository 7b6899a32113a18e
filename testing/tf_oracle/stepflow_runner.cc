#include "testing/tf_oracle/stepflow_runner.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runtime/common/session.h"

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

CaseOutcome RunGraphCase(const LoadedCase& c, Env* env) {
  CaseOutcome out;
  SessionOptions options;
  options.env = env;
  std::unique_ptr<Session> session;
  out.phase = "import";
  out.status = NewSession(options, &session);
  if (out.status.ok()) out.status = session->Create(c.graph);
  if (!out.status.ok()) return out;

  const std::vector<std::string> fetches(c.spec.fetches().begin(),
                                         c.spec.fetches().end());
  const std::vector<std::string> targets(c.spec.targets().begin(),
                                         c.spec.targets().end());
  const std::vector<std::string> init(c.spec.init_targets().begin(),
                                      c.spec.init_targets().end());
  std::vector<Tensor> values;
  for (const std::string& target : init) {
    out.phase = "init";
    out.status = session->Run(c.feeds, {}, {target}, &values);
    if (!out.status.ok()) return out;
  }
  out.phase = "step";
  const int steps = c.spec.steps() > 0 ? c.spec.steps() : 1;
  for (int step = 0; step < steps; ++step) {
    out.status = session->Run(c.feeds, fetches, targets, &values);
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
  session->Close().IgnoreError();
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
  if (!c.spec.saved_model().empty()) {
    CaseOutcome out;
    out.phase = "import";
    out.status = absl::UnimplementedError(
        "stepflow cannot load SavedModels yet (" + c.spec.saved_model() + ")");
    return out;
  }
  if (!c.spec.run_in_scratch_dir()) return RunGraphCase(c, env);
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
  return RunGraphCase(c, env);
}

}  // namespace oracle
}  // namespace stepflow
