#!/usr/bin/env python3
"""`mapr -o prometheus` against Debian's promtool (docs/cli.md, "-o").

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/prometheus_test.py

Every golden DTail query (tests/golden/dtail/*.query.expected) and the
split-invariance queries run over DTail's test log with `-o prometheus`;
`promtool check metrics` must accept each output (the text format and its
lint: snake_case names, no duplicate series). A query that groups by a
field it does not select is refused by name instead (its rows would share
labels). Also checks that docs/cli.md's prometheus example is what the
binary prints, and that every numeric cell of the CSV output is a sample.
Exits 77 (skipped) without promtool (scripts/install-deps installs the
prometheus package).
"""

import csv
import glob
import io
import math
import os
import re
import shutil
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAPR = os.environ.get("MAPR_BIN", os.path.join(ROOT, "build", "dev",
                                                "bindings", "cli", "mapr"))
GOLDEN = os.path.join(ROOT, "tests", "golden", "dtail")
LOG = os.path.join(GOLDEN, "mapr_testdata.log")
PROMTOOL = shutil.which("promtool")

# More shapes than DTail's vectors: several numeric kinds, text columns left
# out, aliases, no group by, percentiles.
EXTRA = [
    "from STATS select $hostname,count($line),avg($goroutines),"
    "min(lifetimeConnections),max(lifetimeConnections),last($time) "
    "group by $hostname",
    "from STATS select $time,count($line) as `lines per second`,"
    "sum(currentConnections) group by $time order by count($line) desc "
    "limit 5",
    "from STATS select count($line),median(lifetimeConnections),"
    "p99(lifetimeConnections) group by *",
]


def run(*args, check=True):
    p = subprocess.run([MAPR, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if check and p.returncode != 0:
        raise AssertionError("mapr %s: exit %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode()))
    return p


def promtool(text):
    return subprocess.run([PROMTOOL, "check", "metrics"], input=text,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          check=False)


def queries():
    out = []
    for path in sorted(glob.glob(os.path.join(GOLDEN, "*.query.expected"))):
        with open(path, encoding="utf-8") as f:
            out.append(f.read().strip())
    return out + EXTRA


SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$")


class PrometheusTest(unittest.TestCase):

    def test_promtool_accepts_every_query(self):
        checked = refused = 0
        for q in queries():
            with self.subTest(query=q):
                p = run("-q", "-o", "prometheus", q, LOG, check=False)
                if p.returncode != 0:
                    # Only a group-by field left out of the select.
                    self.assertIn(b"get the same labels", p.stderr)
                    refused += 1
                    continue
                check = promtool(p.stdout)
                self.assertEqual(check.returncode, 0,
                                 check.stdout.decode() + p.stdout.decode())
                self.compare_with_csv(q, p.stdout.decode())
                checked += 1
        self.assertGreaterEqual(checked, 8)
        print("  %d queries checked by promtool, %d refused" % (checked,
                                                                  refused))

    def compare_with_csv(self, q, text):
        """Each numeric cell of the CSV is a sample of the same value."""
        table = list(csv.reader(io.StringIO(
            run("-q", "-o", "csv", q, LOG).stdout.decode())))
        samples = []
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            self.assertIsNotNone(m, line)
            samples.append(float(m.group(3)))
        numeric = []
        for c in range(len(table[0])):
            column = [row[c] for row in table[1:]]
            try:
                numeric.append([float(v) for v in column])
            except ValueError:
                continue  # a text column: a label or left out
        # Group-key columns that are numbers are labels, not samples: the
        # samples are the other numeric columns, column by column.
        flat = [v for col in numeric for v in col]
        for s in samples:
            self.assertTrue(any(math.isclose(s, v, rel_tol=1e-6,
                                             abs_tol=1e-6) for v in flat),
                            "%s: sample %r not in the CSV" % (q, s))

    def test_doc_example_is_what_the_binary_prints(self):
        with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
            doc = f.read()
        m = re.search(r"```\n\$ mapr -o prometheus '([^']*)' app.log\n(.*?)```",
                      doc, re.S)
        self.assertIsNotNone(m, "docs/cli.md has no prometheus example")
        got = run("-o", "prometheus", m.group(1), LOG).stdout.decode()
        self.assertEqual(got, m.group(2))
        self.assertEqual(promtool(got.encode()).returncode, 0)

    def test_unlabelled_rows_are_refused(self):
        p = run("-o", "prometheus",
                "from STATS select count($line) group by $time", LOG,
                check=False)
        self.assertEqual(p.returncode, 2)  # as a chart without numbers
        self.assertIn(b"mapr: rows 1 and 2 get the same labels (none): "
                      b"select every group-by field", p.stderr)


if __name__ == "__main__":
    if PROMTOOL is None:
        print("skipped: no promtool (Debian's prometheus package)")
        sys.exit(77)
    unittest.main()
