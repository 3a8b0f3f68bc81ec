#!/usr/bin/env python3
"""The campaign against an older fpdiv (issue 56's base, f39899d), side by side on one machine.

Two measurements, each as checks/s of `fuzz --seed S --time T --no-corpus`, the binaries
alternating ROUNDS times:
- the default campaign of each (what `fpdiv fuzz` does with no options): not the same work once
  the newer one has gained relations, reach or exact checks;
- the older one's campaign: its default relations (its `list`), --max-dim 256 and --exact
  diverging (its defaults) named to both, and its data generator (its campaign line's) to the
  newer one, so both draw the same cases and data from the seed.
Then the identity of that same work: one worker's first CASES checks from each, joined by case
index; every case the two drew alike (relation, backends, shape, dtype, flags, distribution) must
give the same verdict and output hashes, but for path B of the relations that call the library
otherwise by design (PATH_B_CHANGED), where path A's hash must be the same. A backend the older one
names without its kernel set (`blis`) is the newer one's `blis@SET`. Exits 1 when a shared case
differs.

Usage: FPDIV=build/fpdiv BASELINE=<older fpdiv> scripts/bench/bench_campaign.py
       [--seconds 15] [--rounds 2] [--cases 4000] [--seed 8]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

CASE_FIELDS = ("relation", "shape", "dtype", "trans_a", "trans_b", "bias", "pad", "dist", "generator", "specials")
# Relations whose path B calls the library otherwise since f39899d, by design: their path B's
# hashes (and so verdicts) may differ; path A's may not.
PATH_B_CHANGED = {
    "dot": "x, y or both backwards in 3 calls of 4 (incx, incy -1; 6694143)",
    "gemv-rows": "x or y backwards in 3 calls of 4 (7bb73ad)",
    "gemv-cols": "x or y backwards in 3 calls of 4 (7bb73ad)",
    "threads": "at least 3 threads, where a middle thread's share is its own (e762747)",
}
# the older fpdiv's defaults, named so that the newer one runs the same campaign
SAME_WORK = ["--max-dim", "256", "--exact", "diverging"]


def default_relations(fpdiv):
    """The relations `fpdiv list` marks as fuzz's defaults (a * after the name)."""
    text = subprocess.run([fpdiv, "list"], capture_output=True, text=True, check=True).stdout
    section = text.split("\nrelations", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines()[1:] if len(line.split()) > 1 and line.split()[1] == "*"]


def checks(fpdiv, args):
    """The check lines of one `fuzz --json` run."""
    with tempfile.TemporaryFile("w+") as out:
        subprocess.run([fpdiv, "fuzz", "--no-corpus", "--json", *args], stdout=out, stderr=subprocess.DEVNULL)
        out.seek(0)
        return [j for j in map(json.loads, out) if j["type"] == "check"]


def generator_of(fpdiv, seed):
    """The data generator of an fpdiv's campaigns (its `fuzz --json` campaign line)."""
    out = subprocess.run([fpdiv, "fuzz", "--no-corpus", "--json", "--seed", str(seed), "--cases", "1", "--jobs", "1"],
                         capture_output=True, text=True).stdout
    return next(j["generator"] for j in map(json.loads, out.splitlines()) if j["type"] == "campaign")


def same_backends(old, new):
    """Whether two backend lists name the same paths (`blis` is `blis@SET` for the set it picks)."""
    return len(old) == len(new) and all(o == n or ("@" not in o and n.split("@")[0] == o) for o, n in zip(old, new))


def identity(baseline, fpdiv, work, newer_only, cases, seed):
    """(checks, cases drawn alike, differences, relations of the others) of one worker's first `cases`."""
    args = ["--seed", str(seed), "--cases", str(cases), "--jobs", "1", *work]
    old = {j["index"]: j for j in checks(baseline, args)}
    new = {j["index"]: j for j in checks(fpdiv, args + newer_only)}
    shared, differ, drawn_otherwise = 0, [], collections.Counter()
    for index, o in old.items():
        n = new.get(index)
        if not n or any(o.get(f) != n.get(f) for f in CASE_FIELDS) or not same_backends(o["backends"], n["backends"]):
            drawn_otherwise[o["relation"]] += 1
            continue
        shared += 1
        by_design = o["relation"] in PATH_B_CHANGED and o["hash_a"] == n["hash_a"]
        if not by_design and (o["verdict"], o["hash_a"], o["hash_b"]) != (n["verdict"], n["hash_a"], n["hash_b"]):
            differ.append(f"case {index} {o['relation']} {','.join(n['backends'])}: {o['verdict']} {o['hash_a']} "
                          f"{o['hash_b']} against {n['verdict']} {n['hash_a']} {n['hash_b']}")
    return len(old), shared, differ, drawn_otherwise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cases", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=8)
    options = parser.parse_args()
    fpdiv = os.environ.get("FPDIV", "build/fpdiv")
    baseline = os.environ.get("BASELINE")
    if not baseline:
        print("bench_campaign: against an older fpdiv: unmeasured (set BASELINE to its binary, e.g. a worktree of "
              "f39899d built with make)")
        return 0
    work = ["--relations", ",".join(default_relations(baseline)), *SAME_WORK]
    newer_only = ["--generator", str(generator_of(baseline, options.seed))]
    campaigns = {"default campaign": ([], []), "the older one's campaign": (work, newer_only)}
    rates = {(name, who): [] for name in campaigns for who in ("new", "old")}
    for _ in range(options.rounds):
        for name, (args, newer) in campaigns.items():
            for who, binary in (("old", baseline), ("new", fpdiv)):
                done = checks(binary, ["--seed", str(options.seed), "--time", str(options.seconds), *args,
                                       *(newer if who == "new" else [])])
                rates[name, who].append(len(done) / options.seconds)
    print(f"\nthe campaign against {baseline}: fuzz --seed {options.seed} --time {options.seconds} --no-corpus, "
          f"{options.rounds} alternating rounds, default workers")
    print(f"  {'campaign':26} {'new checks/s':>16} {'old checks/s':>16} {'ratio':>12}")
    for name in campaigns:
        new, old = rates[name, "new"], rates[name, "old"]
        ratios = [n / o for n, o in zip(new, old)]
        print(f"  {name:26} {min(new):7.0f}-{max(new):<8.0f} {min(old):7.0f}-{max(old):<8.0f} "
              f"{min(ratios):5.2f}-{max(ratios):.2f}x")
    print(f"  (the older one's campaign: {' '.join(work)}; the newer one also {' '.join(newer_only)})")
    total, shared, differ, drawn_otherwise = identity(baseline, fpdiv, work, newer_only, options.cases, options.seed)
    print(f"identity on the older one's campaign, one worker's first {total} checks: {shared} drew the same case, "
          f"{len(differ)} of them differ in verdict or hashes (path A, or path B of a relation not changed by design)")
    for relation, why in PATH_B_CHANGED.items():
        print(f"  {relation}: path B compared on path A's hashes alone: {why}")
    for line in differ[:10]:
        print("  " + line)
    others = ", ".join(f"{relation} {count}" for relation, count in drawn_otherwise.most_common())
    print(f"  drawn otherwise (another kernel set, backend or shape): {others or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
