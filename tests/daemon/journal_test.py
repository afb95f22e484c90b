#!/usr/bin/env python3
"""`mapr --journal` against journal files that systemd itself writes.

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/daemon/journal_test.py

No journald runs: systemd-journal-remote turns generated export-format text
(https://systemd.io/JOURNAL_EXPORT_FORMATS/) into journal files, and
journalctl reads them back. Checked:

  * every query gives the same result through `mapr --journal-file F` as
    through `journalctl --file F -o json --all | mapr ... logformat json`
    (`logformat journal` where the query reads $time), and counts, sums and
    last values computed here from the generated entries themselves;
  * each value's JSON form (text or an array of bytes) is journalctl's, for
    random binary and control-character values;
  * --journal-dir reads a folder; --journal-cursor-file resumes after its
    cursor with its state, also from a bare journalctl cursor;
  * --follow sees entries appended while it runs, and across kill -9 in
    the middle of runs (each as soon as its run saved a new state) and
    restarts from the cursor file no entry is lost or counted twice.

Each step waits for what shows that mapr got there (its start line, a
report, a new state in the cursor file), with a deadline that fails with
mapr's output, never for a fixed time.

Exits 77 (skipped) without systemd-journal-remote or journalctl
(scripts/install-deps installs systemd-journal-remote), or when this mapr
was built without libsystemd.
"""

import csv
import io
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import unittest

from daemon_case import wait_until

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAPR = os.environ.get("MAPR_BIN", os.path.join(ROOT, "build", "dev",
                                                "bindings", "cli", "mapr"))
JOURNAL_REMOTE = next(
    (p for p in ("/lib/systemd/systemd-journal-remote",
                 "/usr/lib/systemd/systemd-journal-remote")
     if os.access(p, os.X_OK)), None)
JOURNALCTL = shutil.which("journalctl")

BOOTS = ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"]
UNITS = ["ssh.service", "cron.service", "nginx.service", "kernel", ""]
HOSTS = ["web-1", "web-2", "db-1"]


