#!/usr/bin/env python3
"""mapr's syslog-ng python() destination (bindings/syslog-ng/mapr_syslogng.py;
docs/cli.md, "Behind syslog-ng").

Starts a private syslog-ng 3.38 from syslog-ng.conf.in (next to this file)
in a temporary directory: its own socket, config, persist, pid and control
files, run with -F --no-caps, no system file touched. Debian's syslog-ng
package conflicts with rsyslog, so scripts/install-deps unpacks it into
/opt/mapr-test/syslog-ng (MAPR_SYSLOG_NG_ROOT) instead of installing it; a
syslog-ng on PATH is used when that folder is missing.

The config has three destinations: a cumulative report (report.csv) of the
messages of programs webapp-a and webapp-b, and delta partials of each
program's messages (parts/a.parts, parts/b.parts). The test sends
generated `k=v|k=v` lines with `logger` in three bursts (split at random
between the two programs, between noise from a third program), and checks:
every burst's cumulative result shows up in an interval report, and the
reports never go back; after SIGTERM the final report is byte for byte
`mapr -o csv QUERY FILE` over the same lines, and so is `mapr reduce` of
the two partials files (each ended by a final partial); batch-lines(100)
is honoured (every push into mapr holds at most 100 lines, some exactly
100, and there are far fewer pushes than lines). A second test starts
syslog-ng with a bad query: it must refuse to start and print mapr's error.

Also checks that docs/cli.md shows the config and the commands that start
syslog-ng (with the doc's paths).

  MAPR_BIN=build/dev/bindings/cli/mapr \
  PYTHONPATH=build/dev/bindings/python python3 tests/daemon/syslog_ng_test.py

Exits 77 (CTest's SKIP_RETURN_CODE) after the doc check when syslog-ng,
its python module, logger or the mapr Python module is missing (unless CI
is set: there it fails). Set MAPR_TEST_SEED to repeat a run's lines.
Standard library only.
"""

import glob
import importlib
import math
import os
import random
import shutil
import signal
import subprocess
import unittest

from daemon_case import (HEADER, SEED, DaemonTestCase, aggregate, generate,
                         main, read_text, take_binary_from_argv)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
MODULE_DIR = os.path.join(ROOT, "bindings", "syslog-ng")
MAPR_BIN = take_binary_from_argv() or os.environ.get("MAPR_BIN", "")
SYSLOG_NG_ROOT = os.environ.get("MAPR_SYSLOG_NG_ROOT",
                                "/opt/mapr-test/syslog-ng")

# The paths docs/cli.md shows in place of the test's temporary ones.
DOC_DIR = "/tmp/mapr-syslog-ng"
DOC_ROOT = "/opt/mapr-test/syslog-ng"
DOC_PYTHONPATH = ("/usr/local/src/mapr/bindings/syslog-ng:"
                  "/usr/local/src/mapr/build/release/bindings/python")

QUERY = ("select user,count($line),sum(bytes),max(bytes) group by user "
         "logformat generickv")
BURSTS = 3
LINES_PER_BURST = 1000
BATCH_LINES = 100


class SyslogNg(object):
    """Where a syslog-ng with the python module is: the unpacked Debian
    packages under `root`, else one on PATH."""

    def __init__(self, root, search_path=True):
        self.binary = os.path.join(root, "usr", "sbin", "syslog-ng")
        self.lib_dir = os.path.join(root, "usr", "lib", "syslog-ng")
        self.module_dir = os.path.join(self.lib_dir, "3.38")
        if search_path and not os.path.exists(self.binary):
            path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
            self.binary = shutil.which("syslog-ng", path=path)
            self.lib_dir = None
            self.module_dir = None

    def missing(self):
        """Why this syslog-ng cannot run the test, or None."""
        if not self.binary:
            return ("syslog-ng not found in %s or on PATH (scripts/"
                    "install-deps unpacks Debian's syslog-ng-core and "
                    "syslog-ng-mod-python there)" % SYSLOG_NG_ROOT)
        if self.module_dir and not glob.glob(
                os.path.join(self.module_dir, "libmod-python*.so")):
            return "syslog-ng's python module (syslog-ng-mod-python) missing"
        if not shutil.which("logger"):
            return "logger (bsdutils) missing"
        try:
            importlib.import_module("mapr")
        except ImportError as e:
            return ("the mapr Python module does not import (set PYTHONPATH "
                    "to build/dev/bindings/python): %s" % e)
        return None

    def environment(self, pythonpath):
        env = {"PYTHONPATH": pythonpath}
        if self.lib_dir:
            env["LD_LIBRARY_PATH"] = self.lib_dir
        return env

    def argv(self, directory):
        argv = [self.binary, "-F", "--no-caps", "-e"]
        if self.module_dir:
            argv.append("--module-path=" + self.module_dir)
        return argv + ["-f", directory + "/syslog-ng.conf",
                       "-R", directory + "/syslog-ng.persist",
                       "-p", directory + "/syslog-ng.pid",
                       "-c", directory + "/syslog-ng.ctl"]


