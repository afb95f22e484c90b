#!/usr/bin/env python3
"""`mapr --follow --alert CONDITION` (docs/cli.md, "Alerts").

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/alert_test.py

A scripted log grows while mapr follows it: each group's alert line comes
once when the condition starts holding and once when it stops (here in
--delta mode, where a quiet interval ends it), never every interval; the
exit status is 3 when an alert held, 0 when none did; a bad condition is a
usage error with the query error's text. Each wait has a deadline.
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


class AlertTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "app.log")
        open(self.log, "w").close()
        self.err_path = os.path.join(self.dir.name, "err")

    def tearDown(self):
        self.dir.cleanup()

    def start(self, *flags):
        self.err = open(self.err_path, "wb")
        return subprocess.Popen(
            [MAPR, "--follow", "--interval-ms", "150", "-o", "csv", *flags,
             Q, self.log], stdout=subprocess.DEVNULL, stderr=self.err)

    def stderr(self):
        with open(self.err_path, encoding="utf-8") as f:
            return f.read()

    def alerts(self):
        return re.findall(r"^mapr: alert (\w+): (.*): (.*) \(report \d+\)$",
                          self.stderr(), re.M)

    def wait_for(self, what, fn, seconds=20):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if fn():
                return
            time.sleep(0.05)
        self.fail("timed out waiting for %s; stderr:\n%s" %
                  (what, self.stderr()))

    def append(self, host, n):
        with open(self.log, "a", encoding="utf-8") as f:
            f.write("".join("host=%s|n=%d\n" % (host, i) for i in range(n)))

    def stop(self, proc):
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        self.err.close()
        return proc.returncode

    def test_start_and_end_once_per_group(self):
        cond = "count($line) >= 5"
        proc = self.start("--delta", "--alert", cond)
        self.wait_for("the start line", lambda: "following" in self.stderr())
        self.append("a", 7)
        self.append("b", 2)
        self.wait_for("a's alert", lambda: len(self.alerts()) == 1)
        self.assertEqual(self.alerts(), [("started", "host=a", cond)])
        # The next report (an interval with lines; quiet ones make none)
        # holds b's 2 lines only: a's alert ends.
        self.append("b", 2)
        self.wait_for("a's end", lambda: len(self.alerts()) == 2)
        self.assertEqual(self.alerts()[1], ("ended", "host=a", cond))
        self.append("b", 9)
        self.wait_for("b's alert", lambda: len(self.alerts()) == 3)
        time.sleep(0.5)  # more intervals without lines: nothing repeats
        self.append("c", 1)
        self.wait_for("b's end", lambda: len(self.alerts()) == 4)
        self.assertEqual(self.alerts(), [
            ("started", "host=a", cond), ("ended", "host=a", cond),
            ("started", "host=b", cond), ("ended", "host=b", cond)])
        self.assertEqual(self.stop(proc), 3)

    def json_alerts(self):
        return [json.loads(l) for l in self.stderr().splitlines()
                if l.startswith("{")]

    def test_json_lines_carry_the_row(self):
        cond = "count($line) >= 5"
        proc = self.start("--delta", "--alert", cond, "--alert-format",
                          "json")
        self.wait_for("the start line", lambda: "following" in self.stderr())
        self.append("a", 7)
        self.append("b", 2)
        self.wait_for("a's alert", lambda: len(self.json_alerts()) == 1)
        self.assertEqual(self.json_alerts(), [
            {"alert": "started", "condition": cond, "group": "host=a",
             "report": 1, "row": {"host": "a", "count($line)": 7}}])
        # The next interval holds b's lines only: a's row is gone.
        self.append("b", 2)
        self.wait_for("a's end", lambda: len(self.json_alerts()) == 2)
        ended = self.json_alerts()[1]
        self.assertEqual((ended["alert"], ended["group"], ended["row"]),
                         ("ended", "host=a", None))
        self.assertGreater(ended["report"], 1)
        # A group still in the report when its alert ends keeps its row.
        self.append("c", 6)
        self.wait_for("c's alert", lambda: len(self.json_alerts()) == 3)
        self.append("c", 1)
        self.wait_for("c's end", lambda: len(self.json_alerts()) == 4)
        self.assertEqual(self.json_alerts()[3]["row"],
                         {"host": "c", "count($line)": 1})
        self.assertFalse(re.search(r"^mapr: alert", self.stderr(), re.M))
        self.assertEqual(self.stop(proc), 3)

    def test_no_alert_exits_zero(self):
        proc = self.start("--alert", "count($line) > 1000")
        self.wait_for("the start line", lambda: "following" in self.stderr())
        self.append("a", 3)
        time.sleep(0.5)
        self.assertEqual(self.stop(proc), 0)
        self.assertEqual(self.alerts(), [])

    def test_cumulative_alert_holds_until_the_end(self):
        proc = self.start("--from-start", "--alert", "count($line) > 2")
        self.append("a", 3)
        self.wait_for("a's alert", lambda: len(self.alerts()) == 1)
        self.append("a", 3)
        time.sleep(0.5)
        self.assertEqual(self.stop(proc), 3)
        self.assertEqual([a[0] for a in self.alerts()], ["started"])

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
