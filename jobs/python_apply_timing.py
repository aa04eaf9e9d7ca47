#!/usr/bin/env python3
"""The apply's time from Python (CuPy arrays) against the C++ apply's on the same matrix (issue 38).

    mpirun -np N python3 jobs/python_apply_timing.py MATRIX CPP.json [--iters 200 --warmup 20]

CPP.json is the command line's --json of `distspmv MATRIX --iters I --warmup W` with the same
options (default: format, partition, transport auto; CUDA graphs on). The Python side times
A.apply(x, y, stream=s) exactly as the command line times its apply (apps/run_distributed.cpp,
time_collective): per iteration a barrier, a CUDA event before and after on the stream, a
synchronisation; the slowest rank's time per iteration, then the median. The host time to
enqueue one apply (perf_counter around the call) is compared with the JSON's apply_host_us.
Prints both and whether Python is within 5% or 3 us of C++; exit code 0 either way (a figure,
not a test), 1 on a wrong product.
"""
import argparse
import json
import sys
import time

import cupy as cp
import numpy as np

import distspmv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("matrix")
    p.add_argument("cpp_json")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    args = p.parse_args()
    MPI = distspmv.MPI
    comm = MPI.COMM_WORLD
    A = distspmv.Matrix(comm, args.matrix, backend="cuda")
    cp.cuda.Device(A.device).use()
    x = cp.asarray(np.random.default_rng(A.rank).uniform(-1, 1, A.local_rows))
    y = cp.empty_like(x)
    stream = cp.cuda.Stream(non_blocking=True)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    gpu_us, host_us = [], []
    for i in range(args.warmup + args.iters):
        comm.Barrier()
        start.record(stream)
        t0 = time.perf_counter()
        A.apply(x, y, stream=stream)
        t1 = time.perf_counter()
        stop.record(stream)
        stop.synchronize()
        if i >= args.warmup:
            gpu_us.append(1e3 * cp.cuda.get_elapsed_time(start, stop))
            host_us.append(1e6 * (t1 - t0))
    slowest = np.empty(len(gpu_us))
    comm.Allreduce(np.asarray(gpu_us), slowest, op=MPI.MAX)
    py_apply = float(np.median(slowest))
    py_host = comm.allreduce(float(np.median(host_us)), op=MPI.MAX)
    # y checked against A on the host backend (the command line's --check does the same in C++)
    H = distspmv.Matrix(comm, args.matrix, backend="host")
    xc = A.from_partitioned(cp.asnumpy(x))
    want = H.from_partitioned(H @ H.to_partitioned(xc))
    got = A.from_partitioned(cp.asnumpy(y))
    err = comm.allreduce(float(np.max(np.abs(got - want))) if len(want) else 0.0, op=MPI.MAX)
    scale = comm.allreduce(float(np.max(np.abs(want))) if len(want) else 0.0, op=MPI.MAX)
    rel = err / scale if scale > 0 else err
    if A.rank == 0:
        cpp = json.load(open(args.cpp_json))
        c_apply, c_host = cpp["apply_median_us"], cpp.get("apply_host_us", float("nan"))
        diff = py_apply - c_apply
        ok = abs(diff) <= max(3.0, 0.05 * c_apply)
        print(f"{args.matrix} on {A.ranks} GPU(s), format {A.format}, transport {A.transport}, "
              f"graphs {A.cuda_graphs}: apply median of the slowest rank: Python {py_apply:.2f} us, "
              f"C++ {c_apply:.2f} us, difference {diff:+.2f} us ({100 * diff / c_apply:+.1f}%): "
              f"{'within' if ok else 'NOT within'} 5% or 3 us; host time to enqueue one apply: Python "
              f"{py_host:.2f} us, C++ {c_host:.2f} us (Python overhead {py_host - c_host:+.2f} us); "
              f"check {rel:.1e}")
        with open(args.cpp_json.replace(".json", "_python.json"), "w") as f:
            json.dump({"matrix": args.matrix, "ranks": A.ranks, "python_apply_median_us": py_apply,
                       "cpp_apply_median_us": c_apply, "python_host_us": py_host, "cpp_host_us": c_host,
                       "within_5pct_or_3us": ok, "max_rel_error": rel, "format": A.format,
                       "transport": A.transport, "cuda_graphs": A.cuda_graphs,
                       "gpu": cpp.get("gpu"), "git_revision": cpp.get("git_revision")}, f, indent=2)
    return 0 if rel <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