def start_commands(syslog_ng, directory, pythonpath):
    """The shell commands that start syslog-ng as the test does (docs/cli.md
    shows them with its paths)."""
    lines = ["$ mkdir -p %s/parts" % directory]
    for name, value in sorted(syslog_ng.environment(pythonpath).items()):
        lines.append("$ export %s=%s" % (name, value))
    lines.append("$ %s >%s/syslog-ng.log 2>&1 &" %
                 (" ".join(syslog_ng.argv(directory)), directory))
    return "\n".join(lines) + "\n"


def render(template, directory):
    with open(os.path.join(HERE, template), encoding="utf-8") as f:
        return f.read().replace("@DIR@", directory)


def parse_report(text):
    """A CSV report -> {user: (count, sum, max)}, or None when it is not
    one (its header is checked)."""
    lines = text.splitlines()
    if not lines or lines[0] != HEADER:
        return None
    rows = {}
    for line in lines[1:]:
        user, count, total, biggest = line.split(",")
        rows[user] = (int(count), float(total), float(biggest))
    return rows


class DocTest(unittest.TestCase):
    """docs/cli.md shows the config and the start commands this test runs,
    with its paths."""

    def test_doc_shows_the_config_and_commands(self):
        with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
            doc = f.read()
        block = "```\n%s```\n" % render("syslog-ng.conf.in", DOC_DIR)
        self.assertIn(block, doc, "docs/cli.md lacks syslog-ng.conf.in as "
                      "rendered with %s:\n%s" % (DOC_DIR, block))
        commands = start_commands(SyslogNg(DOC_ROOT, search_path=False),
                                  DOC_DIR, DOC_PYTHONPATH)
        self.assertIn("```\n" + commands, doc,
                      "docs/cli.md lacks the commands:\n" + commands)


SYSLOG_NG = SyslogNg(SYSLOG_NG_ROOT)
WHY_MISSING = SYSLOG_NG.missing()


