#!/usr/bin/env python3
"""The apply's time from Python against the C++ apply's on the same matrix (issue 38).

    mpirun -np N python3 jobs/python_apply_timing.py MATRIX [CPP.json] [--iters 200 --warmup 20]

Python times A.apply(x, y, stream=s) on CuPy arrays exactly as the command line times its apply
(apps/run_distributed.cpp, time_collective): per iteration a barrier, a CUDA event before and
after on the stream, a synchronisation; the slowest rank per iteration, then the median. The
same loop in C++ on the same matrix and arrays (Matrix._time_apply) runs before and after it;
with CPP.json (the command line's --json of `distspmv MATRIX --iters I --warmup W`, same
options) its apply_median_us is printed too. Host time to enqueue one apply (perf_counter around
the call; median, slowest rank) is compared likewise. With --backend host (no CuPy needed) the
same on NumPy arrays and wall clocks. Prints whether Python is within 5% or 3 us of C++; exit
code 1 only on a wrong product.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import distspmv


def slowest_median(comm, MPI, per_iteration):
    slowest = np.empty(len(per_iteration))
    comm.Allreduce(np.asarray(per_iteration, dtype=np.float64), slowest, op=MPI.MAX)
    return float(np.median(slowest))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("matrix")
    p.add_argument("cpp_json", nargs="?")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--backend", default="cuda")
    p.add_argument("--out", help="JSON of the figures (default: CPP.json with _python, or none)")
    args = p.parse_args()
    MPI = distspmv.MPI
    comm = MPI.COMM_WORLD
    A = distspmv.Matrix(comm, args.matrix, backend=args.backend)
    cuda = A.backend == "cuda"
    if cuda:
        import cupy as xp
        xp.cuda.Device(A.device).use()
        stream = xp.cuda.Stream(non_blocking=True)
        start, stop = xp.cuda.Event(), xp.cuda.Event()
    else:
        xp, stream = np, None
    x = xp.asarray(np.random.default_rng(A.rank).uniform(-1, 1, A.local_rows))
    y = xp.empty_like(x)

    def python_loop():
        dev_us, host_us = [], []
        for i in range(args.warmup + args.iters):
            comm.Barrier()
            if cuda:
                start.record(stream)
            t0 = time.perf_counter()
            A.apply(x, y, stream=stream)
            t1 = time.perf_counter()
            if cuda:
                stop.record(stream)
                stop.synchronize()
            if i >= args.warmup:
                dev_us.append(1e3 * xp.cuda.get_elapsed_time(start, stop) if cuda else 1e6 * (t1 - t0))
                host_us.append(1e6 * (t1 - t0))
        return dev_us, host_us

    def cpp_loop():
        return A._time_apply(x, y, args.iters, args.warmup, stream)

    c1, py, c2 = cpp_loop(), python_loop(), cpp_loop()
    cpp_apply = [slowest_median(comm, MPI, c[0]) for c in (c1, c2)]
    cpp_host = [slowest_median(comm, MPI, c[1]) for c in (c1, c2)]
    py_apply = slowest_median(comm, MPI, py[0])
    py_host = slowest_median(comm, MPI, py[1])
    # y = A x checked against the host backend (what --check does in C++)
    H = A if not cuda else distspmv.Matrix(comm, args.matrix, backend="host")
    to_host = (lambda v: xp.asnumpy(v)) if cuda else (lambda v: v)
    xc = A.from_partitioned(to_host(x))
    want = H.from_partitioned(H @ H.to_partitioned(xc))
    got = A.from_partitioned(to_host(A @ x))
    err = comm.allreduce(float(np.max(np.abs(got - want))) if len(want) else 0.0, op=MPI.MAX)
    scale = comm.allreduce(float(np.max(np.abs(want))) if len(want) else 0.0, op=MPI.MAX)
    rel = err / scale if scale > 0 else err
    if A.rank == 0:
        cpp = float(np.mean(cpp_apply))
        diff = py_apply - cpp
        ok = abs(diff) <= max(3.0, 0.05 * cpp)
        cli = None
        if args.cpp_json and os.path.exists(args.cpp_json):
            with open(args.cpp_json) as f:
                cli = json.load(f)
        cli_text = (f"; command line {cli['apply_median_us']:.2f} us (host {cli.get('apply_host_us', float('nan')):.2f})"
                    if cli else "")
        print(f"{args.matrix} on {A.ranks} {'GPU' if cuda else 'rank'}(s), {A.format}, transport {A.transport}, "
              f"graphs {A.cuda_graphs}: apply (median, slowest rank) Python {py_apply:.2f} us, C++ "
              f"{cpp_apply[0]:.2f} / {cpp_apply[1]:.2f} us (before / after){cli_text}; Python - C++ {diff:+.2f} us "
              f"({100 * diff / cpp:+.1f}%): {'within' if ok else 'NOT within'} 5% or 3 us; host time per apply "
              f"Python {py_host:.2f} us, C++ {cpp_host[0]:.2f} / {cpp_host[1]:.2f} us; check {rel:.1e}")
        out = args.out or (args.cpp_json.replace(".json", "_python.json") if args.cpp_json else None)
        if out:
            with open(out, "w") as f:
                json.dump({"matrix": args.matrix, "ranks": A.ranks, "backend": A.backend, "format": A.format,
                           "transport": A.transport, "cuda_graphs": A.cuda_graphs, "iters": args.iters,
                           "warmup": args.warmup, "python_apply_median_us": py_apply,
                           "cpp_apply_median_us": cpp_apply, "python_host_us": py_host, "cpp_host_us": cpp_host,
                           "command_line_apply_median_us": cli["apply_median_us"] if cli else None,
                           "command_line_apply_host_us": cli.get("apply_host_us") if cli else None,
                           "within_5pct_or_3us": ok, "max_rel_error": rel,
                           "gpu": cli.get("gpu") if cli else None, "git_revision": distspmv.git_revision}, f, indent=2)
    return 0 if rel <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
