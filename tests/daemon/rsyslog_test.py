#!/usr/bin/env python3
"""`mapr --follow` behind Debian's rsyslog (docs/cli.md, "Behind rsyslog").

Starts a private rsyslogd from rsyslog.conf.in (next to this file) in a
temporary directory: its own socket, work directory, pid file and log, no
system file touched. Its omprog action runs mapr-omprog.in, which execs
`mapr --follow` on the messages. The test sends generated `k=v|k=v` lines
with `logger` in three batches, between noise from another program that
rsyslog filters out, and checks that every batch's cumulative result shows
up in an interval report, that the reports never go back, and that after
SIGTERM to rsyslogd (which closes mapr's standard input) mapr prints one
more report: the exact final result. Each wait has a deadline; whatever was
started is killed at the end.

A second test (test_several_instances_add_up) runs rsyslog-multi.conf.in:
omprog with 4 queue workers, each starting a copy of `mapr map --follow`
(mapr-omprog-multi.in) that writes delta partials as a source of its own;
`mapr reduce` of every copy's partials must be the result of all lines.

Also checks that docs/cli.md shows the four templates (with the doc's
paths).

The mapr binary comes from MAPR_BIN or the first argument:

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/daemon/rsyslog_test.py

Exits 77 (CTest's SKIP_RETURN_CODE) after the doc check when rsyslogd or
logger is missing (scripts/install-deps installs rsyslog). Set
MAPR_TEST_SEED to repeat a run's lines. Standard library only.
"""

import os
import random
import shutil
import signal
import subprocess
import time
import unittest

from daemon_case import (HEADER, SEED, DaemonTestCase, aggregate, generate,
                         main, read_text, take_binary_from_argv)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MAPR_BIN = take_binary_from_argv() or os.environ.get("MAPR_BIN", "")

# The paths docs/cli.md shows in place of the test's temporary ones.
DOC_DIR = "/tmp/mapr-rsyslog"
DOC_MAPR = "/usr/local/bin/mapr"

BATCHES = 3
LINES_PER_BATCH = 200


