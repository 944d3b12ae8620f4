#!/usr/bin/env python3
"""The compile-time benchmark: what a user waits for, per tool, against rmcp 3.11.

Generates (generate.py) one workspace with a crate per (variant, N) under OUT (default
/tmp/mcp-compile-bench) with its own target dir, builds the dependencies once, then, for each
repetition, N and variant in turn (interleaved, so that a busy moment of the machine lands on
every variant alike), times with the wall clock:

  full        build of the crate alone, its dependencies already built
  incr_same   incremental build after an edit in tool 0's body that keeps the line's length
  incr_len    incremental build after an edit in tool 0's body that changes the line's length
              (every byte after it, i.e. every other tool, moves)
  check_len   `cargo check` after such an edit (the edit loop of an IDE)

It reports the median of the repetitions at each N, the per-tool slope between the smallest and
the largest N ((t_big - t_small) / (N_big - N_small)), which cancels what does not grow with
the tools (dependencies' metadata, linking the runtime), and the ratio of ours to rmcp's slope
(params / `#[input]`). `plain`, the `#[input]` crate's own code with no server (generate.py),
is a lower bound under that style; the last column is what `#[input]` adds above it over
what rmcp adds above it.
`expanded` is the per-tool slope of `cargo expand`'s line count.

With --time-passes it instead builds each variant at the largest N with
`RUSTC_BOOTSTRAP=1 ... -Ztime-passes`, makes the length-changing edit, and prints the passes
that grow with the tools (bench only: the product never uses unstable flags).

Usage: scripts/compile-time/run.py [--ns 50,200] [--reps 3] [--variants ours_params,ours_input,rmcp,plain]
                                   [--out DIR] [--json FILE] [--time-passes]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VARIANTS = ("ours_params", "ours_input", "rmcp", "plain")
LABELS = {"ours_params": "ours (params)", "ours_input": "ours (`#[input]`)", "rmcp": "rmcp 3.11",
          "plain": "user code alone"}
METRICS = {
    "full": "full crate rebuild",
    "incr_same": "incremental build, edit in one tool's body (same length)",
    "incr_len": "incremental build, edit that changes a line's length",
    "check_len": "`cargo check` after a length-changing edit",
}
PASSES = ("expand_crate", "hir_lowering", "type_check_crate", "MIR_borrow_checking", "coherence_checking",
          "codegen_crate", "LLVM_passes", "link", "total")


def crate(variant, n):
    return f"{variant.replace('_', '-')}-{n}"


class Bench:
    def __init__(self, out):
        self.out = out
        self.ws = out / "ws"
        self.target = out / "target"
        self.env = dict(os.environ, CARGO_TARGET_DIR=str(self.target), CARGO_TERM_COLOR="never")
        self.env.pop("RUSTFLAGS", None)

    def cargo(self, *args, env=None, capture=False):
        r = subprocess.run(["cargo", *args], cwd=self.ws, env=env or self.env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"cargo {' '.join(args)} failed:\n{r.stderr[-4000:]}")
        return r.stderr if capture else None

    def timed(self, *args):
        t = time.perf_counter()
        self.cargo(*args)
        return time.perf_counter() - t

    def edit(self, variant, n, same_length):
        """Edits `let step = X;` in tool 0: 1 <-> 2 (same length) or X <-> X0 (length)."""
        path = self.ws / crate(variant, n) / "src" / "main.rs"
        text = path.read_text()
        m = re.search(r"let step = (\d+);", text)
        x = m.group(1)
        if same_length:
            y = x.replace("1", "#").replace("2", "1").replace("#", "2")
        else:
            y = x[:-1] if x.endswith("0") else x + "0"
        path.write_text(text[: m.start(1)] + y + text[m.end(1):])

    def clean(self, variant, n):
        name = crate(variant, n)
        debug = self.target / "debug"
        stem = name.replace("-", "_")
        for sub in ("deps", ".fingerprint", "incremental", "build"):
            for p in (debug / sub).glob(f"{stem}-*"):
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            for p in (debug / sub).glob(f"{name}-*"):
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        (debug / name).unlink(missing_ok=True)

    def measure(self, variant, n):
        c = crate(variant, n)
        self.clean(variant, n)
        r = {"full": self.timed("build", "-q", "-p", c)}
        self.edit(variant, n, True)
        r["incr_same"] = self.timed("build", "-q", "-p", c)
        self.edit(variant, n, False)
        r["incr_len"] = self.timed("build", "-q", "-p", c)
        self.cargo("check", "-q", "-p", c)
        self.edit(variant, n, False)
        r["check_len"] = self.timed("check", "-q", "-p", c)
        return r

    def expanded_lines(self, variant, n):
        r = subprocess.run(["cargo", "expand", "-p", crate(variant, n), "--bin", crate(variant, n)],
                           cwd=self.ws, env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"cargo expand failed:\n{r.stderr[-4000:]}")
        return len(r.stdout.splitlines())

    def time_passes(self, variant, n):
        """-Ztime-passes of an incremental build after each edit kind: {kind: {pass: seconds}}."""
        c = crate(variant, n)
        env = dict(self.env, RUSTC_BOOTSTRAP="1")
        args = ("rustc", "-q", "-p", c, "--bin", c, "--", "-Ztime-passes")
        self.cargo(*args, env=env)
        out = {}
        for kind, same in (("same", True), ("len", False)):
            self.edit(variant, n, same)
            t = time.perf_counter()
            err = self.cargo(*args, env=env, capture=True)
            passes = {"wall": time.perf_counter() - t}
            for line in err.splitlines():
                m = re.match(r"time:\s+([\d.]+);.*\s(\S+)$", line)
                if m and m.group(2) in PASSES:
                    passes[m.group(2)] = passes.get(m.group(2), 0.0) + float(m.group(1))
            out[kind] = passes
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns", default="50,200")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out", default="/tmp/mcp-compile-bench")
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose mcp-runtime is measured (default: this one)")
    ap.add_argument("--json")
    ap.add_argument("--time-passes", action="store_true")
    a = ap.parse_args()
    ns = sorted(int(n) for n in a.ns.split(","))
    variants = a.variants.split(",")
    b = Bench(Path(a.out))
    b.ws.mkdir(parents=True, exist_ok=True)
    repo = Path(a.repo).resolve()
    subprocess.run([sys.executable, HERE / "generate.py", b.ws, repo, *map(str, ns)], check=True)
    print(f"repository {repo} at {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=repo, capture_output=True, text=True).stdout.strip()}; "
          f"{subprocess.run(['rustc', '--version'], capture_output=True, text=True).stdout.strip()}; {os.cpu_count()} cpus", flush=True)
    for v in variants:
        for n in ns:
            b.cargo("build", "-q", "-p", crate(v, n))
            b.cargo("check", "-q", "-p", crate(v, n))

    if a.time_passes:
        n = ns[-1]
        rows = {v: b.time_passes(v, n) for v in variants}
        print(f"\n-Ztime-passes, N = {n}: incremental build after an edit in tool 0 that keeps (same) or "
              "changes (len) the line's length (seconds)\n")
        cols = [(v, k) for v in variants for k in ("same", "len")]
        print("| pass | " + " | ".join(f"{LABELS[v]} {k}" for v, k in cols) + " |")
        print("|---|" + "---:|" * len(cols))
        for p in ("wall",) + PASSES:
            print(f"| {p} | " + " | ".join(f"{rows[v][k].get(p, 0):.2f}" for v, k in cols) + " |")
        return

    samples = {v: {n: {m: [] for m in METRICS} for n in ns} for v in variants}
    for rep in range(a.reps):
        for n in ns:
            for v in variants:
                r = b.measure(v, n)
                for m, t in r.items():
                    samples[v][n][m].append(t)
                print(f"rep {rep + 1} N={n:<4} {v:<12} " + "  ".join(f"{m} {t:6.2f}s" for m, t in r.items()), flush=True)
    lines = {v: {n: b.expanded_lines(v, n) for n in ns} for v in variants}

    lo, hi = ns[0], ns[-1]
    med = {v: {n: {m: statistics.median(samples[v][n][m]) for m in METRICS} for n in ns} for v in variants}
    slope = {v: {m: (med[v][hi][m] - med[v][lo][m]) / (hi - lo) for m in METRICS} for v in variants}
    for v in variants:
        slope[v]["expanded"] = (lines[v][hi] - lines[v][lo]) / (hi - lo)

    print(f"\nmedians of {a.reps} (seconds)\n")
    print("| metric | N | " + " | ".join(LABELS[v] for v in variants) + " |")
    print("|---|---:|" + "---:|" * len(variants))
    for m in METRICS:
        for n in ns:
            spread = lambda v: f"{med[v][n][m]:.2f} ({min(samples[v][n][m]):.2f}–{max(samples[v][n][m]):.2f})"
            print(f"| {m} | {n} | " + " | ".join(spread(v) for v in variants) + " |")
    ours = [v for v in variants if v.startswith("ours")]
    ratio = "rmcp" in variants and ours
    # What each server adds above the user's own code (the `#[input]` style's, which `plain` is).
    added = ratio and "plain" in variants and "ours_input" in variants
    print(f"\nper tool (slope between N = {lo} and N = {hi})\n")
    columns = [LABELS[v] for v in variants] + ["ours ÷ rmcp"] * bool(ratio)
    columns += ["above user code, `#[input]` ÷ rmcp"] * bool(added)
    print("| per tool | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for m, label in list(METRICS.items()) + [("expanded", "expanded lines")]:
        unit = (lambda x: f"{x:.0f}") if m == "expanded" else (lambda x: f"{x * 1000:.0f} ms")
        row = f"| {label} | " + " | ".join(unit(slope[v][m]) for v in variants)
        if ratio:
            ratios = [slope[v][m] / slope["rmcp"][m] if slope["rmcp"][m] > 0 else float("nan") for v in ours]
            row += " | " + " / ".join(f"{r:.2f}" for r in ratios)
        if added:
            over = slope["rmcp"][m] - slope["plain"][m]
            row += f" | {(slope['ours_input'][m] - slope['plain'][m]) / over:.2f}" if over > 0 else " | –"
        print(row + " |")
    if a.json:
        Path(a.json).write_text(json.dumps({"ns": ns, "samples": samples, "expanded": lines, "slope": slope}, indent=1))


if __name__ == "__main__":
    main()
