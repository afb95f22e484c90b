#!/usr/bin/env python3
"""Runs a command and checks its exit status, its output and sanitizer reports.

ctest's PASS_REGULAR_EXPRESSION makes ctest ignore a test's exit status: a
program that prints the expected line, then a LeakSanitizer report, then
exits 23 passes. Tests register this instead:

    expect_output.py [--exit N] [--match REGEX]... [--no-match REGEX]...
                     [--self-test] -- COMMAND [ARG...]

It runs COMMAND with stdout and stderr together and passes only if
- the exit status is N (default 0; a death by signal never passes),
- every --match REGEX is found in the output (Python re, DOTALL|MULTILINE),
- no --no-match REGEX is found, and
- no sanitizer or valgrind report is in the output (AddressSanitizer,
  LeakSanitizer, ThreadSanitizer, UndefinedBehaviorSanitizer's "runtime
  error:", valgrind's "ERROR SUMMARY: N errors" with N > 0).
On failure it prints what failed and the whole output, and exits 1.
--self-test checks the checker against stand-ins that must fail.
"""

import argparse
import re
import subprocess
import sys

REPORTS = [
    r"ERROR: AddressSanitizer",
    r"ERROR: LeakSanitizer",
    r"WARNING: ThreadSanitizer",
    r"ThreadSanitizer: reported \d+ warnings",
    r": runtime error: ",
    r"ERROR SUMMARY: [1-9]\d* errors",
]


def verdict(args, command):
    """(ok, why, output) for one run of `command`."""
    p = subprocess.run(command, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out = p.stdout.decode("utf-8", "replace")
    flags = re.DOTALL | re.MULTILINE
    if p.returncode != args.exit:
        return False, "exit status %d, expected %d" % (p.returncode,
                                                       args.exit), out
    for rx in args.match:
        if not re.search(rx, out, flags):
            return False, "no match for %r" % rx, out
    for rx in args.no_match + REPORTS:
        m = re.search(rx, out, flags)
        if m:
            return False, "found %r (%r)" % (m.group(0), rx), out
    return True, "", out


def self_test():
    """The checker fails each broken stand-in and passes a good one."""
    line = r"echo ' 597 |  6.000000 '"
    match = [r" 597 \| +6\.000000 "]
    cases = [  # (expected verdict, exit, command)
        (True, 0, line),
        (False, 0, line + "; exit 23"),  # LeakSanitizer's exit status
        (False, 0, line + "; echo '==1==ERROR: LeakSanitizer: detected "
                          "memory leaks'"),
        (False, 0, line + "; echo 'WARNING: ThreadSanitizer: data race'"),
        (False, 0, line + "; echo 'x.c:3:5: runtime error: signed integer "
                          "overflow'"),
        (False, 0, line + "; echo '==1== ERROR SUMMARY: 2 errors from 2 "
                          "contexts'"),
        (False, 0, line + "; kill -SEGV $$"),
        (False, 0, "echo 'no result'"),
        (True, 1, line + "; exit 1"),
        (False, 1, line),
    ]
    failures = 0
    for want, code, cmd in cases:
        args = argparse.Namespace(exit=code, match=match, no_match=[])
        ok, why, _ = verdict(args, ["sh", "-c", cmd])
        if ok != want:
            failures += 1
            print("self-test: %r (exit %d) gave %s, expected %s %s" %
                  (cmd, code, ok, want, why))
    print("expect_output self-test: %d passed, %d failed" %
          (len(cases) - failures, failures))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--match", action="append", default=[])
    parser.add_argument("--no-match", action="append", default=[])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    ok, why, out = verdict(args, command)
    sys.stdout.write(out)
    if not ok:
        print("expect_output: FAILED: %s" % why)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
