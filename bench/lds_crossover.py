#!/usr/bin/env python3
"""Runs bench_lds and prints LDS kernel evaluations per second, linear-time against dense, for each T;
the growth exponent of each between consecutive T (time ~ T^e: e = log(t2/t1) / log(T2/T1), about 1
for the Kalman-filter kernel and up to 3 for the dense joint Gaussians); and the crossover, the
smallest measured T from which the linear-time kernel is the faster one.

Usage: bench/lds_crossover.py BUILD_DIR [extra bench_lds options]"""
import json
import math
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    command = [f"{sys.argv[1]}/bin/bench_lds", "--benchmark_format=json", "--benchmark_filter=BM_LdsKernel"] + sys.argv[2:]
    report = json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)
    seconds = {}  # (method, T) -> CPU seconds per kernel value
    for run in report["benchmarks"]:
        if run.get("error_occurred"):
            sys.exit(f"bench_lds: {run['name']}: {run.get('error_message')}")
        name, length = run["name"].split("/T:")
        method = "dense" if name.endswith("Dense") else "linear-time"
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
        seconds[(method, int(length))] = run["cpu_time"] * scale
    lengths = sorted({length for _, length in seconds})
    print("LDS kernel evaluations per second (n = 2 against n' = 3, d = 2, rho = 1)")
    print(f"{'T':>6} {'linear-time':>14} {'dense':>14} {'dense/linear':>13} {'growth linear':>14} {'growth dense':>13}")
    previous = None
    for length in lengths:
        linear, dense = seconds[("linear-time", length)], seconds[("dense", length)]
        growth = ["", ""]
        if previous is not None:
            step = math.log(length / previous)
            growth = [f"T^{math.log(linear / seconds[('linear-time', previous)]) / step:.2f}",
                      f"T^{math.log(dense / seconds[('dense', previous)]) / step:.2f}"]
        print(f"{length:>6} {1 / linear:>14,.0f} {1 / dense:>14,.1f} {dense / linear:>13.1f} {growth[0]:>14} {growth[1]:>13}")
        previous = length
    faster = [length for length in lengths
              if all(seconds[("linear-time", t)] < seconds[("dense", t)] for t in lengths if t >= length)]
    if faster:
        print(f"crossover: the linear-time kernel is faster from T = {faster[0]} on (measured T: {lengths})")
    else:
        print(f"crossover: not reached; the dense kernel is faster at T = {lengths[-1]}")


if __name__ == "__main__":
    main()
