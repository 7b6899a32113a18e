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
// Binds 127.0.0.1 unless --bind says otherwise. Exit 1 on bad flags or if
// the port cannot be bound.
#include <algorithm>
#include <csignal>
#include <cstdio>
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
#include "runtime/env/real/heap_trimmer.h"
#include "runtime/env/real/malloc_tuning.h"
#include "runtime/env/real/memory_limit.h"

ABSL_FLAG(std::string, cluster, "",
          "worker=host:port,host:port (task i is the i-th address)");
ABSL_FLAG(int, task, 0, "This server's task index in the worker job");
ABSL_FLAG(std::string, bind, "127.0.0.1", "Host/interface to listen on");
ABSL_FLAG(int, cpus, 1, "CPU devices of this task");
ABSL_FLAG(int, inter_op_threads, 0, "Threads (0 = one per core)");
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
  absl::Status s = stepflow::ParseClusterSpec(absl::GetFlag(FLAGS_cluster),
                                              &options.worker_addresses);
  if (!s.ok()) {
    std::fprintf(stderr, "grpc_server: %s\n", s.ToString().c_str());
    return 1;
  }
  options.task_index = absl::GetFlag(FLAGS_task);
  options.bind_host = absl::GetFlag(FLAGS_bind);
  options.cpus = absl::GetFlag(FLAGS_cpus);
  options.inter_op_threads = absl::GetFlag(FLAGS_inter_op_threads);
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
  std::unique_ptr<stepflow::GrpcServer> server;
  s = stepflow::GrpcServer::Create(options, &server);
  if (!s.ok()) {
    std::fprintf(stderr, "grpc_server: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("grpc_server: %s listening on %s\n", server->task().c_str(),
              server->address().c_str());
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
