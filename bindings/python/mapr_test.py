"""Tests for the mapr Python package (bindings/python/mapr)."""

import bz2
import doctest
import gc
import gzip
import json
import lzma
import os
import pathlib
import pickle
import pydoc
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from dataclasses import fields

import mapr

SAMPLE_LOG = os.environ.get(
    "MAPR_SAMPLE_LOG",
    os.path.join(os.path.dirname(__file__), "..", "..", "examples", "data",
                 "sample.log"),
)

CSV_LOG = [
    "host,status,latency",
    "a,200,10",
    "b,500,20",
    "a,200,30",
    "c,404,x",
    "a,500,50",
]
BY_HOST = ("select host,count($line),sum(latency),last(status) group by host "
           "order by count($line) logformat csv")
BY_HOST_CSV = ("host,count($line),sum(latency),last(status)\n"
               "a,3,90.000000,500\n"
               "b,1,20.000000,500\n"
               "c,1,0.000000,404\n")


class CompileTest(unittest.TestCase):

    def test_query_properties(self):
        q = mapr.compile(
            "from STATS select count($line),avg($goroutines) as g "
            "group by $hostname order by count($line) limit 3 interval 2 "
            "outfile append r.csv")
        self.assertEqual(q.columns, ["count($line)", "g"])
        self.assertEqual(q.log_format, "default")
        self.assertEqual(q.limit, 3)
        self.assertEqual(q.interval_ms, 2000)
        self.assertEqual(q.outfile, "r.csv")
        self.assertTrue(q.outfile_append)
        self.assertEqual(q.warnings, [])
        self.assertTrue(q.text.startswith("from STATS"))
        self.assertEqual(mapr.compile(str(q)).columns, q.columns)
        self.assertIn("count", q.explain())
        self.assertIn("from STATS", repr(q))
        self.assertIsNone(q.multiline)
        self.assertEqual(mapr.compile("select a multiline JAVA").multiline,
                         "java")
        self.assertEqual(mapr.compile("select a multiline '^\\d'").multiline,
                         "^\\d")

    def test_defaults_and_warnings(self):
        q = mapr.compile("select count($line),last($nosuch) group by *")
        self.assertIsNone(q.limit)
        self.assertIsNone(q.outfile)
        self.assertFalse(q.outfile_append)
        self.assertEqual(len(q.warnings), 1)
        self.assertIn("$nosuch", q.warnings[0])

    def test_query_error_has_position_and_caret(self):
        with self.assertRaises(mapr.QueryError) as cm:
            mapr.compile("select avgg(x) from STATS")
        e = cm.exception
        self.assertEqual(e.code, "INVALID_ARGUMENT")
        self.assertEqual((e.line, e.column), (1, 8))
        self.assertEqual((e.offset, e.length), (7, 4))
        self.assertEqual(
            str(e),
            "1:8-11: unknown aggregation 'avgg'\n"
            "select avgg(x) from STATS\n"
            "       ^~~~\n"
            "hint: did you mean 'avg'?")
        # A QueryError is a MaprError and a ValueError.
        self.assertIsInstance(e, mapr.MaprError)
        self.assertIsInstance(e, ValueError)

    def test_multi_line_error(self):
        with self.assertRaises(mapr.QueryError) as cm:
            mapr.compile("select count($line)\nlogformat nginx")
        self.assertEqual((cm.exception.line, cm.exception.column), (2, 11))

    def test_limits(self):
        with self.assertRaises(mapr.QueryError) as cm:
            mapr.compile("select count($line) group by *", max_query_bytes=10)
        self.assertIn("max_query_bytes", str(cm.exception))
        with self.assertRaises(mapr.QueryError):
            mapr.compile("select count($line),sum(x) group by *", max_items=1)
        mapr.compile("select count($line),sum(x) group by *", max_items=2)

    def test_which_formats_may_be_cut(self):
        # LogFormat::line_independent, which the Dask helper asks.
        line_independent = mapr._mapr.log_format_line_independent
        for name in ("default", "generic", "generickv", "json", "logfmt",
                     "clf", "combined", "syslog", "fields", "regex"):
            self.assertTrue(line_independent(name), name)
        self.assertFalse(line_independent("csv"))
        self.assertFalse(line_independent("no-such-format"))

    def test_percentile_settings(self):
        lines = [f"x={v}" for v in range(1, 2001)]
        q = "select p99(x), median(x) group by * logformat generickv"
        # Exact when the limit holds every value: ranks 1979 and 999.
        r = mapr.run(mapr.compile(q, percentile_exact_values=4096), lines)
        self.assertEqual(r.rows, [(1980.0, 1000.0)])
        # Past the default limit: within 1 %.
        p99, median = mapr.run(q, lines).rows[0]
        self.assertLessEqual(abs(p99 - 1980) / 1980, 0.01)
        self.assertLessEqual(abs(median - 1000) / 1000, 0.01)
        with self.assertRaises(mapr.QueryError):
            mapr.compile(q, percentile_accuracy=0.5)
        with self.assertRaises(ValueError):
            mapr.compile(q, percentile_exact_values=-1)

    def test_non_ascii_query(self):
        r = mapr.run("select $line,count($line) group by $line",
                     ["é", "日本", "é"])
        self.assertEqual(r.rows, [("é", 2), ("日本", 1)])


