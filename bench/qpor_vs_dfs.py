#!/usr/bin/env python3
"""Issue 3's "qpor --alt=optimal is faster than dfs by at least the ratio of executions saved, minus 2x".

usage: bench/qpor_vs_dfs.py [--skein build/server/skein] [--cold] [--dfs-runs 5] [--qpor-runs 5] [--neighbour idle|busy]
                           [ROWS=qpor-vs-dfs.rows]

For each row (`program | clang flags`, paths relative to the rows file) both explorers run in child processes: dfs
median of --dfs-runs, qpor median of --qpor-runs, the two explorers' processes alternating (a burst of load from
elsewhere then falls on both) and pinned to the last CPU, each timed by its own stats.elapsed_ms (the exploration,
not start-up or the compile); an exploration under 200 ms is timed 21 times in each process (under 1 ms: 301 times
after 50 warm-up explorations) and the process reports their median (`skein check --timed-runs`). "runs" counts
every explored execution (complete, blocked and bounded). saved = dfs runs / qpor runs, speed-up = dfs ms / qpor ms;
the criterion holds when saved / speed-up <= 2. "paired" is saved over the median of dfs ms / qpor ms taken per pair
of processes run one after the other (each dfs process and the qpor process before it): on a host whose speed
changes between stretches of minutes (bench/README.md, thirteenth session), the ratio of two medians can take its
two figures from different stretches, a pair does not. "fastest" is saved over the ratio of each explorer's fastest
process: the reading that does not credit qpor with a slowdown the host puts on dfs's processes only. "one process"
times both explorers in the same processes: each of --qpor-runs processes runs `skein check --timed-against=dfs`,
where qpor's and dfs's timed explorations take turns in blocks of ten (each block after an untimed run that refills
the caches); a process reports the median over its pairs of blocks of dfs's block median over qpor's
(stats.timed_against.block_ratio), and the column is saved over the median of the processes' — a slow stretch of the
host (up to 2x here, for a fraction of a second or minutes) then falls on both explorers of a pair of blocks, timed
within milliseconds. Only for rows whose dfs exploration takes under 200 ms (those timed many times per process).

The other CPUs' state changes the figures: on this machine (a Firecracker guest) dfs's exploration of
semaphore_buffer.c takes ~56 us whenever the other vCPU runs a busy loop and mostly ~80 us while it is idle, qpor's
~8 us either way (bench/README.md, "Thirty-third session"). --neighbour busy keeps every other CPU spinning (a child
process per CPU, in a loop that touches no memory) for the whole run, so that each row is measured in that state;
the default, idle, leaves them alone, as before.

By default each timed run follows warm-up explorations in the same process (`skein check --warm-runs`: 20 for qpor,
and for dfs too when its probe run took under 200 ms — one for a longer dfs run, whose warm-up would cost minutes),
so both figures are a warm process's and the two explorers of a short row are warmed alike. Without it, a qpor
exploration of a few dozen microseconds is mostly the processor's cold start (its code and data not yet in the
caches: ~0.15 ms here), which a dfs run of thousands of executions amortises; --cold measures that single-shot
figure instead. Rows where dfs does not finish within --dfs-limit seconds are skipped, as are rows qpor stops on (an
explorer limit: the default check hands those programs to dfs, so the criterion's "where both finish" excludes them)
and rows that do not compile (listed with their first diagnostic). bench/corpus_rows.py writes rows for every corpus
program and example, at the flags of each of its `expect:` lines: the wider sweep.
"""
import argparse, json, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import rows  # the rows-file reader (same format)


