#include "sim/workloads/local_workload.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "runtime/common/session.h"
#include "runtime/framework/tensor.h"
#include "sim/env/sim_env.h"
#include "sim/trace/digest.h"
#include "sim/trace/tensor_digest.h"
#include "sim/trace/traced_device.h"
#include "sim/workloads/sim_ops.h"

namespace stepflow {
namespace {

constexpr char kTask[] = "local";
constexpr int kNumCpus = 3;

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs, int cpu) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  n->set_device(Cpu(cpu));
  return n;
}

void SetType(NodeDef* n, const std::string& attr, DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

GraphDef BuildGraph(int64_t slow_delay_nanos) {
  GraphDef g;
  SetType(AddNode(&g, "x", "Placeholder", {}, 0), "dtype", DT_FLOAT);
  NodeDef* two = AddNode(&g, "two", "Const", {}, 1);
  SetType(two, "dtype", DT_FLOAT);
  TensorProto* value = (*two->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(2.0f);
  SetType(AddNode(&g, "a", "AddV2", {"x", "two"}, 1), "T", DT_FLOAT);
  SetType(AddNode(&g, "m", "Mul", {"a", "a"}, 2), "T", DT_FLOAT);
  SetType(AddNode(&g, "i", "Identity", {"m"}, 0), "T", DT_FLOAT);
  SetType(AddNode(&g, "b", "Mul", {"x", "two"}, 2), "T", DT_FLOAT);
  SetType(AddNode(&g, "s", "AddV2", {"i", "b"}, 1), "T", DT_FLOAT);
  NodeDef* slow = AddNode(&g, "slow", kSimDelayOp, {"s"}, 2);
  SetType(slow, "T", DT_FLOAT);
  (*slow->mutable_attr())["delay_ns"].set_i(slow_delay_nanos);
  return g;
}

struct StepPlan {
  int kind = 0;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  int64_t timeout_ms = 0;
  bool expect_deadline = false;
};

StepPlan PlanStep(int step, int64_t slow_delay_nanos) {
  StepPlan p;
  p.kind = step % 4;
  const int64_t delay_ms = slow_delay_nanos / 1000000;
  switch (p.kind) {
    case 0:
      p.fetches = {"a", "m", "s"};
      break;
    case 1:
      p.fetches = {"s", "i:0"};
      p.targets = {"b"};
      p.timeout_ms = 1000;
      break;
    case 2:
      p.fetches = {"slow"};
      p.timeout_ms = 4 * delay_ms + 1;
      break;
    default:
      p.fetches = {"slow", "a"};
      p.timeout_ms = delay_ms / 2 > 0 ? delay_ms / 2 : 1;
      p.expect_deadline = true;
      break;
  }
  return p;
}

// The value a fetch must have for input x.
float Expected(const std::string& fetch, float x) {
  const float a = x + 2.0f;
  const float m = a * a;
  const float b = x * 2.0f;
  const float s = m + b;
  if (fetch == "a") return a;
  if (fetch == "m" || fetch == "i:0") return m;
  if (fetch == "s" || fetch == "slow") return s;
  return 0;
}

void Fail(LocalWorkloadResult* result, const char* invariant,
          std::string detail) {
  result->failure_invariants.push_back(invariant);
  result->failures.push_back(std::move(detail));
}

// Opens the trace file the options ask for, unless the caller records.
absl::Status OpenLocalTrace(uint64_t seed, const LocalWorkloadOptions& options,
                            TraceRecorder* recorder) {
  if (options.recorder != nullptr || options.trace_path.empty()) {
    return absl::OkStatus();
  }
  TraceHeader header;
  header.seed = seed;
  header.workload = DescribeLocalWorkload(options);
  header.workload_name = "local";
  header.params = LocalWorkloadParams(options);
  return recorder->OpenFile(options.trace_path, header);
}

// The options' failure handler, or one that prints how to replay the seed
// and aborts.
void SetFailureHandler(uint64_t seed, const LocalWorkloadOptions& options,
                       SimEventLoop* loop) {
  if (options.failure_handler) {
    loop->set_failure_handler(options.failure_handler);
    return;
  }
  const std::string replay =
      absl::StrCat("bazel run //sim:simulate -- --seed=", seed,
                   " --seeds=1 --steps=", options.steps,
                   " --fifo=", !options.loop.randomize_ties,
                   " --latency_ns=", options.loop.schedule_latency_nanos,
                   " --jitter_ns=", options.loop.schedule_jitter_nanos,
                   " --trace_kernels=", options.trace_kernels, " --verbose");
  const std::string trace_note =
      options.trace_path.empty()
          ? ""
          : absl::StrCat("Partial trace: ", options.trace_path, "\n");
  loop->set_failure_handler([seed, replay, trace_note](const SimFailure& f) {
    std::fprintf(
        stderr, "%s\nSimulation of seed %llu failed. Reproduce with:\n  %s\n%s",
        f.message.c_str(), static_cast<unsigned long long>(seed),
        replay.c_str(), trace_note.c_str());
    std::fflush(stderr);
    std::abort();
  });
}

// The workload's session (traced kernels if asked) with its graph.
absl::Status StartLocalSession(const LocalWorkloadOptions& options, SimEnv* sim,
                               std::unique_ptr<Session>* session) {
  SessionOptions sopts;
  sopts.env = &sim->env;
  (*sopts.config.mutable_device_count())["CPU"] = kNumCpus;
  absl::Status s =
      options.trace_kernels
          ? NewTracedDirectSession(sopts, &sim->loop, kTask, session)
          : NewSession(sopts, session);
  if (!s.ok()) return s;
  sim->loop.Trace(SIM_SESSION, kTask, {{"op", "create"}, {"cpus", kNumCpus}});
  return (*session)->Create(BuildGraph(options.slow_delay_nanos));
}

// One step as it ran.
struct LocalStep {
  StepPlan plan;
  float x = 0;
  std::vector<Tensor> outputs;
  absl::Status status;
};

// Draws the step's input, runs it and traces its start and end.
void RunLocalStep(int step, const LocalWorkloadOptions& options, SimEnv* sim,
                  Random* inputs, Session* session, LocalStep* out) {
  out->plan = PlanStep(step, options.slow_delay_nanos);
  const StepPlan& plan = out->plan;
  out->x =
      static_cast<float>(static_cast<int64_t>(inputs->Uniform(201)) - 100) /
      4.0f;
  const Tensor x_tensor = Tensor::Scalar<float>(out->x);
  sim->loop.Trace(SIM_STEP_START, kTask,
                  {{"step", step},
                   {"kind", plan.kind},
                   {"fetches", absl::StrJoin(plan.fetches, ",")},
                   {"targets", absl::StrJoin(plan.targets, ",")},
                   {"timeout_ms", plan.timeout_ms}},
                  TensorDigest(x_tensor));
  RunOptions run_options;
  run_options.set_timeout_in_ms(
      plan.timeout_ms > 0 ? plan.timeout_ms : options.liveness_bound_ms);
  {
    SimEventLoop::ScopedWaitLabel label(
        &sim->loop, absl::StrCat("Session::Run of step ", step, " (fetches ",
                                 absl::StrJoin(plan.fetches, ","), ")"));
    out->status = session->Run(run_options, {{"x", x_tensor}}, plan.fetches,
                               plan.targets, &out->outputs, nullptr);
  }
  Fnv64 out_digest;
  for (const Tensor& t : out->outputs) HashTensorInto(t, &out_digest);
  sim->loop.Trace(SIM_STEP_DONE, kTask,
                  {{"step", step},
                   {"status", absl::StatusCodeToString(out->status.code())}},
                  out->status.ok() ? out_digest.value() : 0);
}

// Judges a finished step: its error code, then its values.
void CheckLocalStep(uint64_t seed, int step,
                    const LocalWorkloadOptions& options, const LocalStep& done,
                    LocalWorkloadResult* result) {
  const StepPlan& plan = done.plan;
  const absl::Status& run_status = done.status;
  const std::string where = absl::StrCat(
      "seed ", seed, " step ", step, " (kind ", plan.kind, ", x=", done.x, ")");
  if (plan.expect_deadline) {
    if (absl::IsDeadlineExceeded(run_status)) {
      ++result->steps_deadline_exceeded;
    } else {
      Fail(result, "error_codes",
           absl::StrCat(where, ": expected DeadlineExceeded, got ",
                        run_status.ToString()));
    }
    return;
  }
  if (absl::IsDeadlineExceeded(run_status)) {
    Fail(result, "liveness",
         absl::StrCat(
             where, ": the step did not complete within ",
             plan.timeout_ms > 0 ? plan.timeout_ms : options.liveness_bound_ms,
             " ms of virtual time: ", run_status.ToString()));
    return;
  }
  if (!run_status.ok()) {
    Fail(result, "error_codes",
         absl::StrCat(where, ": unexpected error ", run_status.ToString()));
    return;
  }
  if (done.outputs.size() != plan.fetches.size()) {
    Fail(result, "values",
         absl::StrCat(where, ": got ", done.outputs.size(), " outputs for ",
                      plan.fetches.size(), " fetches"));
    return;
  }
  bool ok = true;
  for (size_t f = 0; f < plan.fetches.size(); ++f) {
    const Tensor& t = done.outputs[f];
    const float want = Expected(plan.fetches[f], done.x);
    if (t.dtype() != DT_FLOAT || t.NumElements() != 1 ||
        t.scalar<float>() != want) {
      ok = false;
      Fail(result, "values",
           absl::StrCat(where, ": fetch ", plan.fetches[f], " = ",
                        t.DebugString(), ", expected ", want));
    }
  }
  if (ok) ++result->steps_ok;
}

// Closes and drops the session, then runs what is left of the simulation.
absl::Status EndLocalSession(uint64_t seed, std::unique_ptr<Session> session,
                             SimEnv* sim, LocalWorkloadResult* result) {
  absl::Status s = session->Close();
  if (!s.ok()) return s;
  session.reset();
  sim->loop.Trace(SIM_SESSION, kTask, {{"op", "close"}});
  // Anything left (a stray timer) runs now and shows up in the trace.
  sim->loop.RunUntilIdle();
  if (sim->loop.NumPending() != 0) {
    Fail(result, "liveness",
         absl::StrCat("seed ", seed, ": ", sim->loop.NumPending(),
                      " events still pending at the end"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string DescribeLocalWorkload(const LocalWorkloadOptions& o) {
  return absl::StrCat("local DirectSession workload: cpus=", kNumCpus,
                      " steps=", o.steps, " trace_kernels=", o.trace_kernels,
                      " slow_delay_ns=", o.slow_delay_nanos,
                      " randomize_ties=", o.loop.randomize_ties,
                      " latency_ns=", o.loop.schedule_latency_nanos,
                      " jitter_ns=", o.loop.schedule_jitter_nanos);
}

TraceFields LocalWorkloadParams(const LocalWorkloadOptions& o) {
  return {{"steps", absl::StrCat(o.steps)},
          {"trace_kernels", o.trace_kernels ? "1" : "0"},
          {"slow_delay_ns", absl::StrCat(o.slow_delay_nanos)},
          {"fifo", o.loop.randomize_ties ? "0" : "1"},
          {"latency_ns", absl::StrCat(o.loop.schedule_latency_nanos)},
          {"jitter_ns", absl::StrCat(o.loop.schedule_jitter_nanos)},
          {"liveness_bound_ms", absl::StrCat(o.liveness_bound_ms)}};
}

absl::Status LocalWorkloadOptionsFromParams(const TraceFields& params,
                                            LocalWorkloadOptions* o) {
  for (const auto& [key, value] : params) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(value, &v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local workload option ", key, ": '", value, "' is not an integer"));
    }
    if (key == "steps") {
      if (v < 0 || v > 1000000) {
        return absl::InvalidArgumentError(
            absl::StrCat("local workload option steps out of range: ", v));
      }
      o->steps = static_cast<int>(v);
    } else if (key == "trace_kernels") {
      o->trace_kernels = v != 0;
    } else if (key == "slow_delay_ns") {
      o->slow_delay_nanos = v;
    } else if (key == "fifo") {
      o->loop.randomize_ties = v == 0;
    } else if (key == "latency_ns") {
      o->loop.schedule_latency_nanos = v;
    } else if (key == "jitter_ns") {
      o->loop.schedule_jitter_nanos = v;
    } else if (key == "liveness_bound_ms") {
      o->liveness_bound_ms = v;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown local workload option '", key, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status RunLocalWorkload(uint64_t seed,
                              const LocalWorkloadOptions& options,
                              LocalWorkloadResult* result) {
  *result = LocalWorkloadResult();
  result->seed = seed;
  if (options.slow_delay_nanos < 2000000 ||
      options.slow_delay_nanos % 2000000 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slow_delay_nanos must be a positive multiple of 2 ms, got ",
        options.slow_delay_nanos));
  }

  Fnv64 kernel_order;
  TraceRecorder::Options ropts;
  ropts.keep_events = options.keep_events;
  ropts.view_observer = [&kernel_order](const TraceRecordView& e) {
    if (e.kind != SIM_KERNEL_START) return;
    kernel_order.UpdateString(e.Field("device"));
    kernel_order.UpdateString(e.Field("node"));
  };
  TraceRecorder own_recorder(ropts);
  TraceRecorder& recorder =
      options.recorder != nullptr ? *options.recorder : own_recorder;
  absl::Status s = OpenLocalTrace(seed, options, &recorder);
  if (!s.ok()) return s;
  const uint64_t first_event = recorder.event_count();

  SimEnv sim(seed, options.loop);
  if (options.record_trace) sim.loop.set_recorder(&recorder);
  SetFailureHandler(seed, options, &sim.loop);
  Random* inputs = sim.random.Stream("workload");
  std::unique_ptr<Session> session;
  s = StartLocalSession(options, &sim, &session);
  if (!s.ok()) return s;
  for (int step = 0; step < options.steps; ++step) {
    LocalStep done;
    RunLocalStep(step, options, &sim, inputs, session.get(), &done);
    ++result->steps_run;
    CheckLocalStep(seed, step, options, done, result);
  }
  s = EndLocalSession(seed, std::move(session), &sim, result);
  if (!s.ok()) return s;

  result->events_run = sim.loop.events_run();
  result->virtual_nanos = sim.loop.NowNanos();
  result->trace_hash = options.record_trace ? recorder.hash() : 0;
  result->trace_events = recorder.event_count() - first_event;
  sim.loop.set_recorder(nullptr);
  if (options.recorder != nullptr) return absl::OkStatus();
  result->kernel_order_hash = kernel_order.value();
  if (options.keep_events) result->events = recorder.events();
  return recorder.Close();
}

}  // namespace stepflow
