#!/usr/bin/env python3
"""Drives examples/log_daemon: feed lines, get interval results, SIGTERM.

Every wait has a deadline, so a hang fails the test instead of blocking CI.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

DAEMON = os.environ.get("LOG_DAEMON_BIN", "build/dev/examples/log_daemon")
LINE = ("INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h|MAPREDUCE:STATS|"
        "currentConnections=%d|lifetimeConnections=3\n")
QUERY = ("from STATS select count($line),max(currentConnections) "
         "group by $hostname")


def read(path):
    with open(path) as f:
        return f.read()


class LogDaemonTest(unittest.TestCase):

    def wait_for(self, predicate, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        return False

    def test_follows_file_reports_intervals_and_ends_on_sigterm(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "app.log")
            out = os.path.join(tmp, "out.txt")
            with open(log, "w") as f:
                f.write(LINE % 1)
            with open(out, "w") as out_f:
                proc = subprocess.Popen(
                    [DAEMON, "--interval-ms", "100", QUERY, log],
                    stdout=out_f, stderr=subprocess.PIPE)
            try:
                self.assertTrue(self.wait_for(
                    lambda: "interval" in read(out)))
                with open(log, "a") as f:
                    for i in range(2, 6):
                        f.write(LINE % i)
                self.assertTrue(self.wait_for(
                    lambda: " 5 |" in read(out)))
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=20)
            finally:
                if proc.poll() is None:
                    proc.kill()
            self.assertEqual(proc.returncode, 0, err)
            text = read(out)
            final = text[text.rindex("--- final ---"):]
            self.assertIn(" 5 |", final)
            self.assertIn("5.000000", final)

    def test_stdin_eof_gives_final_result(self):
        proc = subprocess.run(
            [DAEMON, QUERY, "-"], input="".join(LINE % i for i in range(7)),
            capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("--- final ---", proc.stdout)
        self.assertIn(" 7 |", proc.stdout)

    def test_outfile_and_bad_query(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv = os.path.join(tmp, "r.csv")
            proc = subprocess.run(
                [DAEMON, QUERY + " outfile " + csv, "-"],
                input=LINE % 9, capture_output=True, text=True, timeout=20)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(read(csv),
                             "count($line),max(currentConnections)\n"
                             "1,9.000000\n")
        proc = subprocess.run([DAEMON, "select avgg(x)", "-"], input="",
                              capture_output=True, text=True, timeout=20)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown aggregation 'avgg'", proc.stderr)


if __name__ == "__main__":
    unittest.main()
