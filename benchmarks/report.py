#!/usr/bin/env python3
"""Turns the JSON of the runtime benchmarks into one comparison table.

Usage: report.py --executor E.json --session S.json --pipeline P.json
                 --rpc R.json --sim M.json --mlp L.json --tf_peer T.json
                 [--conv C.json [--conv_tf CT.json]]

Each file is google-benchmark's --benchmark_out (JSON) of
executor_benchmark, session_benchmark, pipeline_benchmark, rpc_benchmark,
sim_benchmark, mlp_benchmark and tf_peer_benchmark; any may be missing (its
section then says so). With
repetitions, the smallest value of each time counter (the largest of each
throughput) is used: the run least disturbed by other load. Ratios are
ours / peer: for times below 1 means stepflow is faster, for throughputs
above 1 does. Each section ends with the targets from BENCHMARKS.md and
whether they were met.

Exit status: 0 when the table was printed (targets missed or not), 2 on
unreadable input.
"""

import argparse
import json
import re
import sys

SHAPES = [
    (0, "chain 100k"),
    (1, "fan 1->10k->1"),
    (2, "layered 10k"),
    (3, "layered 100k"),
]
PIPELINE_SIZES = [10000, 100000, 1000000]


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("report: cannot read %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def load(path):
    """{run_name: [benchmark entries]} of the non-aggregate runs."""
    if not path:
        return None
    data = read_json(path)
    runs = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        runs.setdefault(b.get("run_name", b["name"]), []).append(b)
    return runs


def best(runs, name, counter, pick=min):
    """Smallest (with pick=max: largest) `counter` over the repetitions of
    `name`; None if absent or failed."""
    if runs is None:
        return None
    values = [
        b[counter]
        for b in runs.get(name, [])
        if not b.get("error_occurred") and counter in b
    ]
    return pick(values) if values else None


def fmt(v, scale=1.0, digits=1):
    if v is None:
        return "-"
    return "%.*f" % (digits, v * scale)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def verdict(ok):
    if ok is None:
        return "not measured"
    return "met" if ok else "MISSED"


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    line = lambda r: "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths)))
    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def not_run(binary, targets):
    """Notes that `binary` did not run: its section's targets are then not
    measured."""
    print("(%s not run)\n" % binary)
    return [(t, None) for t in targets]


def executor_section(runs):
    print("== Executor: ns per node (min over repetitions) ==")
    if runs is None:
        return not_run("executor_benchmark", [
            "executor: ours(1 thread) <= oneTBB(1 thread), <= 10x floor"])
    name = "BM_Stepflow/shape:%d/values:%d/threads:%d/real_time"
    tbb = "BM_TbbFlowGraph/shape:%d/threads:%d/real_time"
    floor = "BM_PendingCountFloor/shape:%d/real_time"
    rows, checks = [], []
    for sid, label in SHAPES:
        ours = {(v, t): best(runs, name % (sid, v, t), "per_node")
                for v in (0, 1) for t in (0, 1, 2)}
        tbb1 = best(runs, tbb % (sid, 1), "per_node")
        tbb2 = best(runs, tbb % (sid, 2), "per_node")
        fl = best(runs, floor % sid, "per_node")
        r_tbb = ratio(ours[(0, 1)], tbb1)
        r_floor = ratio(ours[(0, 1)], fl)
        rows.append([label, fmt(ours[(0, 0)], 1e9), fmt(ours[(0, 1)], 1e9),
                     fmt(ours[(0, 2)], 1e9), fmt(ours[(1, 1)], 1e9),
                     fmt(tbb1, 1e9), fmt(tbb2, 1e9), fmt(fl, 1e9),
                     fmt(r_tbb, digits=2), fmt(r_floor, digits=1)])
        checks.append(("executor %s: ours(1 thread) <= oneTBB(1 thread)" % label,
                       None if r_tbb is None else r_tbb <= 1.0))
        checks.append(("executor %s: ours(1 thread) <= 10x floor" % label,
                       None if r_floor is None else r_floor <= 10.0))
    print(table(["shape", "inline", "1 thr", "2 thr", "values 1 thr",
                 "tbb 1 thr", "tbb 2 thr", "floor", "ours/tbb", "ours/floor"],
                rows))
    print("(inline / 1 thr / 2 thr: NoOps on control edges with an inline "
          "scheduler or 1 / 2 pool threads;\n values: scalar Const/Identity "
          "data edges; ratios use the 1-thread NoOp column)\n")
    return checks


def session_section(runs):
    print("== Session: microseconds per Run (min over repetitions) ==")
    if runs is None:
        return not_run("session_benchmark",
                       ["Session::Run (1 thread) <= 1.5x libtorch eager add"])
    entries = [
        ("Session::Run, 1 inter-op thread", "BM_SessionRun/threads:1/real_time"),
        ("Session::Run, 2 inter-op threads", "BM_SessionRun/threads:2/real_time"),
        ("RunCallable, 1 inter-op thread",
         "BM_SessionRunCallable/threads:1/real_time"),
        ("RunCallable, 2 inter-op threads",
         "BM_SessionRunCallable/threads:2/real_time"),
        ("TF_SessionRun (C API)", "BM_CApiSessionRun/real_time"),
        ("libtorch eager add (peer)", "BM_TorchEagerAdd/real_time"),
    ]
    values = {n: best(runs, n, "per_run") for _, n in entries}
    torch = values["BM_TorchEagerAdd/real_time"]
    rows = [[label, fmt(values[n], 1e6, 2), fmt(ratio(values[n], torch), digits=1)]
            for label, n in entries]
    print(table(["path", "us/run", "ours/torch"], rows))
    if torch is None:
        print("(no libtorch peer: build with --define=with_torch=1, "
              "see BENCHMARKS.md)")
    print()
    run1 = values["BM_SessionRun/threads:1/real_time"]
    r = ratio(run1, torch)
    return [("Session::Run (1 thread) <= 1.5x libtorch eager add",
             None if r is None else r <= 1.5)]


def pipeline_section(runs):
    print("== Graph pipeline: microseconds per node per phase ==")
    if runs is None:
        return not_run("pipeline_benchmark",
                       ["1M nodes: import <= 2 us/node",
                        "1M nodes: prune+place+partition < 1 s"])
    rows = []
    ppp_1m = None
    import_1m = None
    for n in PIPELINE_SIZES:
        name = "BM_Pipeline/nodes:%d/real_time" % n
        c = {k: best(runs, name, k) for k in
             ("import_us_per_node", "prune_us_per_node", "place_us_per_node",
              "partition_us_per_node", "ppp_s")}
        if n == 1000000:
            ppp_1m = c["ppp_s"]
            import_1m = c["import_us_per_node"]
        label = "%dM" % (n // 1000000) if n >= 1000000 else "%dk" % (n // 1000)
        rows.append([label] +
                    [fmt(c[k], digits=2) for k in
                     ("import_us_per_node", "prune_us_per_node",
                      "place_us_per_node", "partition_us_per_node")] +
                    [fmt(c["ppp_s"], digits=3)])
    print(table(["nodes", "import", "prune", "place", "partition",
                 "prune+place+partition s"], rows))
    print("(flat us/node across sizes = linear growth)\n")
    return [("1M nodes: import <= 2 us/node",
             None if import_1m is None else import_1m <= 2.0),
            ("1M nodes: prune+place+partition < 1 s",
             None if ppp_1m is None else ppp_1m < 1.0)]


def rpc_section(runs):
    print("== Distributed runtime on loopback (best over repetitions) ==")
    targets = ["RecvTensor 4 MiB: gRPC >= 0.8x raw TCP throughput",
               "RecvTensor 1 float: gRPC <= 1.5x a TCP ping-pong",
               "2-task grpc:// step <= 200 us",
               "2-task step below TensorFlow's servers' on the same graph",
               "cross-task 4 MiB step no slower than TensorFlow's servers'"]
    if runs is None:
        return not_run("rpc_benchmark", targets)
    big, small = 4 << 20, 4
    grpc_bps = best(runs, "BM_GrpcRecvTensor/bytes:%d/real_time" % big,
                    "bytes_per_second", pick=max)
    tcp_bps = best(runs, "BM_TcpRecv/bytes:%d/real_time" % big,
                   "bytes_per_second", pick=max)
    grpc_rtt = best(runs, "BM_GrpcRecvTensor/bytes:%d/real_time" % small,
                    "per_call")
    tcp_rtt = best(runs, "BM_TcpRecv/bytes:%d/real_time" % small, "per_call")
    dist = best(runs, "BM_DistributedStep/real_time", "per_run")
    local = best(runs, "BM_LocalStep/real_time", "per_run")
    cpu = {
        k: best(runs, n, c) for k, n, c in (
            ("grpc_big", "BM_GrpcRecvTensor/bytes:%d/real_time" % big,
             "cpu_per_call"),
            ("tcp_big", "BM_TcpRecv/bytes:%d/real_time" % big, "cpu_per_call"),
            ("grpc_small", "BM_GrpcRecvTensor/bytes:%d/real_time" % small,
             "cpu_per_call"),
            ("tcp_small", "BM_TcpRecv/bytes:%d/real_time" % small,
             "cpu_per_call"),
            ("dist", "BM_DistributedStep/real_time", "cpu_per_run"),
            ("local", "BM_LocalStep/real_time", "cpu_per_run"))
    }
    r_bps = ratio(grpc_bps, tcp_bps)

    def row(label, ours, peer, scale, digits, peer_label):
        return [label, fmt(ours, scale, digits), fmt(peer, scale, digits),
                fmt(ratio(ours, peer), digits=2), peer_label]

    tcp, direct = "raw loopback TCP", "DirectSession, 2 CPUs"
    rows = [
        row("RecvTensor 4 MiB, GB/s", grpc_bps, tcp_bps, 1e-9, 2, tcp),
        row("RecvTensor 4 MiB, CPU ms/call", cpu["grpc_big"], cpu["tcp_big"],
            1e3, 2, tcp),
        row("RecvTensor 1 float, us/call", grpc_rtt, tcp_rtt, 1e6, 1, tcp),
        row("RecvTensor 1 float, CPU us/call", cpu["grpc_small"],
            cpu["tcp_small"], 1e6, 1, tcp),
        row("2-task grpc:// step, us/Run", dist, local, 1e6, 1, direct),
        row("2-task grpc:// step, CPU us/Run", cpu["dist"], cpu["local"], 1e6,
            1, direct),
    ]
    # The same client on stepflow's servers and on TensorFlow's.
    tf = "TensorFlow's servers"
    step_sf = best(runs, "BM_ClusterStep/cluster:0/real_time", "per_run")
    step_tf = best(runs, "BM_ClusterStep/cluster:1/real_time", "per_run")
    xfer = {(b, c): best(runs, "BM_CrossTaskTransfer/bytes:%d/cluster:%d/"
                         "real_time" % (b, c), "per_run")
            for b in (big, small) for c in (0, 1)}
    rows += [
        row("2-task step, us/Run", step_sf, step_tf, 1e6, 1, tf),
        row("cross-task 4 MiB step, ms/Run", xfer[(big, 0)], xfer[(big, 1)],
            1e3, 2, tf),
        row("cross-task 1 float step, us/Run", xfer[(small, 0)],
            xfer[(small, 1)], 1e6, 1, tf),
    ]
    print(table(["measure", "ours", "peer", "ours/peer", "peer is"], rows))
    print("(GB/s: 10^9 tensor bytes per second, higher is better; us: wall "
          "time of one\n round trip or Run; CPU: CPU time of the whole "
          "process, all threads, per call\n or Run; lower is better. The "
          "last three rows: stepflow's grpc:// client\n on two stepflow "
          "servers vs two TensorFlow servers, all on loopback)\n")
    if step_tf is None:
        print("(no TensorFlow cluster rows: run_all.sh starts TensorFlow's "
              "servers when\n STEPFLOW_TF_PYTHON is set)\n")
    r_step = ratio(step_sf, step_tf)
    r_xfer = ratio(xfer[(big, 0)], xfer[(big, 1)])
    r_rtt = ratio(grpc_rtt, tcp_rtt)
    return [(targets[0], None if r_bps is None else r_bps >= 0.8),
            (targets[1], None if r_rtt is None else r_rtt <= 1.5),
            (targets[2], None if dist is None else dist <= 200e-6),
            (targets[3], None if r_step is None else r_step < 1.0),
            (targets[4], None if r_xfer is None else r_xfer <= 1.0)]


def sim_section(runs):
    print("== Simulator: simulated work per real second (best over "
          "repetitions) ==")
    # Throughput targets: the whole simulator on one thread (it is single-
    # threaded), traces hashed, as BM_LocalWorkload/1 and
    # BM_DistributedWorkload run.
    targets = ["simulation: local workload >= 20000 steps/s",
               "simulation: distributed workload >= 300 seeds/s",
               "simulation: local workload >= 100x time compression",
               "simulation: distributed workload >= 100x time compression"]
    if runs is None:
        return not_run("sim_benchmark", targets)
    workloads = [
        ("local (24 steps/seed, hashed trace)", "BM_LocalWorkload/1"),
        ("multi_client (C API clients, hashed trace)", "BM_MultiClientWorkload/0"),
        ("distributed (2-8 workers, faults)", "BM_DistributedWorkload"),
    ]
    rows, got = [], {}
    for label, name in workloads:
        c = {k: best(runs, name, k, pick=max)
             for k in ("seeds/s", "steps/s", "sim_s/s", "trace_events/s")}
        got[name] = c
        rows.append([label, fmt(c["seeds/s"]), fmt(c["steps/s"], digits=0),
                     fmt(c["sim_s/s"]), fmt(c["trace_events/s"], 1e-3)])
    print(table(["workload", "seeds/s", "steps/s", "sim s per s",
                 "k trace events/s"], rows))
    print("(steps: Session::Run or RunStep calls; sim s per s: simulated "
          "seconds per real\n second, the time compression; '-': not "
          "counted for that workload)\n")
    local, dist = got["BM_LocalWorkload/1"], got["BM_DistributedWorkload"]
    at_least = lambda v, bound: None if v is None else v >= bound
    return [(targets[0], at_least(local["steps/s"], 20000)),
            (targets[1], at_least(dist["seeds/s"], 300)),
            (targets[2], at_least(local["sim_s/s"], 100)),
            (targets[3], at_least(dist["sim_s/s"], 100))]


MLP_CASES = [(64, 1), (64, 2), (512, 1), (512, 2)]
MATMUL_N = 1024


def mlp_section(runs):
    print("== MLP training step and MatMul (best over repetitions) ==")
    targets = ["MLP step (batch 64, 512; 1 and 2 threads) <= libtorch",
               "MatMul 1024^3 >= 0.85x OpenBLAS sgemm"]
    if runs is None:
        return not_run("mlp_benchmark", targets)
    rows, step_ratios, peer_missing = [], [], False
    for batch, threads in MLP_CASES:
        args = "batch:%d/threads:%d/real_time" % (batch, threads)
        ours = best(runs, "BM_StepflowMlpStep/" + args, "per_step")
        torch = best(runs, "BM_TorchMlpStep/" + args, "per_step")
        r = ratio(ours, torch)
        step_ratios.append(r)
        peer_missing |= ours is not None and torch is None
        rows.append(["MLP step, batch %d, %d thread%s, ms" %
                     (batch, threads, "" if threads == 1 else "s"),
                     fmt(ours, 1e3, 2), fmt(torch, 1e3, 2), fmt(r, digits=2),
                     "libtorch"])
    ours_mm = best(runs, "BM_StepflowMatMul/%d/real_time" % MATMUL_N,
                   "gflops", pick=max)
    blas_mm = best(runs, "BM_BlasSgemm/%d/real_time" % MATMUL_N, "gflops",
                   pick=max)
    r_mm = ratio(ours_mm, blas_mm)
    peer_missing |= ours_mm is not None and blas_mm is None
    rows.append(["MatMul %d^3, GFLOP/s" % MATMUL_N, fmt(ours_mm),
                 fmt(blas_mm), fmt(r_mm, digits=2), "OpenBLAS sgemm"])
    print(table(["measure", "ours", "peer", "ours/peer", "peer is"], rows))
    print("(MLP: 784-256-256-10 float, one SGD step per Run, lower is "
          "better; MatMul:\n 2*n^3 flops per call, one thread, higher is "
          "better)")
    if peer_missing:
        print("(a peer is missing: build with --define=with_torch=1 and "
              "--define=with_openblas=1,\n see BENCHMARKS.md)")
    print()
    step_ok = (None if any(r is None for r in step_ratios)
               else all(r <= 1.0 for r in step_ratios))
    return [(targets[0], step_ok),
            (targets[1], None if r_mm is None else r_mm >= 0.85)]


def conv_section(runs, tf_runs):
    print("== Convolutions: conv_benchmark against TensorFlow (best over "
          "repetitions) ==")
    if runs is None:
        print("(conv_benchmark not run)\n")
        return []
    pattern = re.compile(r"^BM_StepflowConv/shape:(\d+)/threads:(\d+)/real_time$")
    rows, have_onednn = [], False
    keys = sorted((int(m.group(1)), int(m.group(2)))
                  for m in map(pattern.match, runs) if m)
    for shape, threads in keys:
        args = "shape:%d/threads:%d/real_time" % (shape, threads)
        ours = best(runs, "BM_StepflowConv/" + args, "real_time")
        peer = best(tf_runs, "BM_TensorFlowConv/" + args, "real_time")
        onednn = best(runs, "BM_OneDnnConv/" + args, "real_time")
        have_onednn |= onednn is not None
        label = runs["BM_StepflowConv/" + args][0].get("label", str(shape))
        r = ratio(ours, peer)
        rows.append(["%s, %s, ms" % (label, threads_label(threads)),
                     fmt(ours, digits=2), fmt(peer, digits=2), fmt(onednn, digits=2),
                     fmt(r, digits=2), fmt(ratio(ours, onednn), digits=2),
                     verdict(None if r is None else r <= 1.0)])
    print(table(["measure", "ours", "TensorFlow", "oneDNN", "ours/TF", "ours/oneDNN",
                 "<= TF"], rows))
    print("(one Session run of one float NHWC convolution of constants, "
          "lower is better;\n TensorFlow: benchmarks/conv_tf_peer.py, "
          "default configuration; oneDNN: the\n primitive alone, "
          "benchmarks/conv_onednn.h)")
    if tf_runs is None:
        print("(TensorFlow peer not run: set STEPFLOW_TF_PYTHON)")
    if not have_onednn:
        print("(no oneDNN rows: build conv_benchmark with --define=with_onednn=1)")
    print()
    return []


TF_PEER_CONTEXT = ["tensorflow", "tf_onednn", "tf_threads", "tf_grappler"]
INFERENCE_RUN = re.compile(
    r"^BM_(Tf|Stepflow)Inference/(.+)/batch:(\d+)/threads:(\d+)/real_time$")
TRAINING_RUN = re.compile(r"^BM_(Tf|Stepflow)Training/(.+)/threads:(\d+)/real_time$")
CANNOT_RUN = re.compile(r"^BM_StepflowInference/(.+)/iterations:\d+$")


def threads_label(threads):
    return "%d thread%s" % (threads, "" if threads == 1 else "s")


def tf_peer_section(path):
    print("== TensorFlow peer: the same GraphDef in TensorFlow (best over "
          "repetitions) ==")
    runs = load(path)
    if runs is None:
        print("(tf_peer_benchmark not run)\n")
        return []
    context = read_json(path).get("context", {})
    for key in TF_PEER_CONTEXT:
        if key in context:
            print("%s: %s" % (key, context[key]))
    rows, missing_tf = [], False
    model_ratios = []  # ours / TensorFlow of the model rows.

    def add(label, ours_name, tf_name, counter, scale, digits, model=False):
        ours = best(runs, ours_name, counter)
        tf = best(runs, tf_name, counter)
        nonlocal missing_tf
        missing_tf |= ours is not None and tf is None
        r = ratio(ours, tf)
        if model:
            model_ratios.append(r)
        rows.append([label, fmt(ours, scale, digits), fmt(tf, scale, digits),
                     fmt(r, digits=2), verdict(None if r is None else r <= 1.0)])

    for threads in (1, 2):
        tf_run = "BM_TfSessionRun/threads:%d/real_time" % threads
        add("1-op Run, C API, %s, us" % threads_label(threads),
            "BM_StepflowCApiSessionRun/threads:%d/real_time" % threads, tf_run,
            "per_run", 1e6, 2)
        add("1-op Run, C++ Session::Run, %s, us" % threads_label(threads),
            "BM_StepflowSessionRun/threads:%d/real_time" % threads, tf_run,
            "per_run", 1e6, 2)
    for batch, threads in MLP_CASES:
        args = "batch:%d/threads:%d/real_time" % (batch, threads)
        add("MLP step, batch %d, %s, ms" % (batch, threads_label(threads)),
            "BM_StepflowMlpStep/" + args, "BM_TfMlpStep/" + args, "per_step",
            1e3, 2)
    inference, training = set(), set()
    cannot_run = []
    for name, entries in sorted(runs.items()):
        m = INFERENCE_RUN.match(name)
        if m:
            inference.add((m.group(2), int(m.group(3)), int(m.group(4))))
            continue
        m = TRAINING_RUN.match(name)
        if m:
            training.add((m.group(2), int(m.group(3))))
            failed = [b for b in entries if b.get("error_occurred")]
            if failed and len(failed) == len(entries):
                cannot_run.append(("%s (%s, %s)" % (m.group(2), m.group(1),
                                                    threads_label(int(m.group(3)))),
                                   failed[0].get("error_message", "")))
            continue
        m = CANNOT_RUN.match(name)
        if m and entries and entries[0].get("error_occurred"):
            cannot_run.append((m.group(1), entries[0].get("error_message", "")))
    for case, threads in sorted(training):
        args = "%s/threads:%d/real_time" % (case, threads)
        add("%s, training step, %s, ms" % (case, threads_label(threads)),
            "BM_StepflowTraining/" + args, "BM_TfTraining/" + args,
            "per_step", 1e3, 3, model=True)
    for case, batch, threads in sorted(inference):
        args = "%s/batch:%d/threads:%d/real_time" % (case, batch, threads)
        add("%s, batch %d, %s, ms" % (case, batch, threads_label(threads)),
            "BM_StepflowInference/" + args, "BM_TfInference/" + args,
            "per_run", 1e3, 3, model=True)
    print(table(["measure", "ours", "TensorFlow", "ours/TF", "<= 1.0"], rows))
    print("(wall time per Run or step, lower is better; TensorFlow through its "
          "C API, grappler\n at its defaults, intra = inter-op threads = the "
          "row's; ours/TF below 1: stepflow\n is faster; the last column: "
          "the target ours/TF <= 1.0 met or MISSED)")
    if not inference and not training and not cannot_run:
        print("(no inference models: run_all.sh generates them with "
              "testing/tf_models/generate_zoo.py\n when STEPFLOW_TF_PYTHON is "
              "set; or pass --cases=DIR to tf_peer_benchmark)")
    for case, message in cannot_run:
        print("%s: not run: %s" % (case, message[:160]))
    if missing_tf:
        print("(TensorFlow rows missing: set STEPFLOW_TF_PYTHON, see "
              "tools/install_tf.sh and BENCHMARKS.md)")
    print()
    if not model_ratios:
        return []
    missed = sum(1 for r in model_ratios if r is not None and r > 1.0)
    ok = None if any(r is None for r in model_ratios) else missed == 0
    return [("TensorFlow peer: every model row ours/TF <= 1.0 (%d missed)" % missed,
             ok)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--executor")
    parser.add_argument("--session")
    parser.add_argument("--pipeline")
    parser.add_argument("--rpc")
    parser.add_argument("--sim")
    parser.add_argument("--mlp")
    parser.add_argument("--tf_peer")
    parser.add_argument("--conv")
    parser.add_argument("--conv_tf")
    args = parser.parse_args()
    checks = []
    checks += executor_section(load(args.executor))
    checks += session_section(load(args.session))
    checks += pipeline_section(load(args.pipeline))
    checks += rpc_section(load(args.rpc))
    checks += sim_section(load(args.sim))
    checks += mlp_section(load(args.mlp))
    checks += conv_section(load(args.conv), load(args.conv_tf))
    checks += tf_peer_section(args.tf_peer)
    print("== Targets ==")
    for what, ok in checks:
        print("%-62s %s" % (what, verdict(ok)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
