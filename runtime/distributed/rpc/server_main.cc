// grpc_server: runs one task of a stepflow cluster (a master and a worker)
// until SIGTERM or SIGINT, then shuts down in bounded time (exit 0):
// new client calls are refused at once, those in flight get
// --shutdown_grace_ms to finish, then every call still running is
// cancelled and the server torn down; if the teardown is still blocked
// --shutdown_teardown_ms later (a kernel still computing, a wedged gRPC
// thread), the process exits anyway, saying so on stderr.
//
//   bazel run //runtime/distributed/rpc:grpc_server -- \
//       --cluster=worker=127.0.0.1:2222,127.0.0.1:2223 --task=0
//   bazel run //runtime/bin:run_graph -- --session_target=grpc://127.0.0.1:2222
//   ...
//
// The cluster and this server's task come from --cluster, --job and --task
// and from the TF_CONFIG environment variable as TensorFlow defines it
// ({"cluster": {"ps": [...], "worker": [...]}, "task": {"type": "ps",
// "index": 0}}); a flag that is given wins over TF_CONFIG for what it sets
// (tf_config.h).
//
// --tls_cert, --tls_key and --tls_ca (PEM files) turn on mutual TLS: the
// server then accepts only callers with a certificate the CA signed, and
// its calls to the other tasks present --tls_cert (tls_credentials.h).
//
// --record=FILE records every call the task serves (the client's calls to
// its master and the master's and peers' calls to its worker: order,
// timing, sizes, outcomes, the requests a replay re-issues and the graphs
// registered) in the simulator's trace format, flushed call by call
// (runtime/distributed/call_recorder.h). A server restarted with the same
// --record never overwrites an earlier recording: it records into FILE.1,
// FILE.2, ... (the first that does not exist), and says where. The
// simulator replays the recordings of a run (sim/replay_main.cc).
//
// Binds 127.0.0.1 unless --bind says otherwise. Exit 1 on bad flags (or a
// bad TF_CONFIG) or if the port cannot be bound.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "runtime/bin/shutdown_watchdog.h"
#include "runtime/distributed/rpc/grpc_server.h"
#include "runtime/distributed/rpc/tf_config.h"
#include "runtime/distributed/rpc/tls_credentials.h"
#include "runtime/env/real/heap_trimmer.h"
#include "runtime/env/real/malloc_tuning.h"
#include "runtime/env/real/memory_limit.h"

ABSL_FLAG(std::string, cluster, "",
          "worker=host:port,host:port;ps=host:port (task i of a job is its "
          "i-th address); default: TF_CONFIG's \"cluster\"");
ABSL_FLAG(std::string, job, "",
          "This server's job; default: TF_CONFIG's \"task\" \"type\", else "
          "worker");
ABSL_FLAG(int, task, -1,
          "This server's task index in its job; default: TF_CONFIG's "
          "\"task\" \"index\", else 0");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate (chain) this server presents, to clients and to "
          "the other tasks; with --tls_key and --tls_ca: mutual TLS");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA certificate(s): callers must present a certificate it "
          "signed, and the other tasks' certificates are checked against it");
ABSL_FLAG(std::string, bind, "127.0.0.1", "Host/interface to listen on");
ABSL_FLAG(int, cpus, 1, "CPU devices of this task");
ABSL_FLAG(int, inter_op_threads, 0, "Threads (0 = one per core)");
ABSL_FLAG(int, intra_op_threads, 0,
          "The most blocks one kernel's work is cut into (0 = "
          "--inter_op_threads)");
ABSL_FLAG(int64_t, session_gc_seconds,
          stepflow::GrpcServer::Options().session_gc_seconds,
          "Close master sessions no client has used for this long (0: never)");
ABSL_FLAG(int64_t, health_check_interval_ms,
          stepflow::GrpcServer::Options().health_check_interval_ms,
          "The master's heartbeat to its workers (0: none, and no leases)");
ABSL_FLAG(int, health_check_max_missed,
          stepflow::GrpcServer::Options().health_check_max_missed,
          "Missed heartbeats in a row that fail a step as Unavailable");
ABSL_FLAG(int64_t, session_lease_seconds,
          stepflow::GrpcServer::Options().session_lease_seconds,
          "Drop the worker sessions of a master silent this long (0: never)");

ABSL_FLAG(int64_t, shutdown_grace_ms, 5000,
          "On SIGTERM, how long client calls in flight may finish before "
          "they are cancelled");
ABSL_FLAG(int64_t, shutdown_teardown_ms, 5000,
          "After the grace period, how long the teardown may take before "
          "the process exits without it");
ABSL_FLAG(int64_t, heap_trim_ms, 1000,
          "How often to check for idle heap (in-use bytes steady, more than "
          "1 MiB free, moved since the last trim) and return it to the "
          "system (0: never)");
ABSL_FLAG(std::string, memory_limit, "",
          "Bytes of tensors this server may hold (4G, 512M, ...; 0: no "
          "limit); default: 80% of physical memory or of ulimit -v");

ABSL_FLAG(std::string, record, "",
          "Record every call this task serves to this file (FILE.1, FILE.2, "
          "... if it exists), for the simulator's replay");

