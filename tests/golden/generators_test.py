#!/usr/bin/env python3
"""The committed goldens are what their generators compute.

  /usr/bin/python3 tests/golden/generators_test.py

Runs every generator beside this file (gen_*_goldens.py, found at run time,
so a new one is covered without a change here) with `--out` into a scratch
folder, and compares each file it writes with the committed file of the same
name: any difference fails, with a unified diff. A generator also fails when
it writes nothing, exits with an error, writes a file another generator
wrote, or touches this folder. The generators run on this interpreter (they
need python3-xxhash, scripts/install-deps). Exit status 0 if all match, 1
otherwise.
"""

import difflib
import glob
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Diff lines shown per file; the rest is counted.
MAX_DIFF_LINES = 120


def stats(folder):
    """(mtime, size) of each file directly in `folder`, by name."""
    result = {}
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_file(follow_symlinks=False):
                st = e.stat(follow_symlinks=False)
                result[e.name] = (st.st_mtime_ns, st.st_size)
    return result


def read(path):
    with open(path, "rb") as f:
        return f.read()


def diff(committed, generated, committed_name, generated_name):
    """A unified diff of two different byte strings, at most MAX_DIFF_LINES
    lines. When they differ only in line endings or the last newline, the
    lines are compared with those shown (repr)."""
    a = committed.decode("utf-8", "replace").splitlines()
    b = generated.decode("utf-8", "replace").splitlines()
    if a == b:
        a = [repr(line) for line in
             committed.decode("utf-8", "replace").splitlines(keepends=True)]
        b = [repr(line) for line in
             generated.decode("utf-8", "replace").splitlines(keepends=True)]
    lines = list(difflib.unified_diff(a, b, committed_name, generated_name,
                                      lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        more = len(lines) - MAX_DIFF_LINES
        lines = lines[:MAX_DIFF_LINES] + [f"... ({more} more diff lines)"]
    return "\n".join(lines)


def check(generator, scratch, written_by):
    """Runs `generator` into `scratch`; returns its failures (texts)."""
    name = os.path.basename(generator)
    before = stats(HERE)
    proc = subprocess.run([sys.executable, generator, "--out", scratch],
                          cwd=scratch, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    failures = []
    if proc.returncode != 0:
        failures.append(f"{name} exited with status {proc.returncode}:\n"
                        + proc.stdout.decode("utf-8", "replace"))
    after = stats(HERE)
    touched = sorted(n for n in set(before) | set(after)
                     if before.get(n) != after.get(n))
    if touched:
        failures.append(f"{name} wrote into {HERE} (not into --out): "
                        + ", ".join(touched))
    outputs = []
    for root, _, files in os.walk(scratch):
        outputs += [os.path.relpath(os.path.join(root, f), scratch)
                    for f in files]
    if not outputs and proc.returncode == 0:
        failures.append(f"{name} wrote no file into --out {scratch}")
    for out in sorted(outputs):
        if out in written_by:
            failures.append(f"{out} is written by both {written_by[out]} "
                            f"and {name}")
            continue
        written_by[out] = name
        committed = os.path.join(HERE, out)
        rel = os.path.relpath(committed, ROOT)
        if not os.path.isfile(committed):
            failures.append(f"{name} writes {out}, which is not committed "
                            f"(no {rel})")
            continue
        want, got = read(committed), read(os.path.join(scratch, out))
        if want != got:
            failures.append(
                f"{rel} differs from what {name} writes (- committed, "
                f"+ generated; if the generator is right, regenerate with "
                f"`/usr/bin/python3 {os.path.relpath(generator, ROOT)}`):\n"
                + diff(want, got, f"committed/{out}", f"generated/{out}"))
    return outputs, failures


def main():
    generators = sorted(glob.glob(os.path.join(HERE, "gen_*_goldens.py")))
    if not generators:
        print(f"FAIL: no gen_*_goldens.py in {HERE}")
        return 1
    failed = 0
    written_by = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mapr_goldens_") as tmp:
        for i, generator in enumerate(generators):
            scratch = os.path.join(tmp, str(i))
            os.mkdir(scratch)
            t = time.monotonic()
            outputs, failures = check(generator, scratch, written_by)
            took = time.monotonic() - t
            status = "FAIL" if failures else "ok"
            files = "1 file" if len(outputs) == 1 else f"{len(outputs)} files"
            print(f"{status}: {os.path.basename(generator)} "
                  f"({files}, {took:.2f} s)")
            for f in failures:
                print(f)
            failed += bool(failures)
    print(f"{len(generators) - failed} of {len(generators)} generators "
          f"reproduce their goldens ({time.monotonic() - start:.2f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
