"""PyTorch peer of benchmarks/gpu_mlp_benchmark.cc on the same GPU.

Trains the same MLP (784-256-256-10, float32, softmax cross-entropy, plain
SGD) from the initial parameters and batch that `gpu_mlp_benchmark
--dump_dir=DIR` wrote, checks that its first losses equal stepflow's
(relative 1e-3: the two sum in different orders), then times the step two
ways:
  * "loss fetched every step": loss.item() after each step, which is what
    stepflow's Session::Run({loss}, {train}) does (the fair row);
  * "no per-step sync": steps queued back to back, synchronised once.
It also times a plain float32 torch.matmul of N x N x N (TF32 off, so it is
an sgemm like cuBLAS's) as the matmul ceiling.

Usage: python3 gpu_mlp_torch.py DIR [--steps=N] [--sgemm_size=N]
Exits 0 with a message when PyTorch or CUDA is missing; 1 when the losses
disagree.
"""

import argparse
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dump_dir")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--sgemm_size", type=int, default=4096)
    args = parser.parse_args()
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"PyTorch peer skipped: {e}")
        return 0
    if not torch.cuda.is_available():
        print("PyTorch peer skipped: torch.cuda.is_available() is False")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda:0")

    def load(name):
        return torch.from_numpy(np.load(os.path.join(args.dump_dir, name + ".npy"))).to(dev)

    x, labels = load("x"), load("labels")
    ref_losses = np.load(os.path.join(args.dump_dir, "losses.npy"))
    layers = 0
    while os.path.exists(os.path.join(args.dump_dir, f"w{layers + 1}.npy")):
        layers += 1
    initial = [(load(f"w{l}"), load(f"b{l}")) for l in range(1, layers + 1)]
    lr = 0.1  # MlpOptions::learning_rate

    def fresh_params():
        return [(w.clone().requires_grad_(True), b.clone().requires_grad_(True))
                for w, b in initial]

    def step(params):
        h = x
        for i, (w, b) in enumerate(params):
            h = torch.addmm(b, h, w)
            if i + 1 < len(params):
                h = torch.relu(h)
        loss = -(labels * torch.log_softmax(h, 1)).sum(1).mean()
        loss.backward()
        with torch.no_grad():
            for w, b in params:
                w.sub_(w.grad, alpha=lr)
                b.sub_(b.grad, alpha=lr)
                w.grad = None
                b.grad = None
        return loss.detach()

    params = fresh_params()
    for i, ref in enumerate(ref_losses):
        got = step(params).item()
        if not abs(got - ref) <= 1e-3 * abs(ref):
            print(f"PyTorch loss {got} != stepflow loss {ref} at step {i}")
            return 1
    print(f"PyTorch losses match stepflow's first {len(ref_losses)} steps "
          f"(last {got:.6f} vs {ref_losses[-1]:.6f})")

    for _ in range(10):
        step(params).item()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step(params).item()
    t1 = time.perf_counter()
    synced = (t1 - t0) / args.steps
    t0 = time.perf_counter()
    for _ in range(args.steps):
        last = step(params)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    unsynced = (t1 - t0) / args.steps
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}")
    print(f"PyTorch training step, loss fetched every step: {synced * 1e3:.3f} ms "
          f"(loss after: {loss:.6f})")
    print(f"PyTorch training step, no per-step sync: {unsynced * 1e3:.3f} ms "
          f"(loss after: {last.item():.6f})")

    n = args.sgemm_size
    if n > 0:
        a = torch.randn(n, n, device=dev)
        b = torch.randn(n, n, device=dev)
        for _ in range(3):
            torch.matmul(a, b)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        reps = 20
        start.record()
        for _ in range(reps):
            torch.matmul(a, b)
        stop.record()
        stop.synchronize()
        sec = start.elapsed_time(stop) / 1e3 / reps
        print(f"PyTorch float32 matmul {n}x{n}x{n} (TF32 off): "
              f"{2 * n ** 3 / sec / 1e9:.1f} GFLOP/s ({sec * 1e3:.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
