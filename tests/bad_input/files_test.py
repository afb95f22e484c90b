#!/usr/bin/env python3
"""Bad-input catalogue: input files and outfiles through the `mapr` command.

See tests/bad_input/README.md ("Files", "Outfile"). Every case checks the exit
code, the exact stderr and the exact stdout; nothing may hang (every wait has
a deadline). The binary comes from MAPR_BIN or the first argument:

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/bad_input/files_test.py

Permission cases work as root too: mapr then runs as the user "nobody"
(root ignores file modes). The disk-full case fills a real tmpfs in a private
mount namespace (`unshare -rm`) when the machine allows one; the library test
bad_input_outfile_test injects ENOSPC in any case. Standard library only.
"""

import errno
import fcntl
import gzip
import os
import re
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "testing"))
from collected_process import CollectedProcess  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))


def _take_binary_from_argv():
    if len(sys.argv) > 1 and os.path.isfile(sys.argv[1]):
        return sys.argv.pop(1)
    return None


MAPR_BIN = os.path.abspath(_take_binary_from_argv() or
                           os.environ.get("MAPR_BIN", ""))
COUNT = "select count($line) group by * logformat generic"
TIMEOUT = 20  # Seconds; any run that takes longer is a hang.
FOLLOW_START = (b"mapr: following a.log from the start; cumulative report "
                b"every 100ms; Ctrl-C or SIGTERM prints the final result\n")


def lines(n, prefix=b"line"):
    return b"".join(b"%s %d\n" % (prefix, i) for i in range(n))


def csv_count(n):
    return b"count($line)\n%d\n" % n


def last_report(out):
    """The last whole report of --follow CSV output, without its end line."""
    blocks = [b for b in out.split(b"\n\n")
              if re.search(rb"# end of report \d+( \(final\))?\n$", b)]
    if not blocks:
        return b""
    return blocks[-1][:blocks[-1].rstrip(b"\n").rfind(b"\n") + 1]


def nobody():
    """(uid, gid) of the user "nobody"."""
    try:
        p = pwd.getpwnam("nobody")
        return p.pw_uid, p.pw_gid
    except KeyError:
        return 65534, 65534


