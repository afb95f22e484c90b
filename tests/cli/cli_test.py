#!/usr/bin/env python3
"""End-to-end tests of the `mapr` command (bindings/cli).

Drives the real binary. Its path comes from the MAPR_BIN environment variable
or the first command-line argument:

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/cli_test.py
  python3 tests/cli/cli_test.py build/dev/bindings/cli/mapr -v

DTail's integration vectors are read from MAPR_TESTDATA (tests/golden/dtail
in CTest), falling back to tests/golden/dtail next to this file and then to
/work/shared/testdata/dtail. Standard library only.
"""

import bz2
import collections
import gzip
import json
import lzma
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "testing"))
from collected_process import CollectedProcess  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _take_binary_from_argv():
    if len(sys.argv) > 1 and os.path.isfile(sys.argv[1]):
        return sys.argv.pop(1)
    return None


MAPR_BIN = _take_binary_from_argv() or os.environ.get("MAPR_BIN", "")


def _testdata_dir():
    candidates = [
        os.environ.get("MAPR_TESTDATA", ""),
        os.path.join(HERE, "..", "golden", "dtail"),
        "/work/shared/testdata/dtail",
    ]
    for d in candidates:
        if d and os.path.isfile(os.path.join(d, "mapr_testdata.log")):
            return os.path.abspath(d)
    raise RuntimeError("no DTail test data found (set MAPR_TESTDATA)")


DATA = _testdata_dir()
LOG = os.path.join(DATA, "mapr_testdata.log")

Q1A = ("from STATS select count($line),last($time),avg($goroutines),"
       "min(concurrentConnections),max(lifetimeConnections) "
       "group by $hostname")
Q2 = ("from STATS select count($time),$time,max($goroutines),"
      "avg($goroutines),min($goroutines) group by $time order by count($time)")
Q5 = ("select sum($timecount),last($time),min($min_goroutines) group by "
      "$hostname set $timecount = `count($time)`, $time = `$time`, "
      "$min_goroutines = `min($goroutines)` logformat csv")
TERMINAL_NOTE = ("Got 203 results but limited terminal output to 10 rows! "
                 "Use 'limit' clause to override!")
# DTail's own query reads max(concurrentConnections), which no line of its
# test log has: mapr says so on stderr (bindings/cli/notes.h).
Q1A_NOTE = ("warning: field 'concurrentConnections' was not found in any of "
            "the 597 parsed lines (log format default); check its name and "
            "the log format\n")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def expected(name):
    return read_bytes(os.path.join(DATA, name))


# Under TSan (cli_test's environment sets MAPR_TSAN=1; 10-20x slower) the
# tests that check results of pipelines of processes rather than threads
# within one are skipped: the dev and ASan runs cover them, and TSan keeps
# the tests that run the threaded input paths (InputTest).
UNDER_TSAN = os.environ.get("MAPR_TSAN") == "1"
skip_under_tsan = unittest.skipIf(
    UNDER_TSAN, "no threads of their own: the dev and ASan runs cover it")


def frame_starts(data):
    """Where each partial frame of `data` starts (its size is the u64 at
    byte 24 of its header)."""
    starts, at = [], 0
    while at < len(data):
        starts.append(at)
        at += int.from_bytes(data[at + 24:at + 32], "little")
    return starts


def multiset(data):
    return collections.Counter(data.decode().splitlines())


class MaprTestCase(unittest.TestCase):

    def setUp(self):
        if not MAPR_BIN or not os.access(MAPR_BIN, os.X_OK):
            self.fail("set MAPR_BIN to the mapr binary (got %r)" % MAPR_BIN)
        self.tmp = tempfile.mkdtemp(prefix="mapr_cli_test_")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def mapr(self, *args, stdin=None, cwd=None, code=0, env=None):
        """Runs mapr; checks the exit code; returns (stdout, stderr) bytes."""
        p = subprocess.run([os.path.abspath(MAPR_BIN)] + list(args),
                           env=dict(os.environ, **env) if env else None,
                           input=stdin,
                           stdin=None if stdin is not None else
                           subprocess.DEVNULL,
                           capture_output=True,
                           cwd=cwd or self.tmp,
                           timeout=300)
        self.assertEqual(
            p.returncode, code, "mapr %s\nstdout: %s\nstderr: %s" %
            (" ".join(args)[:300], p.stdout[:2000], p.stderr[:2000]))
        self.assertNotIn(b"Traceback", p.stderr)
        self.assertNotIn(b"terminate called", p.stderr)
        return p.stdout, p.stderr

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)


class GoldenVectorsTest(MaprTestCase):
    """DTail's integration tests (fork integrationtests/), serverless."""

    def check_dmap1(self, sub, query_body, via_stdin=False, note=Q1A_NOTE):
        outfile = "dmap1%s.csv.tmp" % sub
        query = "%s outfile %s" % (query_body, outfile)
        if via_stdin:
            out, err = self.mapr(query, stdin=read_bytes(LOG))
        else:
            out, err = self.mapr(query, LOG)
        self.assertEqual(out, b"")
        self.assertEqual(err.decode(), note)
        self.assertEqual(read_bytes(self.path(outfile)),
                         expected("dmap1%s.csv.expected" % sub))
        # The sidecar holds the raw query, byte for byte, no newline.
        self.assertEqual(read_bytes(self.path(outfile + ".query")),
                         expected("dmap1%s.csv.query.expected" % sub))
        self.assertEqual(read_bytes(self.path(outfile + ".query")),
                         query.encode())
        self.assertFalse(os.path.exists(self.path(outfile + ".tmp")))

    def test_dmap1a_file_argument(self):
        self.check_dmap1("a", Q1A)

    def test_dmap1a_stdin(self):
        self.check_dmap1("a", Q1A, via_stdin=True)

    def test_dmap1a_stdin_dash(self):
        query = Q1A + " outfile dmap1a.csv.tmp"
        self.mapr(query, "-", stdin=read_bytes(LOG))
        self.assertEqual(read_bytes(self.path("dmap1a.csv.tmp")),
                         expected("dmap1a.csv.expected"))

    def test_dmap1b_where(self):
        self.check_dmap1("b", Q1A + " where lifetimeConnections >= 3")

    def test_dmap1c_where_string(self):
        self.check_dmap1("c", Q1A + ' where $time eq "1002-071949"')

    def test_dmap1d_set(self):
        self.check_dmap1(
            "d", "from STATS select $mask,$md5,$foo,$bar,$baz,last($time), "
            "set $mask = maskdigits($time), $md5 = md5sum($time), $foo = 42, "
            "$bar = \"baz\", $baz = $time group by $hostname", note="")

    def test_dmap2_multiset(self):
        self.mapr(Q2 + " outfile dmap2.csv.tmp", LOG)
        got = read_bytes(self.path("dmap2.csv.tmp"))
        self.assertEqual(multiset(got), multiset(expected("dmap2.csv.expected")))
        self.assertEqual(read_bytes(self.path("dmap2.csv.tmp.query")),
                         expected("dmap2.csv.query.expected"))

    def test_dmap2_absolute_outfile_path(self):
        outfile = os.path.join(self.tmp, "sub", "abs.csv")
        os.mkdir(os.path.dirname(outfile))
        self.mapr(Q2 + " outfile " + outfile, LOG, cwd="/")
        self.assertEqual(multiset(read_bytes(outfile)),
                         multiset(expected("dmap2.csv.expected")))

    def test_dmap3_file_passed_100_times(self):
        query = Q2 + " desc outfile dmap3.csv.tmp"
        for threads in ("1", "2", "3"):
            self.mapr("--threads", threads, query, *([LOG] * 100))
            got = read_bytes(self.path("dmap3.csv.tmp"))
            self.assertEqual(multiset(got),
                             multiset(expected("dmap3.csv.expected")),
                             "threads=" + threads)
            self.assertEqual(read_bytes(self.path("dmap3.csv.tmp.query")),
                             query.encode())

    def test_dmap4_upstream_append_twice(self):
        query = Q2 + " outfile append dmap4.csv.tmp"
        self.mapr(query, LOG)
        self.mapr(query, LOG)
        got = read_bytes(self.path("dmap4.csv.tmp"))
        self.assertEqual(multiset(got), multiset(expected("dmap4.csv.expected")))
        self.assertEqual(got.count(b"count($time),$time"), 1)
        self.assertEqual(len(got.splitlines()), 407)
        self.assertEqual(read_bytes(self.path("dmap4.csv.tmp.query")),
                         expected("dmap4.csv.query.expected"))

    def test_dmap4_fork_append_colon_is_a_file_name(self):
        q1 = Q2 + " outfile dmap4_x.csv.tmp"
        self.mapr(q1, LOG)
        original = read_bytes(self.path("dmap4_x.csv.tmp"))
        self.assertEqual(multiset(original),
                         multiset(expected("dmap4_query1.csv.expected")))
        # The fork's step 2 has `reverse` after the order key, which mapr's
        # grammar rejects (docs/query-language.md, "order by"); it makes no
        # difference here.
        q2 = ("from STATS select count($time),$time,max($goroutines),"
              "avg($goroutines),min($goroutines) group by $time "
              "order by avg($goroutines) "
              "outfile append:dmap4_x.csv.tmp")
        self.mapr(q2, LOG)
        q3 = ("from STATS select count($line),$hostname group by $hostname "
              "outfile append:dmap4_x.csv.tmp")
        self.mapr("--hostname", "integrationtest", q3, LOG)
        self.assertEqual(read_bytes(self.path("dmap4_x.csv.tmp")), original)
        self.assertEqual(read_bytes(self.path("dmap4_x.csv.tmp.query")),
                         q1.encode())
        self.assertEqual(read_bytes(self.path("append:dmap4_x.csv.tmp")),
                         b"count($line),$hostname\n597,integrationtest\n")
        self.assertEqual(
            read_bytes(self.path("append:dmap4_x.csv.tmp.query")), q3.encode())

    def test_dmap5_csv(self):
        query = Q5 + " outfile dmap5.csv.tmp"
        self.mapr(query, os.path.join(DATA, "dmap5.csv.in"))
        self.assertEqual(read_bytes(self.path("dmap5.csv.tmp")),
                         expected("dmap5.csv.expected"))
        self.assertEqual(read_bytes(self.path("dmap5.csv.tmp.query")),
                         query.encode())

    def test_dmap_csv_multifile_header_per_file(self):
        query = "select count($line) group by * logformat csv outfile m.csv"
        for threads in ("1", "2"):
            self.mapr("-t", threads, query,
                      os.path.join(DATA, "dmap_csv_multifile_a.csv.in"),
                      os.path.join(DATA, "dmap_csv_multifile_b.csv.in"))
            self.assertEqual(read_bytes(self.path("m.csv")),
                             expected("dmap_csv_multifile.csv.expected"))

    def test_csv_same_file_twice_has_two_headers(self):
        a = os.path.join(DATA, "dmap_csv_multifile_a.csv.in")
        out, _ = self.mapr("-o", "csv",
                           "select count($line) group by * logformat csv", a,
                           a)
        self.assertEqual(out, b"count($line)\n4\n")


class TerminalInputTest(MaprTestCase):

    def run_with_terminal_stdin(self, *args):
        """Runs mapr with a pseudo-terminal as stdin, writes two lines and
        Ctrl-D to it; returns (exit code, stdout, stderr)."""
        import pty
        master, slave = pty.openpty()
        try:
            p = subprocess.Popen([os.path.abspath(MAPR_BIN)] + list(args),
                                 stdin=slave, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=self.tmp)
            os.close(slave)
            slave = -1
            os.write(master, b"a\nb\n\x04")
            out, err = p.communicate(timeout=30)
            return p.returncode, out, err
        finally:
            os.close(master)
            if slave >= 0:
                os.close(slave)

    def test_reading_a_terminal_says_so(self):
        code, out, err = self.run_with_terminal_stdin(
            "-o", "csv", "select count($line) group by *")
        self.assertEqual(code, 0)
        self.assertEqual(out, b"count($line)\n2\n")
        self.assertIn(b"mapr: reading log lines from standard input, a "
                      b"terminal; end them with Ctrl-D, or name a FILE\n",
                      err)
        # Not with --quiet, nor when the input is a file.
        code, out, err = self.run_with_terminal_stdin(
            "-q", "-o", "csv", "select count($line) group by *")
        self.assertNotIn(b"terminal", err)
        self.write("x.log", b"x\n")
        code, out, err = self.run_with_terminal_stdin(
            "-o", "csv", "select count($line) group by *", "x.log")
        self.assertEqual(out, b"count($line)\n1\n")
        self.assertNotIn(b"terminal", err)

    def test_an_empty_input_gets_a_note(self):
        out, err = self.mapr("-o", "csv", "select count($line) group by *",
                             stdin=b"")
        self.assertEqual(out, b"count($line)\n")
        self.assertEqual(err, b"warning: the input had no lines, so the "
                              b"result is empty; is it the file you meant?\n")


class OutputTest(MaprTestCase):

    def test_terminal_table(self):
        out, err = self.mapr(Q1A, LOG)
        self.assertEqual(err.decode(), Q1A_NOTE)
        lines = out.decode().split("\n")
        self.assertEqual(
            lines[0], " count($line) | last($time) | avg($goroutines) | "
            "min(concurrentConnections) | max(lifetimeConnections) ")
        self.assertTrue(lines[1].startswith("--------------|"))
        self.assertEqual(
            lines[2], "          597 | 1002-071949 |        11.628141 | "
            "                  0.000000 |                 6.000000 ")
        self.assertEqual(lines[3:], [""])

    def test_terminal_shows_ten_rows_without_limit(self):
        out, err = self.mapr(Q2, LOG)
        self.assertEqual(len(out.splitlines()), 2 + 10)
        self.assertEqual(err.decode().strip(), TERMINAL_NOTE)
        first = out.decode().splitlines()[2]
        self.assertEqual(
            first.split("|")[0:2], ["           23 ", " 1002-071147 "])

    def test_terminal_limit_overrides_the_cap(self):
        out, err = self.mapr(Q2 + " limit 20", LOG)
        self.assertEqual(len(out.splitlines()), 2 + 20)
        self.assertEqual(err, b"")
        out, err = self.mapr(Q2 + " limit 0", LOG)
        self.assertEqual(len(out.splitlines()), 2)

    def test_quiet_silences_the_note(self):
        out, err = self.mapr("--quiet", Q2, LOG)
        self.assertEqual(len(out.splitlines()), 12)
        self.assertEqual(err, b"")

    CHART_LOG = "".join(
        "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
        + kv + "\n" for kv in ["y=a|x=1", "y=bb|x=2", "y=bb|x=3", "y=c|x=1",
                               "y=c|x=1", "y=c|x=1"]).encode()

    def test_output_chart_fits_the_terminal_width(self):
        # 40 columns: label (2), '│', bar (28), ' ', value (8); the bar of
        # the largest value is full width, others in eighths of a block.
        out, err = self.mapr("--output", "chart",
                             "from STATS select y,sum(x) group by y",
                             stdin=self.CHART_LOG, env={"COLUMNS": "40"})
        self.assertEqual(
            out.decode(),
            "  │sum(x)\n"
            "a │█████▋ 1.000000\n"
            "bb│████████████████████████████ 5.000000\n"
            "c │████████████████▊ 3.000000\n")
        self.assertEqual(err, b"")
        for line in out.decode().splitlines()[1:]:
            self.assertLessEqual(len(line), 40)

    def test_output_chart_keeps_the_order_and_having(self):
        out, _ = self.mapr("-o", "chart",
                           "from STATS select count($line) as n,y group by y "
                           "having n > 1 order by n",
                           stdin=self.CHART_LOG, env={"COLUMNS": "30"})
        self.assertEqual(
            out.decode(),
            "  │n\n"
            "c │█████████████████████████ 3\n"
            "bb│████████████████▋ 2\n")

    def test_output_chart_shows_ten_rows_without_limit(self):
        out, err = self.mapr("--output", "chart", Q2, LOG,
                             env={"COLUMNS": "80"})
        lines = out.decode().splitlines()
        self.assertEqual(len(lines), 1 + 10)
        self.assertEqual(lines[0], "           │count($time)")
        self.assertTrue(lines[1].startswith("1002-071147│" + "█" * 60))
        self.assertTrue(lines[1].endswith("█ 23"), lines[1])
        self.assertEqual(err.decode().strip(), TERMINAL_NOTE)
        out, err = self.mapr("--output", "chart", Q2 + " limit 3", LOG,
                             env={"COLUMNS": "80"})
        self.assertEqual(len(out.decode().splitlines()), 1 + 3)
        self.assertEqual(err, b"")

    def test_output_chart_of_a_time_bucket_is_a_time_series(self):
        # Grouped by bucket(): rows in time order whatever the order by.
        log = b"".join(
            b"ts=2026-12-01T%s:00Z ms=1\n" % t for t in
            [b"10:07", b"09:58", b"10:01", b"09:31", b"10:40", b"10:44",
             b"10:59"])
        out, err = self.mapr(
            "-o", "chart",
            "select $b, count($line) set $b = bucket(ts, 30m) group by $b "
            "order by count($line) logformat logfmt",
            stdin=log, env={"COLUMNS": "72"})
        self.assertEqual(
            out.decode(),
            "                    │count($line)\n"
            "2026-12-01T09:30:00Z│" + "█" * 32 + "▋ 2\n"
            "2026-12-01T10:00:00Z│" + "█" * 32 + "▋ 2\n"
            "2026-12-01T10:30:00Z│" + "█" * 49 + " 3\n")
        self.assertEqual(err, b"")

    def test_output_chart_orders_access_log_times_by_instant(self):
        # CLF times do not sort as text (Nov before Oct, 01 before 30).
        log = b"".join(
            b'1.2.3.4 - - [%s +0000] "GET / HTTP/1.1" 200 1\n' % t for t in
            [b"01/Nov/2026:00:10:00", b"30/Oct/2026:23:59:00",
             b"31/Oct/2026:12:00:00", b"31/Oct/2026:12:30:00"])
        out, _ = self.mapr(
            "-o", "chart",
            "select $d, count($line) set $d = bucket(time, 1d) group by $d "
            "logformat clf",
            stdin=log, env={"COLUMNS": "90"})
        self.assertEqual(
            [line.split("│")[0] for line in out.decode().splitlines()[1:]],
            ["30/Oct/2026:00:00:00 +0000", "31/Oct/2026:00:00:00 +0000",
             "01/Nov/2026:00:00:00 +0000"])

    def test_output_chart_needs_a_numeric_column(self):
        _, err = self.mapr("-o", "chart", "from STATS select y group by y",
                           stdin=self.CHART_LOG, code=2)
        self.assertIn("--output chart draws the first numeric column",
                      err.decode())

    def test_output_csv_has_all_rows(self):
        out, err = self.mapr("--output", "csv", Q2, LOG)
        self.assertEqual(err, b"")
        self.assertEqual(multiset(out), multiset(expected("dmap2.csv.expected")))
        out, _ = self.mapr("--output=csv", Q2 + " limit 3", LOG)
        self.assertEqual(len(out.splitlines()), 4)

    def test_output_json(self):
        out, _ = self.mapr("-o", "json", Q1A, LOG)
        rows = json.loads(out)
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["count($line)"], 597)
        self.assertEqual(rows[0]["last($time)"], "1002-071949")
        self.assertAlmostEqual(rows[0]["avg($goroutines)"], 11.628141)

    def test_output_jsonl(self):
        out, _ = self.mapr("-ojsonl", Q2, LOG)
        lines = out.decode().splitlines()
        self.assertEqual(len(lines), 203)
        counts = [json.loads(line)["count($time)"] for line in lines]
        self.assertEqual(sum(counts), 597)
        self.assertEqual(counts[0], 23)

    def test_outfile_prints_nothing_unless_output_given(self):
        out, err = self.mapr(Q1A + " outfile r.csv", LOG)
        self.assertEqual((out, err.decode()), (b"", Q1A_NOTE))
        out, err = self.mapr("--quiet", Q1A + " outfile r.csv", LOG)
        self.assertEqual((out, err), (b"", b""))
        out, _ = self.mapr("--output", "csv", Q1A + " outfile r2.csv", LOG)
        self.assertEqual(out, expected("dmap1a.csv.expected"))
        self.assertEqual(read_bytes(self.path("r2.csv")), out)

    def test_outfile_write_error_exits_1(self):
        _, err = self.mapr(Q1A + " outfile no/such/dir/r.csv", LOG, code=1)
        self.assertIn(b"mapr: cannot ", err)
        self.assertIn(b"no/such/dir/r.csv", err)

    def test_stats(self):
        out, err = self.mapr("--stats", "--quiet", "-o", "csv",
                             "from STATS select count($line) group by * "
                             "where lifetimeConnections >= 3", LOG)
        self.assertEqual(out, b"count($line)\n527\n")
        stats = dict(
            line.split(": ", 1) for line in err.decode().splitlines())
        self.assertEqual(stats["lines_read"], "597")
        self.assertEqual(stats["lines_filtered"], "70")
        self.assertEqual(stats["lines_aggregated"], "527")
        self.assertIn("lines_too_long", stats)

    def test_hostname(self):
        out, _ = self.mapr("--hostname", "web-7", "-o", "csv",
                           "from STATS select $hostname,$server,count($line) "
                           "group by $hostname", LOG)
        self.assertEqual(out, b"$hostname,$server,count($line)\nweb-7,web-7,597\n")

    def test_default_hostname_is_the_machine_name(self):
        out, _ = self.mapr("-o", "csv",
                           "from STATS select $hostname group by $hostname",
                           LOG)
        import socket
        self.assertEqual(out.decode().splitlines()[1], socket.gethostname())


