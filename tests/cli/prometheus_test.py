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
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAPR = os.environ.get("MAPR_BIN", os.path.join(ROOT, "build", "dev",
                                                "bindings", "cli", "mapr"))
GOLDEN = os.path.join(ROOT, "tests", "golden", "dtail")
LOG = os.path.join(GOLDEN, "mapr_testdata.log")
PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")
FOLLOW_Q = "from STATS select $hostname,count($line) group by $hostname"

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
    """Runs mapr in a private temporary folder, removed afterwards: the
    outfiles of DTail's queries (`outfile dmap1a.csv.tmp`) go there, not
    to the folder the test runs in."""
    with tempfile.TemporaryDirectory(prefix="mapr-prometheus-") as cwd:
        p = subprocess.run([MAPR, *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=cwd, check=False)
    if check and p.returncode != 0:
        raise AssertionError("mapr %s: exit %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode()))
    return p


def file_time(path):
    """The modification time of `path`, None if it does not exist."""
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return None


def outfiles(query):
    """The files a query's `outfile` clause names: the outfile and its
    `.query` sidecar."""
    m = re.search(r"\boutfile (?:append )?(\S+)", query)
    return [m.group(1), m.group(1) + ".query"] if m else []


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
        # The files the queries' outfile clauses name, in the folder the
        # test runs in, before (each run writes in a folder of its own).
        named = {f: file_time(f) for q in queries() for f in outfiles(q)}
        self.assertGreaterEqual(len(named), 16)
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
        self.assertEqual({f: file_time(f) for f in named}, named,
                         "outfiles written in %s" % os.getcwd())

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

    def test_listen_needs_follow(self):
        p = run("--listen", "127.0.0.1:0", FOLLOW_Q, LOG, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"mapr: --listen works only with --follow", p.stderr)

    def test_unlabelled_rows_are_refused(self):
        p = run("-o", "prometheus",
                "from STATS select count($line) group by $time", LOG,
                check=False)
        self.assertEqual(p.returncode, 2)  # as a chart without numbers
        self.assertIn(b"mapr: rows 1 and 2 get the same labels (none): "
                      b"select every group-by field", p.stderr)


def fetch(url, timeout=5):
    """(status, body) of a GET of `url`."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def wait_for(what, fn, deadline_s=30):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class ListenTest(unittest.TestCase):
    """`mapr --follow --listen 127.0.0.1:0` serves each report."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "app.log")
        shutil.copy(LOG, self.log)
        self.err = open(os.path.join(self.dir.name, "err"), "w+b")
        self.proc = subprocess.Popen(
            [MAPR, "--follow", "--from-start", "--interval-ms", "100",
             "--listen", "127.0.0.1:0", "-o", "csv", FOLLOW_Q, self.log],
            stdout=subprocess.PIPE, stderr=self.err, cwd=self.dir.name)
        self.port = int(wait_for("the address on stderr", self.port_in_err))
        self.url = "http://127.0.0.1:%d/metrics" % self.port

    def port_in_err(self):
        self.err.seek(0)
        m = re.search(rb"serving metrics at http://127\.0\.0\.1:(\d+)/metrics",
                      self.err.read())
        return m and m.group(1)

    def tearDown(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()
        self.err.close()
        self.dir.cleanup()

    def sample(self, want):
        status, body = fetch(self.url)
        return status == 200 and ('mapr_count_line{hostname="' in body) and \
            body.count("\n") >= 3 and want in body and body

    def test_reports_are_served_and_follow_the_log(self):
        one = run("-o", "csv", FOLLOW_Q, LOG).stdout.decode().splitlines()
        host, count = one[1].split(",")
        body = wait_for("the first report", lambda: self.sample(
            'mapr_count_line{hostname="%s"} %s\n' % (host, count)))
        self.assertEqual(promtool(body.encode()).returncode, 0, body)
        with open(LOG, "rb") as src, open(self.log, "ab") as dst:
            dst.write(src.read())
        wait_for("the grown count", lambda: self.sample(
            'mapr_count_line{hostname="%s"} %d\n' % (host, 2 * int(count))))
        self.assertEqual(fetch(self.url.replace("/metrics", "/other"))[0],
                         404)
        self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=20)
        self.assertEqual(self.proc.returncode, 0)
        self.assertIn("%s,%d\n# end of report" % (host, 2 * int(count)),
                      out.decode())

    def raw(self, data, half_close=True):
        """What the server answers to the bytes `data` sent as they are (the
        client then half-closes, unless told not to)."""
        with socket.create_connection(("127.0.0.1", self.port),
                                      timeout=20) as c:
            c.sendall(data)
            if half_close:
                c.shutdown(socket.SHUT_WR)
            got = b""
            while True:
                chunk = c.recv(65536)
                if not chunk:
                    return got
                got += chunk

    def test_bad_requests_get_an_error_and_the_query_goes_on(self):
        # A request line without its line end once made the server read
        # past its buffer (SIGSEGV: the query and its state were lost).
        for data, half_close, status in [
                (b"GET /" + b"a" * 24, True, b"400 Bad Request"),
                (b"GET /metrics", True, b"400 Bad Request"),
                (b"\r\n\r\n", True, b"400 Bad Request"),
                (b"POST /metrics HTTP/1.0\r\n\r\n", False,
                 b"400 Bad Request"),
                (b"GET metrics HTTP/1.0\r\n\r\n", False, b"400 Bad Request"),
                (b"GET /\x00 HTTP/1.0\r\n\r\n", False, b"400 Bad Request"),
                (b"G" * 8192, False, b"431 Request Header Fields Too Large"),
                (b"GET /metrics HTTP/1.0\r\nX: " + b"a" * 9000, False,
                 b"431 Request Header Fields Too Large"),
                (b"GET /other HTTP/1.0\r\n\r\n", False, b"404 Not Found"),
                (b"HEAD /metrics HTTP/1.0\r\n\r\n", False, b"200 OK"),
                (b"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", False,
                 b"200 OK")]:
            got = self.raw(data, half_close)
            self.assertTrue(got.startswith(b"HTTP/1.0 " + status + b"\r\n"),
                            (data[:40], got[:200]))
            self.assertIsNone(self.proc.poll(), data[:40])
        head = self.raw(b"HEAD /metrics HTTP/1.0\r\n\r\n", False)
        self.assertTrue(head.endswith(b"\r\n\r\n"), head)
        wait_for("a report", lambda: self.sample("mapr_count_line"))

    def test_idle_and_slow_clients_hold_up_no_scrape_and_no_exit(self):
        # 100 clients that send nothing, and one that sends a byte at a
        # time: a scrape is still answered at once (each idle client once
        # held the server for 2 s, a trickling one for as long as it
        # trickled), and SIGTERM still ends the process.
        idle = [socket.create_connection(("127.0.0.1", self.port), timeout=20)
                for _ in range(100)]
        slow = socket.create_connection(("127.0.0.1", self.port), timeout=20)
        try:
            slow.sendall(b"G")
            wait_for("a report", lambda: self.sample("mapr_count_line"))
            slow.sendall(b"E")
            status, _ = fetch(self.url, timeout=5)
            self.assertEqual(status, 200)
            self.proc.send_signal(signal.SIGTERM)
            self.proc.communicate(timeout=20)
            self.assertEqual(self.proc.returncode, 0)
        finally:
            for c in idle + [slow]:
                c.close()

    @unittest.skipIf(PROMETHEUS is None, "no prometheus server")
    def test_a_private_prometheus_scrapes_it(self):
        """Debian's prometheus, on loopback with its own config and storage
        in the test's folder, scrapes the endpoint; its query API then
        returns the count."""
        one = run("-o", "csv", FOLLOW_Q, LOG).stdout.decode().splitlines()
        host, count = one[1].split(",")
        config = os.path.join(self.dir.name, "prometheus.yml")
        with open(config, "w", encoding="utf-8") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: mapr\n"
                    "    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % self.port)
        web = socket_port()
        prom = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(self.dir.name, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % web],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            api = ("http://127.0.0.1:%d/api/v1/query?query=" % web +
                   urllib.parse.quote('mapr_count_line{hostname="%s"}' % host))

            def scraped():
                try:
                    status, body = fetch(api, timeout=2)
                except OSError:
                    return None
                if status != 200:
                    return None
                result = json.loads(body)["data"]["result"]
                return result and result[0]["value"][1]
            self.assertEqual(wait_for("a scrape", scraped, 60), count)
        finally:
            prom.terminate()
            prom.wait(timeout=20)


def socket_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    if PROMTOOL is None:
        print("skipped: no promtool (Debian's prometheus package)")
        sys.exit(77)
    unittest.main()