def pin():
    """Runs the child on the last CPU: a process that migrates between cores mid-measurement restarts cold."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})


class Measure:
    """One explorer on one row: elapsed_ms of each process. An exploration under 200 ms is timed 21 times in each
    process (--timed-runs: the process reports their median), since one run of a few dozen microseconds swings 2-3x
    here."""

    def __init__(self, skein, prog, args, warm=0, short_warm=None):
        self.skein, self.prog, self.args = skein, prog, args
        self.warm = warm
        probe = self.one(1)
        # Under a millisecond, 21 timings still swing by a third from one process to the next (a row of ~10 us
        # measured 7 us and 12 us): 301 of them, after 50 warm-up explorations, as bench/README.md's A/B runs do.
        tiny = probe[1] < 1 and warm > 0
        self.timed = 301 if tiny else 21 if probe[1] < 200 else 1
        if tiny:
            self.warm = 50
        elif short_warm is not None and probe[1] < 200:
            self.warm = short_warm  # cheap to warm as much as the other explorer
        self.out = [probe] if self.timed == 1 else []  # the probe counts only when timed like the others

    def run(self, timed, warm, extra=()):
        """One process: its JSON result."""
        p = subprocess.run([self.skein, "check", "--json", *self.args, *extra, f"--warm-runs={warm}",
                            f"--timed-runs={timed}", self.prog],
                           capture_output=True, text=True, preexec_fn=pin)
        return json.loads(p.stdout)

    def one(self, timed):
        j = self.run(timed, self.warm)
        if "stats" not in j:  # no exploration: the program does not compile, or is refused before it runs
            raise NotChecked(next((d["message"] for d in j.get("diagnostics", [])), "no result"))
        s = j["stats"]
        # Stopped early: why (the first bound — a time limit, or an explorer limit the default check hands to dfs).
        stop = ((j.get("bounds") or ["stopped early"])[0] or "stopped early") if j["stopped_early"] else ""
        return s["executions"] + s["blocked"] + s["bounded"], s["elapsed_ms"], stop

    def together(self, other, warm, timed):
        """other's ms / this explorer's ms in one process that times both (`--timed-against`, `warm` warm-up and
        `timed` timed explorations of each): the median over its pairs of blocks (timed within milliseconds)."""
        against = self.run(timed, warm, [f"--timed-against={other}"])["stats"].get("timed_against")
        return against["block_ratio"] if against else None

    def step(self):
        self.out.append(self.one(self.timed))

    def result(self):
        """runs, median ms, and why a process stopped early ("" when none did)."""
        return self.out[0][0], statistics.median(x[1] for x in self.out), next((x[2] for x in self.out if x[2]), "")

    def fastest(self):
        return min(x[1] for x in self.out)


class NotChecked(Exception):
    """A row neither explorer can check (its first diagnostic): printed as such, and the table goes on."""


def busy_neighbours():
    """Child processes spinning on every CPU but the measuring one (see the module's note); killed at exit."""
    cpus = sorted(os.sched_getaffinity(0))
    spin = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass\n"
    return [subprocess.Popen([sys.executable, "-c", spin, str(c)]) for c in cpus[:-1]]


def measure_both(dfs, qpor, dfs_runs, qpor_runs):
    """The two explorers' processes alternate, so that a stretch of load from elsewhere on this shared machine
    falls on both rather than on whichever ran during it (a burst once doubled one row's qpor figure). Returns the
    pairs (dfs ms, qpor ms) of each dfs process and the qpor process just before it: on a host whose speed changes
    from one stretch of minutes to the next, a pair's two processes ran in the same stretch."""
    pairs = []
    while len(dfs.out) < dfs_runs or len(qpor.out) < qpor_runs:
        if len(qpor.out) < qpor_runs:
            qpor.step()
        if len(dfs.out) < dfs_runs and len(dfs.out) * qpor_runs <= len(qpor.out) * dfs_runs:
            dfs.step()
            if qpor.out:
                pairs.append((dfs.out[-1][1], qpor.out[-1][1]))
    return pairs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--skein", default=os.path.join(here, "..", "build", "server", "skein"))
    ap.add_argument("--cold", action="store_true", help="no warm-up explorations")
    ap.add_argument("--dfs-runs", type=int, default=5)
    ap.add_argument("--qpor-runs", type=int, default=5)
    ap.add_argument("--dfs-limit", type=float, default=20)
    ap.add_argument("--neighbour", choices=["idle", "busy"], default="idle",
                    help="the other CPUs while measuring: left alone, or each running a busy loop")
    ap.add_argument("rows", nargs="?", default=os.path.join(here, "qpor-vs-dfs.rows"))
    a = ap.parse_args()
    spinners = busy_neighbours() if a.neighbour == "busy" else []
    try:
        return table(a)
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def table(a):
    here = os.path.dirname(os.path.abspath(__file__))
    dw, qw = (0, 0) if a.cold else (1, 20)
    print("| program | dfs runs | dfs ms | qpor runs | qpor ms | saved | speed-up | saved / speed-up | paired | "
          "fastest | one process |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = worst_fastest = worst_together = 0.0
    for prog, args, _, _ in rows(a.rows):
        label = os.path.relpath(prog, os.path.join(here, "..")) + (" " + " ".join(args) if args else "")
        try:
            dfs = Measure(a.skein, prog, ["--algo=dfs", f"--time-limit={a.dfs_limit}", *args], dw,
                          None if a.cold else qw)
        except NotChecked as e:
            print(f"| {label} | not checked: {e} | | | | | | | | |", flush=True)
            continue
        if dfs.out and dfs.out[0][2]:
            print(f"| {label} | dfs did not finish in {a.dfs_limit:g} s | | | | | | | | |")
            continue
        qpor = Measure(a.skein, prog, ["--algo=qpor", "--alt=optimal", *args], qw)
        pairs = measure_both(dfs, qpor, a.dfs_runs, a.qpor_runs)
        dr, dm, cut = dfs.result()
        if cut:
            print(f"| {label} | dfs did not finish in {a.dfs_limit:g} s | | | | | | | | |")
            continue
        qr, qm, qstop = qpor.result()
        if qstop:  # an explorer limit (`skein check` then hands the program to dfs), or qpor's budget
            print(f"| {label} | {dr:,} | {dm:.3f} | qpor stops: {qstop} | | | | | | |", flush=True)
            continue
        saved, speedup = dr / max(qr, 1), dm / max(qm, 1e-9)
        ratio = saved / speedup
        worst = max(worst, ratio)
        mark = f"**{ratio:.2f}**" if ratio > 2 else f"{ratio:.2f}"
        paired = saved / statistics.median(d / max(q, 1e-9) for d, q in pairs) if pairs else float("nan")
        fastest = saved / (dfs.fastest() / max(qpor.fastest(), 1e-9))
        worst_fastest = max(worst_fastest, fastest)
        together = "—"
        if dfs.timed > 1:  # a dfs run under 200 ms: both explorers timed in each of --qpor-runs processes
            ratios = [qpor.together("dfs", dfs.warm, dfs.timed) for _ in range(a.qpor_runs)]
            ratios = [x for x in ratios if x]
            if ratios:
                one = saved / statistics.median(ratios)
                worst_together = max(worst_together, one)
                together = f"{one:.2f}"
        print(f"| {label} | {dr:,} | {dm:.3f} | {qr:,} | {qm:.4f} | {saved:,.1f}x | {speedup:,.1f}x | {mark} | "
              f"{paired:.2f} | {fastest:.2f} | {together} |", flush=True)
    print(f"\nworst saved / speed-up: {worst:.2f} (the criterion: <= 2; bold rows miss it); "
          f"each explorer's fastest process: {worst_fastest:.2f}; both in one process: {worst_together:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
