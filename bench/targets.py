#!/usr/bin/env python3
"""Measures the performance targets of bench/README.md from `skein check --json` statistics.

usage: bench/targets.py [--skein build/server/skein] [--runs 3] [ROWS=bench/targets.rows]

Each row of the rows file (`program | flags and options`, paths relative to the rows file, `# target: TAG`
after the row) is run --runs times; the figures are medians over the runs. Unlike `skein bench`, which divides
by the wall time of the whole process (start-up and compile included), the rates here use the explorer's own
stats.elapsed_ms, and the compile time is stats.compile_ms. Peak RSS is the process's (stats.peak_rss_kb).
"""
import argparse, json, os, statistics, subprocess, sys

TARGETS = {
    "compile": ("in-process compile of a 200-line file", "compile_ms", lambda v: v < 100, "< 100 ms"),
    "ips": ("CPU-bound loop, IR instructions per second", "minstr_per_s", lambda v: v >= 30, ">= 30 M/s"),
    "eps": ("dfs executions per second, ~10 events each", "exec_per_s", lambda v: v >= 50000, ">= 50,000/s"),
}
MEM_MARGIN = 0.10  # peak RSS at 10x the executions within 10% of the 1x figure


def rows(path):
    base = os.path.dirname(os.path.abspath(path))
    for line in open(path):
        tag = None
        if "# target:" in line:
            tag = line.split("# target:", 1)[1].strip()
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        prog, _, args = line.partition("|")
        prog = prog.strip()
        if not prog.startswith("/"):
            prog = os.path.join(base, prog)
        yield prog, args.split(), args.strip(), tag


def measure(skein, prog, args, runs):
    samples = []
    for _ in range(runs):
        p = subprocess.run([skein, "check", "--json", *args, prog], capture_output=True, text=True)
        j = json.loads(p.stdout)
        s = j["stats"]
        n = s["executions"] + s["blocked"] + s["bounded"]
        el = max(s["elapsed_ms"], 1e-9)
        samples.append({
            "verdict": j["verdict"], "executions": n, "events_per_exec": s["events"] / max(n, 1),
            "compile_ms": s["compile_ms"], "elapsed_ms": s["elapsed_ms"],
            "minstr_per_s": s["instructions"] / el / 1000.0, "exec_per_s": n / el * 1000.0,
            "events_per_s": s["events"] / el * 1000.0, "peak_rss_kb": s["peak_rss_kb"],
        })
    med = {k: statistics.median(x[k] for x in samples) for k in samples[0] if k != "verdict"}
    med["verdict"] = samples[0]["verdict"]
    med["all"] = samples
    return med


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--skein", default=os.path.join(here, "..", "build", "server", "skein"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("rows", nargs="?", default=os.path.join(here, "targets.rows"))
    a = ap.parse_args()
    print(f"{'program':16} {'params':48} {'verdict':8} {'execs':>9} {'ev/exec':>7} {'compile ms':>10} "
          f"{'explore ms':>10} {'M instr/s':>9} {'execs/s':>9} {'events/s':>10} {'RSS KB':>8}")
    mem = {}
    ok = True
    for prog, args, label, tag in rows(a.rows):
        m = measure(a.skein, prog, args, a.runs)
        print(f"{os.path.basename(prog):16} {label[:48]:48} {m['verdict']:8} {m['executions']:9.0f} "
              f"{m['events_per_exec']:7.1f} {m['compile_ms']:10.1f} {m['elapsed_ms']:10.1f} {m['minstr_per_s']:9.1f} "
              f"{m['exec_per_s']:9.0f} {m['events_per_s']:10.0f} {m['peak_rss_kb']:8.0f}")
        if tag in TARGETS:
            what, key, test, goal = TARGETS[tag]
            met = test(m[key])
            ok &= met
            print(f"  -> target {what}: {m[key]:.1f} (goal {goal}): {'MET' if met else 'NOT MET'}")
        elif tag in ("mem1", "mem10"):
            mem.setdefault(os.path.basename(prog), {})[tag] = m
    for prog, d in mem.items():
        if "mem1" in d and "mem10" in d:
            r1, r10 = d["mem1"]["peak_rss_kb"], d["mem10"]["peak_rss_kb"]
            e1, e10 = d["mem1"]["executions"], d["mem10"]["executions"]
            growth = (r10 - r1) / r1
            met = growth <= MEM_MARGIN
            ok &= met
            print(f"  -> target memory flat ({prog}): {e1:.0f} execs {r1:.0f} KB, {e10:.0f} execs {r10:.0f} KB, "
                  f"growth {growth * 100:+.1f}% (goal <= +{MEM_MARGIN * 100:.0f}%): {'MET' if met else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