class RunTest(unittest.TestCase):

    def test_list_of_str(self):
        r = mapr.run(BY_HOST, CSV_LOG)
        self.assertEqual(r.to_csv(), BY_HOST_CSV)
        self.assertEqual(r.columns,
                         ["host", "count($line)", "sum(latency)",
                          "last(status)"])
        self.assertEqual(r.column_kinds, ["last", "count", "sum", "last"])
        self.assertEqual(r.rows, [("a", 3, 90.0, "500"), ("b", 1, 20.0, "500"),
                                  ("c", 1, 0.0, "404")])
        self.assertEqual(r.cells[0], ("a", "3", "90.000000", "500"))
        self.assertEqual(r.values[2], (0.0, 1.0, 0.0, 404.0))
        self.assertEqual(r.to_dicts()[0],
                         {"host": "a", "count($line)": 3, "sum(latency)": 90.0,
                          "last(status)": "500"})
        self.assertEqual(len(r), 3)
        self.assertEqual(r[1][0], "b")
        self.assertEqual([row[0] for row in r], ["a", "b", "c"])
        self.assertEqual(r.total_groups, 3)

    def test_stats(self):
        s = mapr.run(BY_HOST, CSV_LOG).stats
        self.assertEqual(s.lines_read, 6)
        self.assertEqual(s.lines_header, 1)
        self.assertEqual(s.lines_aggregated, 5)
        self.assertEqual(s.lines_matched, 6)
        self.assertEqual(s.lines_parsed, 5)
        self.assertEqual(sum(v for k, v in s.as_dict().items()
                             if k.startswith("lines_") and k != "lines_read"),
                         s.lines_read)

    def test_notes(self):
        r = mapr.run("select at, avg(service) group by at logformat logfmt",
                     lines=["at=info service=18ms", "at=info service=3"])
        self.assertEqual(r.notes, [mapr.Note(
            "values_not_numeric",
            "1 value of field 'service' was not a number (such as '18ms') "
            "and counted as missing in its numeric aggregates; read "
            "durations and sizes with duration() and bytes() in a set")])
        self.assertEqual(mapr.run("select count($line) group by *",
                                  lines=["a"]).notes, [])
        self.assertEqual([n.code for n in mapr.run(
            "select count($line) group by *", lines=[]).notes],
            ["empty_input"])

    def test_unmatched_lines_of_the_regex_format(self):
        r = mapr.run("select k, count($line) group by k logformat regex "
                     "'^(?P<k>[a-z]+)='", lines=["a=1", "b=2", "=3", "4"])
        self.assertEqual(r.stats.lines_unmatched, 2)
        self.assertEqual(r.stats.lines_parsed, 2)
        self.assertEqual(r.stats.lines_aggregated, 2)

    def test_stats_fields_are_the_line_counters_of_the_library(self):
        # mapr.Stats spells its fields out; they must be mapr/result.h's
        # kLineCounterFields, in order.
        self.assertEqual(tuple(f.name for f in fields(mapr.Stats)),
                         mapr._mapr.line_counters)
        self.assertEqual(tuple(mapr.Stats().as_dict()),
                         mapr._mapr.line_counters)

    def test_inputs(self):
        expected = mapr.run(BY_HOST, CSV_LOG)
        as_bytes = [line.encode() for line in CSV_LOG]
        self.assertEqual(mapr.run(BY_HOST, as_bytes), expected)
        self.assertEqual(mapr.run(BY_HOST, tuple(CSV_LOG)), expected)
        self.assertEqual(mapr.run(BY_HOST, (l for l in CSV_LOG)), expected)
        self.assertEqual(mapr.run(BY_HOST, iter(as_bytes)), expected)
        raw = ("\n".join(CSV_LOG)).encode()  # No final newline.
        self.assertEqual(mapr.run(BY_HOST, raw), expected)
        self.assertEqual(mapr.run(BY_HOST, bytearray(raw)), expected)
        self.assertEqual(mapr.run(BY_HOST, memoryview(raw)), expected)
        # Lines with their newline, as from an open file.
        self.assertEqual(mapr.run(BY_HOST, [l + "\n" for l in CSV_LOG]),
                         expected)
        self.assertEqual(mapr.run(BY_HOST, lines=CSV_LOG), expected)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "log.csv")
            with open(path, "w") as f:
                f.write("\n".join(CSV_LOG) + "\n")
            self.assertEqual(mapr.run_file(BY_HOST, path), expected)
            self.assertEqual(mapr.run_file(BY_HOST, pathlib.Path(path)),
                             expected)
            self.assertEqual(mapr.run_file(BY_HOST, os.fsencode(path)),
                             expected)
            with open(path) as f:
                self.assertEqual(mapr.run(BY_HOST, f), expected)
            with open(path, "rb") as f:
                self.assertEqual(mapr.run(BY_HOST, f), expected)
        self.assertEqual(mapr.run(mapr.compile(BY_HOST), CSV_LOG), expected)

    def test_sample_log(self):
        r = mapr.run_file(
            "from STATS select count($line),max(lifetimeConnections) group by *",
            SAMPLE_LOG)
        self.assertEqual(r.rows, [(597, 6.0)])
        self.assertIn(" 597 |", r.to_table())
        self.assertEqual(str(r), r.to_table())

    def test_bad_inputs(self):
        with self.assertRaises(TypeError):
            mapr.run(BY_HOST, [1, 2])
        with self.assertRaises(TypeError):
            mapr.run(BY_HOST, ["ok", None])
        with self.assertRaises(FileNotFoundError):
            mapr.run_file(BY_HOST, "/nonexistent/file.log")
        with self.assertRaises(TypeError):
            mapr.run_file(BY_HOST, CSV_LOG)
        with self.assertRaises(UnicodeEncodeError):
            mapr.run(BY_HOST, ["\ud800"])  # A lone surrogate.
        with self.assertRaises(ZeroDivisionError):
            mapr.run(BY_HOST, (1 // 0 for _ in range(1)))

    def test_renderings(self):
        r = mapr.run(BY_HOST, CSV_LOG)
        self.assertEqual(json.loads(r.to_json())[0],
                         {"host": "a", "count($line)": 3,
                          "sum(latency)": 90.0, "last(status)": "500"})
        self.assertEqual(len(r.to_ndjson().splitlines()), 3)
        table = r.to_table()
        self.assertTrue(table.startswith(" host | count($line) |"))
        self.assertEqual(len(r.to_table(max_rows=1).splitlines()), 3)

    def test_outfile(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.csv")
            q = mapr.compile(BY_HOST + f" outfile {path}")
            r = mapr.run(q, CSV_LOG)
            r.write_outfile(q)
            with open(path) as f:
                self.assertEqual(f.read(), BY_HOST_CSV)
            with self.assertRaises(mapr.MaprError) as cm:
                r.write_outfile(mapr.compile(BY_HOST))
            self.assertEqual(cm.exception.code, "FAILED_PRECONDITION")

    def test_options(self):
        r = mapr.run("select $hostname,count($line) group by $hostname",
                     ["x"], hostname="web7")
        self.assertEqual(r.rows, [("web7", 1)])
        r = mapr.run(BY_HOST, CSV_LOG + ["a,200," + "9" * 50],
                     max_line_bytes=40)
        self.assertEqual(r.stats.lines_too_long, 1)
        with self.assertRaises(mapr.MaprError) as cm:
            mapr.run(BY_HOST, CSV_LOG, max_groups=2)
        self.assertEqual(cm.exception.code, "RESOURCE_EXHAUSTED")
        self.assertNotIsInstance(cm.exception, mapr.QueryError)

    def test_result_threads_give_the_same_result(self):
        # Enough groups for three result threads.
        lines = ["host,status,latency"] + [
            f"h{(i * 7919) % 100000},{200 + i % 3},{i % 1000}"
            for i in range(100000)]
        query = ("select host,count($line),sum(latency),percentile(latency)"
                 " group by host logformat csv")
        one = mapr.run(query, lines)
        three = mapr.run(query, lines, result_threads=3)
        self.assertEqual(len(one.rows), 100000)
        self.assertEqual(three.rows, one.rows)


class AmbiguousRunTest(unittest.TestCase):
    """run() takes lines, run_file() a path: a str is neither guessed."""

    def test_str_is_refused_with_directions(self):
        for arg in ("app.log", "a,200,1", pathlib.Path("app.log")):
            with self.assertRaises(TypeError) as cm:
                mapr.run(BY_HOST, arg)
            message = str(cm.exception)
            self.assertIn("lines=", message)
            self.assertIn("run_file(query, path)", message)
        with self.assertRaises(TypeError):
            mapr.run(BY_HOST, lines="a,200,1")

    def test_explicit_forms(self):
        expected = mapr.run(BY_HOST, CSV_LOG)
        self.assertEqual(mapr.run(BY_HOST, lines=CSV_LOG), expected)
        r = mapr.run("select $line,count($line) group by $line",
                     lines=["one line"])
        self.assertEqual(r.rows, [("one line", 1)])


def assert_releases_gil(call, min_ticks=3):
    """Runs call() on another thread and returns its result; raises
    AssertionError unless this thread, ticking meanwhile (a time.monotonic()
    stamp, then time.sleep(0.001)), ticked at least `min_ticks` times in the
    middle half of the call: after its start plus a quarter of its duration
    and before its end minus a quarter. While a C function holds the GIL no
    other Python thread runs at all, so only a call that lets go of it gives
    those ticks; handing the GIL over (at most every sys.getswitchinterval())
    lets this thread tick only near the ends of a call that holds it.

    `call` should be one binding call, not a loop of calls (between two this
    thread may tick anyway), long enough to leave a wide middle: a few
    tenths of a second (see lasting()). There is no upper bound on time: a
    slow build or a loaded machine gives fewer ticks, not none."""
    box = {}

    def worker():
        box["start"] = time.monotonic()
        try:
            box["result"] = call()
        except BaseException as e:  # Raised on the calling thread.
            box["error"] = e
        box["end"] = time.monotonic()

    ticks = []
    t = threading.Thread(target=worker)
    t.start()
    while t.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    t.join()
    if "error" in box:
        raise box["error"]
    start, end = box["start"], box["end"]
    quarter = (end - start) / 4
    inside = [x for x in ticks if start < x < end]
    middle = [x for x in inside if start + quarter < x < end - quarter]
    if len(middle) < min_ticks:
        raise AssertionError(
            f"the GIL was held: the other thread ticked {len(middle)} times "
            f"in the middle half of a {end - start:.3f} s call (at least "
            f"{min_ticks} needed), {len(inside)} in all of it")
    return box["result"]


def lasting(seconds, make_call, n):
    """make_call(n) for the first n, from the one given and growing, whose
    call (timed once, alone) takes at least `seconds`: a call long enough for
    assert_releases_gil whatever the build's speed."""
    while True:
        call = make_call(n)
        start = time.monotonic()
        call()
        took = time.monotonic() - start
        if took >= seconds:
            return call
        n = int(n * min(8, max(2, 1.25 * seconds / max(took, 1e-6))))


class GilCheckTest(unittest.TestCase):
    """assert_releases_gil tells a call that lets go of the GIL from one
    that holds it."""

    def test_passes_for_a_call_that_releases_the_gil(self):
        assert_releases_gil(lambda: time.sleep(0.4))

    @unittest.skipIf(not getattr(sys, "_is_gil_enabled", lambda: True)(),
                     "no GIL (free-threaded Python)")
    def test_fails_for_a_call_that_holds_the_gil(self):
        # sum() over a range runs in C without letting go of the GIL (no
        # Python code runs inside it, so the GIL is not handed over either).
        holds = lasting(0.4, lambda n: lambda: sum(range(n)), 1 << 20)
        with self.assertRaisesRegex(AssertionError, "the GIL was held"):
            assert_releases_gil(holds)

    def test_raises_what_the_call_raises(self):
        with self.assertRaises(ZeroDivisionError):
            assert_releases_gil(lambda: 1 // 0)


def _zstd_compress(data):
    zstd = shutil.which("zstd")
    if not zstd:
        return None
    return subprocess.run([zstd, "-q", "-c"], input=data, check=True,
                          stdout=subprocess.PIPE).stdout


class TempDirTestCase(unittest.TestCase):
    """A test with its own temporary directory, removed afterwards."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mapr_python_test_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        return path


class CompressedFileTest(TempDirTestCase):
    """Files are read by the library's input layer, as the mapr command
    reads them: compressed ones are decompressed, never counted as lines."""

    def test_file_names_the_source(self):
        a = self.write("a.log", b"x\ny\n")
        b = self.write("b.log.gz", gzip.compress(b"z\n"))
        agg = mapr.Aggregator("select $file,count($line) group by $file")
        agg.push_file(a, source=1)
        agg.push_file(b, source=2)
        agg.set_source_name(3, "stdin")
        agg.push(["w"], source=3)
        r = agg.finish()
        self.assertEqual(r.to_csv(), "$file,count($line)\n%s,2\n%s,1\n"
                         "stdin,1\n" % (a, b))
        self.assertEqual(
            mapr.run_file("select $file group by $file", a).rows, [(a,)])

    def compressed(self, data):
        out = {
            "log.gz": gzip.compress(data),
            "log.xz": lzma.compress(data),
            "log.bz2": bz2.compress(data),
            # Concatenated streams (pigz, pbzip2, `cat a.gz b.gz`).
            "two.gz": gzip.compress(data[:100]) + gzip.compress(data[100:]),
            "two.xz": lzma.compress(data[:100]) + lzma.compress(data[100:]),
            "two.bz2": bz2.compress(data[:100]) + bz2.compress(data[100:]),
        }
        zst = _zstd_compress(data)
        if zst is not None:
            out["log.zst"] = zst
        return out

    def test_compressed_files_equal_plain(self):
        with open(SAMPLE_LOG, "rb") as f:
            data = f.read()
        query = ("from STATS select count($line),max(lifetimeConnections) "
                 "group by *")
        plain = mapr.run_file(query, self.write("log", data))
        self.assertEqual(plain.rows, [(597, 6.0)])
        files = self.compressed(data)
        if shutil.which("zstd"):
            self.assertIn("log.zst", files)
        for name, packed in files.items():
            path = self.write(name, packed)
            self.assertEqual(mapr.run_file(query, path), plain, name)
            agg = mapr.Aggregator(query)
            agg.push_file(pathlib.Path(path))
            r = agg.finish()
            self.assertEqual(r, plain, name)
            self.assertEqual(r.stats, plain.stats, name)
            # Whatever the name: the magic bytes decide.
            renamed = self.write("renamed-" + name.replace(".", "-"), packed)
            self.assertEqual(mapr.run_file(query, renamed), plain, name)

    def test_unreadable_formats_are_refused(self):
        for name, head, tool in (
                ("app.log.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7", "lz4 -dc"),
                ("app.log.lz", b"LZIP\x01\x0c\x00", "lzip -dc"),
                ("app.log.Z", b"\x1f\x9d\x90", "gzip -dc"),
                ("logs.7z", b"7z\xbc\xaf\x27\x1c\x00\x04", "7z x -so"),
                ("logs.zip", b"PK\x03\x04\x14\x00", "unzip -p")):
            path = self.write(name, head + b"compressed bytes, not text\n")
            with self.assertRaises(mapr.MaprError) as cm:
                mapr.run_file("select count($line) group by *", path)
            self.assertEqual(cm.exception.code, "UNIMPLEMENTED", name)
            self.assertTrue(str(cm.exception).startswith(path + ": "), name)
            self.assertIn("not supported", str(cm.exception))
            self.assertIn("(%s %s)" % (tool, path), str(cm.exception))
            if name == "app.log.lz4":
                self.assertEqual(
                    str(cm.exception),
                    "%s: lz4-compressed input is not supported; decompress "
                    "it first (lz4 -dc %s)" % (path, path))

    def test_truncated_file_is_data_loss_naming_the_file(self):
        data = b"".join(b"line %d\n" % i for i in range(20000))
        packed = lzma.compress(data)
        path = self.write("cut.xz", packed[:len(packed) // 2])
        agg = mapr.Aggregator("select count($line) group by *")
        with self.assertRaises(mapr.MaprError) as cm:
            agg.push_file(path)
        self.assertEqual(cm.exception.code, "DATA_LOSS")
        self.assertEqual(str(cm.exception),
                         path + ": unexpected end of xz data")
        # The complete lines before the cut were aggregated.
        decodable = lzma.LZMADecompressor().decompress(packed[:len(packed) // 2])
        self.assertEqual(agg.finish().stats.lines_read, decodable.count(b"\n"))

    def test_os_errors(self):
        with self.assertRaises(FileNotFoundError):
            mapr.Aggregator("select count($line) group by *").push_file(
                os.path.join(self.dir, "missing.log"))
        with self.assertRaises(mapr.MaprError) as cm:
            mapr.run_file("select count($line) group by *", self.dir)
        self.assertEqual(str(cm.exception), self.dir + ": Is a directory")


class RunFilesTest(TempDirTestCase):
    """run_files(): names and globs, plain and compressed, on N threads."""

    # last() and $file make the result depend on the order of the lines
    # and on which input each came from.
    QUERY = ("select $file,host,count($line),sum(latency),last(status) "
             "group by $file,host logformat csv")


    def write_logs(self):
        """a.csv, b.csv and c.csv.gz, each with its header."""
        csv = ("\n".join(CSV_LOG) + "\n").encode()
        return (self.write("a.csv", csv),
                self.write("b.csv", b"host,status,latency\na,302,5\nd,200,7\n"),
                self.write("c.csv.gz", gzip.compress(csv)))

    def test_notes_name_inputs_without_a_parsed_line(self):
        a = self.write("a.log", b'{"host":"a"}\n{"host":"b"}\n')
        bad = self.write("b.log", b"not json\n")
        r = mapr.run_files("select count($line) group by * "
                           "logformat json", [bad, a])
        self.assertEqual([n.code for n in r.notes],
                         ["lines_unparsable", "input_without_parsed_lines"])
        self.assertEqual(r.notes[1].text,
                         f"no line of {bad} could be parsed by log format "
                         "json; is that its format?")

    def test_globs_gzip_and_any_thread_count(self):
        a, b, gz = self.write_logs()
        # The gzip file first, then the glob's matches in sorted order.
        want = ("$file,host,count($line),sum(latency),last(status)\n"
                f"{a},a,3,90.000000,500\n{a},b,1,20.000000,500\n"
                f"{a},c,1,0.000000,404\n"
                f"{b},a,1,5.000000,302\n{b},d,1,7.000000,200\n"
                f"{gz},a,3,90.000000,500\n{gz},b,1,20.000000,500\n"
                f"{gz},c,1,0.000000,404\n")
        results = []
        for threads in (1, 2, 3):
            r = mapr.run_files(self.QUERY, [pathlib.Path(gz),
                                            self.path("*.csv")],
                               threads=threads)
            self.assertIsInstance(r, mapr.Result)
            self.assertEqual(r.to_csv(), want, threads)
            self.assertEqual(r.stats.lines_read, 15)
            self.assertEqual(r.stats.lines_header, 3)
            results.append(r)
        self.assertEqual(results[0], results[2])
        # Order matters: last(status) of host a is that of the last input.
        q = "select host,last(status) group by host logformat csv"
        self.assertEqual(
            mapr.run_files(q, [gz, a, b], threads=3).rows,
            [("a", "302"), ("b", "500"), ("c", "404"), ("d", "200")])
        self.assertEqual(
            mapr.run_files(q, [b, a, gz], threads=3).rows,
            [("a", "500"), ("b", "500"), ("c", "404"), ("d", "200")])
        # One path, a bytes path, and the default thread count.
        self.assertEqual(mapr.run_files(q, os.fsencode(a)),
                         mapr.run_file(q, a))

    def test_problems_raise_input_error_after_the_run(self):
        a, _, _ = self.write_logs()
        missing = self.path("missing.log")
        pattern = self.path("*.nothing")
        seen = []
        with self.assertRaises(mapr.InputError) as cm:
            mapr.run_files(BY_HOST, [a, missing, pattern], threads=2,
                           on_problem=seen.append)
        e = cm.exception
        self.assertIsInstance(e, mapr.MaprError)
        want = [mapr.InputProblem(pattern, "NOT_FOUND",
                                  "no file matches this pattern"),
                mapr.InputProblem(missing, "NOT_FOUND",
                                  "No such file or directory")]
        self.assertEqual(seen, want)
        self.assertEqual(e.problems, want)
        self.assertEqual(e.code, "NOT_FOUND")
        self.assertEqual(
            str(e),
            f"could not read 2 of 3 inputs:\n"
            f"  {pattern}: no file matches this pattern\n"
            f"  {missing}: No such file or directory")
        # The run went on: the result of the file that could be read.
        self.assertEqual(e.result.to_csv(), BY_HOST_CSV)
        # Pickled (Dask, multiprocessing): the problems, not the result.
        copy = pickle.loads(pickle.dumps(e))
        self.assertEqual((str(copy), copy.code, copy.problems),
                         (str(e), e.code, e.problems))
        self.assertIsNone(copy.result)

    def test_not_strict_reports_problems_to_the_callback_only(self):
        a, _, gz = self.write_logs()
        full = gzip.compress(b"".join(b"x,%d,1\n" % i for i in range(50000)))
        cut = self.write("cut.gz", full[:len(full) // 2])
        os.mkdir(self.path("sub"))
        seen = []
        r = mapr.run_files(BY_HOST, [self.path("sub"), a, cut, gz],
                           threads=3, strict=False, on_problem=seen.append)
        self.assertEqual(
            seen,
            [mapr.InputProblem(self.path("sub"), "FAILED_PRECONDITION",
                               "Is a directory"),
             mapr.InputProblem(cut, "DATA_LOSS",
                               "unexpected end of gzip data")])
        self.assertEqual(str(seen[0]), self.path("sub") + ": Is a directory")
        # The truncated file's complete lines count, as run_file reads them.
        self.assertGreater(r.stats.lines_read, 12)
        agg = mapr.Aggregator(BY_HOST)
        agg.push_file(a, source=0)
        with self.assertRaises(mapr.MaprError):
            agg.push_file(cut, source=1)
        agg.push_file(gz, source=2)
        self.assertEqual(r, agg.finish())
        # Without a callback nothing is reported, and nothing raised.
        self.assertEqual(
            mapr.run_files(BY_HOST, [a, self.path("missing")],
                           strict=False).to_csv(), BY_HOST_CSV)

    def test_callback_exceptions_are_raised_after_the_run(self):
        a, _, _ = self.write_logs()
        calls = []

        def boom(problem):
            calls.append(problem)
            raise KeyError("from the callback")

        for strict in (True, False):
            calls.clear()
            with self.assertRaises(KeyError) as cm:
                mapr.run_files(BY_HOST, [self.path("x"), a, self.path("y")],
                               threads=2, strict=strict, on_problem=boom)
            self.assertEqual(cm.exception.args, ("from the callback",))
            self.assertEqual(len(calls), 1)  # Not called again.

        def bad_progress(progress):
            raise ValueError("progress")

        with self.assertRaisesRegex(ValueError, "^progress$"):
            mapr.run_files(BY_HOST, a, on_progress=bad_progress,
                           progress_interval=0)

    def test_progress(self):
        a, b, gz = self.write_logs()
        total = sum(os.path.getsize(p) for p in (a, b, gz))
        reports = []
        mapr.run_files(BY_HOST, [a, b, gz], threads=2,
                       on_progress=reports.append, progress_interval=0)
        self.assertTrue(reports)
        self.assertTrue(all(isinstance(p, mapr.Progress) for p in reports))
        self.assertEqual([p.done for p in reports],
                         [False] * (len(reports) - 1) + [True])
        last = reports[-1]
        self.assertEqual((last.bytes_read, last.total_bytes, last.lines),
                         (total, total, 15))
        self.assertGreaterEqual(last.elapsed, 0.0)

    def test_engine_errors_raise_mapr_error(self):
        a, b, gz = self.write_logs()
        with self.assertRaises(mapr.MaprError) as cm:
            mapr.run_files(BY_HOST, [a, b, gz], threads=2, max_groups=2)
        self.assertNotIsInstance(cm.exception, mapr.InputError)
        self.assertEqual(cm.exception.code, "RESOURCE_EXHAUSTED")
        self.assertIn("more than 2 groups", str(cm.exception))
        with self.assertRaises(mapr.QueryError):
            mapr.run_files("select avgg(x)", a)

    def test_bad_arguments(self):
        a, _, _ = self.write_logs()
        with self.assertRaisesRegex(ValueError, "at least one path"):
            mapr.run_files(BY_HOST, [])
        with self.assertRaises(TypeError):
            mapr.run_files(BY_HOST, 3)
        with self.assertRaises(TypeError):
            mapr.run_files(BY_HOST, [a, 3])
        with self.assertRaises(TypeError):
            mapr.run_files(BY_HOST, bytearray(b"a.log"))
        with self.assertRaisesRegex(ValueError, "threads"):
            mapr.run_files(BY_HOST, a, threads=0)

    def test_gil_is_released(self):
        # While the run reads, another Python thread keeps running. The file
        # is named k times, k for a run of at least 0.4 s in this build.
        path = self.write("big.log", b"".join(
            b"%d\n" % (i % 1000) for i in range(100000)))
        call = lasting(0.4, lambda k: lambda: (mapr.run_files(
            "select $line,count($line),avg($line) group by $line",
            [path] * k, threads=2), k), 2)
        r, k = assert_releases_gil(call)
        self.assertEqual(len(r), 1000)
        self.assertEqual(r.stats.lines_read, 100000 * k)


JOURNAL_REMOTE = next((p for p in ("/lib/systemd/systemd-journal-remote",
                                    "/usr/lib/systemd/systemd-journal-remote")
                       if os.access(p, os.X_OK)), None)


class JournalTest(TempDirTestCase):
    """Aggregator.push_journal over a journal systemd-journal-remote writes."""

    def setUp(self):
        super().setUp()
        if JOURNAL_REMOTE is None:
            self.skipTest("no systemd-journal-remote")
        text = b"".join(
            b"__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n"
            b"_BOOT_ID=0123456789abcdef0123456789abcdef\n"
            b"_HOSTNAME=h%d\nMESSAGE\n%s%s\n\n"
            % (1700000000000000 + i, i + 1, i % 2,
               len(b"a\nb%d" % i).to_bytes(8, "little"), b"a\nb%d" % i)
            for i in range(10))
        self.journal = os.path.join(self.dir, "t.journal")
        subprocess.run([JOURNAL_REMOTE, "-o", self.journal, "-"], input=text,
                       check=True, stderr=subprocess.DEVNULL)

    def test_push_journal_and_resume(self):
        q = mapr.compile("select _HOSTNAME, count($line), last(MESSAGE) "
                         "group by _HOSTNAME logformat journal")
        try:
            agg = mapr.Aggregator(q)
            cursor = agg.push_journal([self.journal])
        except mapr.MaprError as e:
            if e.code == "UNIMPLEMENTED":
                self.skipTest("built without libsystemd")
            raise
        self.assertIn(";i=a;", cursor)  # The 10th entry.
        r = agg.finish()
        self.assertEqual(r.to_csv(), "_HOSTNAME,count($line),last(MESSAGE)\n"
                         "h0,5,\"a\nb8\"\nh1,5,\"a\nb9\"\n")
        again = mapr.Aggregator(q)
        self.assertEqual(again.push_journal([self.journal],
                                            after_cursor=cursor), cursor)
        self.assertEqual(again.finish().to_csv(),
                         "_HOSTNAME,count($line),last(MESSAGE)\n")
        with self.assertRaises(FileNotFoundError):
            mapr.Aggregator(q).push_journal([self.journal + ".missing"])
        with self.assertRaises(mapr.MaprError) as e:
            mapr.Aggregator(q).push_journal([self.journal],
                                            after_cursor="junk")
        self.assertEqual(e.exception.code, "INVALID_ARGUMENT")


class AggregatorTest(unittest.TestCase):

    def test_push_snapshot_finish(self):
        agg = mapr.Aggregator(BY_HOST)
        agg.push(CSV_LOG[:3])
        snap = agg.snapshot()
        self.assertEqual(snap.rows, [("a", 1, 10.0, "200"),
                                     ("b", 1, 20.0, "500")])
        self.assertEqual(agg.stats.lines_read, 3)
        agg.push(CSV_LOG[3:])
        r = agg.finish()
        self.assertEqual(r.to_csv(), BY_HOST_CSV)
        with self.assertRaises(mapr.MaprError) as cm:
            agg.push(["a,1,1"])
        self.assertEqual(cm.exception.code, "FAILED_PRECONDITION")
        with self.assertRaises(mapr.MaprError):
            agg.finish()
        with self.assertRaises(mapr.MaprError):
            agg.snapshot()

    def test_push_bytes_in_pieces(self):
        raw = ("\n".join(CSV_LOG) + "\n").encode()
        agg = mapr.Aggregator(BY_HOST)
        for i in range(0, len(raw), 5):
            agg.push_bytes(raw[i:i + 5])
        self.assertEqual(agg.finish().to_csv(), BY_HOST_CSV)
        with self.assertRaises(TypeError):
            mapr.Aggregator(BY_HOST).push_bytes("text")

    def test_str_is_not_a_list_of_lines(self):
        with self.assertRaises(TypeError):
            mapr.Aggregator(BY_HOST).push("a,200,1")

    def test_sources(self):
        agg = mapr.Aggregator(BY_HOST)
        agg.push(CSV_LOG, source=1)
        agg.push(["latency,host", "5,a"], source=2)
        agg.push_bytes(b"host,latency\nd,1", source=3)
        agg.end_source(3)
        r = agg.finish()
        self.assertEqual(r.stats.lines_header, 3)
        self.assertEqual([row[:3] for row in r.rows],
                         [("a", 4, 95.0), ("b", 1, 20.0), ("c", 1, 0.0),
                          ("d", 1, 1.0)])

    def test_delta(self):
        agg = mapr.Aggregator(BY_HOST)
        agg.push(CSV_LOG)
        self.assertEqual(len(agg.take_delta()), 3)
        self.assertEqual(agg.stats.lines_read, 0)
        agg.push(["a,200,1"])
        self.assertEqual(agg.take_delta().rows, [("a", 1, 1.0, "200")])

    def test_merge(self):
        q = mapr.compile(BY_HOST)
        first, later = mapr.Aggregator(q), mapr.Aggregator(q)
        first.push(CSV_LOG[:3])
        later.push([CSV_LOG[0]] + CSV_LOG[3:])
        first.merge(later)
        self.assertEqual(first.finish().to_csv(), BY_HOST_CSV)
        with self.assertRaises(mapr.MaprError):
            later.push(["a,1,1"])
        with self.assertRaises(ValueError):
            first.merge(first)
        other = mapr.Aggregator("select count($line) group by *")
        with self.assertRaises(mapr.MaprError) as cm:
            mapr.Aggregator(q).merge(other)
        self.assertEqual(cm.exception.code, "INVALID_ARGUMENT")

    def test_threads_share_an_aggregator(self):
        agg = mapr.Aggregator("select count($line) group by *")
        lines = ["x"] * 10000

        def work():
            for _ in range(10):
                agg.push(lines)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(agg.finish().rows, [(400000,)])

    def test_gil_is_released(self):
        # While one thread aggregates a big list in one push, another keeps
        # running. The list repeats 1000 lines n times, n for a push of at
        # least 0.4 s in this build.
        values = [str(i) for i in range(1000)]

        def push(n):
            lines = values * n

            def call():
                agg = mapr.Aggregator(
                    "select $line,count($line),avg($line) group by $line")
                agg.push(lines)
                return agg.finish(), len(lines)
            return call

        r, n = assert_releases_gil(lasting(0.4, push, 100))
        self.assertEqual(len(r), 1000)
        self.assertEqual(r.stats.lines_read, n)

    def test_list_mutation_is_safe(self):
        # The binding holds references to the lines of a chunk.
        lines = [f"line{i}" for i in range(50000)]
        agg = mapr.Aggregator("select count($line) group by *")
        agg.push(lines)
        del lines
        gc.collect()
        self.assertEqual(agg.finish().rows, [(50000,)])


class DocsTest(unittest.TestCase):

    def test_help_is_useful(self):
        text = pydoc.render_doc(mapr, renderer=pydoc.plaintext)
        for name in ("compile", "run", "run_file", "run_files", "Aggregator",
                     "QueryError", "InputError",
                     "Result", "snapshot", "to_csv", "to_dicts", "GIL"):
            self.assertIn(name, text)
        self.assertTrue(mapr.__version__)
        for obj in (mapr.compile, mapr.run, mapr.run_file, mapr.run_files,
                    mapr.InputError, mapr.InputProblem, mapr.Progress,
                    mapr.Aggregator.push,
                    mapr.Aggregator.push_file,
                    mapr.Aggregator.finish, mapr.Result, mapr.QueryError):
            self.assertTrue(obj.__doc__, obj)

    def test_docstring_examples_run(self):
        failures, tried = doctest.testmod(mapr)
        self.assertGreater(tried, 0)
        self.assertEqual(failures, 0)


class PartialTest(unittest.TestCase):
    """Partials: serialize, merge in split order, from_partial, inspect,
    deltas, PartialError codes."""

    Q = "select $line,count($line),last($line) group by $line"
    LINES = ["a", "b", "a", "c", "b", "a", "d"]

    def partial(self, lines, begin, end, query=None):
        agg = mapr.Aggregator(query or self.Q, hostname="h", splits=(begin, end))
        agg.push(lines)
        return agg.serialize_partial()

    def test_split_invariance_in_any_order(self):
        one = mapr.run(self.Q, lines=self.LINES)
        cuts = [0, 2, 3, 7]
        parts = [self.partial(self.LINES[cuts[i]:cuts[i + 1]], i, i + 1)
                 for i in range(3)]
        # Every order that keeps the merged splits adjacent.
        for order in ([0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]):
            agg = mapr.Aggregator.from_partial(parts[order[0]])
            for i in order[1:]:
                agg.merge_serialized(parts[i])
            self.assertEqual(agg.finish().cells, one.cells, order)

    def test_lookup_tables_of_a_partial_only_from_the_named_folder(self):
        with tempfile.TemporaryDirectory() as d:
            table = os.path.join(d, "hosts.csv")
            with open(table, "w") as f:
                f.write("host,owner\nweb1,alice\n")
            q = mapr.compile(
                "select $o, count($line) set $o = lookup(host, '%s', 'owner') "
                "group by $o logformat logfmt" % table,
                allow_file_lookups=True)
            agg = mapr.Aggregator(q)
            agg.push(["host=web1"])
            data = agg.serialize_partial()
            with self.assertRaises(mapr.PartialError) as e:
                mapr.Aggregator.from_partial(data)
            self.assertEqual(e.exception.code, "INVALID_ARGUMENT")
            self.assertIn("partial_lookup_dir", str(e.exception))
            agg = mapr.Aggregator.from_partial(data, partial_lookup_dir=d)
            self.assertEqual(agg.finish().to_csv(),
                             "$o,count($line)\nalice,1\n")
            reducer = mapr.PartialReducer(partial_lookup_dir=d)
            reducer.add(data)
            self.assertEqual(reducer.take_result().to_csv(),
                             "$o,count($line)\nalice,1\n")
            with self.assertRaises(mapr.PartialError):
                mapr.PartialReducer().add(data)

    def test_serialize_then_finish_and_inspect(self):
        agg = mapr.Aggregator(self.Q, splits=(4, 5))
        agg.push(self.LINES)
        data = agg.serialize_partial()
        self.assertIsInstance(data, bytes)
        self.assertTrue(data.startswith(b"MAPRPART"))
        self.assertEqual(len(agg.finish()), 4)
        info = mapr.inspect_partial(data)
        self.assertEqual((info.major, info.splits, info.groups), (1, (4, 5), 4))
        self.assertEqual(info.frame_bytes, len(data))
        self.assertEqual(info.stats.lines_read, 7)
        self.assertEqual(info.log_format, mapr.compile(self.Q).log_format)
        self.assertIn("count($line)", info.query)
        self.assertEqual(mapr.inspect_partial(bytearray(data)).groups, 4)

    def test_errors_are_partial_errors_with_codes(self):
        p0 = self.partial(self.LINES[:3], 0, 1)
        p2 = self.partial(self.LINES[3:], 2, 3)
        agg = mapr.Aggregator.from_partial(p0)
        cases = [
            (b"", "INVALID_ARGUMENT"),
            (b"hello\n", "INVALID_ARGUMENT"),
            (p0, "INVALID_ARGUMENT"),  # overlap
            (p2[:-1], "DATA_LOSS"),  # truncated
            (p2, "DATA_LOSS"),  # missing split 1
            (self.partial(["x"], 1, 2, "select count($line) group by $line"),
             "INVALID_ARGUMENT"),  # another query
        ]
        for data, code in cases:
            with self.assertRaises(mapr.PartialError) as e:
                agg.merge_serialized(data)
            self.assertEqual(e.exception.code, code, e.exception.message)
            self.assertIsInstance(e.exception, mapr.MaprError)
        with self.assertRaises(mapr.PartialError) as e:
            mapr.inspect_partial(b"MAPRPART")
        with self.assertRaises(mapr.PartialError) as e:
            mapr.Aggregator.from_partial(b"x")
        self.assertEqual(e.exception.code, "INVALID_ARGUMENT")
        with self.assertRaises(mapr.PartialError) as e:
            agg.merge_serialized(p2)
        self.assertIn("missing split 1", e.exception.message)
        # Untouched by all that: the missing split still merges.
        agg.merge_serialized(self.partial(self.LINES[3:], 1, 2))
        self.assertEqual(agg.finish().cells, mapr.run(self.Q, lines=self.LINES).cells)
        with self.assertRaises(mapr.PartialError) as e:
            agg.merge_serialized(p2)
        self.assertEqual(e.exception.code, "FAILED_PRECONDITION")

    def test_partitions_join_to_the_one_pass_result(self):
        q = "select $line,count($line) group by $line"
        lines = ["k%d" % (i % 50) for i in range(500)]
        agg = mapr.Aggregator(q, hostname="h")
        agg.push(lines)
        frames = agg.serialize_partitions(4)
        self.assertEqual(len(frames), 4)
        infos = [mapr.inspect_partial(f) for f in frames]
        self.assertEqual([(i.partitions, i.partition) for i in infos],
                         [(4, 0), (4, 1), (4, 2), (4, 3)])
        self.assertEqual(sum(i.groups for i in infos), 50)
        self.assertEqual(infos[1].stats.lines_read, 0)
        joined = mapr.Aggregator.from_partial(frames[0])
        with self.assertRaises(mapr.PartialError) as e:
            joined.merge_serialized(frames[1])
        self.assertIn("partial of another partition", str(e.exception))
        with self.assertRaises(mapr.PartialError):
            mapr.Aggregator(q).serialize_partitions(0)

    def test_partial_reducer_joins_sources_and_ended_partitions(self):
        q = ("select $line,count($line) group by $line "
             "order by count($line) desc limit 3")
        a_lines = ["k%d" % (i % 50) for i in range(500)]
        b_lines = ["k%d" % (i % 7) for i in range(70)]
        want = mapr.run(q, a_lines + b_lines, hostname="h")
        frames = {}
        for source, lines in (("a", a_lines), ("b", b_lines)):
            agg = mapr.Aggregator(q, hostname="h", source=source)
            agg.push(lines)
            frames[source] = agg.serialize_partitions(4)
        reducer = mapr.PartialReducer(hostname="h", max_groups=30)
        reducer.declare_source("a")
        for p in range(4):
            reducer.add(frames["b"][p])
            reducer.add(frames["a"][p])
            reducer.end_partition(p)
        self.assertEqual(reducer.result().rows, want.rows)
        self.assertEqual(reducer.take_result().to_csv(), want.to_csv())
        with self.assertRaises(mapr.PartialError) as e:
            reducer.result()
        self.assertIn("before any partial", str(e.exception))
        again = mapr.PartialReducer()
        again.add(frames["a"][1])
        again.end_partition(1)
        with self.assertRaises(mapr.PartialError) as e:
            again.add(frames["b"][1])
        self.assertIn("source 'b': partial of partition 1, which has ended",
                      str(e.exception))

    def test_sources_are_recorded_and_do_not_merge(self):
        q = "select count($line) group by $hostname"
        a = mapr.Aggregator(q, hostname="h", source="web-a")
        b = mapr.Aggregator(q, hostname="h", source="web-b")
        a.push(["x", "y"])
        b.push(["z"])
        da, db = a.take_delta_partial(), b.take_delta_partial()
        info = mapr.inspect_partial(da)
        self.assertEqual(info.source, "web-a")
        self.assertFalse(info.final)
        self.assertEqual(info.positions, ())
        self.assertEqual(mapr.inspect_partial(db).source, "web-b")
        reducer = mapr.Aggregator.from_partial(da)
        with self.assertRaises(mapr.PartialError) as e:
            reducer.merge_serialized(db)
        self.assertIn("partial of another source: source 'web-b' cannot "
                      "merge with source 'web-a'", str(e.exception))

    def test_delta_partials_cover_successive_splits(self):
        agg = mapr.Aggregator(self.Q)
        deltas = []
        for chunk in (self.LINES[:2], self.LINES[2:5], self.LINES[5:]):
            agg.push(chunk)
            deltas.append(agg.take_delta_partial())
        self.assertEqual([mapr.inspect_partial(d).splits for d in deltas],
                         [(0, 1), (1, 2), (2, 3)])
        central = mapr.Aggregator.from_partial(deltas[0])
        for d in deltas[1:]:
            central.merge_serialized(d)
        self.assertEqual(central.finish().cells,
                         mapr.run(self.Q, lines=self.LINES).cells)
        self.assertEqual(str(central.query), str(mapr.compile(self.Q)))

    def test_final_delta_completes_lines_and_events(self):
        q = ("select count($line), last($line) group by $hostname "
             "multiline indented")
        agg = mapr.Aggregator(q, hostname="h", source="s")
        agg.push_bytes(b"a\n b\nc\n d")
        first = agg.take_delta_partial()
        # "c" and " d" (unfinished bytes) wait for a later delta.
        self.assertFalse(mapr.inspect_partial(first).final)
        self.assertEqual(mapr.inspect_partial(first).groups, 1)
        last = agg.take_delta_partial(final=True)
        info = mapr.inspect_partial(last)
        self.assertTrue(info.final)
        self.assertEqual(info.splits, (1, 2))
        central = mapr.Aggregator.from_partial(first)
        central.merge_serialized(last)
        self.assertEqual(central.finish().cells, [("2", "c\n d")])


if __name__ == "__main__":
    unittest.main()