@unittest.skipIf(WHY_MISSING and not os.environ.get("CI"), WHY_MISSING)
class SyslogNgTest(DaemonTestCase):

    DAEMON = "syslog-ng"
    LOGS = ("syslog-ng.log", "report.csv")
    SEED = SEED


    def setUp(self):
        if WHY_MISSING:  # On CI: install-deps should have provided it.
            self.fail(WHY_MISSING)
        if not MAPR_BIN or not os.access(MAPR_BIN, os.X_OK):
            self.fail("set MAPR_BIN to the mapr binary (got %r)" % MAPR_BIN)
        self.make_dir("mapr-syslog-ng-")
        os.mkdir(self.path("parts"))
        self.rng = random.Random(SEED)

    def start(self, config):
        with open(self.path("syslog-ng.conf"), "w", encoding="utf-8") as f:
            f.write(config)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        pythonpath = [MODULE_DIR, os.environ.get("PYTHONPATH", "")]
        env.update(SYSLOG_NG.environment(
            os.pathsep.join(p for p in pythonpath if p)))
        with open(self.path("syslog-ng.log"), "wb") as out:
            self.process = subprocess.Popen(
                SYSLOG_NG.argv(self.dir), env=env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("syslog-ng still runs 20 s after SIGTERM\n" +
                      self.diagnostics())
        self.assertEqual(code, 0, self.diagnostics())

    def one_pass(self, lines):
        with open(self.path("sent.log"), "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        return subprocess.run([MAPR_BIN, "-o", "csv", QUERY,
                               self.path("sent.log")], capture_output=True,
                              timeout=60, check=True).stdout

    def test_report_partials_and_batches(self):
        self.start(render("syslog-ng.conf.in", self.dir))
        self.wait_for("socket", lambda: os.path.exists(self.socket), 15)
        sent = []
        seen = []  # Every version of report.csv the test saw.

        def report_shows(expected):
            rows = parse_report(read_text(self.path("report.csv")))
            if rows is not None and (not seen or seen[-1] != rows):
                seen.append(rows)
            return rows == expected

        for burst in range(BURSTS):
            self.send("noise", generate(self.rng, 100, 0))
            lines = generate(self.rng, LINES_PER_BURST, len(sent))
            share = [self.rng.random() < 0.5 for _ in lines]
            self.send("webapp-a", [x for x, a in zip(lines, share) if a])
            self.send("webapp-b", [x for x, a in zip(lines, share) if not a])
            sent += [x for x, a in zip(lines, share) if a]
            sent += [x for x, a in zip(lines, share) if not a]
            expected = aggregate(sent)
            self.wait_for("interval report of burst %d" % (burst + 1),
                          lambda: report_shows(expected), 20)

        self.stop()

        info = self.diagnostics()
        one_pass = self.one_pass(sent)
        # The final report is one pass over the same lines, byte for byte.
        with open(self.path("report.csv"), "rb") as f:
            self.assertEqual(f.read(), one_pass, info)
        # Cumulative: no group's count or sum ever went back.
        self.assertGreaterEqual(len(seen), BURSTS, info)
        for before, after in zip(seen, seen[1:]):
            for user, (count, total, _) in before.items():
                self.assertIn(user, after, info)
                self.assertGreaterEqual(after[user][0], count, info)
                self.assertGreaterEqual(after[user][1], total, info)

        # The two destinations' partials add up to the same bytes; each
        # file ends with its final partial (else reduce would warn).
        parts = [self.path("parts/a.parts"), self.path("parts/b.parts")]
        reduce = subprocess.run([MAPR_BIN, "reduce", "-o", "csv"] + parts,
                                capture_output=True, timeout=60)
        self.assertEqual(reduce.stderr, b"", info)
        self.assertEqual(reduce.returncode, 0, info)
        self.assertEqual(reduce.stdout, one_pass, info)
        for part, source in zip(parts, ("webapp-a", "webapp-b")):
            text = subprocess.run([MAPR_BIN, "inspect", part],
                                  capture_output=True, timeout=60,
                                  check=True).stdout.decode()
            blocks = [b.splitlines() for b in text.strip().split("\n\n")]
            self.assertGreaterEqual(len(blocks), 2, text)  # Interval + final.
            for i, block in enumerate(blocks):
                self.assertIn("source: " + source, block, text)
                self.assertEqual("final: yes" in block,
                                 i == len(blocks) - 1, text)

        # batch-lines(100): each destination pushed its messages into mapr
        # in batches of at most 100 (some full), one push per batch.
        log = read_text(self.path("syslog-ng.log"))
        stats = []
        for line in log.splitlines():
            if "mapr_syslogng: " in line and " pushes (at most " in line:
                words = line.split("mapr_syslogng: ", 1)[1].split()
                stats.append((int(words[0]), int(words[3]),
                              int(words[7])))
        self.assertEqual(len(stats), 3, log)
        self.assertEqual(sorted(s[0] for s in stats)[-1], len(sent), log)
        self.assertEqual(sum(s[0] for s in stats), 2 * len(sent), log)
        for lines, pushes, largest in stats:
            self.assertEqual(largest, BATCH_LINES, log)
            self.assertGreaterEqual(pushes, math.ceil(lines / BATCH_LINES),
                                    log)
            self.assertLess(pushes, lines / 5, log)
        for word in ("dropped", "failed", "not written", "Traceback",
                     "Error"):
            self.assertNotIn(word, log, info)

    def test_partials_go_on_after_a_restart(self):
        """A second run appends deltas after the first run's last one (in
        the same files, with the same sources): the reduce of both runs
        is one pass over every line."""
        sent = []
        for run in range(2):
            self.start(render("syslog-ng.conf.in", self.dir))
            self.wait_for("socket", lambda: os.path.exists(self.socket), 15)
            lines = generate(self.rng, 300, len(sent))
            self.send("webapp-a", lines[:200])
            self.send("webapp-b", lines[200:])
            sent += lines
            expected = aggregate(lines)  # A report starts from zero.
            self.wait_for("report of run %d" % (run + 1), lambda: parse_report(
                read_text(self.path("report.csv"))) == expected, 20)
            self.stop()
            if os.path.exists(self.socket):  # syslog-ng leaves it.
                os.unlink(self.socket)
        reduce = subprocess.run(
            [MAPR_BIN, "reduce", "-o", "csv", self.path("parts/a.parts"),
             self.path("parts/b.parts")], capture_output=True, timeout=60)
        info = self.diagnostics()
        self.assertEqual(reduce.stderr, b"", info)
        self.assertEqual(reduce.stdout, self.one_pass(sent), info)
        self.assertNotIn("not final", read_text(self.path("syslog-ng.log")))

    def test_bad_query_refuses_to_start(self):
        config = render("syslog-ng.conf.in", self.dir)
        bad = QUERY.replace("sum(bytes)", "summ(bytes)", 1)
        self.start(config.replace(QUERY, bad, 1))
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("syslog-ng started with a bad query\n" +
                      self.diagnostics())
        log = read_text(self.path("syslog-ng.log"))
        self.assertNotEqual(code, 0, log)
        self.assertIn("mapr_syslogng: bad query: 1:26-29: unknown "
                      "aggregation 'summ'", log)
        self.assertIn("mapr_syslogng: hint: did you mean 'sum'?", log)


if __name__ == "__main__":
    main(None if os.environ.get("CI") else WHY_MISSING)