class BadFilesTestCase(unittest.TestCase):

    def setUp(self):
        if not os.access(MAPR_BIN, os.X_OK):
            self.fail("set MAPR_BIN to the mapr binary (got %r)" % MAPR_BIN)
        self.tmp = tempfile.mkdtemp(prefix="mapr_bad_files_")
        # Everybody may enter it (for the runs as "nobody").
        os.chmod(self.tmp, 0o755)
        self.addCleanup(self._cleanup)

    def _cleanup(self):
        for root, dirs, _ in os.walk(self.tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(self.tmp, True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, data, mode=0o644):
        with open(self.path(name), "wb") as f:
            f.write(data)
        os.chmod(self.path(name), mode)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def mapr(self, *args, code, unprivileged=False, stdin=b""):
        """Runs mapr in self.tmp; checks the exit code; returns (out, err)."""
        extra = {}
        if unprivileged and os.geteuid() == 0:
            uid, gid = nobody()
            extra = dict(user=uid, group=gid, extra_groups=[])
        p = subprocess.run([MAPR_BIN] + list(args),
                           input=stdin,
                           capture_output=True,
                           cwd=self.tmp,
                           timeout=TIMEOUT,
                           **extra)
        self.assertEqual(p.returncode, code,
                         "mapr %s\nstdout: %r\nstderr: %r" %
                         (" ".join(args)[:200], p.stdout[:500], p.stderr[:500]))
        return p.stdout, p.stderr


class InputFileTest(BadFilesTestCase):

    def test_unreadable_file(self):
        self.write("secret.log", b"x\n", mode=0)
        self.write("ok.log", lines(3))
        # As root, the run is as "nobody"; check that the mode is what
        # stops it: the same user reads the readable file.
        out, err = self.mapr("-o", "csv", COUNT, "ok.log", code=0,
                             unprivileged=True)
        self.assertEqual((out, err), (csv_count(3), b""))
        out, err = self.mapr("-o", "csv", COUNT, "secret.log", "ok.log",
                             code=1, unprivileged=True)
        self.assertEqual(err, b"mapr: secret.log: Permission denied\n")
        self.assertEqual(out, csv_count(3))
        # Alone: nothing could be read, so nothing is printed.
        out, err = self.mapr("-o", "csv", COUNT, "secret.log", code=1,
                             unprivileged=True)
        self.assertEqual((out, err),
                         (b"", b"mapr: secret.log: Permission denied\n"))
        # --follow gives up on it at the start.
        out, err = self.mapr("--follow", "-o", "csv", COUNT, "secret.log",
                             code=1, unprivileged=True)
        self.assertEqual((out, err),
                         (b"", b"mapr: secret.log: Permission denied\n"))

    def test_directory_given_as_a_file(self):
        os.mkdir(self.path("logs"))
        self.write("ok.log", lines(2))
        out, err = self.mapr("-o", "csv", COUNT, "logs", "ok.log", code=1)
        self.assertEqual((out, err),
                         (csv_count(2), b"mapr: logs: Is a directory\n"))
        out, err = self.mapr("-o", "csv", COUNT, "logs", code=1)
        self.assertEqual((out, err), (b"", b"mapr: logs: Is a directory\n"))
        out, err = self.mapr("--follow", "-o", "csv", COUNT, "logs", code=1)
        self.assertEqual((out, err), (b"", b"mapr: logs: Is a directory\n"))

    def test_truncated_gzip(self):
        data = b"".join(b"line %05d %s\n" % (i, b"x" * 50)
                        for i in range(20000))
        packed = gzip.compress(data, mtime=0)
        cut = packed[:len(packed) // 2]
        self.write("cut.gz", cut)
        # The lines before the cut count; the partial last one does not.
        # zlib decodes as far as the data goes, like mapr.
        decodable = zlib.decompressobj(31).decompress(cut)
        complete = decodable.count(b"\n")
        self.assertGreater(complete, 1000)
        self.assertLess(complete, 20000)
        out, err = self.mapr("--stats", "-o", "csv", COUNT, "cut.gz", code=1)
        self.assertEqual(out, csv_count(complete))
        self.assertEqual(
            err, b"mapr: cut.gz: unexpected end of gzip data\n"
            b"lines_read: %d\nlines_too_long: 0\nlines_table_mismatch: 0\n"
            b"lines_ignored: 0\nlines_malformed: 0\nlines_unmatched: 0\nlines_header: 0\n"
            b"lines_filtered: 0\nlines_without_value: 0\n"
            b"lines_aggregated: %d\nvalues_unparsed: 0\ngroups: 1\n" % (complete, complete))
        # The same from standard input.
        out, err = self.mapr("-o", "csv", COUNT, stdin=cut, code=1)
        self.assertEqual((out, err),
                         (csv_count(complete),
                          b"mapr: -: unexpected end of gzip data\n"))
        # Cut inside the header: nothing decodes, nothing is printed.
        self.write("head.gz", packed[:5])
        out, err = self.mapr("-o", "csv", COUNT, "head.gz", code=1)
        self.assertEqual((out, err),
                         (b"", b"mapr: head.gz: unexpected end of gzip data\n"))
        # Not gzip after the magic bytes.
        self.write("bad.gz", b"\x1f\x8b" + b"\x00" * 30)
        out, err = self.mapr("-o", "csv", COUNT, "bad.gz", code=1)
        self.assertEqual(
            (out, err),
            (b"", b"mapr: bad.gz: invalid gzip data: unknown compression "
             b"method\n"))

    def test_fifo_deleted_while_being_read(self):
        fifo = self.path("a.fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([MAPR_BIN, "-o", "csv", COUNT, "a.fifo"],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             cwd=self.tmp)
        self.addCleanup(_kill, p)
        # A non-blocking writer open succeeds once mapr has opened the FIFO
        # for reading (ENXIO before): from then on mapr reads it.
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if e.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        fcntl.fcntl(fd, fcntl.F_SETFL,
                    fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        with os.fdopen(fd, "wb") as w:
            w.write(lines(1000))
            w.flush()
            os.unlink(fifo)
            self.assertFalse(os.path.exists(fifo))
            # Deleting the name does not end the data: mapr reads on.
            w.write(lines(500, b"after"))
        out, err = p.communicate(timeout=TIMEOUT)
        self.assertEqual((p.returncode, out, err), (0, csv_count(1500), b""))

    def test_followed_file_deleted_while_being_read(self):
        self.write("a.log", lines(10))
        f = Follower(self, ["--from-start", "--stats", "-o", "csv", COUNT,
                            "a.log"])
        f.wait_report(10)
        # The writer keeps its descriptor: mapr keeps reading the deleted
        # file, as tail -f does.
        with open(self.path("a.log"), "ab") as w:
            os.unlink(self.path("a.log"))
            w.write(lines(5, b"after"))
            w.flush()
            f.wait_report(15)
        out = f.finish()
        self.assertEqual(last_report(out), csv_count(15))
        self.assertEqual(
            f.err(), FOLLOW_START +
            b"lines_read: 15\nlines_too_long: 0\nlines_table_mismatch: 0\n"
            b"lines_ignored: 0\nlines_malformed: 0\nlines_unmatched: 0\nlines_header: 0\n"
            b"lines_filtered: 0\nlines_without_value: 0\n"
            b"lines_aggregated: 15\nvalues_unparsed: 0\ngroups: 1\n")

    def test_followed_file_truncated_while_being_read(self):
        self.write("a.log", lines(10))
        f = Follower(self, ["--from-start", "--stats", "-o", "csv", COUNT,
                            "a.log"])
        f.wait_report(10)
        # Shorter than what was read: detected, read again from its start.
        with open(self.path("a.log"), "wb") as w:
            w.write(b"again 1\nagain 2\n")
        f.wait_report(12)
        with open(self.path("a.log"), "ab") as w:
            w.write(b"again 3\nno newline")
        f.wait_report(13)
        out = f.finish()
        # The unfinished last line counts in the final report.
        self.assertEqual(last_report(out), csv_count(14))
        self.assertEqual(
            f.err(), FOLLOW_START +
            b"mapr: a.log: file truncated; reading it from its start\n"
            b"lines_read: 14\nlines_too_long: 0\nlines_table_mismatch: 0\n"
            b"lines_ignored: 0\nlines_malformed: 0\nlines_unmatched: 0\nlines_header: 0\n"
            b"lines_filtered: 0\nlines_without_value: 0\n"
            b"lines_aggregated: 14\nvalues_unparsed: 0\ngroups: 1\n")


def _kill(p):
    if p.poll() is None:
        p.kill()
        p.wait()
    for s in (p.stdout, p.stderr):
        if s is not None:
            s.close()


class Follower(CollectedProcess):
    """A running `mapr --follow`; its output collected by two threads."""

    def __init__(self, test, args):
        self.test = test
        super().__init__([MAPR_BIN, "--follow", "--interval-ms", "100"] + args,
                         cwd=test.tmp)
        test.addCleanup(self.kill)

    def wait_report(self, count):
        """Waits for a report whose count is `count`."""
        want = csv_count(count)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and self.p.poll() is None:
            if last_report(self.out()) == want:
                return
            time.sleep(0.02)
        self.test.fail("no report of %d\nstdout: %r\nstderr: %r" %
                       (count, self.out()[-500:], self.err()[-500:]))

    def finish(self):
        """SIGTERM, then the exit (code 0); returns stdout."""
        self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.test.fail("mapr did not exit after SIGTERM")
        for t in self.threads:
            t.join(TIMEOUT)
        self.test.assertEqual(rc, 0, "stderr: %r" % self.err())
        return self.out()


def unshare_available():
    """True if a private mount namespace with a tmpfs can be made here."""
    if not shutil.which("unshare"):
        return False
    try:
        r = subprocess.run(
            ["unshare", "-rm", "sh", "-c",
             "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && "
             "umount \"$d\" && rmdir \"$d\""],
            capture_output=True, timeout=TIMEOUT)
        return r.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class OutfileTest(BadFilesTestCase):

    def test_missing_directory(self):
        self.write("a.log", lines(2))
        out, err = self.mapr(COUNT + " outfile no/such/dir/r.csv", "a.log",
                             code=1)
        self.assertEqual(
            (out, err),
            (b"", b"mapr: cannot create outfile 'no/such/dir/r.csv.tmp': No "
             b"such file or directory\n"))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a.log"])

    def test_read_only_directory(self):
        self.write("a.log", lines(2))
        os.mkdir(self.path("ro"))
        # A previous complete outfile.
        self.mapr(COUNT + " outfile ro/r.csv", "a.log", code=0)
        before = (self.read("ro/r.csv"), self.read("ro/r.csv.query"))
        self.assertEqual(before, (csv_count(2), (COUNT + " outfile ro/r.csv")
                                  .encode()))
        os.chmod(self.path("ro"), 0o555)
        self.write("b.log", lines(3))
        query = COUNT + " where $line ne \"\" outfile ro/r.csv"
        out, err = self.mapr(query, "b.log", code=1, unprivileged=True)
        self.assertEqual(
            (out, err),
            (b"", b"mapr: cannot create outfile 'ro/r.csv.tmp': Permission "
             b"denied\n"))
        out, err = self.mapr(COUNT + " outfile append ro/r.csv", "b.log",
                             code=1, unprivileged=True)
        self.assertEqual(
            (out, err),
            (b"", b"mapr: cannot create outfile 'ro/r.csv.query.tmp': "
             b"Permission denied\n"))
        self.assertEqual((self.read("ro/r.csv"), self.read("ro/r.csv.query")),
                         before)
        self.assertEqual(sorted(os.listdir(self.path("ro"))),
                         ["r.csv", "r.csv.query"])

    def test_disk_full(self):
        if not unshare_available():
            self.skipTest("no private mount namespace here (unshare -rm); "
                          "bad_input_outfile_test injects ENOSPC instead")
        self.write("a.log", lines(2))
        self.write("b.log", lines(3))
        os.mkdir(self.path("disk"))
        os.mkdir(self.path("saved"))
        # In a private mount namespace: a 64 KiB tmpfs, a first complete
        # outfile, a filler that takes every free byte, then the write
        # that must fail. The files are copied out before the namespace
        # (and its tmpfs) goes away.
        script = r"""
set -u
mount -t tmpfs -o size=64k tmpfs disk || exit 90
cd disk
"$MAPR" "$Q1" ../a.log || exit 91
cat /dev/zero > filler 2>/dev/null
"$MAPR" "$Q2" ../b.log > ../saved/out 2> ../saved/err
echo $? > ../saved/rc
cp r.csv r.csv.query ../saved/ || exit 92
ls -A > ../saved/ls
"""
        q1 = COUNT + " outfile r.csv"
        q2 = COUNT + " where $line ne \"\" outfile r.csv"
        env = dict(os.environ, MAPR=MAPR_BIN, Q1=q1, Q2=q2)
        r = subprocess.run(["unshare", "-rm", "sh", "-c", script],
                           cwd=self.tmp, env=env, capture_output=True,
                           timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("saved/rc"), b"1\n")
        self.assertEqual(self.read("saved/out"), b"")
        self.assertEqual(
            self.read("saved/err"),
            b"mapr: cannot write outfile 'r.csv.tmp': No space left on "
            b"device\n")
        # The previous complete files, byte for byte; no temporary left.
        self.assertEqual(self.read("saved/r.csv"), csv_count(2))
        self.assertEqual(self.read("saved/r.csv.query"), q1.encode())
        self.assertEqual(self.read("saved/ls"), b"filler\nr.csv\nr.csv.query\n")


if __name__ == "__main__":
    unittest.main()