def find_program(name):
    """`name` on PATH or in the sbin directories (rsyslogd lives there)."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return shutil.which(name, path=path)


def render(template, directory, mapr):
    with open(os.path.join(HERE, template), encoding="utf-8") as f:
        return f.read().replace("@DIR@", directory).replace("@MAPR@", mapr)


def parse_reports(text):
    """CSV reports, each ended by its "# end of report N" line and separated
    by empty lines -> list of (header, {user: row}).

    A row is (count, sum, max) as numbers. A report being written (without
    its end line yet) is left out.
    """
    reports = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if not lines or not lines[-1].startswith("# end of report "):
            continue
        lines = lines[:-1]
        rows = {}
        for line in lines[1:]:
            user, count, total, biggest = line.split(",")
            rows[user] = (int(count), float(total), float(biggest))
        reports.append((lines[0], rows))
    return reports


class DocTest(unittest.TestCase):
    """docs/cli.md shows the templates this test runs, with its paths."""

    def test_doc_shows_the_templates(self):
        with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
            doc = f.read()
        for template in ("rsyslog.conf.in", "mapr-omprog.in",
                         "rsyslog-multi.conf.in", "mapr-omprog-multi.in",
                         "rsyslog-confirm.conf.in", "mapr-omprog-confirm.in"):
            block = "```\n%s```\n" % render(template, DOC_DIR, DOC_MAPR)
            self.assertTrue(block in doc, "docs/cli.md lacks %s as rendered "
                            "with %s and %s:\n%s" %
                            (template, DOC_DIR, DOC_MAPR, block))


@unittest.skipUnless(find_program("rsyslogd") and find_program("logger"),
                     "rsyslogd or logger missing")
class RsyslogTest(DaemonTestCase):

    DAEMON = "rsyslogd"
    LOGS = ("rsyslogd.out", "rsyslogd.log", "mapr.log", "report.csv")
    SEED = SEED

    def setUp(self):
        if not MAPR_BIN or not os.access(MAPR_BIN, os.X_OK):
            self.fail("set MAPR_BIN to the mapr binary (got %r)" % MAPR_BIN)
        self.make_dir("mapr-rsyslog-")
        self.rng = random.Random(SEED)

    def start_rsyslogd(self, conf_template="rsyslog.conf.in",
                       program="mapr-omprog"):
        conf = self.path("rsyslog.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(render(conf_template, self.dir,
                           os.path.abspath(MAPR_BIN)))
        wrapper = self.path(program)
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(render(program + ".in", self.dir,
                           os.path.abspath(MAPR_BIN)))
        os.chmod(wrapper, 0o755)
        rsyslogd = find_program("rsyslogd")
        check = subprocess.run([rsyslogd, "-N1", "-f", conf],
                               capture_output=True, timeout=30)
        self.assertEqual(check.returncode, 0, check.stderr)
        with open(self.path("rsyslogd.out"), "wb") as out:
            self.process = subprocess.Popen(
                [rsyslogd, "-n", "-f", conf, "-i", self.path("rsyslogd.pid")],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        self.wait_for("socket", lambda: os.path.exists(self.socket), 60)

    def reports(self):
        return parse_reports(read_text(self.path("report.csv")))

    def stop_rsyslogd(self):
        """SIGTERM, then rsyslogd's exit 0. The deadline is a liveness
        check only (a loaded machine or a sanitizer build is slow): whether
        rsyslog had to give up waiting for mapr is what rsyslogd says."""
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.fail("rsyslogd still runs 60 s after SIGTERM\n" +
                      self.diagnostics())
        self.assertEqual(code, 0, self.diagnostics())

    def test_several_instances_add_up(self):
        """forceSingleInstance off and 4 queue workers: rsyslog starts
        several copies of `mapr map --follow`, each writing the delta
        partials of its share of the messages as a source of its own; the
        reduce of every copy's partials is the exact result of all lines."""
        os.mkdir(self.path("parts"))
        self.start_rsyslogd("rsyslog-multi.conf.in", "mapr-omprog-multi")
        sent = []
        for _ in range(3):
            for _ in range(10):  # bursts, so that workers are added
                lines = generate(self.rng, LINES_PER_BATCH, len(sent))
                self.send("webapp", lines)
                sent += lines
            self.send("noise", generate(self.rng, LINES_PER_BATCH, 0))
        self.stop_rsyslogd()
        parts = sorted(os.listdir(self.path("parts")))
        info = self.diagnostics() + "\nparts: %s" % parts
        self.assertGreaterEqual(len(parts), 2, info)
        reduce = subprocess.run(
            [MAPR_BIN, "reduce", "-o", "csv"] +
            [self.path(os.path.join("parts", p)) for p in parts],
            capture_output=True, timeout=60)
        # Every copy ended with its final partial: no note on stderr.
        self.assertEqual(reduce.stderr, b"", info)
        self.assertEqual(reduce.returncode, 0, info)
        got = parse_reports(reduce.stdout.decode() + "# end of report 1\n")
        self.assertEqual(got[0][1], aggregate(sent), info)
        inspect = subprocess.run(
            [MAPR_BIN, "inspect"] +
            [self.path(os.path.join("parts", p)) for p in parts],
            capture_output=True, timeout=60, check=True).stdout.decode()
        sources = {line.split(": ", 1)[1] for line in inspect.splitlines()
                   if line.startswith("source: ")}
        self.assertEqual(len(sources), len(parts), info)

    def running_copies(self):
        """{pid: message log} of the `mapr map --omprog` copies that run
        now (from the headers of their logs, "mapr-omprog-wal 1 pid P split
        K")."""
        copies = {}
        folder = self.path("parts")
        for name in os.listdir(folder):
            if not name.endswith(".wal"):
                continue
            log = os.path.join(folder, name)
            words = read_text(log).split("\n")[0].split()
            if len(words) != 6 or words[2] != "pid":
                continue
            pid = int(words[3])
            try:
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        copies[pid] = log
            except (FileNotFoundError, IndexError):
                pass
        return copies

    def kill_a_copy(self, killed):
        """SIGKILLs a running copy, one with messages in its log if there
        is one; records (pid, the log's complete messages after the kill).
        Returns whether it killed one."""
        copies = self.running_copies()
        logged = {pid: log for pid, log in copies.items()
                  if read_text(log).count("\n") > 1}
        pool = logged or copies
        if not pool:
            return False
        victim = self.rng.choice(sorted(pool))
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            return False
        # Its log is final now (a message being written stays cut).
        killed.append((victim, read_text(pool[victim]).count("\n") - 1))
        return True

    def test_confirmed_delivery_counts_each_message_once(self):
        """confirmMessages with 4 workers: each copy confirms a message only
        once it is synced to the copy's log. Copies are killed (SIGKILL)
        while messages flow; rsyslog sends their unconfirmed message again
        to new copies, which adopt the dead ones (their logged messages
        become their last partial) and skip a message id already counted:
        the reduce of every copy's partials is the exact result of all
        lines, no more, no less."""
        os.mkdir(self.path("parts"))
        self.start_rsyslogd("rsyslog-confirm.conf.in", "mapr-omprog-confirm")
        sent = []
        killed = []
        for round_ in range(4):
            for _ in range(8):
                lines = generate(self.rng, LINES_PER_BATCH, len(sent))
                self.send("webapp", lines)
                sent += lines
                if round_ < 3 and self.rng.random() < 0.3:
                    self.kill_a_copy(killed)
            self.send("noise", generate(self.rng, LINES_PER_BATCH, 0))
            # At least one copy killed with messages only in its log (slow
            # builds start copies late, so kills may find none yet).
            tries = 0
            while (round_ == 2 and not any(n for _, n in killed) and
                   tries < 50):
                tries += 1
                lines = generate(self.rng, LINES_PER_BATCH, len(sent))
                self.send("webapp", lines)
                sent += lines
                self.kill_a_copy(killed)
        # Every message confirmed. A copy killed while idle is adopted by
        # the next copy that starts; a sweep (a copy with no input) adopts
        # any that no copy followed, as the docs say to run after a stop.
        folder = self.path("parts")
        query = ("select user,count($line),sum(bytes),max(bytes) group by "
                 "user logformat generickv")

        adoptions = []  # What the sweeps said.

        def sweep_and_reduce():
            sweep = subprocess.run([MAPR_BIN, "map", "--omprog", folder,
                                    "--message-id", query],
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=60)
            self.assertEqual(sweep.returncode, 0, sweep.stderr)
            self.assertEqual(sweep.stdout, b"OK\n")
            adoptions.append(sweep.stderr.decode())
            parts = sorted(os.path.join(folder, p)
                           for p in os.listdir(folder) if p.endswith(".parts"))
            return subprocess.run([MAPR_BIN, "reduce", "-o", "csv"] + parts,
                                  capture_output=True, timeout=60)

        def counted():
            r = sweep_and_reduce()
            if r.returncode != 0:
                return None
            return parse_reports(r.stdout.decode() +
                                 "# end of report 1\n")[0][1]
        self.wait_for("every message counted",
                      lambda: time.sleep(0.3) or counted() == aggregate(sent),
                      60)
        self.stop_rsyslogd()
        reduce = sweep_and_reduce()
        info = (self.diagnostics() + "\nparts: %s\nkilled: %s" %
                (sorted(os.listdir(folder)), killed))
        self.assertGreaterEqual(len(killed), 1, info)
        self.assertEqual(reduce.returncode, 0, info)
        got = parse_reports(reduce.stdout.decode() + "# end of report 1\n")
        self.assertEqual(got[0][1], aggregate(sent), info)
        # Every copy's partials end with a final one (its own, or one its
        # adopter wrote): reduce has nothing to say.
        self.assertEqual(reduce.stderr, b"", info)
        # A copy that died with confirmed messages only in its log had
        # them put into its last partial by its adopter.
        self.assertTrue(any(n for _, n in killed), info)
        said = read_text(self.path("mapr.log")) + "".join(adoptions)
        self.assertRegex(said, r"ended without its last partial; wrote it "
                         r"\(split \d+, [1-9]\d* messages from its log\)",
                         info)

    def test_interval_and_final_results(self):
        self.start_rsyslogd()
        sent = []
        expected = []
        for b in range(BATCHES):
            self.send("noise", generate(self.rng, LINES_PER_BATCH, 0))
            lines = generate(self.rng, LINES_PER_BATCH, len(sent))
            self.send("webapp", lines)
            sent += lines
            expected.append(aggregate(sent))
            self.wait_for(
                "interval report of batch %d" % (b + 1),
                lambda: any(rows == expected[-1]
                            for _, rows in self.reports()[-1:]), 60)
        reports_before_stop = len(self.reports())

        self.stop_rsyslogd()

        reports = self.reports()
        info = self.diagnostics()
        # The interval reports, then exactly one more: the final result.
        self.assertEqual(len(reports), reports_before_stop + 1, info)
        self.assertEqual(reports[-1][1], expected[-1], info)
        self.assertTrue(read_text(self.path("report.csv")).endswith("\n"))
        for header, _ in reports:
            self.assertEqual(header, HEADER, info)
        # Cumulative: no group's count or sum goes back; each batch's
        # result was a report of its own, in order.
        for (_, before), (_, after) in zip(reports, reports[1:]):
            for user, (count, total, _) in before.items():
                self.assertIn(user, after, info)
                self.assertGreaterEqual(after[user][0], count, info)
                self.assertGreaterEqual(after[user][1], total, info)
        seen = [rows for _, rows in reports]
        positions = [seen.index(e) for e in expected]
        self.assertEqual(positions, sorted(positions), info)
        # mapr said only its start line; rsyslog reported no failed child,
        # and mapr ended within omprog's closeTimeout (5 s) after its input
        # closed: rsyslogd says on its standard output (not in its log,
        # which is closed by then) when a program "did not terminate within
        # timeout" and it killed or left it.
        self.assertEqual(
            read_text(self.path("mapr.log")),
            "mapr: following standard input until it ends; cumulative "
            "report every 500ms; Ctrl-C or SIGTERM prints the final "
            "result\n", info)
        self.assertNotIn("exited with status", read_text(
            self.path("rsyslogd.log")), info)
        for said in ("did not terminate within timeout", "terminated by "
                     "signal"):
            self.assertNotIn(said, read_text(self.path("rsyslogd.out")),
                             info)


if __name__ == "__main__":
    main(None if find_program("rsyslogd") and find_program("logger") else
         "rsyslogd or logger not found (Debian: apt-get install rsyslog, or "
         "scripts/install-deps)")