class InputTest(MaprTestCase):

    def test_gzip_by_magic_bytes(self):
        data = gzip.compress(read_bytes(LOG))
        for name in ("log.gz", "compressed.log"):
            path = self.write(name, data)
            out, _ = self.mapr("-o", "csv", Q1A, path)
            self.assertEqual(out, expected("dmap1a.csv.expected"), name)
        out, _ = self.mapr("-o", "csv", Q1A, stdin=data)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_gzip_concatenated_members(self):
        log = read_bytes(LOG)
        half = log.index(b"\n", len(log) // 2) + 1
        path = self.write("two.gz",
                          gzip.compress(log[:half]) + gzip.compress(log[half:]))
        out, _ = self.mapr("-o", "csv", Q1A, path)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_truncated_gzip_is_an_input_error(self):
        data = gzip.compress(read_bytes(LOG))
        path = self.write("cut.gz", data[:len(data) // 2])
        _, err = self.mapr("-o", "csv", Q1A, path, code=1)
        self.assertIn(("mapr: %s: " % path).encode(), err)

    def test_xz_and_bzip2(self):
        log = read_bytes(LOG)
        half = log.index(b"\n", len(log) // 2) + 1
        for ext, compress in (("xz", lzma.compress), ("bz2", bz2.compress)):
            one = compress(log)
            # Concatenated streams, as `cat a.xz b.xz` or pbzip2 make them.
            two = compress(log[:half]) + compress(log[half:])
            for name, data in (("log." + ext, one), ("two." + ext, two),
                               ("renamed-" + ext, one)):
                path = self.write(name, data)
                out, err = self.mapr("--stats", "-o", "csv", Q1A, path)
                self.assertEqual(out, expected("dmap1a.csv.expected"), name)
                # 597 lines of text, not the compressed bytes cut at '\n'.
                self.assertIn(b"lines_read: 597\n", err, name)
            out, _ = self.mapr("-o", "csv", Q1A, stdin=one)
            self.assertEqual(out, expected("dmap1a.csv.expected"), ext)

    def test_truncated_or_corrupt_xz_and_bzip2_are_input_errors(self):
        log = read_bytes(LOG)
        for ext, compress, fmt in (("xz", lzma.compress, b"xz"),
                                   ("bz2", bz2.compress, b"bzip2")):
            data = compress(log)
            self.write("cut." + ext, data[:len(data) // 2])
            _, err = self.mapr("-q", "-o", "csv", Q1A, "cut." + ext, code=1)
            self.assertEqual(
                err, b"mapr: cut.%s: unexpected end of %s data\n" %
                (ext.encode(), fmt))
            bad = bytearray(data)
            for i in range(len(bad) // 2, len(bad) // 2 + 8):
                bad[i] ^= 0x5a
            self.write("bad." + ext, bytes(bad))
            _, err = self.mapr("-o", "csv", Q1A, "bad." + ext, code=1)
            self.assertIn(b"mapr: bad.%s: corrupt %s data" % (ext.encode(), fmt),
                          err)

    def test_unreadable_compression_is_refused_not_counted(self):
        self.write("app.log.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7" +
                   b"binary\nbytes\n" * 10)
        self.write("ok.log", b"a\nb\n")
        count = "select count($line) group by * logformat generic"
        out, err = self.mapr("-o", "csv", count, "app.log.lz4", code=1)
        self.assertEqual((out, err), (
            b"", b"mapr: app.log.lz4: lz4-compressed input is not supported; "
            b"decompress it first (lz4 -dc app.log.lz4)\n"))
        out, err = self.mapr("-o", "csv", count, "ok.log", "app.log.lz4",
                             code=1)
        self.assertEqual(out, b"count($line)\n2\n")
        out, err = self.mapr("-o", "csv", count,
                             stdin=read_bytes(self.path("app.log.lz4")),
                             code=1)
        self.assertEqual((out, err), (
            b"", b"mapr: -: lz4-compressed input is not supported; "
            b"decompress it first (lz4 -dc FILE)\n"))
        _, err = self.mapr("--follow", count, "app.log.lz4", code=1)
        self.assertIn(b"compressed input cannot be followed", err)

    def test_lines_with_nul_bytes_are_warned_about(self):
        count = "select count($line) group by * logformat generic"
        self.write("bin.log", b"text\n\x00\x01\x02\nmore\x00\ntext\n")
        out, err = self.mapr("-o", "csv", count, "bin.log")
        self.assertEqual(out, b"count($line)\n4\n")
        self.assertEqual(
            err,
            b"warning: 2 lines contain NUL bytes; is the input a binary file?\n")
        _, err = self.mapr("-q", "-o", "csv", count, "bin.log")
        self.assertEqual(err, b"")
        self.write("one.log", b"a\x00")
        _, err = self.mapr("-o", "csv", count, "one.log")
        self.assertEqual(
            err,
            b"warning: 1 line contains NUL bytes; is the input a binary file?\n")
        _, err = self.mapr("-o", "csv", count, LOG)
        self.assertEqual(err, b"")
        # A binary file: NUL bytes, and most of it too long or rejected.
        blob = self.write("blob.bin", bytes(range(256)) * 64)
        _, err = self.mapr("-o", "csv", "--max-line-bytes", "4K", count, blob)
        self.assertIn(b"NUL bytes; is the input a binary file?", err)

    def test_zstd(self):
        zstd = shutil.which("zstd")
        if not zstd:
            self.skipTest("zstd command not installed")
        plain = self.write("z.log", read_bytes(LOG))
        subprocess.run([zstd, "-q", "-f", plain, "-o", self.path("z.log.zst")],
                       check=True)
        shutil.copy(self.path("z.log.zst"), self.path("z.data"))
        for name in ("z.log.zst", "z.data"):
            out, _ = self.mapr("-o", "csv", Q1A, self.path(name))
            self.assertEqual(out, expected("dmap1a.csv.expected"), name)
        out, _ = self.mapr("-o", "csv", Q1A,
                           stdin=read_bytes(self.path("z.log.zst")))
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_stdin_named_twice_is_read_once_by_one_thread(self):
        for threads in ("1", "4"):
            out, _ = self.mapr("-t", threads, "-o", "csv",
                               "from STATS select count($line),last($time) "
                               "group by *", "-", LOG, "-",
                               stdin=read_bytes(LOG))
            self.assertEqual(out, b"count($line),last($time)\n"
                             b"1194,1002-071949\n")

    def test_crlf_and_last_line_without_newline(self):
        log = read_bytes(LOG).replace(b"\n", b"\r\n").rstrip(b"\r\n")
        path = self.write("crlf.log", log)
        out, _ = self.mapr("-o", "csv", Q1A, path)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_overlong_line_is_counted_once_never_split(self):
        long_line = (b"INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
                     b"MAPREDUCE:STATS|currentConnections=0|x=" + b"7" * 5000)
        path = self.write("long.log",
                          b"a\n" + long_line + b"\nb\n" + long_line + b"\r\nc")
        out, err = self.mapr("--stats", "--max-line-bytes", "100", "-o", "csv",
                             "select count($line) group by * "
                             "logformat generic", path)
        self.assertEqual(out, b"count($line)\n3\n")
        stats = dict(
            line.split(": ", 1) for line in err.decode().splitlines())
        self.assertEqual(stats["lines_read"], "5")
        self.assertEqual(stats["lines_too_long"], "2")

    def test_line_longer_than_the_read_buffer(self):
        # Longer than the 1 MiB read size and the default limit.
        huge = b"x" * (3 << 20)
        path = self.write("huge.log", b"a\n" + huge + b"\nb\n")
        out, err = self.mapr("--stats", "-o", "csv",
                             "select count($line) group by * "
                             "logformat generic", path)
        self.assertEqual(out, b"count($line)\n2\n")
        self.assertIn(b"lines_too_long: 1\n", err)
        out, err = self.mapr("--stats", "-o", "csv", "--max-line-bytes", "4M",
                             "select count($line) group by * "
                             "logformat generic", path)
        self.assertEqual(out, b"count($line)\n3\n")

    @skip_under_tsan
    def test_long_line_costs_time_linear_in_its_length(self):
        # A line spread over many reads is completed in a buffer that grows
        # geometrically: 4x the length costs about 4x the time. (It used to
        # copy everything pending on every 256 KiB read, zero-filled: about
        # 16x.) Best of two runs each; a generous bound, far below 16x.
        query = "select count($line) group by * logformat generic"

        def best_seconds(mib):
            path = self.write("long%d.log" % mib,
                              b"a\n" + b"x" * (mib << 20) + b"\nb\n")
            best = float("inf")
            for _ in range(2):
                start = time.monotonic()
                out, _ = self.mapr("-o", "csv", "--threads", "1",
                                   "--max-line-bytes", "100M", query, path)
                best = min(best, time.monotonic() - start)
                self.assertEqual(out, b"count($line)\n3\n")
            os.unlink(path)
            return best

        t16 = best_seconds(16)
        t64 = best_seconds(64)
        self.assertLess(t64, 8 * t16 + 0.5, (t16, t64))

    def test_glob(self):
        os.mkdir(self.path("logs"))
        for name in ("a.log", "b.log"):
            shutil.copy(LOG, self.path(os.path.join("logs", name)))
        with open(self.path("logs/a.log.gz"), "wb") as f:
            f.write(gzip.compress(read_bytes(LOG)))
        query = "from STATS select count($line) group by *"
        out, _ = self.mapr("-o", "csv", query, "logs/*.log")
        self.assertEqual(out, b"count($line)\n1194\n")
        out, _ = self.mapr("-o", "csv", query, "logs/*")
        self.assertEqual(out, b"count($line)\n1791\n")
        _, err = self.mapr("-o", "csv", query, "logs/*.nothing", LOG, code=1)
        self.assertIn(b"mapr: logs/*.nothing: ", err)

    def test_threads_give_identical_output(self):
        # A file large enough to be cut between threads (16 MiB or more),
        # whose last() values differ per part.
        base = read_bytes(LOG)
        parts = [base.replace(b"1002-07", b"%04d-07" % i) for i in range(300)]
        path = self.write("big.log", b"".join(parts))
        self.assertGreater(os.path.getsize(path), 18 << 20)
        queries = [
            "from STATS select count($line),last($time),last($line),"
            "avg($goroutines),max(lifetimeConnections) group by $hostname",
            "from STATS select last($time),count($line),min($goroutines) "
            "group by lifetimeConnections order by count($line)",
        ]
        for query in queries:
            for files in ([path, LOG], [LOG, path, path]):
                outputs = set()
                for threads in ("1", "2", "5"):
                    out, _ = self.mapr("-t", threads, "-o", "csv", query,
                                       *files)
                    outputs.add(out)
                self.assertEqual(len(outputs), 1, (query, files))
        out, _ = self.mapr("-t", "4", "-o", "csv", queries[0], path, LOG)
        self.assertIn(b",1002-071949,", out)
        self.assertTrue(out.splitlines()[1].startswith(b"179697,"))

    def test_threads_give_identical_output_for_compressed_mixes(self):
        # Compressed and plain inputs in any mix: compressed files are
        # weighed by their work and may decode on a thread of their own
        # (a thread the groups leave idle), plain ones are cut between
        # threads. The bytes out are the same for every thread count, and
        # the same as reading the decompressed files.
        base = read_bytes(LOG)
        parts = [base.replace(b"1002-07", b"%04d-07" % i) for i in range(300)]
        big = b"".join(parts)
        self.assertGreater(len(big), 18 << 20)
        plain = self.write("big.log", big)
        small = self.write("small.log", base.replace(b"1002-07", b"7777-07"))
        gz = self.write("big.log.gz", gzip.compress(big, 1))
        # Two members, as `cat a.gz b.gz` makes them.
        gz2 = self.write("two.log.gz", gzip.compress(big[:1 << 20], 1) +
                         gzip.compress(read_bytes(small), 1))
        xz = self.write("small.log.xz", lzma.compress(read_bytes(small)))
        bz = self.write("small.log.bz2", bz2.compress(read_bytes(small)))
        mixes = [
            ([gz], [plain]),
            ([gz, plain, xz], [plain, plain, small]),
            ([small, gz, gz2, bz, plain], [small, plain, None, small, plain]),
            ([gz, gz, gz, gz], [plain, plain, plain, plain]),
        ]
        zstd = shutil.which("zstd")
        if zstd:
            subprocess.run([zstd, "-q", "-f", "-1", plain, "-o",
                            self.path("big.log.zst")], check=True)
            zst = self.path("big.log.zst")
            mixes.append(([zst, gz, small, zst], [plain, plain, small, plain]))
        # gz2's decompressed bytes, for the plain twin of the third mix.
        two = self.write("two.log", big[:1 << 20] + read_bytes(small))
        query = ("from STATS select count($line),last($time),last($line),"
                 "avg($goroutines),max(lifetimeConnections) "
                 "group by $hostname")
        for files, twins in mixes:
            twins = [two if t is None else t for t in twins]
            want, _ = self.mapr("-t", "1", "-o", "csv", query, *twins)
            for threads in ("1", "2", "3", "5"):
                out, _ = self.mapr("-t", threads, "-o", "csv", query, *files)
                self.assertEqual(out, want, (files, threads))

    def test_fractional_sums_are_exact_for_any_thread_count(self):
        # The issue's case: 2M lines g=N|x=V with V from a set whose float64
        # sums depend on the order of addition. sum() and avg() are the
        # exact sum rounded once, so every thread count prints the same,
        # and it equals math.fsum (correctly rounded) of the same values.
        import math
        import random
        values = ["0.1", "0.2", "0.3", "1e-7", "12345.678", "0.7",
                  "3.3333333"]
        rng = random.Random(12)
        groups = {}
        lines = []
        for _ in range(2000000):
            g = rng.randrange(5)
            v = values[rng.randrange(len(values))]
            groups.setdefault(g, []).append(float(v))
            lines.append("g=%d|x=%s\n" % (g, v))
        path = self.write("sums.log", "".join(lines).encode())
        query = ("select g,count($line),sum(x),avg(x) group by g "
                 "logformat generickv")
        outputs = set()
        for threads in ("1", "2", "3"):
            out, _ = self.mapr("-t", threads, "-o", "csv", query, path)
            outputs.add(out)
        self.assertEqual(len(outputs), 1, outputs)
        expected_rows = ["g,count($line),sum(x),avg(x)"]
        for g in sorted(groups):
            xs = groups[g]
            total = math.fsum(xs)
            expected_rows.append("%d,%d,%.6f,%.6f" %
                                 (g, len(xs), total, total / len(xs)))
        self.assertEqual(out.decode().splitlines(), expected_rows)


    def test_too_long_lines_are_counted_alike_for_any_thread_count(self):
        # Cut between threads at line starts; each part's splitter counts its
        # too-long lines as Aggregator::PushBytes does (lines_read and
        # lines_too_long), so the sum is the same for every cut.
        lines = read_bytes(LOG).splitlines() * 320
        too_long = 0
        for i in range(0, len(lines), 997):
            lines[i] += b"x" * 300  # longer than --max-line-bytes 256
            too_long += 1
        for i in range(5, len(lines), 1009):
            lines[i] = lines[i][:256] + b"\r"  # at the limit, CRLF: fine
        path = self.write("big.log", b"\n".join(lines))  # no final '\n'
        self.assertGreater(os.path.getsize(path), 18 << 20)
        query = "from STATS select count($line),last($time) group by $hostname"
        results = set()
        for threads in ("1", "2", "5"):
            out, err = self.mapr("-t", threads, "-o", "csv", "--stats",
                                 "--max-line-bytes", "256", query, path)
            results.add((out, err))
        self.assertEqual(len(results), 1)
        stats = dict(line.split(": ", 1)
                     for line in err.decode().splitlines())
        self.assertEqual(stats["lines_read"], str(len(lines)))
        self.assertEqual(stats["lines_too_long"], str(too_long))


class TopkSketchTest(MaprTestCase):
    """topk past 4096 distinct values per group (a Count-Min sketch with
    Misra-Gries candidates): the same bytes for any thread count, --range
    split, combine tree and reduce order, within its stated bounds of the
    true counts."""

    QUERY = ("select g, topk(v, 10), topk(v, 100) as top100, count(v) "
             "group by g order by g logformat logfmt")

    @skip_under_tsan
    def test_same_list_for_any_split_and_within_bounds(self):
        import collections
        import random
        rnd = random.Random(5)
        # Zipf-like values (weight 1 / rank) over 150000 ranks in 3 groups,
        # over 16 MiB so that the threads cut the file (8 MiB pieces).
        ranks = list(range(150000))
        weights = [1.0 / (r + 1) for r in ranks]
        truth = collections.defaultdict(collections.Counter)
        lines = []
        for g, n in (("a", 500000), ("b", 300000), ("c", 3000)):
            for r in rnd.choices(ranks, weights, k=n):
                v = "/api/v1/items/%d" % r
                truth[g][v] += 1
                lines.append("g=%s v=%s\n" % (g, v))
        rnd.shuffle(lines)
        text = "".join(lines).encode()
        self.assertGreater(len(text), 16 << 20)
        path = self.write("wide.log", text)
        want, _ = self.mapr("-t", "1", "-o", "csv", self.QUERY, path)
        for threads in ("2", "7"):
            out, _ = self.mapr("-t", threads, "-o", "csv", self.QUERY, path)
            self.assertEqual(out, want, threads)
        size = len(text)
        cuts = [0] + sorted(rnd.sample(range(1, size), 5)) + [size]
        parts = []
        for i in range(len(cuts) - 1):
            out, _ = self.mapr("map", "--split", str(i), "--range",
                               "%d:%d" % (cuts[i], cuts[i + 1]), self.QUERY,
                               path)
            parts.append(self.write("p%d.part" % i, out))
        shuffled = parts[:]
        rnd.shuffle(shuffled)
        out, _ = self.mapr("reduce", "--expect-splits", str(len(parts)),
                           "-o", "csv", *shuffled)
        self.assertEqual(out, want)
        while len(parts) > 1:
            k = rnd.randrange(len(parts) - 1)
            out, _ = self.mapr("combine", *parts[k:k + 2])
            parts[k:k + 2] = [self.write("c%d.part" % len(parts), out)]
        out, _ = self.mapr("reduce", "-o", "csv", parts[0])
        self.assertEqual(out, want)
        # The bounds, against the true counts.
        import csv
        import io
        rows = list(csv.reader(io.StringIO(want.decode())))
        self.assertEqual(rows[0], ["g", "topk(v,10)", "top100", "count(v)"])
        for g, top10, top100, count in rows[1:]:
            counts = truth[g]
            n = sum(counts.values())
            self.assertEqual(int(count), n)
            if g == "c":  # 3000 values: exact
                ranked = sorted(counts.items(), key=lambda e: (-e[1], e[0]))
                self.assertEqual(top10, ", ".join(
                    "%s (%d)" % e for e in ranked[:10]))
                continue
            shown = []
            for entry in top100.split(", "):
                value, bound = entry.rsplit(" (<=", 1)
                shown.append((value, int(bound[:-1])))
            self.assertEqual(top10, ", ".join(top100.split(", ")[:10]))
            self.assertEqual(shown, sorted(shown, key=lambda e: (-e[1], e[0])))
            for value, hi in shown:
                self.assertGreaterEqual(hi, counts[value], value)
                self.assertLessEqual((hi - counts[value]) * 2048, n, value)
                self.assertGreater(hi * 1025, 2 * n, value)
            # Every value past 2n / 1025 is listed, but for those below
            # the 100th shown count.
            listed = {v for v, _ in shown}
            floor = shown[-1][1] if len(shown) == 100 else 0
            heavy = [v for v, c in counts.items() if c * 1025 > 2 * n]
            self.assertGreater(len(heavy), 30)
            for v in heavy:
                if counts[v] > floor:
                    self.assertIn(v, listed)


class MultilineTest(MaprTestCase):
    """Events of several lines (`multiline`, --event-start): the same
    result for any thread count and any --range split, equal to the events
    joined by hand; usage errors."""

    QUERY = ("select level, count($line), last($line), sum(ms) group by level "
             "order by level logformat logfmt")

    def events(self, n, seed):
        import random
        rnd = random.Random(seed)
        out = []
        for i in range(n):
            lines = ["2024-05-01T12:00:%02d level=%s ms=%d" % (
                i % 60, rnd.choice(["info", "warn", "error"]),
                rnd.randrange(1000))]
            if rnd.random() < 0.4:
                lines.append("java.lang.IllegalStateException: n%d" % i)
                for _ in range(rnd.randrange(1, 30)):
                    lines.append("\tat com.example.C%d.f(C.java:%d)" % (
                        rnd.randrange(9), rnd.randrange(900)))
                lines.append("\t... %d more" % rnd.randrange(50))
            out.append(lines)
        return out

    def test_threads_ranges_and_joined_events_agree(self):
        # Over 16 MiB, so that the threads cut the file (8 MiB pieces).
        events = self.events(20000, 3) * 4
        text = "".join("\n".join(e) + "\n" for e in events).encode()
        self.assertGreater(len(text), 16 << 20)
        path = self.write("app.log", text)
        # The oracle: each event joined into one line with "\x1f" for the
        # newlines, read by the plain query, then the separators put back
        # (JSON escapes both).
        joined = self.write("joined.log", "".join(
            "\x1f".join(e) + "\n" for e in events).encode())
        want, _ = self.mapr("-o", "json", self.QUERY, joined)
        want = want.replace(b"\\u001f", b"\\u000a")
        for flag in (["--event-start", r"^\d{4}-"], []):
            query = self.QUERY + ("" if flag else " multiline java")
            for threads in ("1", "2", "7"):
                out, err = self.mapr("-t", threads, "-o", "json", "--stats",
                                     *flag, query, path)
                self.assertEqual(out, want, (flag, threads))
                self.assertIn(b"lines_read: %d\n" % len(events), err)
        # --range cuts anywhere; each range holds whole events.
        size = len(text)
        cuts = [0, 1, size // 3, size // 3 + 1, size // 2, size - 5, size]
        parts = []
        for i in range(len(cuts) - 1):
            out, _ = self.mapr("map", "--split", str(i), "--range",
                               "%d:%d" % (cuts[i], cuts[i + 1]),
                               "--event-start", r"^\d{4}-", self.QUERY, path)
            parts.append(self.write("p%d.part" % i, out))
        out, _ = self.mapr("reduce", "--expect-splits", str(len(parts)),
                           "-o", "json", *parts)
        self.assertEqual(out, want)
        # map --follow over the same file: deltas every 20 ms, an event
        # may wait for its next start; the final partial completes it.
        out, _ = self.mapr("map", "--follow", "--from-start", "--until-eof",
                           "--interval-ms", "20", "--source", "f", "-q",
                           "--event-start", r"^\d{4}-", self.QUERY, path)
        follow = self.write("follow.parts", out)
        out, err = self.mapr("reduce", "-o", "json", follow)
        self.assertEqual(out, want)
        self.assertEqual(err, b"")

    def test_usage_errors(self):
        path = self.write("x.log", b"a\n")
        _, err = self.mapr("--event-start", "^a",
                           "select count($line) multiline java", path, code=2)
        self.assertIn(b"--event-start and the query's multiline clause: give "
                      b"only one", err)
        _, err = self.mapr("--event-start", "", "select count($line)", path,
                           code=2)
        self.assertIn(b"--event-start needs a regular expression", err)
        _, err = self.mapr("--event-start", "(a", "select count($line)", path,
                           code=2)
        self.assertIn(b"invalid regular expression: missing ): (a", err)
        _, err = self.mapr("--event-start", "'\"", "select count($line)",
                           path, code=2)
        self.assertIn(b"cannot be quoted in a query", err)
        # A regex with a single quote is quoted with double quotes.
        out, _ = self.mapr("-o", "csv", "--event-start", "^'",
                           "select count($line) group by $hostname",
                           self.write("q.log", b"'a\n b\n'c\n"))
        self.assertEqual(out, b"count($line)\n2\n")
        out, _ = self.mapr("--explain", "--event-start", "^'",
                           "select count($line)")
        self.assertIn(b"events: lines matching '^'' start one", out)
        _, err = self.mapr("map", "--follow", "--resume-from", "10",
                           "--event-start", "^a", "select count($line)", path,
                           code=2)
        self.assertIn(b"--resume-from does not work with a multiline query",
                      err)
        _, err = self.mapr("--journal", "--event-start", "^a",
                           "select count($line)", code=2)
        self.assertIn(b"a multiline query does not apply", err)


class OmprogTest(MaprTestCase):
    """map --omprog (docs/cli.md, "Confirmed delivery"): omprog's answers,
    the message log, and how a copy that died is adopted: its logged
    messages counted once, a torn frame cut off, a stale log not counted
    again, a message sent again skipped by its id."""

    QUERY = ("select user,count($line),sum(bytes) group by user "
             "logformat generickv")

    def lines(self, n, start=0):
        return ["id%d user=%s|bytes=%d" % (i, "abc"[i % 3], i)
                for i in range(start, start + n)]

    def expected(self, lines):
        """The one-pass CSV of the lines without their ids."""
        plain = self.write("plain.log", "".join(
            l.split(" ", 1)[1] + "\n" for l in lines).encode())
        out, _ = self.mapr("-o", "csv", self.QUERY, plain)
        return out

    def reduce(self, folder):
        parts = sorted(os.path.join(folder, p) for p in os.listdir(folder)
                       if p.endswith(".parts"))
        return self.mapr("reduce", "-o", "csv", *parts)

    def start(self, folder, *extra):
        return subprocess.Popen(
            [os.path.abspath(MAPR_BIN), "map", "--omprog", folder,
             "--message-id", *extra, self.QUERY],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)

    def dead_copy(self, batches):
        """Copy 'a' in a new folder: `batches` batches of 5 messages, each
        followed by a partial (every 50 ms), then SIGKILL. Returns (folder,
        its parts file, the messages, its pid)."""
        folder = os.path.join(self.tmp, "parts")
        os.mkdir(folder)
        parts = os.path.join(folder, "a.parts")
        a = self.start(folder, "--interval-ms", "50", "--source", "a")
        self.assertEqual(a.stdout.readline(), b"OK\n")
        deadline = time.monotonic() + 30
        lines = self.lines(5 * batches)
        for batch in range(batches):
            size = os.path.getsize(parts) if os.path.exists(parts) else 0
            self.talk(a, lines[5 * batch:5 * batch + 5])
            while not os.path.exists(parts) or os.path.getsize(parts) == size:
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.01)
        a.kill()
        a.wait()
        for pipe in (a.stdin, a.stdout, a.stderr):
            pipe.close()
        return folder, parts, lines, a.pid

    def talk(self, p, lines):
        """Sends each line and reads its answer."""
        for line in lines:
            p.stdin.write(line.encode() + b"\n")
            p.stdin.flush()
            self.assertEqual(p.stdout.readline(), b"OK\n", line)

    def test_answers_and_partials(self):
        folder = os.path.join(self.tmp, "parts")
        os.mkdir(folder)
        lines = self.lines(50)
        data = ("BEGIN TRANSACTION\n" + "".join(l + "\n" for l in lines) +
                "COMMIT TRANSACTION\n" + "id99 user=z|bytes=1").encode()
        out, err = self.mapr("map", "--omprog", folder, "--message-id",
                             "--stats", "--source", "one", self.QUERY,
                             stdin=data)
        # Ready, the two marks and every message; the cut last line is no
        # message and gets no answer.
        self.assertEqual(out, b"OK\n" * 53)
        self.assertIn(b"lines_read: 50\n", err)
        self.assertEqual(sorted(os.listdir(folder)), ["one.parts"])
        out, err = self.reduce(folder)
        self.assertEqual(out, self.expected(lines))
        self.assertEqual(err, b"")

    def test_an_adopted_copy_is_folded_and_not_read_again(self):
        # Folders only grew: every new copy read every dead copy's log and
        # parts file again. The adopter folds the parts into one final
        # frame and marks the log adopted; later copies read the mark only.
        folder, parts, lines, pid = self.dead_copy(3)

        def frames():
            return len(frame_starts(read_bytes(parts)))

        self.assertGreaterEqual(frames(), 3)
        self.mapr("map", "--omprog", folder, "--source", "b", "-q",
                  self.QUERY, stdin=b"")
        self.assertEqual(frames(), 1)
        info, _ = self.mapr("inspect", parts)
        self.assertIn(b"final: yes\n", info)
        self.assertTrue(read_bytes(os.path.join(folder, "a.wal")).startswith(
            b"mapr-omprog-wal 1 pid %d split " % pid))
        self.assertIn(b" adopted\n", read_bytes(os.path.join(folder, "a.wal")))
        out, err = self.reduce(folder)
        self.assertEqual(out, self.expected(lines))
        self.assertEqual(err, b"")
        # The next copy reads a's mark, not its parts (spoilt here: a copy
        # that read it would say it is damaged).
        with open(parts, "wb") as f:
            f.write(b"garbage")
        _, err = self.mapr("map", "--omprog", folder, "--source", "c",
                           self.QUERY, stdin=b"")
        self.assertEqual(err, b"")

    def test_a_dead_copy_not_adopted_yet_is_noted_by_reduce(self):
        # Its partials so far reduce, with the note that its stream had
        # not ended (it was silent: 5 of 10 messages, exit 0, no word).
        _, parts, lines, _ = self.dead_copy(1)
        out, err = self.mapr("reduce", "-o", "csv", parts)
        self.assertEqual(out, self.expected(lines))
        self.assertEqual(err, b"mapr: source 'a': its last partial is not "
                         b"final (its stream had not ended): the result "
                         b"lacks what came later\n")
        info, _ = self.mapr("inspect", parts)
        self.assertIn(b"position: ", info)

    def test_damage_inside_a_dead_copys_parts_is_kept_and_named(self):
        # A dead copy's parts file with a flipped byte in its second frame
        # (of three or more): the adopter once cut the file there, deleting
        # the confirmed messages of every later frame, and reduce then
        # counted the rest with exit 0. Only a torn last frame is cut;
        # damage is named, and the file kept for reduce to refuse.
        folder, parts, _, _ = self.dead_copy(3)
        data = bytearray(read_bytes(parts))
        starts = frame_starts(data)
        self.assertGreaterEqual(len(starts), 3)
        second = starts[1]
        data[(second + starts[2]) // 2] ^= 0x40
        with open(parts, "wb") as f:
            f.write(data)
        _, err = self.mapr("map", "--omprog", folder, "--source", "b",
                           self.QUERY, stdin=b"user=z|bytes=1\n")
        self.assertIn(("mapr: --omprog: not adopting '%s': frame 2 (at byte "
                       "%d) is damaged (partial checksum mismatch: the frame "
                       "is corrupt); the file is kept as it is\n" %
                       (parts, second)).encode(), err)
        self.assertEqual(read_bytes(parts), bytes(data))
        _, err = self.mapr("reduce", parts, code=1)
        self.assertIn(b"frame 2 (at byte %d)" % second, err)

    def test_a_dead_copy_is_adopted_and_counted_once(self):
        folder = os.path.join(self.tmp, "parts")
        os.mkdir(folder)
        lines = self.lines(30)
        # A copy with partials every 50 ms, then one that never writes one.
        a = self.start(folder, "--interval-ms", "50", "--source", "a")
        self.talk(a, lines[:10])
        deadline = time.monotonic() + 30
        while os.path.getsize(os.path.join(folder, "a.parts")) == 0:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        self.talk(a, lines[10:20])
        b = self.start(folder, "--interval-ms", "3600000", "--source", "b")
        self.assertEqual(b.stdout.readline(), b"OK\n")
        self.talk(b, lines[20:25])
        for p in (a, b):
            p.kill()
            p.wait()
        # a's log holds the messages since its last partial: the 10 of its
        # second batch, or fewer if a partial (every 50 ms) came during or
        # after it; none count again if a died after writing a partial and
        # before starting its new log (the log's split is then on disk, as
        # for c below). The adopter writes the others, however many.
        a_logged = len(read_bytes(os.path.join(folder, "a.wal"))
                       .splitlines()) - 1
        self.assertTrue(0 <= a_logged <= 10, a_logged)
        # b was writing a partial when it died: half a frame.
        with open(os.path.join(folder, "a.parts"), "rb") as f:
            frame = f.read()
        with open(os.path.join(folder, "b.parts"), "ab") as f:
            f.write(frame[:100])
        # A copy that ended between a partial and its new log: its log still
        # names the split that is on disk (stale), so it is not counted again.
        lines_c = ["cid%d user=c|bytes=%d" % (i, 1000 + i) for i in range(3)]
        c = self.start(folder, "--interval-ms", "50", "--source", "c")
        self.talk(c, lines_c)
        # Its partial is on disk once its new log is (split 1).
        while not read_bytes(os.path.join(folder, "c.wal")).startswith(
                b"mapr-omprog-wal 1 pid %d split 1\n" % c.pid):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        c.kill()
        c.wait()
        # c adopted a and b when it started.
        said = c.stderr.read()
        with open(os.path.join(folder, "c.wal"), "wb") as f:
            f.write(b"mapr-omprog-wal 1 pid 999999999 split 0\n" +
                    "".join(l + "\n" for l in lines_c).encode())
        for p in (a, b, c):
            for pipe in (p.stdin, p.stdout, p.stderr):
                pipe.close()

        # The next copy adopts a, b and c. b's last message (id24) may not
        # have been confirmed: when it comes again it is skipped.
        out, err = self.mapr("map", "--omprog", folder, "--message-id",
                             "--stats", "--source", "d", self.QUERY,
                             stdin="".join(l + "\n" for l in
                                           [lines[24]] + lines[25:])
                             .encode())
        self.assertEqual(out, b"OK\n" * 7)
        self.assertIn(b"messages_skipped_as_counted: 1\n", err)
        said += err
        self.assertRegex(said, rb"copy 'b' \(process \d+\) ended without "
                         rb"its last partial; wrote it \(split 0, 5 messages "
                         rb"from its log\)")
        self.assertRegex(err, rb"copy 'c' \(process 999999999\) ended "
                         rb"without its last partial; wrote it \(split 1, 0 "
                         rb"messages from its log\)")
        self.assertRegex(said, rb"copy 'a' \(process \d+\) ended without "
                         rb"its last partial; wrote it \(split [1-9]\d*, "
                         rb"(?:0|%d) messages from its log\)" % a_logged)
        # A copy adopts each dead one once.
        _, again = self.mapr("map", "--omprog", folder, self.QUERY, stdin=b"")
        self.assertNotIn(b"ended without", again)
        out, err = self.reduce(folder)
        self.assertEqual(err, b"")
        # Every line once.
        self.assertEqual(out, self.expected(lines + lines_c))

    def test_usage(self):
        folder = os.path.join(self.tmp, "parts")
        os.mkdir(folder)
        _, err = self.mapr("map", "--omprog", folder, self.QUERY, LOG, code=2)
        self.assertIn(b"--omprog reads standard input: give no FILE", err)
        _, err = self.mapr("map", "--omprog", folder, "--follow", self.QUERY,
                           code=2)
        self.assertIn(b"--omprog writes its own stream", err)
        _, err = self.mapr("map", "--message-id", self.QUERY, LOG, code=2)
        self.assertIn(b"--message-id works only with map --omprog", err)
        _, err = self.mapr("--omprog", folder, self.QUERY, LOG, code=2)
        self.assertIn(b"--omprog works only with map", err)
        _, err = self.mapr("map", "--omprog", LOG, self.QUERY, stdin=b"",
                           code=1)
        self.assertIn(b"is not a folder", err)
        # A file that is not a message log is named and left alone.
        with open(os.path.join(folder, "junk.wal"), "wb") as f:
            f.write(b"not a log\n")
        _, err = self.mapr("map", "--omprog", folder, "--source", "s",
                           self.QUERY, stdin=b"")
        self.assertIn(b"--omprog: skipping '%s/junk.wal': not a message log"
                      % folder.encode(), err)
        _, err = self.mapr("map", "--omprog", folder, "--source", "s",
                           self.QUERY, stdin=b"", code=1)
        self.assertIn(b"exists: another copy has source 's'", err)


class ErrorTest(MaprTestCase):

    def test_bad_query_exits_2_with_caret(self):
        _, err = self.mapr("from STATS select avgg($x) group by $hostname", LOG,
                           code=2)
        lines = err.decode().splitlines()
        self.assertTrue(lines[0].startswith("mapr: 1:19-22: "), lines[0])
        self.assertIn("avgg", lines[0])
        self.assertIn("from STATS select avgg($x) group by $hostname", lines)
        self.assertTrue(any(line.strip().startswith("^") for line in lines))

    def test_missing_file_exits_1_and_counts_the_others(self):
        out, err = self.mapr("-o", "csv", Q1A, "nope.log", LOG, code=1)
        self.assertEqual(
            err.decode(),
            "mapr: nope.log: No such file or directory\n" + Q1A_NOTE)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_directory_exits_1(self):
        out, err = self.mapr("-o", "csv", Q1A, self.tmp, LOG, code=1)
        self.assertEqual(err.decode(),
                         "mapr: %s: Is a directory\n" % self.tmp + Q1A_NOTE)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_no_readable_input_writes_no_outfile(self):
        out, _ = self.mapr(Q1A + " outfile r.csv", "nope.log", code=1)
        self.assertEqual(out, b"")
        self.assertFalse(os.path.exists(self.path("r.csv")))

    def test_unreadable_file(self):
        # Root reads everything: as root (CI), mapr runs as the user
        # "nobody" (as tests/bad_input/files_test.py does), and the same
        # user reading a readable file shows that the mode is what stops
        # it.
        extra = {}
        if os.geteuid() == 0:
            import pwd
            try:
                user = pwd.getpwnam("nobody")
                uid, gid = user.pw_uid, user.pw_gid
            except KeyError:
                uid, gid = 65534, 65534
            extra = dict(user=uid, group=gid, extra_groups=[])
            os.chmod(self.tmp, 0o755)  # Everybody may enter it.
        path = self.write("secret.log", b"x\n")
        os.chmod(path, 0)
        os.chmod(self.write("ok.log", b"x\n"), 0o644)

        def run(*args):
            return subprocess.run([os.path.abspath(MAPR_BIN)] + list(args),
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, cwd=self.tmp,
                                   timeout=300, **extra)
        p = run("-o", "csv", "select count($line) group by * logformat "
                "generic", "ok.log")
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (0, b"count($line)\n1\n", b""))
        p = run(Q1A, path)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"Permission denied", p.stderr)

    def test_usage_errors_exit_2(self):
        for args in ([], ["--no-such-flag", Q1A], ["--threads", "0", Q1A],
                     ["--threads", "x", Q1A], ["--output", "xml", Q1A],
                     ["--max-line-bytes", "0", Q1A], ["--output"],
                     ["--stats=yes", Q1A]):
            _, err = self.mapr(*args, code=2)
            self.assertTrue(err.startswith(b"mapr: "), (args, err))
            self.assertIn(b"--help", err)

    def test_explain_reports_files_a_run_could_not_open(self):
        # --explain reads no input, but says what a run would say about a
        # FILE it could not open, and exits 1 as that run would.
        out, err = self.mapr("--explain", Q1A, LOG, self.path("nope.log"),
                             code=1)
        self.assertIn(b"format: default", out)
        self.assertEqual(err, ("mapr: %s: No such file or directory\n" %
                               self.path("nope.log")).encode())
        out, err = self.mapr("--explain", Q1A, LOG)
        self.assertEqual(err, b"")

    def test_follow_only_options_need_follow(self):
        for args in (["--delta"], ["--from-start"], ["--interval-ms", "100"]):
            _, err = self.mapr(*args, Q1A, LOG, code=2)
            self.assertIn(b"works only with --follow", err)
        for value in ("0", "x", "-5", "86400001"):
            _, err = self.mapr("--follow", "--interval-ms", value, Q1A, LOG,
                               code=2)
            self.assertIn(b"invalid --interval-ms", err)

    def test_warnings(self):
        query = "from STATS select $service,count($line) group by $service"
        _, err = self.mapr(query, LOG)
        self.assertTrue(err.startswith(b"warning: $service"), err)
        _, err = self.mapr("--quiet", query, LOG)
        self.assertEqual(err, b"")


class NotesTest(MaprTestCase):
    """Notes on stderr when a result is probably not what was meant."""

    DPKG = (b"2025-06-24 14:36:25 startup archives unpack\n"
            b"2025-06-24 14:36:25 status installed man-db:amd64 2.11.2-2\n"
            b"2025-06-24 14:36:26 trigproc libc-bin:amd64 2.36-9 <none>\n")

    def test_every_line_of_another_table(self):
        path = self.write("dpkg.log", self.DPKG)
        out, err = self.mapr("-o", "csv", "from dpkg select count($line)", path)
        self.assertEqual(out, b"count($line)\n")
        self.assertEqual(
            err.decode(),
            "warning: 3 of 3 lines are not DTail `|MAPREDUCE:DPKG|` lines; "
            "drop `from` for plain logs\n")
        # Without `from`, the same file answers.
        out, err = self.mapr("-o", "csv", "select count($line) group by *",
                             path)
        self.assertEqual((out, err), (b"count($line)\n3\n", b""))

    def test_plain_lines_for_the_default_format(self):
        out, err = self.mapr("-o", "csv", "from * select count($line)", "-",
                             stdin=b"|MAPREDUCE:X| but no INFO fields\n")
        self.assertEqual(out, b"count($line)\n")
        self.assertIn("1 of 1 lines are not DTail INFO lines", err.decode())

    def test_json_lines_read_as_generickv(self):
        lines = b'{"user":"ann","ms":12}\n{"user":"bob","ms":40}\n'
        out, err = self.mapr(
            "-o", "csv",
            "select user,count($line) group by user logformat generickv", "-",
            stdin=lines)
        self.assertEqual(out, b"user,count($line)\n,2\n")  # One empty group.
        self.assertEqual(
            err.decode(),
            "warning: field 'user' was not found in any of the 2 parsed lines "
            "(log format generickv); check its name and the log format\n")

    def test_group_by_field_no_line_has(self):
        out, err = self.mapr("-o", "csv", "--threads", "2",
                             "select count($line) group by hots "
                             "logformat generickv", "-",
                             stdin=b"host=a\nhost=b\n")
        self.assertEqual(out, b"count($line)\n2\n")
        self.assertIn("field 'hots' was not found in any of the 2 parsed lines",
                      err.decode())

    def test_a_file_without_newlines_is_one_too_long_line(self):
        path = self.write("blob", b"x" * 5000)
        out, err = self.mapr("-o", "csv", "--max-line-bytes", "4K",
                             "select count($line) group by *", path)
        self.assertEqual(out, b"count($line)\n")
        self.assertEqual(
            err.decode(),
            "warning: 1 line was longer than 4K and skipped; raise "
            "--max-line-bytes to read them\n")

    def test_quiet_silences_every_note(self):
        path = self.write("dpkg.log", self.DPKG)
        for query in ("from dpkg select count($line)",
                      "select count($line) group by hots logformat generickv"):
            out, err = self.mapr("-q", "-o", "csv", "--max-line-bytes", "10",
                                 query, path)
            self.assertEqual(err, b"")

    def test_follow_prints_the_notes_after_the_final_result(self):
        out, err = self.mapr("--follow", "-o", "csv",
                             "select count($line) group by hots "
                             "logformat generickv", "-",
                             stdin=b"host=a\nhost=b\n")
        self.assertTrue(
            out.endswith(b"count($line)\n2\n# end of report 1 (final)\n"), out)
        self.assertIn("field 'hots' was not found in any of the 2 parsed lines",
                      err.decode())


class MiscTest(MaprTestCase):

    def test_explain_reads_no_input(self):
        # No FILE: standard input, which --explain does not wait for.
        out, err = self.mapr("--explain",
                             "from STATS select $service group by $service")
        self.assertIn(b"format: default", out)
        self.assertIn(b"group by: $service", out)
        self.assertIn(b"warning: $service", out)
        self.assertEqual(err, b"")

    def test_help(self):
        out, _ = self.mapr("--help")
        text = out.decode()
        for option in ("--output", "--stats", "--explain", "--quiet",
                       "--hostname", "--threads", "--max-line-bytes",
                       "--max-groups", "--query", "--files", "--help", "--version",
                       "--follow", "--delta", "--from-start",
                       "--interval-ms"):
            self.assertIn(option, text)
        self.assertGreaterEqual(text.count("\n  mapr "), 3)
        out2, _ = self.mapr("-h")
        self.assertEqual(out, out2)

    def test_version(self):
        out, _ = self.mapr("--version")
        self.assertRegex(out.decode(), r"^mapr \d+\.\d+\.\d+\n$")

    def test_query_and_files_flags(self):
        out, _ = self.mapr("--query", Q1A, "--files", LOG + "," + LOG, "-o",
                           "csv")
        self.assertTrue(out.splitlines()[1].startswith(b"1194,"))

    def test_query_is_the_argument_containing_select_like_dtail(self):
        out, _ = self.mapr("-o", "csv", LOG, Q1A)
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_options_after_positionals_and_double_dash(self):
        out, _ = self.mapr(Q1A, LOG, "-o", "csv")
        self.assertEqual(out, expected("dmap1a.csv.expected"))
        shutil.copy(LOG, self.path("-o"))
        out, _ = self.mapr("-o", "csv", Q1A, "--", "-o")
        self.assertEqual(out, expected("dmap1a.csv.expected"))

    def test_empty_input(self):
        out, err = self.mapr("-o", "csv", Q1A, stdin=b"")
        self.assertEqual(out, b"count($line),last($time),avg($goroutines),"
                         b"min(concurrentConnections),"
                         b"max(lifetimeConnections)\n")


class HugePagesTest(MaprTestCase):
    """Inputs of 512 MiB or more make mapr re-execute itself once with huge
    pages (docs/cli.md, "Huge pages"): the result is the same, and the
    re-executed process never executes itself again."""

    def big_input(self):
        # 512 MiB of NUL bytes (sparse: no disk), one too-long line, then
        # the sample log.
        path = self.path("big.log")
        with open(path, "wb") as f:
            f.seek((512 << 20) - 1)
            f.write(b"\n")
            with open(LOG, "rb") as log:
                f.write(log.read())
        return path

    @skip_under_tsan
    def test_large_input_runs_once_and_gives_the_same_result(self):
        path = self.big_input()
        for tunables in (None, "glibc.malloc.arena_max=2",
                         "glibc.malloc.hugetlb=0"):
            env = dict(os.environ)
            env.pop("GLIBC_TUNABLES", None)
            if tunables is not None:
                env["GLIBC_TUNABLES"] = tunables
            # A re-exec loop would never end: the timeout catches it.
            p = subprocess.run(
                [os.path.abspath(MAPR_BIN), "-o", "csv", "--stats", Q1A,
                 path], env=env, stdin=subprocess.DEVNULL,
                capture_output=True, cwd=self.tmp, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr[:2000])
            self.assertEqual(p.stdout, expected("dmap1a.csv.expected"))
            self.assertIn(b"lines_too_long: 1\n", p.stderr)


class MaxGroupsTest(MaprTestCase):
    """--max-groups: the run fails with exit status 1 and the engine's
    ResourceExhausted message instead of growing without bound."""

    BY_KEY = "from STATS select key,count($line) group by key"
    PREFIX = (b"INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
              b"MAPREDUCE:STATS|key=k")

    @staticmethod
    def exhausted(n, merging=False):
        return ("mapr: more than %d %s (--max-groups)%s\n" %
                (n, "group" if n == 1 else "groups",
                 " after merging" if merging else
                 "; raise the limit or group by fewer distinct values"))

    def test_ten_million_distinct_keys_end_below_1_gib(self):
        # 10M lines with distinct keys offered on stdin in batches (never
        # all in memory); mapr stops reading at group 100001 and exits 1.
        total, batch = 10_000_000, 100_000
        out_path, err_path = self.path("out"), self.path("err")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            p = subprocess.Popen(
                [os.path.abspath(MAPR_BIN), "--max-groups", "100000", "-t",
                 "2", "--stats", self.BY_KEY, "-"],
                stdin=subprocess.PIPE, stdout=out, stderr=err, cwd=self.tmp,
                bufsize=0)
        offered = 0
        try:
            for first in range(0, total, batch):
                p.stdin.write(b"".join(
                    b"%s%d\n" % (self.PREFIX, i)
                    for i in range(first, first + batch)))
                offered += batch
            p.stdin.close()
        except BrokenPipeError:
            pass  # mapr stopped reading: the expected outcome.
        deadline = time.monotonic() + 300
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            self.assertLess(time.monotonic(), deadline, "mapr hangs")
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        try:
            p.stdin.close()
        except BrokenPipeError:
            pass
        self.assertEqual(p.returncode, 1)
        self.assertEqual(read_bytes(out_path), b"")
        self.assertEqual(read_bytes(err_path).decode(), self.exhausted(100000))
        self.assertGreater(offered, 100_000)
        # ru_maxrss is in KiB on Linux.
        print("\n  mapr --max-groups 100000: peak RSS %d KiB after %d lines "
              "offered" % (usage.ru_maxrss, offered), file=sys.stderr)
        self.assertLess(usage.ru_maxrss, 1 << 20)

    def test_the_limit_is_exact(self):
        # Q2 groups DTail's test log into 203 $time groups.
        out, err = self.mapr("-t", "1", "--max-groups", "203", "--stats",
                             "-o", "csv", Q2, LOG)
        self.assertEqual(len(out.splitlines()), 1 + 203)
        self.assertIn(b"\ngroups: 203\n", err)
        for threads in ("1", "3"):
            out, err = self.mapr("-t", threads, "--max-groups", "202", "--stats",
                                 Q2, LOG, code=1)
            self.assertEqual(out, b"")
            self.assertEqual(err.decode(), self.exhausted(202))
        out, _ = self.mapr("--max-groups", "0", "-o", "csv", Q2, LOG)
        self.assertEqual(len(out.splitlines()), 1 + 203)

    def test_partials_within_the_limit_can_exceed_it_merged(self):
        # Two files of 60000 keys each, one thread each: every partial holds
        # fewer than 100000 groups, their merge more.
        for name, offset in (("a.log", 0), ("b.log", 60000)):
            self.write(name, b"".join(b"%s%d\n" % (self.PREFIX, i)
                                      for i in range(offset, offset + 60000)))
        _, err = self.mapr("-t", "2", "--max-groups", "100000", self.BY_KEY,
                           "a.log", "b.log", code=1)
        self.assertEqual(err.decode(), self.exhausted(100000, merging=True))
        _, err = self.mapr("-t", "1", "--max-groups", "100000", self.BY_KEY,
                           "a.log", "b.log", code=1)
        self.assertEqual(err.decode(), self.exhausted(100000))
        out, _ = self.mapr("-t", "2", "--max-groups", "120000", "-o", "csv",
                           self.BY_KEY, "a.log", "b.log")
        self.assertEqual(len(out.splitlines()), 1 + 120000)

    def test_follow(self):
        lines = b"".join(b"%s%d\n" % (self.PREFIX, i) for i in range(3))
        out, err = self.mapr("--follow", "--quiet", "--max-groups", "2", "-o",
                             "csv", self.BY_KEY, "-", stdin=lines, code=1)
        self.assertEqual(out, b"")
        self.assertEqual(err.decode(), self.exhausted(2))
        # The option the user gave, in the singular for one group.
        _, err = self.mapr("--quiet", "--max-groups", "1", "-o", "csv",
                           self.BY_KEY, "-", stdin=lines, code=1)
        self.assertEqual(err.decode(),
                         "mapr: more than 1 group (--max-groups); raise the "
                         "limit or group by fewer distinct values\n")
        out, err = self.mapr("--follow", "--quiet", "--max-groups", "3", "-o",
                             "csv", self.BY_KEY, "-", stdin=lines)
        self.assertEqual(out, b"key,count($line)\nk0,1\nk1,1\nk2,1\n"
                              b"# end of report 1 (final)\n")

    WINDOWS = ("select $w,count($line) set $w = window(t, 1d, 1m) "
               "group by $w logformat logfmt")

    def test_windows_count_against_the_limit(self):
        # 100 lines a day apart: 100 hops, each in 1440 windows of a day
        # that hop every minute, 144000 windows. The windows are the
        # result's groups: they count as the hops do, in a plain run, a
        # followed one and a reduce of partials.
        self.write("days.log", b"".join(
            b"t=%s\n" % time.strftime(
                "%Y-%m-%dT%H:%M:%SZ",
                time.gmtime(1700000000 + d * 86400)).encode()
            for d in range(100)))
        exhausted = ("mapr: more than 100000 groups (--max-groups) once hops "
                     "are joined into windows; raise the limit or give "
                     "window() fewer hops per window\n")
        for threads in ("1", "2"):
            out, err = self.mapr("-t", threads, "--max-groups", "100000",
                                 self.WINDOWS, "days.log", code=1)
            self.assertEqual(out, b"")
            self.assertEqual(err.decode(), exhausted)
        out, err = self.mapr("--follow", "--quiet", "--max-groups", "100000",
                             self.WINDOWS, "-",
                             stdin=read_bytes(self.path("days.log")), code=1)
        self.assertEqual(out, b"")
        self.assertEqual(err.decode(), exhausted)
        part, _ = self.mapr("map", self.WINDOWS, "days.log")
        self.write("days.mpart", part)
        out, err = self.mapr("reduce", "--max-groups", "100000", "days.mpart",
                             code=1)
        self.assertEqual(out, b"")
        self.assertEqual(err.decode(), exhausted)
        out, _ = self.mapr("--max-groups", "144000", "-o", "csv",
                           self.WINDOWS, "days.log")
        self.assertEqual(len(out.splitlines()), 1 + 144000)

    def test_invalid_values_are_usage_errors(self):
        for value in ("x", "-1", "1.5", "", "2147483649"):
            _, err = self.mapr("--max-groups", value, Q2, LOG, code=2)
            self.assertEqual(
                err.decode(),
                "mapr: invalid --max-groups '%s' (use a number from 0 to "
                "2147483648; 0: no limit)\n"
                "Try 'mapr --help' for more information.\n" % value)


COUNT = "select count($line) group by * logformat generic"


def csv_reports(out):
    """The `count($line)` value of each CSV report (0 for an empty one).

    Only whole reports count: each ends with its "# end of report N" line
    (N from 1, " (final)" on the last one).
    """
    counts = []
    for block in out.decode().split("\n\n"):
        lines = block.strip("\n").split("\n")
        if lines == [""] or not lines[-1].startswith("# end of report "):
            continue
        assert lines[-1].split()[4] == str(len(counts) + 1), block
        lines = lines[:-1]
        assert lines[0] == "count($line)", block
        counts.append(int(lines[1]) if len(lines) > 1 else 0)
    return counts


class Follower(CollectedProcess):
    """A running `mapr --follow`, its output collected by two threads."""

    def __init__(self, test, args, stdin=False):
        self.test = test
        self.args = args
        super().__init__([os.path.abspath(MAPR_BIN)] + list(args),
                         cwd=test.tmp, stdin=stdin)
        test.addCleanup(self.kill)

    def wait_for(self, what, predicate, timeout=5.0):
        """Waits until predicate() is true; fails the test at the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if self.p.poll() is not None and not predicate():
                break
            time.sleep(0.02)
        self.test.fail("timed out waiting for %s\nmapr %s\nstdout: %r\n"
                       "stderr: %r" % (what, " ".join(self.args), self.out(),
                                       self.err()))

    def wait_ready(self):
        self.wait_for("the start line", lambda: b"mapr: following " in self.err())

    def wait_report(self, count, timeout=5.0):
        self.wait_for("a report of %d" % count,
                      lambda: csv_reports(self.out())[-1:] == [count], timeout)

    def finish(self, sig=signal.SIGTERM, code=0, timeout=5.0):
        """Sends `sig` (unless None), waits for the exit; returns stdout."""
        if sig is not None:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.test.fail("mapr did not exit after %s\nstdout: %r\n"
                           "stderr: %r" % (sig, self.out(), self.err()))
        for t in self.threads:
            t.join(timeout)
        self.test.assertEqual(rc, code, "stderr: %r" % self.err())
        self.test.assertNotIn(b"terminate called", self.err())
        self.test.assertNotIn(b"Sanitizer", self.err())
        return self.out()

class FollowTest(MaprTestCase):
    """--follow: tail -f with interval reports, ended by a signal."""

    def follow(self, *args, stdin=False):
        return Follower(self, ["--follow", "--interval-ms", "150"] + list(args),
                        stdin=stdin)

    def append(self, name, data):
        with open(self.path(name), "ab") as f:
            f.write(data)

    def test_growing_file_starts_at_the_end(self):
        self.write("a.log", b"old 1\nold 2\npart")
        f = self.follow("-o", "csv", COUNT, "a.log")
        f.wait_ready()
        self.assertIn(b"following a.log from the end; cumulative report "
                      b"every 150ms", f.err())
        # The fragment "partial" (begun before the start) is not a line.
        self.append("a.log", b"ial\nnew 1\nnew 2\n")
        f.wait_report(2)
        self.append("a.log", b"new 3\n")
        f.wait_report(3)
        counts = csv_reports(f.finish())
        self.assertEqual(counts[-1], 3)
        self.assertEqual(counts, sorted(counts))

    def test_rotation_faster_than_the_poll_is_counted_or_named(self):
        # 20 rotations in a tight loop, each file with 20 lines: files
        # replaced before mapr could open them were lost without a word
        # (whole files, exit 0). Each is now named; the lines counted and
        # the files named add up.
        self.write("app.log", b"")
        f = self.follow("-q", "-o", "csv",
                        "select k, count($line) group by k logformat "
                        "generickv", "app.log")
        f.wait_for("the first report", lambda: f.p.poll() is None)
        # -q prints no start line: wait until the folder is watched (mapr
        # has the file open).
        f.wait_for("the file opened", lambda: any(
            os.path.realpath(os.path.join("/proc/%d/fd" % f.p.pid, fd)) ==
            self.path("app.log")
            for fd in os.listdir("/proc/%d/fd" % f.p.pid)))
        for i in range(20):
            self.append("app.log", b"k=x\n" * 10)
            os.rename(self.path("app.log"), self.path("app.log.%d" % i))
            self.write("app.log", b"k=x\n" * 10)
        self.append("app.log", b"k=end\n")
        f.wait_for("the last file read", lambda: b"\nend,1\n" in f.out(), 30)
        out = f.finish(signal.SIGINT)
        counted = int(re.findall(rb"\nx,(\d+)\n", out)[-1])
        missed = sum(int(n) for n in re.findall(
            rb"mapr: app.log: (\d+) files? created at this path (?:was|were) "
            rb"replaced before mapr could open (?:it|them): (?:its|their) "
            rb"lines are not counted\n", f.err()))
        self.assertEqual(counted + 20 * missed, 400, f.err())

    def test_from_start_sigint_reads_the_rest_and_the_partial_line(self):
        self.write("a.log", b"".join(b"line %d\n" % i for i in range(5)))
        f = self.follow("--from-start", "--stats", "--max-line-bytes", "20",
                        "-o", "csv", COUNT, "a.log")
        f.wait_report(5)
        # Written just before the signal: still in the final report, the
        # last line without its newline too.
        self.append("a.log", b"x" * 50 + b"\nline 5\nline 6")
        out = f.finish(signal.SIGINT)
        self.assertEqual(csv_reports(out)[-1], 7)
        stats = dict(line.split(": ", 1)
                     for line in f.err().decode().splitlines()
                     if not line.startswith("mapr: "))
        self.assertEqual(stats["lines_read"], "8")
        self.assertEqual(stats["lines_too_long"], "1")
        self.assertEqual(stats["lines_aggregated"], "7")
        self.assertEqual(stats["groups"], "1")

    def test_truncated_file_is_read_again(self):
        self.write("a.log", b"".join(b"line %d\n" % i for i in range(10)))
        f = self.follow("--from-start", "-o", "csv", COUNT, "a.log")
        f.wait_report(10)
        self.write("a.log", b"again 1\nagain 2\n")
        f.wait_report(12)
        self.assertIn(b"mapr: a.log: file truncated; reading it from its "
                      b"start\n", f.err())
        self.append("a.log", b"again 3\n")
        f.wait_report(13)
        self.assertEqual(csv_reports(f.finish())[-1], 13)

    def test_rotated_file(self):
        self.write("a.log", b"")
        f = self.follow("-o", "csv", COUNT, "a.log")
        f.wait_ready()
        self.append("a.log", b"one\ntwo\n")
        f.wait_report(2)
        os.rename(self.path("a.log"), self.path("a.log.1"))
        # The writer still finishes its line in the old file.
        self.append("a.log.1", b"three\n")
        self.write("a.log", b"four\nfive\nsix\n")
        f.wait_report(6)
        self.assertIn(b"mapr: a.log: file replaced (rotated); following the "
                      b"new file from its start\n", f.err())
        self.append("a.log", b"seven\n")
        f.wait_report(7)
        self.append("a.log.1", b"not followed any more\n")
        self.assertEqual(csv_reports(f.finish())[-1], 7)

    def test_rotated_csv_file_has_a_new_header(self):
        query = "select sum(n),count($line) group by * logformat csv"
        self.write("a.csv", b"n,name\n1,a\n")
        f = self.follow("--from-start", "--stats", "-o", "jsonl", query,
                        "a.csv")
        f.wait_for("the first report", lambda: b'"sum(n)":1' in f.out())
        os.rename(self.path("a.csv"), self.path("a.csv.1"))
        self.write("a.csv", b"name,n\nb,10\nc,100\n")
        f.wait_for("the second report", lambda: b'"sum(n)":111' in f.out())
        out = f.finish()
        lines = out.splitlines()
        self.assertEqual(json.loads(lines[-1])["final"], True)
        self.assertEqual(json.loads(lines[-2])["count($line)"], 3)
        self.assertIn(b"lines_header: 2\n", f.err())

    def test_delta_reports_only_new_lines(self):
        self.write("a.log", b"before\n")
        f = self.follow("--delta", "-o", "csv", COUNT, "a.log")
        f.wait_ready()
        self.assertIn(b"delta report every 150ms", f.err())
        self.append("a.log", b"1\n2\n3\n")
        f.wait_report(3)
        self.append("a.log", b"4\n5\n")
        f.wait_for("a delta of 2", lambda: csv_reports(f.out())[:2] == [3, 2])
        self.append("a.log", b"6\n7\n8\n9\n")
        counts = csv_reports(f.finish())
        # Every line is in exactly one report; the final one holds the rest
        # (0 if an interval report took them first).
        self.assertEqual(counts[:2], [3, 2])
        self.assertEqual(sum(counts[2:]), 4)
        self.assertNotIn(0, counts[:-1])

    def test_outfile(self):
        query = COUNT + " outfile o.csv"
        self.write("a.log", b"1\n2\n3\n")
        f = self.follow("--from-start", query, "a.log")
        f.wait_for("the outfile",
                   lambda: os.path.exists(self.path("o.csv")) and
                   read_bytes(self.path("o.csv")) == b"count($line)\n3\n")
        self.append("a.log", b"4\n5\n")
        self.assertEqual(f.finish(), b"")
        self.assertEqual(read_bytes(self.path("o.csv")), b"count($line)\n5\n")
        self.assertEqual(read_bytes(self.path("o.csv.query")), query.encode())

        # Delta mode overwrites the outfile with each interval's rows.
        f = self.follow("--delta", query, "a.log")
        f.wait_ready()
        self.append("a.log", b"6\n")
        f.wait_for("the delta outfile",
                   lambda: read_bytes(self.path("o.csv")) ==
                   b"count($line)\n1\n")
        f.finish()

    def test_stdin_ends_the_run(self):
        f = self.follow("-o", "csv", COUNT, stdin=True)
        f.wait_ready()
        self.assertIn(b"following standard input until it ends", f.err())
        f.p.stdin.write(b"a\nb\n")
        f.p.stdin.flush()
        f.wait_report(2)
        f.p.stdin.write(b"c")
        f.p.stdin.close()
        self.assertEqual(csv_reports(f.finish(sig=None))[-1], 3)

    def test_missing_file_is_awaited_if_others_exist(self):
        self.write("a.log", b"")
        f = self.follow("-o", "csv", COUNT, "a.log", "b.log")
        f.wait_ready()
        self.assertIn(b"mapr: b.log: No such file or directory (waiting for it "
                      b"to appear)\n", f.err())
        self.write("b.log", b"b1\nb2\n")
        f.wait_report(2)
        self.assertIn(b"mapr: b.log: appeared; following it from its start\n",
                      f.err())
        self.assertEqual(csv_reports(f.finish())[-1], 2)

        # Never appeared: exit status 1.
        f = self.follow("-o", "csv", COUNT, "a.log", "c.log")
        f.wait_ready()
        self.append("a.log", b"a1\n")
        f.wait_report(1)
        self.assertEqual(csv_reports(f.finish(code=1))[-1], 1)

    def test_nothing_to_follow_exits_1(self):
        for args in (["nope.log"], [self.tmp], ["nope.log", "nope2.log"]):
            out, err = self.mapr("--follow", COUNT, *args, code=1)
            self.assertEqual(out, b"")
            self.assertNotIn(b"following", err)
        path = self.write("a.gz", gzip.compress(b"x\n"))
        _, err = self.mapr("--follow", COUNT, path, code=1)
        self.assertIn(b"compressed input cannot be followed", err)

    def test_table_reports_keep_the_row_cap(self):
        self.write("app.log", read_bytes(LOG))
        f = self.follow("--from-start", Q2, "app.log")
        f.wait_for("a table", lambda: f.out().count(b"\n") >= 12)
        self.append("app.log", read_bytes(LOG))
        f.wait_for("a second table", lambda: b"\n\n" in f.out())
        out = f.finish().decode()
        tables = out.split("\n\n")
        self.assertGreaterEqual(len(tables), 3)  # Two intervals, the final.
        for n, table in enumerate(tables, 1):
            lines = table.strip("\n").split("\n")
            self.assertEqual(len(lines), 13, table)
            self.assertEqual(lines[-1], "# end of report %d%s" % (
                n, " (final)" if n == len(tables) else ""))
        self.assertEqual(tables[-1].split("\n")[2].split("|")[0].strip(),
                         "46")
        self.assertEqual(f.err().decode().count(TERMINAL_NOTE), len(tables))


class DistributedTest(MaprTestCase):
    """mapr map|combine|reduce|inspect (docs/distributed.md): any split,
    any adjacent combine tree, gives the one-pass output byte for byte."""

    QUERIES = (Q1A, Q2 + " limit 500",
               "from STATS select $hostname,first($time),last($time),"
               "sum($goroutines),count($line) group by $hostname")

    def map_ranges(self, query, path, cuts, b64=False):
        """Partial files of the byte ranges between `cuts`, split i each."""
        parts = []
        for i in range(len(cuts) - 1):
            args = ["map", "--split", str(i), "--range",
                    "%d:%d" % (cuts[i], cuts[i + 1]), query, path]
            if b64:
                args.insert(1, "--b64")
            out, _ = self.mapr(*args)
            parts.append(self.write("p%d.%s" % (i, "b64" if b64 else "part"),
                                    out))
        return parts

    def combine_randomly(self, parts, rnd, prefix="c"):
        """Combines random adjacent pairs until one partial is left."""
        n = 0
        while len(parts) > 1:
            k = rnd.randrange(len(parts) - 1)
            pair = [parts[k + 1], parts[k]] if rnd.random() < 0.5 else \
                parts[k:k + 2]
            out, _ = self.mapr("combine", *pair)
            n += 1
            parts[k:k + 2] = [self.write("%s%d.part" % (prefix, n), out)]
        return parts[0]

    @skip_under_tsan
    def test_split_invariance(self):
        import random
        rnd = random.Random(14)
        size = os.path.getsize(LOG)
        with open(LOG, "rb") as f:
            data = f.read()
        line_starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10]
        for query in self.QUERIES:
            want_out, want_err = self.mapr("-o", "csv", "--stats", query, LOG)
            for n in (1, 2, 3, 7):
                # Cuts anywhere (mid-line: the TextInputFormat rule) and at
                # line starts.
                pool = list(range(1, size)) if n % 2 else line_starts[1:]
                cuts = [0] + sorted(rnd.sample(pool, n - 1)) + [size]
                parts = self.map_ranges(query, LOG, cuts)
                shuffled = parts[:]
                rnd.shuffle(shuffled)
                out, err = self.mapr("reduce", "--expect-splits", str(n),
                                     "-o", "csv", "--stats", *shuffled)
                self.assertEqual(out, want_out, (query, cuts))
                self.assertEqual(err, want_err, (query, cuts))
                one = self.combine_randomly(parts, rnd)
                out, err = self.mapr("reduce", "-o", "csv", "--stats", one)
                self.assertEqual(out, want_out, (query, cuts))
                self.assertEqual(err, want_err, (query, cuts))

    @skip_under_tsan
    def test_partitions_give_the_one_pass_output(self):
        """map --partitions R, combine --partition P in random adjacent
        trees, reduce over the partitions in any order: byte for byte the
        one-pass output, for R in 1, 2, 7 (and 64 for one query)."""
        import random
        rnd = random.Random(29)
        size = os.path.getsize(LOG)
        for q, query in enumerate(self.QUERIES):
            want_out, want_err = self.mapr("-o", "csv", "--stats", query, LOG)
            # R = 64 for one query (a few hundred runs of mapr; the C++
            # PartitionInvariance test takes every query to R = 64).
            for count in (1, 2, 7, 64) if q == 0 else (1, 2, 7):
                n = rnd.choice((1, 2, 3))
                cuts = [0] + sorted(rnd.sample(range(1, size), n - 1)) + [size]
                maps = []
                for i in range(n):
                    out, _ = self.mapr(
                        "map", "--split", str(i), "--range",
                        "%d:%d" % (cuts[i], cuts[i + 1]), "--partitions",
                        str(count), query, LOG)
                    maps.append(self.write("m%d.parts" % i, out))
                parts = []
                for p in range(count):
                    # Each partition's splits, combined in a random tree.
                    pieces = []
                    for i, m in enumerate(maps):
                        out, _ = self.mapr("combine", "--partition", str(p), m)
                        pieces.append(self.write("p%d.%d.part" % (p, i), out))
                    parts.append(
                        self.combine_randomly(pieces, rnd, "c%d." % p))
                rnd.shuffle(parts)
                out, err = self.mapr("reduce", "-o", "csv", "--stats", *parts)
                self.assertEqual(out, want_out, (query, count, cuts))
                self.assertEqual(err, want_err, (query, count, cuts))
                # The map outputs themselves reduce too.
                out, _ = self.mapr("reduce", "-o", "csv", *maps)
                self.assertEqual(out, want_out, (query, count, cuts))

    @skip_under_tsan
    def test_each_partition_reducer_holds_its_partition_only(self):
        """The bound of docs/distributed.md, through the command: with
        --max-groups at 30 % of the groups, each `combine --partition P` of
        R = 4 passes (it holds ~25 %) where an unpartitioned combine fails,
        and the final join of a top-10 query passes too (one partition at a
        time, cut to the shown rows); one that prints every group cannot."""
        log = self.write("s.log", b"".join(
            b"session=s%d|bytes=%d\n" % (i, i * 7919 % 100003)
            for i in range(20000)))
        base = "select session,count($line),sum(bytes) group by session"
        top = base + " order by sum(bytes) desc limit 10 logformat generickv"
        cap = ("--max-groups", "6000")
        want, _ = self.mapr("-o", "csv", top, log)
        maps, _ = self.mapr("map", "--partitions", "4", top, log)
        self.write("m.parts", maps)
        folded = []
        for p in range(4):
            out, _ = self.mapr("combine", *cap, "--partition", str(p),
                               "m.parts")
            folded.append(self.write("f%d.part" % p, out))
        out, _ = self.mapr("reduce", *cap, "-o", "csv", *folded)
        self.assertEqual(out, want)
        whole, _ = self.mapr("map", top, log)
        self.write("whole.part", whole)
        _, err = self.mapr("combine", *cap, "whole.part", code=1)
        self.assertIn(b"more than 6000 groups", err)
        every = base + " logformat generickv"
        maps, _ = self.mapr("map", "--partitions", "4", every, log)
        self.write("e.parts", maps)
        _, err = self.mapr("reduce", *cap, "e.parts", code=1)
        self.assertIn(b"more than 6000 groups", err)

    @skip_under_tsan
    def test_partitioned_hadoop_streaming_recipe(self):
        """docs/distributed.md's partitioned Hadoop Streaming recipe, with
        Hadoop's shuffle done here: each --b64 line goes to reducer
        Text.hashCode(key) mod reduces, each reducer gets its lines sorted by
        key and runs `combine --b64 -`, and `reduce -` of the reducers'
        outputs concatenated is the one-pass output."""
        def text_hash(key):  # org.apache.hadoop.io.Text.hashCode()
            h = 1
            for b in key:
                h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
            return h & 0x7FFFFFFF

        size = os.path.getsize(LOG)
        cuts = [0, size // 3, 2 * size // 3, size]
        query = self.QUERIES[1]
        want, _ = self.mapr("-o", "csv", query, LOG)
        for partitions, reduces in ((8, 8), (8, 3), (12, 5), (2, 4)):
            lines = []
            for i in range(3):
                out, _ = self.mapr(
                    "map", "--b64", "--split", str(i), "--range",
                    "%d:%d" % (cuts[i], cuts[i + 1]), "--partitions",
                    str(partitions), query, LOG)
                lines += out.splitlines(keepends=True)
            self.assertEqual(len(lines), 3 * partitions)
            keys = {l.split(b"\t")[0] for l in lines}
            self.assertEqual(keys, {b"%d" % p for p in range(partitions)})
            outputs = []
            for r in range(reduces):
                mine = sorted((l for l in lines
                               if text_hash(l.split(b"\t")[0]) % reduces == r),
                              key=lambda l: l.split(b"\t")[0])
                out, err = self.mapr("combine", "--b64", "-",
                                     stdin=b"".join(mine))
                if not mine:  # Hadoop runs a reducer that got no key too.
                    self.assertEqual((out, err), (b"", b"warning: the input "
                                     b"holds no partials: nothing written\n"))
                outputs.append(out)
            out, _ = self.mapr("reduce", "-o", "csv", "-",
                               stdin=b"".join(outputs))
            self.assertEqual(out, want, (partitions, reduces))

    def test_partition_errors(self):
        query = self.QUERIES[2]
        out, _ = self.mapr("map", "--partitions", "3", query, LOG)
        self.write("all.parts", out)
        out, _ = self.mapr("inspect", "all.parts")
        self.assertEqual(
            [l for l in out.decode().splitlines() if l.startswith("partition")],
            ["partition: 0 of 3", "partition: 1 of 3", "partition: 2 of 3"])
        out, _ = self.mapr("combine", "--partition", "1", "all.parts")
        self.write("p1.part", out)
        _, err = self.mapr("reduce", "p1.part", code=1)
        self.assertEqual(err, b"mapr: no partial of partition 0 of 3 (every "
                         b"partition is needed; --partition P reduces one)\n")
        out, err = self.mapr("reduce", "--partition", "1", "-o", "csv",
                             "p1.part")
        self.assertEqual(err, b"")  # No notes from counters it lacks.
        _, err = self.mapr("reduce", "--partition", "5", "p1.part", code=1)
        self.assertIn(b"holds partials cut into 3 partitions (0 to 2)", err)
        out, _ = self.mapr("map", query, LOG)
        self.write("whole.part", out)
        _, err = self.mapr("combine", "--partition", "0", "whole.part", code=1)
        self.assertIn(b"holds an unpartitioned partial", err)
        _, err = self.mapr("reduce", "whole.part", "p1.part", code=1)
        self.assertIn(b"cannot join", err)
        out, _ = self.mapr("map", "--partitions", "2", "--b64", query, LOG)
        keys = [line.split(b"\t")[0] for line in out.splitlines()]
        self.assertEqual(keys, [b"0", b"1"])  # Keyed by partition.
        _, err = self.mapr("map", "--partitions", "0", query, LOG, code=2)
        self.assertIn(b"invalid --partitions '0'", err)
        _, err = self.mapr("map", "--follow", "--partitions", "2", query,
                           LOG, code=2)
        self.assertIn(b"--partitions works only with map (without --follow)",
                      err)

    # The benchmark's queries (tests/bench/run.sh), over lines of the
    # benchmark log's shape, some of another table or level.
    BENCH_QUERIES = (
        "from STATS select hostname,count($line),avg(currentConnections),"
        "min(currentConnections),max(currentConnections),avg(latency_ms),"
        "min(latency_ms),max(latency_ms) group by hostname",
        "from STATS select hostname,count($line),avg(currentConnections),"
        "min(currentConnections),max(currentConnections),avg(latency_ms),"
        "min(latency_ms),max(latency_ms) group by hostname where "
        "latency_ms >= 100 and path contains \"orders\"",
        "from STATS select path,count($line) group by path "
        "order by count($line) limit 10",
        "from STATS select session,count($line),sum(bytes) group by session",
        "from STATS select count($line) group by $empty",
    )

    def bench_log(self, rnd, lines):
        out = []
        for i in range(lines):
            level = "WARN" if i % 53 == 52 else "INFO"
            table = "OTHER" if i % 41 == 40 else "STATS"
            out.append(
                "%s|20261130-04%04d|%d|stats.go:%d|8|%d|%d|1.97|7h|"
                "MAPREDUCE:%s|hostname=server%02d|currentConnections=%d|"
                "bytes=%d|latency_ms=%d.%03d|status=200|path=/%s/api/%d|"
                "session=%016x" % (
                    level, i % 10000, rnd.randrange(9999), rnd.randrange(999),
                    rnd.randrange(90), rnd.randrange(500), table,
                    rnd.randrange(50), rnd.randrange(500),
                    rnd.randrange(10 ** 6), rnd.randrange(1000),
                    rnd.randrange(1000),
                    rnd.choice(["orders", "search", "api"]), rnd.randrange(9),
                    rnd.randrange(400)))
        return ("\n".join(out) + "\n").encode()

    @skip_under_tsan
    def test_split_invariance_of_the_benchmark_queries(self):
        import random
        rnd = random.Random(1405)
        data = self.bench_log(rnd, 3000)
        path = self.write("bench.log", data)
        size = len(data)
        for query in self.BENCH_QUERIES:
            want_out, want_err = self.mapr("-o", "csv", "--stats", query, path)
            for n in (2, 7):
                cuts = [0] + sorted(rnd.sample(range(1, size), n - 1)) + [size]
                parts = self.map_ranges(query, path, cuts)
                out, err = self.mapr("reduce", "--expect-splits", str(n),
                                     "-o", "csv", "--stats", *parts[::-1])
                self.assertEqual((out, err), (want_out, want_err),
                                 (query, cuts))
                one = self.combine_randomly(parts, rnd)
                out, err = self.mapr("reduce", "-o", "csv", "--stats", one)
                self.assertEqual((out, err), (want_out, want_err),
                                 (query, cuts))

    def test_b64_streaming_pipeline(self):
        size = os.path.getsize(LOG)
        cuts = [0, size // 3, 2 * size // 3, size]
        parts = self.map_ranges(Q1A, LOG, cuts, b64=True)
        lines = b"".join(read_bytes(p) for p in reversed(parts))
        self.assertEqual(lines.count(b"\n"), 3)
        self.assertTrue(all(l.split(b"\t")[0].isdigit()
                            for l in lines.splitlines()))
        # Hadoop Streaming: the combiner and the reducer read stdin.
        combined, _ = self.mapr("combine", "--b64", "-", stdin=lines)
        self.assertTrue(combined.startswith(b"0\t"))
        out, _ = self.mapr("reduce", "--expect-splits", "3", stdin=combined)
        want, _ = self.mapr(Q1A, LOG)
        self.assertEqual(out, want)

    def test_reduce_writes_no_outfile_a_partial_names(self):
        # A partial is input from another machine: the outfile of its query
        # (here outside the folder) is not written; the result goes to
        # standard output, with a note.
        os.mkdir(self.path("work"))
        self.write("work/a.log", b"k=a\nk=b\n")
        out, _ = self.mapr("map", "select count($line) group by * logformat "
                           "generickv outfile append ../victim.csv", "a.log",
                           cwd=self.path("work"))
        self.write("work/a.part", out)
        out, err = self.mapr("reduce", "-o", "csv", "a.part",
                             cwd=self.path("work"))
        self.assertEqual(out, b"count($line)\n2\n")
        self.assertEqual(err, b"mapr: the partials' query writes outfile "
                         b"'../victim.csv'; reduce writes no file a partial "
                         b"names: the result is on standard output (-o csv > "
                         b"FILE writes it)\n")
        self.assertFalse(os.path.exists(self.path("victim.csv")))
        out, err = self.mapr("reduce", "--quiet", "a.part",
                             cwd=self.path("work"))
        self.assertEqual(err, b"")
        self.assertIn(b"count($line)", out)
        self.assertFalse(os.path.exists(self.path("victim.csv")))

    def test_a_missing_first_split_is_named(self):
        # Splits 1-3 of a log without split 0: the result lacks split 0's
        # lines, which reduce says (exit 0; --expect-splits refuses it).
        size = os.path.getsize(LOG)
        cuts = [0, size // 4, size // 2, 3 * size // 4, size]
        parts = self.map_ranges("from STATS select count($line),"
                                "avg($goroutines) group by $hostname", LOG,
                                cuts)
        out, err = self.mapr("reduce", *parts[1:])
        self.assertEqual(err, b"mapr: missing split 0 (the partials start at "
                         b"split 1): the result lacks its lines\n")
        self.assertTrue(out)
        _, err = self.mapr("reduce", *parts[2:])
        self.assertEqual(err, b"mapr: missing splits 0-1 (the partials start "
                         b"at split 2): the result lacks their lines\n")
        _, err = self.mapr("reduce", "--quiet", *parts[1:])
        self.assertEqual(err, b"")
        _, err = self.mapr("reduce", "--expect-splits", "4", *parts[1:],
                           code=1)
        self.assertEqual(err, b"mapr: missing split 0\n")
        # Every split there: no note.
        _, err = self.mapr("reduce", *parts)
        self.assertEqual(err, b"")

    def test_inspect(self):
        out, _ = self.mapr("map", "--split", "5", Q1A, LOG)
        part = self.write("a.part", out)
        out, _ = self.mapr("inspect", part)
        text = out.decode()
        self.assertIn("version: 1.1\n", text)
        self.assertIn("splits: [5, 6)\n", text)
        self.assertIn("lines_read: 597\n", text)
        self.assertIn("log_format: default\n", text)

    def test_regex_format_partials_keep_unmatched_lines(self):
        # logformat regex counts lines_unmatched (partial format 1.1's
        # "more counters" section): the reduce equals the one-pass run.
        lines = b"".join(b"k=%d v=%d\n" % (i % 3, i) if i % 4 else
                         b"no key here %d\n" % i for i in range(200))
        path = self.write("kv.log", lines)
        query = ("select k, count($line), sum(v) group by k order by k asc "
                 "logformat regex '^k=(?P<k>\\d+) v=(?P<v>\\d+)$'")
        one, one_err = self.mapr("--stats", "-o", "csv", query, path)
        self.assertIn(b"lines_unmatched: 50\n", one_err)
        parts = self.map_ranges(query, path, [0, 700, 1500, len(lines)])
        out, err = self.mapr("reduce", "--stats", "-o", "csv", *parts)
        self.assertEqual(out, one)
        # One pass names the first unmatched line (line 1 of kv.log); a
        # reduce cannot (no partial knows where its lines stand in a file)
        # and says the rest alike.
        where = b" (the first is line 1 of " + path.encode() + b")"
        self.assertIn(where, one_err)
        self.assertNotIn(b"the first is line", err)
        self.assertEqual(err, one_err.replace(where, b""))
        info, _ = self.mapr("inspect", parts[0])
        self.assertRegex(info.decode(), r"lines_unmatched: [1-9]")

    def test_errors(self):
        size = os.path.getsize(LOG)
        p0, p1, p2 = self.map_ranges(Q1A, LOG, [0, 100, 2000, size])
        _, err = self.mapr("reduce", "--expect-splits", "5", p0, p1, p2,
                           code=1)
        self.assertEqual(err, b"mapr: missing splits 3-4\n")
        _, err = self.mapr("reduce", p0, p2, code=1)
        self.assertIn(b"missing split 1", err)
        _, err = self.mapr("reduce", p0, p1, p1, code=1)
        self.assertIn(b"split 1 would be counted twice", err)
        other, _ = self.mapr("map", "--split", "1", Q2, LOG)
        _, err = self.mapr("reduce", p0, self.write("o.part", other), code=1)
        self.assertIn(b"another query", err)
        _, err = self.mapr("reduce", LOG, code=1)
        self.assertTrue(err.startswith(b"mapr: " + LOG.encode() + b": "), err)
        _, err = self.mapr("reduce", stdin=b"", code=1)
        self.assertEqual(err, b"mapr: -: empty input is not a partial\n")
        self.write("cut.part", read_bytes(p1)[:-3])
        _, err = self.mapr("combine", self.path("cut.part"), code=1)
        # A map whose input cannot be read writes nothing.
        out, err = self.mapr("map", Q1A, LOG, self.path("nope.log"), code=1)
        self.assertEqual(out, b"")
        self.assertIn(b"no partial written", err)

    def test_a_part_file_is_read_frame_by_frame_like_stdin(self):
        # A plain PART file is validated one frame at a time (so a reducer
        # never holds a whole file); standard input is read whole. Both give
        # the same results and the same errors.
        size = os.path.getsize(LOG)
        parts = self.map_ranges(Q1A, LOG, [0, 100, 2000, size])
        frames = [read_bytes(p) for p in parts]
        whole = b"".join(frames)
        want, _ = self.mapr(Q1A, LOG)
        out, _ = self.mapr("reduce", self.write("all.part", whole))
        self.assertEqual(out, want)
        flipped = bytearray(whole)
        flipped[len(frames[0]) + 100] ^= 1
        broken = {
            "cut in the last frame": whole[:-3],
            "cut in a header": whole[:len(frames[0]) + 40],
            "bytes after the frames": whole + b"garbage",
            "a flipped byte": bytes(flipped),
        }
        for what, data in broken.items():
            with self.subTest(what):
                path = self.write("broken.part", data)
                _, from_file = self.mapr("reduce", path, code=1)
                _, from_stdin = self.mapr("reduce", stdin=data, code=1)
                self.assertEqual(from_file,
                                 from_stdin.replace(b"mapr: -: ",
                                                    b"mapr: %s: " %
                                                    path.encode()))
        # A pipe (bash's <(...)) is read once, whole.
        p = subprocess.run(
            ["bash", "-c", '"$0" reduce <(cat "$1")', os.path.abspath(MAPR_BIN),
             self.path("all.part")], capture_output=True, timeout=60)
        self.assertEqual((p.returncode, p.stdout), (0, want), p.stderr)
        _, err = self.mapr("reduce", self.write("c.part", whole[:-3]), code=1)
        self.assertEqual(err, b"mapr: %s: frame 3 (at byte %d): truncated "
                         b"partial: %d bytes of a frame that needs %d\n" %
                         (self.path("c.part").encode(),
                          len(frames[0]) + len(frames[1]),
                          len(frames[2]) - 3, len(frames[2])))
        # Garbage after the frames is named where it starts, from a file
        # and from standard input alike.
        garbage = whole + b"garbage after the frames"
        _, err = self.mapr("reduce", self.write("g.part", garbage), code=1)
        self.assertEqual(err, b"mapr: %s: frame 4 (at byte %d): not a mapr "
                         b"partial: the input does not start with MAPRPART\n"
                         % (self.path("g.part").encode(), len(whole)))
        _, err = self.mapr("reduce", stdin=garbage, code=1)
        self.assertEqual(err, b"mapr: -: frame 4 (at byte %d): not a mapr "
                         b"partial: the input does not start with MAPRPART\n"
                         % len(whole))

    def test_usage_errors(self):
        csv_in = os.path.join(DATA, "dmap5.csv.in")
        _, err = self.mapr("map", "--range", "0:100", Q5, csv_in, code=2)
        self.assertIn(b"--range needs a log format that keeps no state", err)
        _, err = self.mapr("map", "--range", "0:100", Q1A, LOG, LOG, code=2)
        self.assertIn(b"--range needs exactly one FILE", err)
        _, err = self.mapr("reduce", "--split", "1", "x", code=2)
        self.assertIn(b"--split works only with map", err)
        _, err = self.mapr("--expect-splits", "2", Q1A, LOG, code=2)
        self.assertIn(b"--expect-splits works only with reduce", err)
        _, err = self.mapr("map", "--split", "auto", Q1A, LOG, code=2)
        self.assertIn(b"--split auto: none of PARALLEL_SEQ", err)
        gz = self.write("a.log.gz", gzip.compress(read_bytes(LOG)))
        _, err = self.mapr("map", "--range", "0:100", Q1A, gz, code=1)
        self.assertIn(b"cannot read a byte range of gzip-compressed input", err)

    def test_split_auto_from_the_environment(self):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID="4", PARALLEL_SEQ="3")
        p = subprocess.run([MAPR_BIN, "map", "--split", "auto", Q1A, LOG],
                           capture_output=True, env=env, check=True)
        part = self.write("auto.part", p.stdout)
        out, _ = self.mapr("inspect", part)
        self.assertIn(b"splits: [2, 3)\n", out)  # PARALLEL_SEQ wins, 1-based

    def test_a_file_named_like_a_subcommand(self):
        shutil.copy(LOG, self.path("map"))
        want, _ = self.mapr(Q1A, LOG)
        out, _ = self.mapr(Q1A, "map")
        self.assertEqual(out, want)
        out, _ = self.mapr("--query", Q1A, "map")
        self.assertEqual(out, want)

    def pipepart(self, run, block):
        """docs/distributed.md's --pipepart recipe into folder `run`; returns
        the partials written."""
        env = dict(os.environ, MAPR=os.path.abspath(MAPR_BIN), Q=Q2, RUN=run)
        os.makedirs(os.path.join(self.tmp, run), exist_ok=True)
        subprocess.run(
            ["parallel", "--will-cite", "--pipepart", "-a", LOG, "--block",
             block, '"$MAPR" map --run-id "$RUN" --split auto "$Q" - > '
             '"$RUN"/{#}.part'],
            cwd=self.tmp, env=env, check=True, timeout=120,
            stdin=subprocess.DEVNULL)
        return sorted(os.path.join(run, f)
                      for f in os.listdir(os.path.join(self.tmp, run))
                      if f.endswith(".part"))

    @unittest.skipUnless(shutil.which("parallel"), "GNU parallel not installed")
    @skip_under_tsan
    def test_gnu_parallel_pipepart(self):
        want, _ = self.mapr("-o", "csv", Q2, LOG)
        parts = self.pipepart("run1", "7k")
        self.assertGreater(len(parts), 3)
        out, _ = self.mapr("reduce", "-o", "csv", "--expect-splits",
                           str(len(parts)), *parts)
        self.assertEqual(out, want)
        # A rerun with fewer blocks in the same folder (as run id) leaves
        # the earlier run's higher splits behind: reduce names them rather
        # than counting their lines twice.
        env_parts = self.pipepart("run2", "20k")
        self.assertLess(len(env_parts), len(parts))
        for p in env_parts:
            os.replace(os.path.join(self.tmp, p),
                       os.path.join(self.tmp, "run1", os.path.basename(p)))
        # (run2's partials now overwrite run1's first ones.)
        stale = sorted(os.path.join("run1", f)
                       for f in os.listdir(os.path.join(self.tmp, "run1")))
        _, err = self.mapr("reduce", "-o", "csv", *stale, code=1)
        self.assertIn(b"partial of another run: run 'run", err)
        # A fresh folder, another run id: the right answer again.
        parts = self.pipepart("run3", "20k")
        out, _ = self.mapr("reduce", "-o", "csv", "--expect-splits",
                           str(len(parts)), *parts)
        self.assertEqual(out, want)

    @unittest.skipUnless(shutil.which("parallel"), "GNU parallel not installed")
    @skip_under_tsan
    def test_gnu_parallel_partitioned_recipe(self):
        # docs/distributed.md's partitioned recipe with GNU parallel: maps
        # over --pipepart blocks write 4 partitions each, one combine per
        # partition, then the join.
        want, _ = self.mapr("-o", "csv", Q2, LOG)
        env = dict(os.environ, MAPR=os.path.abspath(MAPR_BIN), Q=Q2, RUN="r")
        os.makedirs(self.path("r"))
        for args in (
                ["--pipepart", "-a", LOG, "--block", "7k",
                 '"$MAPR" map --run-id "$RUN" --split auto --partitions 4 '
                 '"$Q" - > "$RUN"/{#}.parts'],
                ['"$MAPR" combine --partition {} "$RUN"/*.parts > '
                 '"$RUN"/p{}.part', ":::", "0", "1", "2", "3"]):
            subprocess.run(["parallel", "--will-cite"] + args, cwd=self.tmp,
                           env=env, check=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        maps = [f for f in os.listdir(self.path("r")) if f.endswith(".parts")]
        self.assertGreater(len(maps), 3)
        out, _ = self.mapr("reduce", "-o", "csv", "--expect-splits",
                           str(len(maps)),
                           *[self.path("r/p%d.part" % p) for p in range(4)])
        self.assertEqual(out, want)


class StepOptionsTest(MaprTestCase):
    """The run options under map, combine, reduce and inspect: each takes
    effect there (tests/cli/option_coverage_test.py lists the pairs)."""

    Q = "select $hostname,$line,count($line) group by $hostname,$line " \
        "logformat generic"

    def setUp(self):
        super().setUp()
        self.write("a.log", b"x\ny\nx\n")
        self.write("b.log", b"z\n")

    def part(self, name, *args):
        out, _ = self.mapr("map", *args)
        return self.write(name, out)

    def test_map_options(self):
        one_pass, _ = self.mapr("-o", "csv", "--hostname", "h1", self.Q,
                                "a.log", "b.log")
        # --hostname, --query and --files as in a query run.
        out, _ = self.mapr("map", "--hostname", "h1", "--query", self.Q,
                           "--files", "a.log", "b.log")
        self.write("h.part", out)
        out, _ = self.mapr("reduce", "-o", "csv", "h.part")
        self.assertEqual(out, one_pass)
        # --explain prints the plan and writes no partial.
        out, _ = self.mapr("map", "--explain", self.Q, "a.log")
        self.assertIn(b"group by: $hostname, $line", out)
        self.assertNotIn(b"MAPRPART", out)
        # --max-groups: more groups than allowed fail the map.
        _, err = self.mapr("map", "--max-groups", "1", self.Q, "a.log",
                           code=1)
        self.assertIn(b"more than 1 group (--max-groups)", err)
        # --max-line-bytes: the long line is counted, not aggregated.
        self.write("long.log", b"x\n" + b"y" * 50 + b"\n")
        out, _ = self.mapr("map", "--max-line-bytes", "10", self.Q,
                           "long.log")
        self.write("l.part", out)
        out, _ = self.mapr("inspect", "l.part")
        self.assertIn(b"lines_too_long: 1\n", out)

    def test_combine_reduce_inspect_options(self):
        self.part("0.part", "--split", "0", self.Q, "a.log")
        self.part("1.part", "--split", "1", self.Q, "b.log")
        want, _ = self.mapr("reduce", "-o", "csv", "0.part", "1.part")
        # --files names PARTs as positional ones do.
        out, _ = self.mapr("reduce", "-o", "csv", "--files", "0.part,1.part")
        self.assertEqual(out, want)
        out, _ = self.mapr("combine", "--files", "0.part", "1.part")
        self.write("c.part", out)
        out, _ = self.mapr("inspect", "--files", "c.part")
        self.assertIn(b"splits: [0, 2)", out)
        # --max-groups bounds the merge (3 groups).
        _, err = self.mapr("reduce", "--max-groups", "2", "0.part", "1.part",
                           code=1)
        self.assertIn(b"more than 2 groups (--max-groups)", err)
        _, err = self.mapr("combine", "--max-groups", "2", "0.part", "1.part",
                           code=1)
        self.assertIn(b"more than 2 groups (--max-groups)", err)
        # --stats prints the merged counters; --quiet silences warnings
        # (here: no partial in the input).
        _, err = self.mapr("combine", "--stats", "0.part", "1.part")
        self.assertIn(b"lines_read: 4\n", err)
        self.write("empty.part", b"")
        _, err = self.mapr("combine", "empty.part")
        self.assertIn(b"warning", err)
        _, err = self.mapr("combine", "--quiet", "empty.part")
        self.assertEqual(err, b"")


class MapFollowTest(MaprTestCase):
    """mapr map --follow (delta partials per interval), sources in reduce,
    and the usage rules of map --follow and remote (docs/distributed.md)."""

    Q = ("select host,count($line),sum(n),first(n),last(n) group by host "
         "logformat generickv")

    @staticmethod
    def lines(base, n):
        return b"".join(b"host=h%d|n=%d\n" % (i % 3, base + i)
                        for i in range(n))

    def read_bytes(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def one_pass(self, data):
        out, _ = self.mapr("-o", "csv", self.Q, "-", stdin=data)
        return out

    def inspect(self, part):
        """Per frame of `part`: a dict of what `mapr inspect` prints."""
        out, _ = self.mapr("inspect", part)
        frames = []
        for block in out.decode().split("\n\n"):
            info = {"position": []}
            for line in block.strip().splitlines():
                key, value = line.split(": ", 1)
                if key == "position":
                    info["position"].append(value)
                else:
                    info[key] = value
            frames.append(info)
        return frames

    def test_until_eof_writes_deltas_ending_with_a_final_one(self):
        data = self.lines(0, 3000)
        self.write("a.log", data)
        out, err = self.mapr("map", "--follow", "--until-eof", "--from-start",
                             "--source", "web-1", "--interval-ms", "50",
                             self.Q, "a.log")
        self.assertIn(b"following a.log from the start; a delta partial of "
                      b"source 'web-1' every 50ms; the last at the files' end",
                      err)
        part = self.write("a.part", out)
        frames = self.inspect(part)
        self.assertEqual([f["splits"] for f in frames],
                         ["[%d, %d)" % (i, i + 1) for i in range(len(frames))])
        self.assertTrue(all(f["source"] == "web-1" for f in frames))
        self.assertEqual([f.get("final") for f in frames],
                         [None] * (len(frames) - 1) + ["yes"])
        self.assertEqual(frames[-1]["position"], ["%d a.log" % len(data)])
        self.assertEqual(sum(int(f["lines_read"]) for f in frames), 3000)
        out, _ = self.mapr("reduce", "-o", "csv", part)
        self.assertEqual(out, self.one_pass(data))
        # --b64 lines carry the same frames.
        out, _ = self.mapr("map", "--follow", "--until-eof", "--from-start",
                           "--b64", "-q", self.Q, "a.log")
        self.assertTrue(out.startswith(b"0\t"), out[:20])
        out, _ = self.mapr("reduce", "-o", "csv", "-", stdin=out)
        self.assertEqual(out, self.one_pass(data))

    def test_stdin_ends_with_a_final_partial_and_default_source(self):
        data = self.lines(0, 100) + b"host=h9|n=5"  # No final newline.
        out, _ = self.mapr("map", "--follow", "-q", self.Q, "-", stdin=data)
        part = self.write("s.part", out)
        frames = self.inspect(part)
        self.assertEqual(frames[-1].get("final"), "yes")
        self.assertEqual(frames[-1]["source"], socket.gethostname())
        out, _ = self.mapr("reduce", "-o", "csv", part)
        self.assertEqual(out, self.one_pass(data))

    def test_growing_file_and_sigterm(self):
        self.write("g.log", b"")
        mapr = Follower(self, ["map", "--follow", "--interval-ms", "100",
                               self.Q, "g.log"])
        # Lines are appended once mapr follows the file (from its end);
        # each batch is waited for in the deltas on stdout.
        mapr.wait_ready()
        data = b""
        for k in range(4):
            chunk = self.lines(100 * k, 50)
            with open(self.path("g.log"), "ab") as f:
                f.write(chunk)
            data += chunk
            mapr.wait_for("deltas of %d lines" % len(data.splitlines()),
                          lambda: self.lines_read(self.partials_so_far(
                              mapr.out())) == len(data.splitlines()), 60)
        # Empty deltas too: a quiet interval is not a dead host.
        mapr.wait_for("an empty delta after the last lines",
                      lambda: self.empty_after_lines(self.partials_so_far(
                          mapr.out())), 60)
        self.write("g.part", mapr.finish(timeout=60))
        frames = self.inspect(self.path("g.part"))
        self.assertGreater(len(frames), 4)
        self.assertIn("0", [f["lines_read"] for f in frames])
        self.assertEqual(frames[-1].get("final"), "yes")
        out, _ = self.mapr("reduce", "-o", "csv", self.path("g.part"))
        self.assertEqual(out, self.one_pass(data))

    def test_reads_from_the_end_unless_from_start_or_resumed(self):
        # As `mapr --follow` (and `tail -f`): the lines already in the file
        # are not counted, and the start line says where each file is read
        # from.
        old = self.lines(0, 30)
        self.write("e.log", old)
        self.write("f.log", old)
        mapr = Follower(self, ["map", "--follow", "--interval-ms", "100",
                               self.Q, "e.log"])
        mapr.wait_ready()
        self.assertIn(b"mapr: following e.log from the end; ", mapr.err())
        new = self.lines(500, 7)
        with open(self.path("e.log"), "ab") as f:
            f.write(new)
        mapr.wait_for("deltas of the 7 new lines",
                      lambda: self.lines_read(self.partials_so_far(
                          mapr.out())) >= 7, 60)
        self.write("e.part", mapr.finish(timeout=60))
        out, _ = self.mapr("reduce", "-o", "csv", self.path("e.part"))
        self.assertEqual(out, self.one_pass(new))
        # --from-start reads what is there.
        out, err = self.mapr("map", "--follow", "--until-eof", "--from-start",
                             self.Q, "e.log")
        self.assertIn(b"mapr: following e.log from the start; ", err)
        self.write("s.part", out)
        out, _ = self.mapr("reduce", "-o", "csv", self.path("s.part"))
        self.assertEqual(out, self.one_pass(old + new))
        # Resumed: the named file from its offset, the others (not read
        # before) from their start.
        offset = len(self.lines(0, 20))
        out, err = self.mapr("map", "--follow", "--until-eof", "--resume-from",
                             "e.log=%d" % offset, self.Q, "e.log", "f.log")
        self.assertIn(b"mapr: following 2 inputs (e.log from byte %d, f.log "
                      b"from the start); " % offset, err)
        self.write("r.part", out)
        out, _ = self.mapr("reduce", "-o", "csv", self.path("r.part"))
        self.assertEqual(out, self.one_pass(old[offset:] + new + old))

    def partials_so_far(self, stream):
        """inspect()'s frames of `stream`, the stdout of a running `map
        --follow`; None while its last frame is still being written."""
        part = self.write("so-far.part", stream)
        p = subprocess.run([os.path.abspath(MAPR_BIN), "inspect", part],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           cwd=self.tmp, timeout=300)
        if p.returncode != 0:
            return None
        frames = []
        for block in p.stdout.decode().split("\n\n"):
            if block.strip():
                frames.append(dict(line.split(": ", 1)
                                   for line in block.strip().splitlines()))
        return frames

    @staticmethod
    def lines_read(frames):
        return sum(int(f["lines_read"]) for f in frames or [])

    @staticmethod
    def empty_after_lines(frames):
        """Whether a delta without lines follows the last one with some."""
        read = [f["lines_read"] != "0" for f in frames or []]
        return True in read and False in read[len(read) - read[::-1].index(
            True):]

    def test_resume_from_the_last_position_loses_and_doubles_nothing(self):
        first = self.lines(0, 700)
        self.write("r.log", first)
        out, _ = self.mapr("map", "--follow", "--until-eof", "--from-start",
                           "-q", self.Q, "r.log")
        self.write("r0.part", out)
        last = self.inspect(self.path("r0.part"))[-1]
        offset, name = last["position"][0].split(" ", 1)
        self.assertEqual((int(offset), name), (len(first), "r.log"))
        nxt = int(last["splits"].split(",")[1].rstrip(")"))
        more = self.lines(5000, 300)
        with open(self.path("r.log"), "ab") as f:
            f.write(more)
        out, _ = self.mapr("map", "--follow", "--until-eof", "-q",
                           "--resume-from", offset, "--split", str(nxt),
                           self.Q, "r.log")
        self.write("r1.part", out)
        out, _ = self.mapr("reduce", "-o", "csv", "r1.part", "r0.part")
        self.assertEqual(out, self.one_pass(first + more))
        _, err = self.mapr("map", "--follow", "--until-eof", "--resume-from",
                           "999999", self.Q, "r.log", code=1)
        self.assertIn(b"--resume-from 999999 is past the file's end", err)

    def test_resume_into_a_replaced_file_is_refused(self):
        # A file rotated in while the session was lost: the position (a
        # line end of the old file) falls inside a line of the new one,
        # which was read from there, its start lost and a fragment counted.
        first = self.lines(0, 300)
        self.write("r.log", first)
        out, _ = self.mapr("map", "--follow", "--until-eof", "--from-start",
                           "-q", self.Q, "r.log")
        self.write("r0.part", out)
        offset = self.inspect(self.path("r0.part"))[-1]["position"][0]
        offset = offset.split(" ")[0]
        self.write("r.log", b"x" + first)  # Another file: shifted by one.
        _, err = self.mapr("map", "--follow", "--until-eof", "--resume-from",
                           offset, self.Q, "r.log", code=1)
        self.assertIn(("mapr: r.log: --resume-from %s is not the end of a "
                       "line in the file: replaced or rewritten since, so "
                       "its lines cannot be resumed there\n" % offset)
                      .encode(), err)

    def test_resume_several_files_by_name(self):
        a, b = self.lines(0, 100), self.lines(500, 60)
        self.write("a.log", a)
        self.write("b.log", b)
        out, _ = self.mapr("map", "--follow", "--until-eof", "--from-start",
                           "-q", self.Q, "a.log", "b.log")
        self.write("p0.part", out)
        last = self.inspect(self.path("p0.part"))[-1]
        self.assertEqual(last["position"],
                         ["%d a.log" % len(a), "%d b.log" % len(b)])
        nxt = int(last["splits"].split(",")[1].rstrip(")"))
        a2, b2, c = self.lines(900, 30), self.lines(1900, 20), self.lines(3000, 5)
        with open(self.path("a.log"), "ab") as f:
            f.write(a2)
        with open(self.path("b.log"), "ab") as f:
            f.write(b2)
        self.write("c.log", c)  # Not read before: read from its start.
        out, _ = self.mapr("map", "--follow", "--until-eof", "-q",
                           "--resume-from", "a.log=%d" % len(a),
                           "--resume-from", "b.log=%d" % len(b),
                           "--split", str(nxt), self.Q, "a.log", "b.log",
                           "c.log")
        self.write("p1.part", out)
        out, _ = self.mapr("reduce", "-o", "csv", "p0.part", "p1.part")
        self.assertEqual(out, self.one_pass(a + a2 + b + b2 + c))

    def test_closed_stdout_ends_a_quiet_follow(self):
        self.write("quiet.log", b"")
        for args in (["map", "--follow", "--interval-ms", "100000"],
                     ["--follow", "--interval-ms", "100000"]):
            err_path = self.path("err")
            with open(err_path, "wb") as err:
                p = subprocess.Popen(
                    [os.path.abspath(MAPR_BIN)] + args + [self.Q,
                                                          "quiet.log"],
                    cwd=self.tmp, stdout=subprocess.PIPE, stderr=err)
            self.addCleanup(p.kill)
            # Following: its start line is out, and it runs.
            deadline = time.monotonic() + 60
            while b"mapr: following " not in self.read_bytes("err"):
                self.assertIsNone(p.poll(), self.read_bytes("err"))
                self.assertLess(time.monotonic(), deadline,
                                "no start line: %r" % self.read_bytes("err"))
                time.sleep(0.02)
            self.assertIsNone(p.poll())
            p.stdout.close()  # The reader (an ssh session) has gone.
            # At once, not at the next report (100 s away): the deadline
            # is only for a loaded machine.
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.fail("mapr %s still runs 60 s after its stdout closed: "
                          "%r" % (" ".join(args), self.read_bytes("err")))

    def test_reduce_merges_sources_in_name_order(self):
        a, b = self.lines(0, 40), self.lines(1000, 30)
        self.write("a.log", a)
        self.write("b.log", b)
        for name in ("a", "b"):
            out, _ = self.mapr("map", "--source", "web-" + name, self.Q,
                               name + ".log")
            self.write(name + ".part", out)
        out, _ = self.mapr("reduce", "-o", "csv", "b.part", "a.part")
        self.assertEqual(out, self.one_pass(a + b))
        out, _ = self.mapr("reduce", "-o", "csv", "-",
                           stdin=self.read_bytes("b.part") +
                           self.read_bytes("a.part"))
        self.assertEqual(out, self.one_pass(a + b))
        out, _ = self.mapr("reduce", "-o", "csv", "--expect-splits", "1",
                           "a.part", "b.part")
        self.assertEqual(out, self.one_pass(a + b))
        _, err = self.mapr("reduce", "--expect-splits", "2", "a.part",
                           "b.part", code=1)
        self.assertEqual(err, b"mapr: source 'web-a': missing split 1\n")
        _, err = self.mapr("reduce", "a.part", "a.part", code=1)
        self.assertIn(b"source 'web-a': split 0 would be counted twice", err)
        _, err = self.mapr("combine", "a.part", "b.part", code=1)
        self.assertIn(b"partials of two sources ('web-a' in a.part, 'web-b' "
                      b"in b.part): combine merges the splits of one source",
                      err)
        frames = self.inspect(self.path("a.part"))
        self.assertEqual(frames[0]["source"], "web-a")
        self.assertEqual(frames[0]["version"], "1.4")

    def test_reduce_warns_about_a_stream_that_has_not_ended(self):
        # A map killed before its final partial (a host that died).
        with open(self.path("early.part"), "wb") as sink:
            p = subprocess.Popen(
                [os.path.abspath(MAPR_BIN), "map", "--follow", "-q",
                 "--interval-ms", "50", self.Q, "-"],
                cwd=self.tmp, stdin=subprocess.PIPE, stdout=sink)
            self.addCleanup(p.kill)
            p.stdin.write(self.lines(0, 10))
            p.stdin.flush()
            # Until a delta with the 10 lines is out (a slow start under a
            # sanitizer can take longer than a few intervals).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                time.sleep(0.05)
                got = subprocess.run([os.path.abspath(MAPR_BIN), "inspect",
                                      "early.part"],
                                     cwd=self.tmp, capture_output=True)
                if got.returncode == 0 and sum(
                        int(l.split(b": ")[1])
                        for l in got.stdout.splitlines()
                        if l.startswith(b"lines_read: ")) == 10:
                    break
            p.kill()
            p.wait()
            p.stdin.close()
        frames = self.inspect(self.path("early.part"))
        self.assertNotIn("yes", [f.get("final") for f in frames])
        out, err = self.mapr("reduce", "-o", "csv", "early.part")
        self.assertEqual(out, self.one_pass(self.lines(0, 10)))
        self.assertIn(b"its last partial is not final (its stream had not "
                      b"ended): the result lacks what came later", err)
        # reduce --quiet does not say it.
        _, err = self.mapr("reduce", "--quiet", "-o", "csv", "early.part")
        self.assertEqual(err, b"")

    def test_usage_errors(self):
        cases = [
            (["map", "--until-eof", self.Q, "a.log"],
             "--until-eof works only with map --follow, not with map"),
            (["map", "--follow", "--range", "0:10", self.Q, "a.log"],
             "--range does not work with --follow"),
            (["map", "--follow", "--resume-from", "5", self.Q, "a.log",
              "b.log"],
             "--resume-from OFFSET needs exactly one FILE (not standard "
             "input); with several, use --resume-from FILE=OFFSET"),
            (["map", "--follow", "--resume-from", "c.log=5", self.Q, "a.log"],
             "--resume-from names c.log, which is not one of the FILEs"),
            (["map", "--follow", "--stop-on-stdin-eof", self.Q, "-"],
             "--stop-on-stdin-eof needs FILEs, and standard input is not one"),
            (["remote", self.Q, "a.log"],
             "remote needs hosts: --hosts H1,H2 or --hosts-file FILE"),
            (["remote", "--hosts", "a,a", self.Q, "a.log"],
             "host 'a' is named twice"),
            (["remote", "--hosts", "a", self.Q],
             "remote reads FILEs on the hosts: name them (standard input is "
             "not one)"),
            (["reduce", "--hosts", "a", "x.part"],
             "--hosts works only with remote, not with reduce"),
            (["--source", "a", self.Q], "--source works only with map, not "
             "with a query"),
        ]
        for args, message in cases:
            _, err = self.mapr(*args, code=2)
            self.assertIn(("mapr: " + message + "\n").encode(), err, args)

    def local_ssh(self, answers=None):
        """A stand-in for ssh that records the host's command line (one file
        per host) and runs it here, as the host's shell would; a host of
        `answers` ({host: file}) prints that file instead."""
        canned = "".join(
            'if [ "$host" = %s ]; then exec cat "%s"; fi\n' % (host, path)
            for host, path in (answers or {}).items())
        fake = self.write("localssh", (
            '#!/bin/sh\n'
            '[ "$1" = "--" ] && shift\n'
            'host=$1; shift\n'
            'printf "%%s\\n" "$@" > "%s/argv-$host.txt"\n'
            '%s'
            'exec sh -c "$*"\n' % (self.tmp, canned)).encode())
        os.chmod(fake, 0o755)
        return fake

    def host_words(self, host):
        """The words of the command `host` was given, as its shell splits
        them."""
        with open(self.path("argv-%s.txt" % host)) as f:
            command = f.read().rstrip("\n")
        return subprocess.run(
            ["sh", "-c", 'printf "%s\n" ' + command], capture_output=True,
            check=True).stdout.decode().split("\n")[:-1]

    def test_remote_runs_its_own_query_whatever_a_host_sends(self):
        # Host "evil" answers first with a partial of another query (of its
        # own source name): it fails alone, and the other host's result is
        # that of the client's query. (The first partial once set the query,
        # and the honest host was refused as "of another query".)
        self.write("a.log", b"k=a\nk=b\nk=a\n")
        q = "select k, count($line) group by k logformat generickv"
        other, _ = self.mapr("map", "--source", "evil",
                             "select count($line) group by * "
                             "logformat generickv", "a.log")
        fake = self.local_ssh({"evil": self.write("evil.part", other)})
        out, err = self.mapr("remote", "--ssh", fake, "--hosts", "evil,good",
                             "--remote-mapr", os.path.abspath(MAPR_BIN),
                             "-o", "csv", q, "a.log", code=1)
        self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")
        self.assertEqual(err.decode().split("\n")[:2], [
            "mapr: evil: failed: it sent a partial of another query "
            "('select count($line) group by * logformat'; this run's is "
            "'select k,count($line) group by k logformat generickv')",
            "mapr: the result is partial: host evil failed (none of its "
            "lines are counted)"])

    def test_remote_forwards_event_start(self):
        # Three events of several lines: --event-start reaches each host, so
        # remote counts events as a local run does (it counted lines).
        self.write("ml.log", b"level=info a\n  more\nlevel=warn b\n  x\n"
                             b"  y\nlevel=info c\n")
        q = "select count($line) group by * logformat generic"
        local, _ = self.mapr("-o", "csv", "--event-start", "^level=", q,
                             "ml.log")
        self.assertEqual(local, b"count($line)\n3\n")
        out, err = self.mapr("remote", "--ssh", self.local_ssh(), "--hosts",
                             "web1", "--remote-mapr",
                             os.path.abspath(MAPR_BIN), "-o", "csv",
                             "--event-start", "^level=", q, "ml.log")
        self.assertEqual(out, local, err)
        words = self.host_words("web1")
        i = words.index("--event-start")
        self.assertEqual(words[i + 1], "^level=")

    # Each option `mapr remote` accepts (every one of `mapr --help`'s, found
    # at run time): how it takes effect. "host": forwarded to each host's
    # `mapr map`, checked in the recorded command line; "client": used by
    # remote itself (the reason given). An option that is neither, and that
    # remote does not refuse, fails the test: a new option cannot be
    # dropped silently.
    REMOTE_OPTIONS = {
        "--output": ("client", "renders the merged result"),
        "--stats": ("client", "prints the merged counters"),
        "--quiet": ("client", "no status lines (hosts always get it)"),
        "--max-line-bytes": ("host", None),
        "--max-groups": ("host", None),
        "--query": ("host", None),
        "--files": ("host", None),
        "--event-start": ("host", None),
        "--follow": ("host", None),
        "--from-start": ("host", None),
        "--interval-ms": ("host", None),
        "--hosts": ("client", "the hosts to run on"),
        "--hosts-file": ("client", "the hosts to run on"),
        "--ssh": ("client", "the ssh command"),
        "--remote-mapr": ("client", "the hosts' mapr"),
        "--allow-partial": ("client", "the exit status"),
        "--max-frame-bytes": ("client", "refuses larger frames of hosts"),
        "--host-timeout": ("client", "fails hosts that take longer"),
        "--help": ("client", "prints the help"),
        "--version": ("client", "prints the version"),
    }
    # A value for each option that takes one, by its --help placeholder.
    SAMPLE_VALUES = {"FORMAT": "csv", "--alert-format": "json", "N": "3", "NAME": "h", "QUERY": None,
                     "LIST": "ml.log", "REGEX": "^x", "FILE": "hosts.txt",
                     "DIR": "d", "COMMAND": None, "PATH": None,
                     "ADDR:PORT": "127.0.0.1:0",
                     "CONDITION": "count($line) > 1", "I|auto": "0",
                     "[FILE=]OFFSET": "ml.log=0", "P": "0", "R": "2",
                     "LO:HI": "0:1", "ID": "x", "SECONDS": "5"}

    def help_options(self):
        """(option, placeholder) of each line of `mapr --help`."""
        out, _ = self.mapr("--help")
        found = []
        for line in out.decode().splitlines():
            m = re.match(r"^  (?:-\w, |    )(--[a-z0-9-]+)(?: (\S+))?", line)
            if m:
                found.append((m.group(1), m.group(2)))
        return found

    def test_every_option_of_remote_takes_effect_or_is_refused(self):
        self.write("ml.log", b"level=info a\n")
        self.write("hosts.txt", b"web1\n")
        q = "select count($line) group by * logformat generic"
        options = self.help_options()
        self.assertGreater(len(options), 30)
        unknown, refused, forwarded = [], [], []
        for option, placeholder in options:
            if option in ("--help", "--version"):
                continue
            value = []
            if placeholder is not None:
                # A new placeholder needs its sample value here (by option
                # where two share a placeholder).
                key = option if option in self.SAMPLE_VALUES else placeholder
                self.assertIn(key, self.SAMPLE_VALUES, option)
                sample = self.SAMPLE_VALUES[key]
                value = [sample] if sample is not None else []
            if option in ("--query", "--ssh", "--remote-mapr", "--hosts",
                          "--hosts-file", "--files"):
                continue  # Given in every run below.
            follow = option in ("--follow", "--from-start", "--interval-ms")
            args = ["remote", "--ssh", self.local_ssh(), "--hosts", "web1",
                    "--remote-mapr", os.path.abspath(MAPR_BIN), option] + \
                value + ["--query", q, "ml.log"]
            if follow and option != "--follow":
                args.insert(1, "--follow")
            argv_file = self.path("argv-web1.txt")
            if os.path.exists(argv_file):
                os.remove(argv_file)
            p = subprocess.Popen([os.path.abspath(MAPR_BIN)] + args,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=self.tmp,
                                 stdin=subprocess.DEVNULL)
            if follow:
                # A follow runs until it is stopped: once the host's command
                # line is recorded (or remote has ended), stop it.
                deadline = time.monotonic() + 60
                while (not os.path.exists(argv_file) and p.poll() is None
                       and time.monotonic() < deadline):
                    time.sleep(0.02)
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
            if p.returncode == 2:
                # Refused by a usage error on where it may be given (not on
                # a bad sample value; --journal-file names the --journal it
                # implies): nothing runs.
                self.assertRegex(err.decode(), r"^mapr: --[a-z0-9-]+ .*(works "
                                 r"only with|does not work with)",
                                 (option, err))
                refused.append(option)
                continue
            how = self.REMOTE_OPTIONS.get(option)
            if how is None:
                unknown.append(option)
                continue
            if how[0] == "host":
                words = self.host_words("web1")
                self.assertIn(option, words, (option, words))
                forwarded.append(option)
        self.assertEqual(unknown, [], "options remote accepts but neither "
                         "forwards nor lists as its own")
        # What the table says is what happens: its host options were seen
        # forwarded, the options it lists are not refused.
        for option, (how, _) in self.REMOTE_OPTIONS.items():
            self.assertNotIn(option, refused)
        self.assertEqual(sorted(forwarded), sorted(
            o for o, (how, _) in self.REMOTE_OPTIONS.items()
            if how == "host" and o not in ("--query", "--files")))

    def test_remote_refuses_host_names_ssh_would_misread(self):
        # A name with a leading '-' would be an option of ssh (ProxyCommand
        # runs a command here); spaces, quotes and shell characters belong
        # to no host. Refused before any ssh starts, from --hosts and from
        # --hosts-file alike.
        fake = self.write("fakessh", b'#!/bin/sh\ntouch ran.txt\nexit 255\n')
        os.chmod(fake, 0o755)
        self.write("hosts.txt", b"web1\n-oProxyCommand=./pwn\n")
        cases = [
            (["--hosts=-oProxyCommand=touch pwned"],
             "host '-oProxyCommand=touch pwned' starts with '-', which ssh "
             "would read as an option"),
            (["--hosts-file", self.path("hosts.txt")],
             "host '-oProxyCommand=./pwn' starts with '-', which ssh would "
             "read as an option"),
            (["--hosts", "web1,a;b"],
             "host 'a;b' holds ';', which no host name has (letters, digits "
             "and . _ - @ : % [ ])"),
            (["--hosts", "web1,a\x1bz"],
             "host 'a\\x1bz' holds '\\x1b', which no host name has "
             "(letters, digits and . _ - @ : % [ ])"),
        ]
        for hosts, message in cases:
            _, err = self.mapr("remote", "--ssh", fake, *hosts, self.Q,
                               "a.log", code=2)
            self.assertEqual(err.decode(), "mapr: %s\nTry 'mapr --help' for "
                             "more information.\n" % message, hosts)
            self.assertFalse(os.path.exists(self.path("ran.txt")), hosts)
            self.assertFalse(os.path.exists(self.path("pwned")), hosts)
        # What ssh accepts as a destination passes.
        for host in ("web-1.example.org", "ann@web_2", "::1", "[fe80::1%eth0]"):
            self.mapr("remote", "--ssh", fake, "--hosts", host,
                      "--allow-partial", self.Q, "a.log", code=1)
            os.remove(self.path("ran.txt"))

    def test_remote_host_stderr_is_bounded_and_escaped(self):
        # A host that writes 8 MiB to stderr without a newline, then a line
        # with a terminal's escape sequences: the first 4 KiB of the long
        # line are printed, marked as cut (it was buffered whole before,
        # with a quadratic search), and control bytes are shown as \xNN.
        fake = self.write("noisyssh", (
            "#!/bin/sh\n"
            "head -c 8388608 /dev/zero | tr '\\0' x >&2\n"
            "printf '\\nend\\n\\033[2J\\033]0;owned\\007 ok\\tdone\\n' >&2\n"
            "exit 255\n").encode())
        os.chmod(fake, 0o755)
        _, err = self.mapr("remote", "--ssh", fake, "--hosts", "h1",
                           "--allow-partial", self.Q, "a.log", code=1)
        lines = err.decode().split("\n")
        self.assertEqual(lines[0], "mapr: h1: " + "x" * 4096 +
                         " [cut: the line is longer than 4096 bytes]")
        self.assertEqual(lines[1], "mapr: h1: end")
        self.assertEqual(lines[2], "mapr: h1: \\x1b[2J\\x1b]0;owned\\x07 "
                         "ok\tdone")
        self.assertNotIn("\x1b", err.decode())
        self.assertLess(len(err), 3 * 4096 + 2000)

    def test_remote_command_quotes_every_argument(self):
        # A stand-in for ssh that records its arguments, then fails as ssh.
        fake = self.write("fakessh", b'#!/bin/sh\nprintf "%s\\n" "$@" '
                          b'> args.txt\nexit 255\n')
        os.chmod(fake, 0o755)
        query = "select count($line) where x eq \"it's\""
        self.mapr("remote", "--ssh", fake + " -p 22", "--hosts", "h1",
                  "--allow-partial", query, "my log's.log", code=1)
        with open(self.path("args.txt")) as f:
            args = f.read().split("\n")
        # ssh's options end before the host, whatever its name.
        self.assertEqual(args[:4], ["-p", "22", "--", "h1"])
        # The host's shell splits the command back into these arguments.
        words = subprocess.run(
            ["sh", "-c", 'printf "%s\\n" ' + args[4]], capture_output=True,
            check=True).stdout.decode().split("\n")[:-1]
        self.assertEqual(words, [
            "mapr", "map", "--quiet", "--source", "h1", "--max-line-bytes",
            "1048576", "--query", query, "--", "my log's.log"])


if __name__ == "__main__":
    unittest.main()
