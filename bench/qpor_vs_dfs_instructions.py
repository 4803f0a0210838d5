#!/usr/bin/env python3
"""Issue 3's criterion (saved / speed-up <= 2) in instructions instead of time: deterministic where a timed run of a
few dozen microseconds swings 1.5x between processes on this machine (bench/README.md).

usage: bench/qpor_vs_dfs_instructions.py [--skein build/server/skein] [--runs 20] [ROWS=qpor-vs-dfs.rows]

For each row both explorers run under callgrind with --warm-runs=N (N + 1 explorations in one process); the
instructions of an exploration are the inclusive cost of the explorer's `explore` function divided by N + 1 (the
compile is outside it), for qpor less its explorer's destructor (freeing U) and QporExplorer::reportCounters (its
counters, ~10 k instructions), which its timer does not cover either (dfs frees next to nothing and has no such
counters). What remains is each explorer's timed region plus a few hundred instructions of statistics. saved = dfs runs / qpor runs, speed-up = dfs instructions / qpor instructions. Needs
valgrind; dfs rows over --dfs-limit seconds (default 1) (timed natively first) are skipped, since callgrind is ~50x slower.
"""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import rows  # the rows-file reader (same format)


def runs_and_ms(skein, prog, args):
    p = subprocess.run([skein, "check", "--json", *args, prog], capture_output=True, text=True)
    s = json.loads(p.stdout)["stats"]
    return s["executions"] + s["blocked"] + s["bounded"], s["elapsed_ms"]


def instructions(skein, prog, args, warm, function, minus=()):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", skein, "check",
                        f"--warm-runs={warm}", *args, prog], capture_output=True, text=True)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out], capture_output=True,
                             text=True).stdout
    def cost(name):
        for line in ann.splitlines():
            if name in line:
                return int(re.match(r"\s*([\d,]+)", line).group(1).replace(",", ""))
        raise RuntimeError(f"{name} not in the profile of {prog}")
    return (cost(function) - sum(cost(m) for m in minus)) / (warm + 1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--skein", default=os.path.join(here, "..", "build", "server", "skein"))
    ap.add_argument("--runs", type=int, default=20, help="warm-up explorations per process (qpor; dfs gets 1)")
    ap.add_argument("--dfs-limit", type=float, default=1.0)
    ap.add_argument("rows", nargs="?", default=os.path.join(here, "qpor-vs-dfs.rows"))
    a = ap.parse_args()
    print("| program | dfs runs | dfs instr/exploration | qpor runs | qpor instr/exploration | saved | speed-up | "
          "saved / speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for prog, args, _, _ in rows(a.rows):
        label = os.path.relpath(prog, os.path.join(here, "..")) + (" " + " ".join(args) if args else "")
        dr, dms = runs_and_ms(a.skein, prog, ["--algo=dfs", *args])
        if dms / 1000 > a.dfs_limit:
            print(f"| {label} | dfs takes {dms / 1000:.1f} s natively: skipped | | | | | | |")
            continue
        qr, _ = runs_and_ms(a.skein, prog, ["--algo=qpor", "--alt=optimal", *args])
        di = instructions(a.skein, prog, ["--algo=dfs", *args], 1, "skein::explore::dfs::explore(")
        qi = instructions(a.skein, prog, ["--algo=qpor", "--alt=optimal", *args], a.runs,
                          "skein::explore::unfolding::explore(",
                          ("skein::explore::unfolding::QporExplorer::~QporExplorer()",
                           "skein::explore::unfolding::QporExplorer::reportCounters("))
        saved, speedup = dr / max(qr, 1), di / qi
        ratio = saved / speedup
        worst = max(worst, ratio)
        mark = f"**{ratio:.3f}**" if ratio > 2 else f"{ratio:.3f}"
        print(f"| {label} | {dr:,} | {di / 1e6:,.2f} M | {qr:,} | {qi / 1e6:,.3f} M | {saved:,.1f}x | {speedup:,.1f}x "
              f"| {mark} |", flush=True)
    print(f"\nworst saved / speed-up: {worst:.2f} (the criterion: <= 2; bold rows miss it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
