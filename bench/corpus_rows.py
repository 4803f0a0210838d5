#!/usr/bin/env python3
"""Prints a rows file (`program | clang flags`) of every corpus program and example, at each set of preprocessor
flags one of its `expect:` lines uses — the configurations the corpus runner checks — for a wider sweep of
bench/qpor_vs_dfs.py than its default rows (issue 3: "on every program where both finish").

usage: bench/corpus_rows.py [--skip ROWS] > sweep.rows

A program's flag sets are the -D/-U/-I/-std words of its expect lines (the skein options there, such as --algo,
are not clang flags); a line with other skein options that change what is explored (--no-race-detection, bounds)
is left out, and a program without expect lines gets one row at its defaults. --skip leaves out the programs
already in another rows file (the default rows: bench/qpor-vs-dfs.rows). Paths are absolute.
"""
import argparse, glob, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import rows  # the rows-file reader

CLANG = re.compile(r"^-(D|U|I|std=)")
# Skein options that leave the explored program as it is: such a line's flags are a configuration too.
NEUTRAL = re.compile(r"^--(algo|alt)=")


def flag_sets(path):
    seen = []
    for line in open(path, errors="replace"):
        m = re.search(r"expect:(.*?)=>", line)
        if not m:
            continue
        words = m.group(1).split()
        if any(w.startswith("--") and not NEUTRAL.match(w) for w in words):
            continue
        flags = tuple(w for w in words if CLANG.match(w))
        if flags not in seen:
            seen.append(flags)
    return seen or [()]


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", default=os.path.join(root, "bench", "qpor-vs-dfs.rows"))
    a = ap.parse_args()
    skip = {(os.path.realpath(p), tuple(args)) for p, args, _, _ in rows(a.skip)} if a.skip else set()
    patterns = ["tests/corpus/*.c", "tests/corpus/*/*.c", "examples/*.c", "examples/*/*.c"]
    for path in sorted({os.path.realpath(p) for pat in patterns for p in glob.glob(os.path.join(root, pat))}):
        for flags in flag_sets(path):
            if (path, flags) not in skip:
                print(f"{path} | {' '.join(flags)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
