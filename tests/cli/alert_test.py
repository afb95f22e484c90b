#!/usr/bin/env python3
"""`mapr --follow --alert CONDITION` (docs/cli.md, "Alerts").

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/alert_test.py

A scripted log grows while mapr follows it: each group's alert line comes
once when the condition starts holding and once when it stops (here in
--delta mode: the next report without enough lines ends it, while quiet
intervals make no report), never every interval; the
exit status is 3 when an alert held, 0 when none did; a bad condition is a
usage error with the query error's text. Each wait is for what shows that
mapr got there (its start line, a report on stdout, an alert line, its polls
of a quiet log), with a deadline; none is for a fixed time.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAPR = os.environ.get("MAPR_BIN", os.path.join(ROOT, "build", "dev",
                                                "bindings", "cli", "mapr"))
Q = "select host,count($line) group by host logformat generickv"


# Each wait's deadline: generous, as a loaded machine or a sanitizer build
# is slow; a wait that runs out fails with what mapr printed.
DEADLINE = 60


def descendants(pid):
    """`pid` and the processes under it (MAPR_BIN may be a wrapper)."""
    pids = [pid]
    for p in pids:
        try:
            for task in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    pids += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return pids


def read_calls(pid):
    """The read(2) calls `pid` and its children have made so far. A quiet
    `--follow` reads each file once per poll (read returns 0), so this
    counts its polls; /proc/PID/io's syscr."""
    total = 0
    for p in descendants(pid):
        try:
            with open("/proc/%d/io" % p) as f:
                total += int(re.search(r"^syscr: (\d+)$", f.read(),
                                       re.M).group(1))
        except OSError:
            pass
    return total


class Run:
    """A `mapr --follow` of the test's log; its stdout and stderr go to
    files that the test reads while it runs."""

    def __init__(self, test, name, flags):
        self.test = test
        self.flags = flags
        self.out_path = os.path.join(test.dir.name, name + ".out")
        self.err_path = os.path.join(test.dir.name, name + ".err")
        with open(self.out_path, "wb") as out, \
                open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [MAPR, "--follow", "--interval-ms", "150", "-o", "csv",
                 *flags, Q, test.log], stdout=out, stderr=err)
        test.addCleanup(self.kill)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stdout(self):
        with open(self.out_path, encoding="utf-8") as f:
            return f.read()

    def stderr(self):
        with open(self.err_path, encoding="utf-8") as f:
            return f.read()

    def alerts(self):
        return re.findall(r"^mapr: alert (\w+): (.*): (.*) \(report \d+\)$",
                          self.stderr(), re.M)

    def alert_reports(self):
        return [int(n) for n in re.findall(
            r"^mapr: alert .* \(report (\d+)\)$", self.stderr(), re.M)]

    def json_alerts(self):
        return [json.loads(l) for l in self.stderr().splitlines()
                if l.startswith("{")]

    def reports(self):
        """[(N, {host: count})] of the whole CSV reports on stdout so far
        (each ends with its "# end of report N" line). An alert line goes
        to stderr before its report is printed, so once a report is here,
        what the alert made of it is on stderr."""
        out = []
        for block in self.stdout().split("\n\n"):
            lines = block.strip("\n").split("\n")
            m = re.match(r"# end of report (\d+)", lines[-1])
            if not m:
                continue
            rows = dict(line.split(",") for line in lines[1:-1])
            out.append((int(m.group(1)), {h: int(c) for h, c in rows.items()}))
        return out

    def wait_for(self, what, fn):
        deadline = time.monotonic() + DEADLINE
        while not fn():
            if self.proc.poll() is not None:
                self.test.fail("mapr exited with %d while waiting for %s"
                               "%s" % (self.proc.returncode, what,
                                       self.diagnostics()))
            if time.monotonic() > deadline:
                self.test.fail("timed out waiting for %s%s" %
                               (what, self.diagnostics()))
            time.sleep(0.02)

    def diagnostics(self):
        return "\nmapr %s\nstdout:\n%s\nstderr:\n%s" % (
            " ".join(self.flags), self.stdout()[-3000:], self.stderr())

    def wait_ready(self):
        self.wait_for("the start line",
                      lambda: "mapr: following " in self.stderr())

    def wait_report(self, rows, after=0):
        """Waits for a report numbered above `after` that holds `rows`;
        returns its number."""
        self.wait_for("a report of %s after report %d" % (rows, after),
                      lambda: any(n > after and r == rows
                                  for n, r in self.reports()))
        return next(n for n, r in self.reports() if n > after and r == rows)

    def last_report(self):
        return max([n for n, _ in self.reports()], default=0)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.test.fail("mapr runs %d s after SIGINT%s" %
                           (DEADLINE, self.diagnostics()))
        return self.proc.returncode


class AlertTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.log = os.path.join(self.dir.name, "app.log")
        open(self.log, "w").close()

    def start(self, *flags, name="mapr"):
        return Run(self, name, flags)

    def append(self, host, n):
        with open(self.log, "a", encoding="utf-8") as f:
            f.write("".join("host=%s|n=%d\n" % (host, i) for i in range(n)))

    def test_start_and_end_once_per_group(self):
        cond = "count($line) >= 5"
        run = self.start("--delta", "--alert", cond)
        run.wait_ready()
        self.append("a", 7)
        self.append("b", 2)
        run.wait_for("a's alert", lambda: len(run.alerts()) == 1)
        self.assertEqual(run.alerts(), [("started", "host=a", cond)])
        # The next report (an interval with lines; quiet ones make none)
        # holds b's 2 lines only: a's alert ends.
        self.append("b", 2)
        run.wait_for("a's end", lambda: len(run.alerts()) == 2)
        self.assertEqual(run.alerts()[1], ("ended", "host=a", cond))
        self.append("b", 9)
        run.wait_for("b's alert", lambda: len(run.alerts()) == 3)
        # More reports in which b's alert holds: it is not said again.
        last = run.alert_reports()[-1]
        for _ in range(2):
            self.append("b", 9)
            last = run.wait_report({"b": 9}, after=last)
        self.assertEqual(len(run.alerts()), 3, run.diagnostics())
        # More intervals without lines: nothing repeats, and no report (so
        # b's alert goes on). Quiet intervals print nothing, so what shows
        # that they passed is mapr's polls of the log (read calls).
        polls = read_calls(run.proc.pid)
        run.wait_for("5 more polls of the quiet log (/proc/%d/io syscr "
                     "above %d)" % (run.proc.pid, polls + 5),
                     lambda: read_calls(run.proc.pid) >= polls + 5)
        self.assertEqual((len(run.alerts()), run.last_report()), (3, last),
                         run.diagnostics())
        # The next report holds c's line only: b's alert ends there.
        self.append("c", 1)
        run.wait_for("b's end", lambda: len(run.alerts()) == 4)
        self.assertEqual(run.alerts(), [
            ("started", "host=a", cond), ("ended", "host=a", cond),
            ("started", "host=b", cond), ("ended", "host=b", cond)])
        self.assertEqual(run.alert_reports()[-1], last + 1)
        self.assertEqual(run.stop(), 3)

    def test_json_lines_carry_the_row(self):
        cond = "count($line) >= 5"
        run = self.start("--delta", "--alert", cond, "--alert-format", "json")
        run.wait_ready()
        self.append("a", 7)
        self.append("b", 2)
        run.wait_for("a's alert", lambda: len(run.json_alerts()) == 1)
        self.assertEqual(run.json_alerts(), [
            {"alert": "started", "condition": cond, "group": "host=a",
             "report": 1, "row": {"host": "a", "count($line)": 7}}])
        # The next interval holds b's lines only: a's row is gone.
        self.append("b", 2)
        run.wait_for("a's end", lambda: len(run.json_alerts()) == 2)
        ended = run.json_alerts()[1]
        self.assertEqual((ended["alert"], ended["group"], ended["row"]),
                         ("ended", "host=a", None))
        self.assertGreater(ended["report"], 1)
        # A group still in the report when its alert ends keeps its row.
        self.append("c", 6)
        run.wait_for("c's alert", lambda: len(run.json_alerts()) == 3)
        self.append("c", 1)
        run.wait_for("c's end", lambda: len(run.json_alerts()) == 4)
        self.assertEqual(run.json_alerts()[3]["row"],
                         {"host": "c", "count($line)": 1})
        self.assertFalse(re.search(r"^mapr: alert", run.stderr(), re.M))
        self.assertEqual(run.stop(), 3)

    def test_no_alert_exits_zero(self):
        # Just below the threshold: no alert, exit 0. A second run on the
        # same lines with the threshold one lower is the control: its alert
        # shows that the report was evaluated.
        quiet = self.start("--alert", "count($line) > 3", name="quiet")
        control = self.start("--alert", "count($line) > 2", name="control")
        quiet.wait_ready()
        control.wait_ready()
        self.append("a", 3)
        # The report holding the 3 lines was evaluated by both runs.
        quiet.wait_report({"a": 3})
        control.wait_report({"a": 3})
        self.assertEqual(control.alerts(),
                         [("started", "host=a", "count($line) > 2")],
                         control.diagnostics())
        self.assertEqual(quiet.alerts(), [], quiet.diagnostics())
        self.assertEqual(quiet.stop(), 0, quiet.diagnostics())
        self.assertEqual(quiet.alerts(), [], quiet.diagnostics())
        self.assertEqual(control.stop(), 3, control.diagnostics())

    def test_cumulative_alert_holds_until_the_end(self):
        run = self.start("--from-start", "--alert", "count($line) > 2")
        self.append("a", 3)
        run.wait_for("a's alert", lambda: len(run.alerts()) == 1)
        self.append("a", 3)
        # A later report (and the final one) in which it still holds: the
        # alert is not said again, nor ended.
        run.wait_report({"a": 6})
        self.assertEqual(run.stop(), 3, run.diagnostics())
        self.assertEqual([a[0] for a in run.alerts()], ["started"],
                         run.diagnostics())
        self.assertTrue(run.stdout().rstrip("\n").endswith(
            "a,6\n# end of report %d (final)" % run.last_report()),
            run.diagnostics())

    def test_bad_conditions_are_usage_errors(self):
        for flags, message in [
            (["--follow", "--alert", "sum(n) > 1"],
             "mapr: --alert: the condition reads sum(n), which the query "
             "does not select"),
            (["--follow", "--alert", "count($line) >"],
             "mapr: --alert: 1:81: expected a value after the comparison "
             "operator, found end of query\n"
             "select host,count($line) group by host logformat generickv "
             "having count($line) >\n" + " " * 80 + "^\n"),
            (["--alert", "count($line) > 1"],
             "mapr: --alert works only with --follow"),
            (["--alert-format", "json"],
             "mapr: --alert-format works only with --follow"),
            (["--follow", "--alert-format", "json"],
             "mapr: --alert-format works only with --alert"),
            (["--follow", "--alert", "count($line) > 1", "--alert-format",
              "xml"],
             "mapr: invalid --alert-format 'xml' (use text or json)"),
        ]:
            p = subprocess.run([MAPR, *flags, Q, self.log],
                               capture_output=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(message, p.stderr.decode())


if __name__ == "__main__":
    unittest.main()
