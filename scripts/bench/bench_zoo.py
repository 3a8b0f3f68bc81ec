#!/usr/bin/env python3
"""Time-to-bug on the bug zoo (tests/zoo/), as Magma and FuzzBench measure fuzzers: for each
planted-fault library, `fpdiv --blas zoo=LIB fuzz --backends zoo` from its start to its first
finding (a check `improbable` or worse), over several seeds, each within a time limit; and the
control (the same wrapper, no fault), which must give no finding in the whole limit. The time is
wall time from the process's start to the line that reports the finding, as a user would wait.

Usage: FPDIV=build/fpdiv scripts/bench/bench_zoo.py [--seeds 5] [--limit 60]
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

FINDINGS = ("improbable", "bound", "nonfinite", "error")


def time_to_bug(fpdiv, lib, seed, limit):
    """Seconds to the first finding (None when there was none within `limit`), and that finding."""
    args = [fpdiv, "--blas", f"zoo={lib}", "fuzz", "--backends", "zoo", "--seed", str(seed), "--time", str(limit),
            "--no-corpus", "--fail-on", "never", "--json"]
    start = time.monotonic()
    env = dict(os.environ, FPDIV_PYTHON="/bin/false")
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as p:
        try:
            for line in p.stdout:
                o = json.loads(line)
                if o.get("type") == "check" and o["verdict"] in FINDINGS:
                    return time.monotonic() - start, o
            return None, None
        finally:
            p.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=60)
    opts = parser.parse_args()
    fpdiv = os.environ.get("FPDIV", "build/fpdiv")
    zoo = os.path.join(os.path.dirname(fpdiv), "zoo")
    libs = sorted(glob.glob(os.path.join(zoo, "lib*.so")))
    if not libs:
        sys.exit(f"bench_zoo: no libraries in {zoo} (make test builds them)")
    print(f"bug zoo: time to the first finding, {opts.seeds} seeds, limit {opts.limit} s each "
          f"(fpdiv --blas zoo=LIB fuzz --backends zoo --seed S --time {opts.limit})")
    print(f"  {'fault':<20} {'found':>6} {'median s':>9} {'min s':>7} {'max s':>7}   first finding (first seed)")
    failed = False
    for lib in libs:
        name = os.path.basename(lib)[3:-3]
        control = name == "none"
        seeds = [1] if control else range(1, opts.seeds + 1)
        times, first = [], None
        for seed in seeds:
            t, o = time_to_bug(fpdiv, lib, seed, opts.limit)
            if t is not None:
                times.append(t)
                first = first or o
        found = f"{len(times)}/{len(seeds)}"
        if times:
            what = f"{first['verdict']} in {first['relation']} {first['dtype']} {first['shape']}"
            print(f"  {name:<20} {found:>6} {statistics.median(times):9.2f} {min(times):7.2f} {max(times):7.2f}   {what}")
        else:
            print(f"  {name:<20} {found:>6} {'-':>9} {'-':>7} {'-':>7}   {'clean' if control else 'not found'}")
        # a fault's median over every seed, a seed that found nothing counted as never
        median = statistics.median(times + [float("inf")] * (len(seeds) - len(times)))
        failed |= bool(times) if control else median > opts.limit
    print("  (none is the control: the real library through the same wrapper; it must stay clean)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