def make_entries(n, seed, start_usec=1_700_000_000_000_000):
    """n entries as lists of (name, bytes value), with their times."""
    rng = random.Random(seed)
    entries = []
    t = start_usec
    for i in range(n):
        t += rng.randrange(1, 3_000_000)
        fields = [("_HOSTNAME", rng.choice(HOSTS).encode()),
                  ("PRIORITY", str(rng.randrange(0, 8)).encode()),
                  ("SYSLOG_IDENTIFIER", rng.choice(["sshd", "CRON", "app"])
                   .encode())]
        unit = rng.choice(UNITS)
        if unit:
            fields.append(("_SYSTEMD_UNIT", unit.encode()))
        kind = rng.randrange(10)
        if kind == 0:  # A stack trace: several lines, tabs.
            msg = "panic: boom\n\tat main.go:%d\n\tat run.go:7" % i
            msg = msg.encode()
        elif kind == 1:  # Colours, a carriage return: bytes for journalctl.
            msg = b"\x1b[31merror\x1b[0m " + str(i).encode() + b"\r"
        elif kind == 2:  # Not UTF-8.
            msg = b"bin\xff\xfe" + bytes([rng.randrange(256)])
        elif kind == 3:  # UTF-8, quotes and backslashes.
            msg = ('caf\u00e9 "quoted" \\path\\ \u20ac %d' % i).encode()
        else:
            msg = ("request %d served in %d ms" % (i, rng.randrange(1, 500))
                   ).encode()
        fields.append(("MESSAGE", msg))
        fields.append(("BYTES", str(rng.randrange(0, 10_000)).encode()))
        if rng.randrange(4) == 0:  # A field given twice.
            fields.append(("TAG", b"a"))
            fields.append(("TAG", rng.choice([b"b", b"c"])))
        if rng.randrange(50) == 0:  # Over journalctl's 4096-byte default.
            fields.append(("BLOB", b"x" * 5000))
        entries.append({"t": t, "boot": BOOTS[i * 2 // n], "fields": fields})
    return entries


def export_text(entries):
    out = io.BytesIO()
    for e in entries:
        out.write(b"__REALTIME_TIMESTAMP=%d\n" % e["t"])
        out.write(b"__MONOTONIC_TIMESTAMP=%d\n" % (e["t"] // 1000))
        out.write(b"_BOOT_ID=%s\n" % e["boot"].encode())
        for name, value in e["fields"]:
            # The binary form for every value: any bytes, newlines too.
            out.write(name.encode() + b"\n" + struct.pack("<Q", len(value)) +
                      value + b"\n")
        out.write(b"\n")
    return out.getvalue()


def write_journal(path, entries):
    """Appends `entries` to the journal file `path` (created if missing)."""
    p = subprocess.run([JOURNAL_REMOTE, "-o", path, "-"],
                       input=export_text(entries), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise AssertionError("systemd-journal-remote: " + p.stderr.decode())


def mapr(*args, stdin=None, check=True):
    p = subprocess.run([MAPR, *args], input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if check and p.returncode != 0:
        raise AssertionError("mapr %s: exit %d: %s" %
                             (args, p.returncode, p.stderr.decode()))
    return p


def journalctl_json(*files):
    args = [JOURNALCTL, "-o", "json", "--all"]
    for f in files:
        args += ["--file", f]
    return subprocess.run(args, stdout=subprocess.PIPE, check=True).stdout


def rows(csv_bytes):
    return list(csv.reader(io.StringIO(csv_bytes.decode())))


QUERIES = [
    "select _SYSTEMD_UNIT, count($line), min(PRIORITY), max(PRIORITY), "
    "sum(BYTES), last(MESSAGE), first(MESSAGE) group by _SYSTEMD_UNIT",
    "select _HOSTNAME, SYSLOG_IDENTIFIER, count($line), avg(BYTES), "
    "last(TAG), last(BLOB) group by _HOSTNAME, SYSLOG_IDENTIFIER",
    "select count($line), sum(BYTES) where PRIORITY <= 3 group by _BOOT_ID",
    "select MESSAGE, count($line) where MESSAGE =~ '^panic' group by MESSAGE "
    "order by MESSAGE limit 5",
    "select count($line), dcount(MESSAGE), p90(BYTES) group by *",
]
# Queries that read $time: the other side reads journalctl's JSON with
# `logformat journal` too.
TIME_QUERIES = [
    "select $minute, count($line), sum(BYTES) set $minute = "
    "bucket($time, 1h) group by $minute order by $minute limit 20",
    "select first($time), last($time), count($line) group by _HOSTNAME",
]


def reports(out):
    """The whole reports in `out` (stdout so far): the text of each one
    before its "# end of report N" line (a report being written is left
    out)."""
    return [block[:block.index(b"# end of report ")]
            for block in out.split(b"\n\n") if b"# end of report " in block]


def delta_counts(out):
    """The count of each whole report in `out` of a --delta
    `select count($line) group by *` (an empty one has none)."""
    return [int(line) for body in reports(out) for line in body.splitlines()
            if line.isdigit()]


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def follow_while_growing(args, path, more, read_before, read_after):
    """Runs `mapr ARGS` (a --follow of the journal file `path`). Once its
    start line is on stderr and read_before(stdout so far) holds, adds the
    entries `more` to the file; once read_after(stdout so far) holds (the
    new entries are in a report), stops it with SIGTERM: (exit status,
    stdout, stderr). Each wait fails after 60 s with what mapr printed."""
    with tempfile.TemporaryDirectory(prefix="mapr-follow-") as d:
        out_path = os.path.join(d, "out")
        err_path = os.path.join(d, "err")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            p = subprocess.Popen([MAPR] + args, stdout=out, stderr=err)

        def diagnostics():
            return "mapr %s\nstdout: %r\nstderr: %r" % (
                " ".join(args), (read_bytes(out_path) or b"")[-3000:],
                read_bytes(err_path))

        try:
            wait_until("start line of mapr", lambda: b"mapr: following " in
                       read_bytes(err_path), 60, diagnostics, p, "mapr")
            wait_until("report of the entries there were",
                       lambda: read_before(read_bytes(out_path)), 60,
                       diagnostics, p, "mapr")
            write_journal(path, more)
            wait_until("report of the appended entries",
                       lambda: read_after(read_bytes(out_path)), 60,
                       diagnostics, p, "mapr")
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                raise AssertionError("mapr runs 60 s after SIGTERM\n" +
                                     diagnostics()) from None
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return p.returncode, read_bytes(out_path), read_bytes(err_path)


@unittest.skipIf(JOURNAL_REMOTE is None or JOURNALCTL is None,
                 "needs systemd-journal-remote and journalctl")
class JournalTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mapr-journal-")
        cls.entries = make_entries(3000, seed=7)
        cls.file = os.path.join(cls.dir, "all.journal")
        write_journal(cls.file, cls.entries)
        cls.json = journalctl_json(cls.file)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_queries_match_journalctl_json(self):
        for q in QUERIES + TIME_QUERIES:
            with self.subTest(q=q):
                ours = mapr("--journal-file", self.file, "-o", "csv", q)
                fmt = "journal" if q in TIME_QUERIES else "json"
                theirs = mapr("-o", "csv", q + " logformat " + fmt, "-",
                              stdin=self.json)
                self.assertEqual(ours.stdout, theirs.stdout)
                self.assertGreater(len(rows(ours.stdout)), 1)
                # logformat auto picks journal for every entry.
                auto = mapr("-o", "csv", q + " logformat auto", "-",
                            stdin=self.json)
                self.assertEqual(ours.stdout, auto.stdout)

    def test_counts_from_the_generated_entries(self):
        out = rows(mapr("--journal-file", self.file, "-o", "csv",
                        "select _SYSTEMD_UNIT, count($line), sum(BYTES), "
                        "max(PRIORITY), last(TAG) group by _SYSTEMD_UNIT")
                   .stdout)
        want = {}
        for e in self.entries:
            f = dict(e["fields"])
            tags = [v.decode() for k, v in e["fields"] if k == "TAG"]
            unit = f.get("_SYSTEMD_UNIT", b"").decode()
            c, s, p, t = want.get(unit, (0, 0, -1, ""))
            if tags:
                t = json.dumps(tags, separators=(",", ":"))
            want[unit] = (c + 1, s + int(f["BYTES"]),
                          max(p, int(f["PRIORITY"])), t)
        got = {r[0]: (int(r[1]), int(float(r[2])), int(float(r[3])), r[4])
               for r in out[1:]}
        self.assertEqual(got, want)

    def test_multiline_message_is_one_entry(self):
        out = rows(mapr("--journal-file", self.file, "-o", "csv",
                        "select MESSAGE, count($line) where MESSAGE =~ "
                        "'^panic: boom\\n\\tat main.go:' group by *")
                   .stdout)
        traces = [e for e in self.entries
                  if dict(e["fields"])["MESSAGE"].startswith(b"panic")]
        self.assertEqual(int(out[1][1]), len(traces))
        self.assertEqual(out[1][0], dict(traces[-1]["fields"])["MESSAGE"]
                         .decode())

    def test_value_forms_are_journalctls(self):
        rng = random.Random(11)
        entries = []
        for i in range(400):
            n = rng.randrange(0, 12)
            value = bytes(rng.choice([rng.randrange(256), 9, 10, 13, 27,
                                      0x7f, 0x41, 0xc3, 0xa9, 0xe2, 0x82])
                          for _ in range(n))
            if i % 3 == 0:  # Valid UTF-8 with C1, noncharacters, emoji.
                value = rng.choice(["a\u0085b", "\ufdd0", "x\uffff",
                                    "\U0001f600", "\t\n", "ok"]).encode()
            fields = [("V", value)]
            if i % 5 == 0:
                fields.append(("V", b"second"))
            entries.append({"t": 1_700_000_000_000_000 + i, "boot": BOOTS[0],
                            "fields": fields})
        path = os.path.join(self.dir, "values.journal")
        write_journal(path, entries)
        theirs = {}
        for line in journalctl_json(path).decode().splitlines():
            obj = json.loads(line)
            theirs[obj["__CURSOR"]] = obj
        out = mapr("--journal-file", path, "-o", "jsonl",
                   "select __CURSOR, $line group by __CURSOR").stdout
        ours = {}
        for line in out.decode().splitlines():
            row = json.loads(line)
            ours[row["__CURSOR"]] = json.loads(row["$line"])
        self.assertEqual(len(ours), len(entries))
        self.assertEqual(ours, theirs)

    def test_directory(self):
        d = os.path.join(self.dir, "folder")
        os.mkdir(d)
        write_journal(os.path.join(d, "a.journal"), self.entries[:1000])
        write_journal(os.path.join(d, "b.journal"), self.entries[1000:])
        q = QUERIES[0]
        self.assertEqual(mapr("--journal-dir", d, "-o", "csv", q).stdout,
                         mapr("--journal-file", self.file, "-o", "csv",
                              q).stdout)

    def test_cursor_file_resumes_with_its_state(self):
        path = os.path.join(self.dir, "growing.journal")
        cursor = os.path.join(self.dir, "growing.cursor")
        q = QUERIES[0]
        write_journal(path, self.entries[:1200])
        first = mapr("--journal-file", path, "--journal-cursor-file", cursor,
                     "-o", "csv", q).stdout
        self.assertEqual(first, mapr("--journal-file", path, "-o", "csv",
                                     q).stdout)
        write_journal(path, self.entries[1200:])
        again = mapr("--journal-file", path, "--journal-cursor-file", cursor,
                     "-o", "csv", q).stdout
        self.assertEqual(again, mapr("--journal-file", self.file, "-o", "csv",
                                     q).stdout)
        # Nothing new: the same result, and the file is kept.
        self.assertEqual(mapr("--journal-file", path, "--journal-cursor-file",
                              cursor, "-o", "csv", q).stdout, again)
        # Another query refuses the state.
        p = mapr("--journal-file", path, "--journal-cursor-file", cursor,
                 "select count($line) group by *", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("holds the state of another query", p.stderr.decode())

    def test_bare_journalctl_cursor(self):
        # A file holding only a cursor, as `journalctl --cursor-file`
        # leaves it: the entries after it.
        cursor = os.path.join(self.dir, "bare.cursor")
        lines = journalctl_json(self.file).decode().splitlines()
        with open(cursor, "w") as f:
            f.write(json.loads(lines[1234])["__CURSOR"] + "\n")
        out = rows(mapr("--journal-file", self.file, "--journal-cursor-file",
                        cursor, "-o", "csv",
                        "select count($line) group by *").stdout)
        self.assertEqual(int(out[1][0]), len(lines) - 1235)
        # The last entry's cursor: nothing after it.
        with open(cursor, "w") as f:
            f.write(json.loads(lines[-1])["__CURSOR"])
        out = rows(mapr("--journal-file", self.file, "--journal-cursor-file",
                        cursor, "-o", "csv",
                        "select count($line) group by *").stdout)
        self.assertEqual(out, [["count($line)"]])

    def test_follow_sees_appended_entries(self):
        path = os.path.join(self.dir, "follow.journal")
        write_journal(path, self.entries[:500])
        q = QUERIES[0]
        want = mapr("--journal-file", self.file, "-o", "csv", q).stdout
        # Stopped once a report holds every entry (the final one does too).
        code, out, err = follow_while_growing(
            ["--journal-file", path, "--follow", "--interval-ms", "100",
             "-o", "csv", q], path, self.entries[500:],
            read_before=lambda out: True,
            read_after=lambda out: reports(out)[-1:] == [want])
        self.assertEqual(code, 0, err)
        final = out.decode().split("\n\n")[-1]
        self.assertIn("(final)", final)
        self.assertEqual(final.split("# end of report")[0].encode(), want)

    def test_follow_delta_reports_add_up(self):
        # Each --delta report holds the entries since the previous one, with
        # a cursor file (which then holds no state) and without.
        for cursor_args in ([], ["--journal-cursor-file",
                                 os.path.join(self.dir, "delta.cursor")]):
            with self.subTest(cursor_args=cursor_args):
                path = os.path.join(self.dir, "delta%d.journal" %
                                    len(cursor_args))
                write_journal(path, self.entries[:700])
                # The 700 entries in reports of their own, then the rest.
                code, out, err = follow_while_growing(
                    ["--journal-file", path, "--follow", "--delta",
                     "--interval-ms", "100", *cursor_args, "-o", "csv",
                     "select count($line) group by *"],
                    path, self.entries[700:],
                    read_before=lambda out: sum(delta_counts(out)) == 700,
                    read_after=lambda out: (sum(delta_counts(out)) ==
                                            len(self.entries)))
                self.assertEqual(code, 0, err)
                counts = [int(line) for line in out.decode().splitlines()
                          if line.isdigit()]
                self.assertGreaterEqual(len(counts), 2)
                self.assertEqual(sum(counts), len(self.entries))

    def test_kill_9_and_resume_is_exactly_once(self):
        # A folder: systemd-journal-remote may rotate a file this large into
        # several (when its hash tables fill, which depends on the disk).
        folder = os.path.join(self.dir, "kill")
        os.mkdir(folder)
        cursor = os.path.join(self.dir, "kill.cursor")
        entries = make_entries(40000, seed=3)
        write_journal(os.path.join(folder, "kill.journal"), entries)
        q = ("select _HOSTNAME, count($line), sum(BYTES), last(MESSAGE) "
             "group by _HOSTNAME")
        # Each run is killed (SIGKILL) as soon as it has saved a state
        # other than the one it started from (a report every 1 ms rewrites
        # the cursor file when entries were read), so every kill lands in
        # the middle of a run whatever the build's speed, until a run has
        # saved the state of the last entry.
        states = []  # The state each killed run left behind, in order.
        positions = []  # Their cursors' entry numbers (`i=` in hex).
        err_path = os.path.join(self.dir, "kill.err")
        while not positions or positions[-1] < len(entries):
            # Every run reads at least one entry, so this many runs means
            # no resume made progress.
            self.assertLess(len(states), 200, "runs: %s" % positions)
            before = read_bytes(cursor)
            with open(err_path, "wb") as err:
                p = subprocess.Popen(
                    [MAPR, "--journal-dir", folder, "--follow",
                     "--interval-ms", "1", "--journal-cursor-file", cursor,
                     "-o", "csv", q],
                    stdout=subprocess.DEVNULL, stderr=err)
            try:
                wait_until(
                    "new state in the cursor file from run %d (after entry "
                    "%s)" % (len(states) + 1, positions[-1:]),
                    lambda: read_bytes(cursor) not in (None, before), 60,
                    lambda: "mapr's stderr: %r" % read_bytes(err_path), p,
                    "mapr", every=0.001)
            finally:
                p.kill()
                p.wait()
            states.append(read_bytes(cursor))
            m = re.search(rb";i=([0-9a-f]+);", states[-1])
            self.assertIsNotNone(m, states[-1][:300])
            positions.append(int(m.group(1), 16))
        # Each run resumed after the entries of the one before; killed runs
        # left states in the middle.
        self.assertEqual(positions, sorted(set(positions)))
        self.assertGreaterEqual(len(states), 3, positions)
        final = mapr("--journal-dir", folder, "--journal-cursor-file", cursor,
                     "-o", "csv", q).stdout
        self.assertEqual(final, mapr("--journal-dir", folder, "-o", "csv",
                                     q).stdout)
        # And what the entries hold, counted here.
        want = {}
        for e in entries:
            host = dict(e["fields"])["_HOSTNAME"].decode()
            want[host] = want.get(host, 0) + 1
        self.assertEqual({r[0]: int(r[1]) for r in rows(final)[1:]}, want)

    def test_usage_errors(self):
        p = mapr("--journal", "select count($line) logformat csv",
                 check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--journal gives the query journal entries as JSON "
                      "lines, which logformat csv does not read",
                      p.stderr.decode())
        p = mapr("--journal-file", self.file, "select count($line)", "x.log",
                 check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--journal reads the journal, not FILEs",
                      p.stderr.decode())
        p = mapr("--journal-file", os.path.join(self.dir, "missing.journal"),
                 "select count($line)", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("missing.journal", p.stderr.decode())
        bad = os.path.join(self.dir, "bad.cursor")
        with open(bad, "w") as f:
            f.write("mapr-journal-state 1\ncursor x\nstate 99\nshort")
        p = mapr("--journal-file", self.file, "--journal-cursor-file", bad,
                 "select count($line)", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cut short or changed", p.stderr.decode())


def main():
    if JOURNAL_REMOTE is None or JOURNALCTL is None:
        print("skipped: needs systemd-journal-remote and journalctl "
              "(scripts/install-deps installs them)")
        return 77
    probe = subprocess.run([MAPR, "--journal-file", "/nonexistent.journal",
                            "select count($line)"], stderr=subprocess.PIPE,
                           stdout=subprocess.PIPE, check=False)
    if b"built without libsystemd" in probe.stderr:
        print("skipped: this mapr was built without libsystemd")
        return 77
    result = unittest.main(exit=False, verbosity=2).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