namespace {

// `path`, or the first of path.1, path.2, ... that does not exist.
std::string FreshRecordPath(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return path;
  for (int i = 1;; ++i) {
    std::string candidate = absl::StrCat(path, ".", i);
    if (!std::filesystem::exists(candidate, error)) return candidate;
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Serves one task of a stepflow cluster over gRPC until SIGTERM.");
  absl::ParseCommandLine(argc, argv);
  // Tensors cross this process as 4 MiB-scale buffers: keep them on the
  // heap instead of an mmap + page faults per RPC.
  stepflow::TuneMallocForTensors();
  // One malloc arena per core (not glibc's eight): memory collected after a
  // burst of sessions goes back to the system instead of staying in the
  // tops of a dozen per-thread arenas.
  stepflow::LimitMallocArenas(
      std::max(2, static_cast<int>(std::thread::hardware_concurrency())));

  // Block the stop signals in every thread (threads inherit the mask), so
  // only the sigwait below sees them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  // Return heap that stays idle (collected sessions, rejected messages) to
  // the system; started after the mask so its thread inherits it.
  std::unique_ptr<stepflow::HeapTrimmer> heap_trimmer;
  if (absl::GetFlag(FLAGS_heap_trim_ms) > 0) {
    stepflow::HeapTrimmer::Options trim;
    trim.interval = absl::Milliseconds(absl::GetFlag(FLAGS_heap_trim_ms));
    heap_trimmer = stepflow::HeapTrimmer::Start(trim);
  }

  stepflow::GrpcServer::Options options;
  stepflow::ServerTaskFlags task_flags;
  task_flags.cluster = absl::GetFlag(FLAGS_cluster);
  task_flags.job = absl::GetFlag(FLAGS_job);
  task_flags.task = absl::GetFlag(FLAGS_task);
  absl::Status s = stepflow::ResolveServerTask(
      task_flags, std::getenv("TF_CONFIG"), &options.cluster, &options.job_name,
      &options.task_index);
  if (s.ok()) {
    s = stepflow::LoadTlsConfig(absl::GetFlag(FLAGS_tls_cert),
                                absl::GetFlag(FLAGS_tls_key),
                                absl::GetFlag(FLAGS_tls_ca), &options.tls);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "grpc_server: %s\n", s.ToString().c_str());
    return 1;
  }
  options.bind_host = absl::GetFlag(FLAGS_bind);
  options.cpus = absl::GetFlag(FLAGS_cpus);
  options.inter_op_threads = absl::GetFlag(FLAGS_inter_op_threads);
  options.intra_op_threads = absl::GetFlag(FLAGS_intra_op_threads);
  options.session_gc_seconds = absl::GetFlag(FLAGS_session_gc_seconds);
  options.health_check_interval_ms =
      absl::GetFlag(FLAGS_health_check_interval_ms);
  options.health_check_max_missed =
      absl::GetFlag(FLAGS_health_check_max_missed);
  options.session_lease_seconds = absl::GetFlag(FLAGS_session_lease_seconds);
  options.memory_limit_bytes = stepflow::DefaultProcessMemoryLimit();
  if (!absl::GetFlag(FLAGS_memory_limit).empty()) {
    s = stepflow::ParseMemoryLimit(absl::GetFlag(FLAGS_memory_limit),
                                   &options.memory_limit_bytes);
    if (!s.ok()) {
      std::fprintf(stderr, "grpc_server: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  if (!absl::GetFlag(FLAGS_record).empty()) {
    options.record_path = FreshRecordPath(absl::GetFlag(FLAGS_record));
  }
  std::unique_ptr<stepflow::GrpcServer> server;
  s = stepflow::GrpcServer::Create(options, &server);
  if (!s.ok()) {
    std::fprintf(stderr, "grpc_server: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("grpc_server: %s listening on %s%s\n", server->task().c_str(),
              server->address().c_str(),
              options.tls.enabled() ? " (mutual TLS)" : "");
  if (!options.record_path.empty()) {
    std::printf("grpc_server: recording to %s\n", options.record_path.c_str());
  }
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop, &signal);
  const absl::Duration grace = absl::Milliseconds(
      std::max<int64_t>(0, absl::GetFlag(FLAGS_shutdown_grace_ms)));
  const absl::Duration bound =
      grace + absl::Milliseconds(std::max<int64_t>(
                  0, absl::GetFlag(FLAGS_shutdown_teardown_ms)));
  std::printf("grpc_server: signal %d, shutting down (grace %s)\n", signal,
              absl::FormatDuration(grace).c_str());
  std::fflush(stdout);
  {
    stepflow::ShutdownWatchdog watchdog(
        bound, 0,
        absl::StrCat("grpc_server: teardown still blocked ",
                     absl::FormatDuration(bound),
                     " after the signal; exiting without it"));
    if (!server->Shutdown(grace)) {
      std::printf(
          "grpc_server: grace period over, calls still running cancelled\n");
      std::fflush(stdout);
    }
    server.reset();
  }
  std::printf("grpc_server: stopped\n");
  return 0;
}
