#!/usr/bin/env python3
"""Partials from elsewhere (a pipe, a compressed PART, a host of `mapr
remote`) cannot make mapr hold more than their frames (docs/security.md).

  MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/hostile_input_test.py

Every frame's magic and size are checked as its bytes arrive: what is not
partials (/dev/zero, text) is refused at its first bytes, and a frame over
--max-frame-bytes (default 1G) once its header is in, by name; a --b64 line
once it is longer than such a frame's encoding. A host that does either
fails alone: the other hosts' result is printed.
"""

import os
import pty
import resource
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_test import MAPR_BIN, MaprTestCase  # noqa: E402

Q = "select k, count($line) group by k logformat generickv"
# Where a frame's header holds the frame's size (docs/partial-format.md).
SIZE_AT = 24
HUGE = 1 << 40


def claiming(frame, size):
    """`frame`'s header, claiming a frame of `size` bytes."""
    return frame[:SIZE_AT] + struct.pack("<Q", size) + frame[SIZE_AT + 8:72]


class PartialStreamTest(MaprTestCase):

    def part(self):
        self.write("a.log", b"k=a\nk=b\nk=a\n")
        out, _ = self.mapr("map", Q, "a.log")
        return out

    def run_measured(self, args, stdin_path=None):
        """(exit status, stderr, peak RSS in bytes) of one mapr run."""
        with open(stdin_path or os.devnull, "rb") as stdin:
            p = subprocess.Popen([os.path.abspath(MAPR_BIN)] + args,
                                 cwd=self.tmp, stdin=stdin,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            err = p.stderr.read()
            p.stderr.close()
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, err, usage.ru_maxrss * 1024

    def test_dev_zero_is_refused_at_its_first_bytes(self):
        # It was read whole first: memory grew until the process was killed.
        for cmd in ("reduce", "combine", "inspect"):
            p = subprocess.run([os.path.abspath(MAPR_BIN), cmd, "/dev/zero"],
                               cwd=self.tmp, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 1, cmd)
            self.assertEqual(p.stderr, b"mapr: /dev/zero: not a mapr partial: "
                             b"the input does not start with MAPRPART\n", cmd)

    def test_a_compressed_frame_claiming_a_terabyte_costs_its_header(self):
        # 400 MB of zeros behind a header claiming 2^40 bytes, zstd'ed to a
        # few KB: refused once the header is in, never decompressed whole.
        head = claiming(self.part(), HUGE)
        bomb = self.path("bomb.part.zst")
        with open(bomb, "wb") as out:
            z = subprocess.Popen(["zstd", "-q", "-c"], stdin=subprocess.PIPE,
                                 stdout=out)
            z.stdin.write(head)
            zeros = bytes(1 << 20)
            for _ in range(400):
                z.stdin.write(zeros)
            z.stdin.close()
            self.assertEqual(z.wait(), 0)
        self.assertLess(os.path.getsize(bomb), 1 << 20)
        message = ("mapr: %s: a frame of %d bytes is over the limit of "
                   "1073741824 bytes (--max-frame-bytes)\n")
        for args, name, stdin in ((["reduce", bomb], bomb, None),
                                  (["reduce", "-"], "-", bomb)):
            code, err, rss = self.run_measured(args, stdin)
            self.assertEqual(code, 1)
            self.assertEqual(err.decode(), message % (name, HUGE))
            self.assertLess(rss, 200 << 20)

    def test_max_frame_bytes_refuses_larger_frames_by_name(self):
        part = self.part()
        n = len(part)
        path = self.write("a.part", part)
        message = ("mapr: %%s: a frame of %d bytes is over the limit of "
                   "%d bytes (--max-frame-bytes)\n" % (n, n - 1))
        # A plain file (read a frame at a time), standard input, inspect.
        for cmd in ("reduce", "combine", "inspect"):
            _, err = self.mapr(cmd, "--max-frame-bytes", str(n - 1), path,
                               code=1)
            self.assertEqual(err.decode(), message % path, cmd)
        _, err = self.mapr("reduce", "--max-frame-bytes", str(n - 1), "-",
                           stdin=part, code=1)
        self.assertEqual(err.decode(), message % "-")
        # At the limit, or with a suffix, the frame is taken.
        out, _ = self.mapr("reduce", "-o", "csv", "--max-frame-bytes",
                           str(n), path)
        self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")
        self.mapr("inspect", "--max-frame-bytes", "1K", path)
        self.mapr("combine", "--b64", "--max-frame-bytes", "1M", path)
        _, err = self.mapr("reduce", "--max-frame-bytes", "0", path, code=2)
        self.assertIn(b"mapr: invalid --max-frame-bytes '0' (use a number of "
                      b"bytes from 1 to 1024G, optionally with K, M or G)\n",
                      err)

    def test_a_b64_line_too_long_for_a_frame_is_refused_before_its_end(self):
        # (1024 + 2) / 3 * 4 bytes of base64, 22 for the rest: 1390.
        line = b"0\t" + b"QUFB" * 100000
        _, err = self.mapr("reduce", "--max-frame-bytes", "1K", "-",
                           stdin=line, code=1)
        self.assertEqual(err, b"mapr: -: line 1 is longer than 1390 bytes: "
                         b"its frame would be over the limit of 1024 bytes "
                         b"(--max-frame-bytes)\n")


class PartialLookupTest(MaprTestCase):
    """A partial's query may name lookup() tables: combine and reduce read
    them only from inside --lookup-dir DIR, regular files only, and never
    print what they hold."""

    LQ = ("select $o, count($line) set $o = lookup(host, 'hosts.csv', "
          "'owner') group by $o logformat logfmt")
    CANONICAL = ("select $o,count($line) set $o = lookup(host, "
                 "\"hosts.csv\", \"owner\") group by $o logformat logfmt")

    def setUp(self):
        super().setUp()
        self.write("hosts.csv", b"host,owner\nweb1,alice\n")
        self.write("a.log", b"host=web1\nhost=web2\n")
        out, _ = self.mapr("map", self.LQ, "a.log")
        self.part = self.write("a.part", out)

    def test_a_partials_tables_need_lookup_dir(self):
        # reduce once read any file a partial's query named (and printed its
        # first line in a hint).
        for cmd in ("reduce", "combine"):
            _, err = self.mapr(cmd, self.part, code=1)
            self.assertEqual(err.decode(), (
                "mapr: %s: the partial's query '%s' reads lookup() tables: "
                "a partial's query reads files only from the folder the "
                "caller allows (AggregatorOptions::partial_lookup_dir; mapr "
                "--lookup-dir DIR)\n" % (self.part, self.CANONICAL)), cmd)
        out, _ = self.mapr("reduce", "--lookup-dir", ".", "-o", "csv",
                           self.part)
        self.assertEqual(out, b"$o,count($line)\n,1\nalice,1\n")
        combined, _ = self.mapr("combine", "--lookup-dir", self.tmp,
                                self.part)
        self.assertTrue(combined.startswith(b"MAPRPART"))

    def test_tables_outside_lookup_dir_are_refused_unread(self):
        os.mkdir(self.path("tables"))
        _, err = self.mapr("reduce", "--lookup-dir", "tables", self.part,
                           code=1)
        self.assertEqual(err.decode(), (
            "mapr: %s: the partial's query '%s' does not compile: 1:46-56: "
            "the lookup table 'hosts.csv' is outside tables (the folder "
            "lookup() tables may be read from)\n" % (self.part,
                                                      self.CANONICAL)))
        # A table that holds something else: its content is not printed.
        self.write("hosts.csv", b"root:x:0:0:root:/root:/bin/bash\n")
        _, err = self.mapr("reduce", "--lookup-dir", ".", self.part, code=1)
        self.assertNotIn(b"root:x", err)
        self.assertIn(b"the lookup table 'hosts.csv' has no column 'owner'",
                      err)

    def test_a_table_that_is_a_fifo_is_refused_not_waited_on(self):
        os.remove(self.path("hosts.csv"))
        os.mkfifo(self.path("hosts.csv"))
        p = subprocess.run([os.path.abspath(MAPR_BIN), "reduce",
                            "--lookup-dir", ".", self.part], cwd=self.tmp,
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"the lookup table 'hosts.csv' is not a regular file",
                      p.stderr)


class RemoteFrameTest(MaprTestCase):

    def stand_in_ssh(self, answers, scripts=None):
        """ssh that runs the host's command here; a host of `answers`
        ({host: file}) prints that file instead, one of `scripts` ({host:
        shell text}) runs that."""
        canned = "".join(
            'if [ "$host" = %s ]; then exec cat "%s"; fi\n' % (h, path)
            for h, path in answers.items())
        for h, text in (scripts or {}).items():
            path = self.write("script-" + h, text.encode())
            canned += 'if [ "$host" = %s ]; then exec sh "%s"; fi\n' % (
                h, path)
        fake = self.write("ssh", (
            '#!/bin/sh\n'
            '[ "$1" = "--" ] && shift\n'
            'host=$1; shift\n'
            '%s'
            'exec sh -c "$*"\n' % canned).encode())
        os.chmod(fake, 0o755)
        return fake

    def remote(self, hosts, answers, *extra, code):
        self.write("a.log", b"k=a\nk=b\nk=a\n")
        return self.mapr("remote", "--ssh", self.stand_in_ssh(answers),
                         "--hosts", hosts, "--remote-mapr",
                         os.path.abspath(MAPR_BIN), "-o", "csv", *extra, Q,
                         "a.log", code=code)

    def test_a_host_claiming_a_huge_frame_fails_alone(self):
        # Its header claims 2^40 bytes and a megabyte of zeros follows: the
        # host fails at the header, the other host's result is printed. (The
        # client once buffered what came, up to 2^40 bytes.)
        self.write("b.log", b"k=z\n")
        honest, _ = self.mapr("map", "--source", "evil", Q, "b.log")
        evil = self.write("evil.out", claiming(honest, HUGE) + bytes(1 << 20))
        out, err = self.remote("evil,good", {"evil": evil}, code=1)
        self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")
        self.assertEqual(err.decode().split("\n")[:2], [
            "mapr: evil: failed: a frame of %d bytes is over the limit of "
            "1073741824 bytes (--max-frame-bytes)" % HUGE,
            "mapr: the result is partial: host evil failed (none of its "
            "lines are counted)"])

    def run_remote(self, hosts, scripts, *extra):
        """(exit status, stdout, stderr, seconds) of a one-shot remote."""
        self.write("a.log", b"k=a\nk=b\nk=a\n")
        start = time.monotonic()
        p = subprocess.run(
            [os.path.abspath(MAPR_BIN), "remote", "--ssh",
             self.stand_in_ssh({}, scripts), "--hosts", hosts,
             "--remote-mapr", os.path.abspath(MAPR_BIN), "-o", "csv"] +
            list(extra) + [Q, "a.log"],
            cwd=self.tmp, capture_output=True, timeout=120)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start

    def test_a_session_that_closes_its_output_and_lingers_fails_alone(self):
        # It closes stdout and stderr, then runs on for a minute: the client
        # once blocked in waitpid (deaf to Ctrl-C) for all of it. It gets
        # 5 s to end, then fails; the other host's result is printed.
        code, out, err, took = self.run_remote(
            "stuck,good", {"stuck": "exec >&- 2>&-\nexec sleep 60\n"})
        self.assertEqual(code, 1)
        self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")
        self.assertEqual(err.decode().split("\n")[0],
                         "mapr: stuck: failed: its session closed its output "
                         "but did not end within 5s")
        self.assertLess(took, 40)

    def test_host_timeout_fails_a_host_that_does_not_end(self):
        code, out, err, took = self.run_remote(
            "slow,good", {"slow": "exec sleep 60\n"}, "--host-timeout", "1")
        self.assertEqual(code, 1)
        self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")
        self.assertEqual(err.decode().split("\n")[0],
                         "mapr: slow: failed: it did not end within 1s "
                         "(--host-timeout)")
        self.assertLess(took, 40)
        # Not for --follow (its hosts run until stopped).
        _, err = self.mapr("remote", "--follow", "--host-timeout", "5",
                           "--hosts", "a", Q, "a.log", code=2)
        self.assertIn(b"--host-timeout works only with remote (without "
                      b"--follow)", err)

    def test_remote_takes_max_frame_bytes(self):
        self.write("a.log", b"k=a\nk=b\nk=a\n")
        ssh = self.stand_in_ssh({})
        for limit, code in (("100", 1), ("1M", 0)):
            out, err = self.mapr(
                "remote", "--max-frame-bytes", limit, "--ssh", ssh, "--hosts",
                "good", "--remote-mapr", os.path.abspath(MAPR_BIN), "-o",
                "csv", Q, "a.log", code=code)
            if code:
                self.assertRegex(
                    err.decode().split("\n")[0],
                    r"^mapr: good: failed: a frame of \d+ bytes is over the "
                    r"limit of 100 bytes \(--max-frame-bytes\)$")
            else:
                self.assertEqual(out, b"k,count($line)\na,2\nb,1\n")


class TerminalTest(MaprTestCase):
    """Bytes a terminal acts on (ESC, CR, ...) in values from a log line, a
    partial or a host are written as \\xNN on a terminal, as they are to a
    pipe or a file."""

    LINE = b"k=\x1b]0;pwned\x07a\rb\n"
    Q = "select k, count($line) group by k logformat generickv"

    def on_terminal(self, args):
        """(stdout, stderr) of mapr with both on a pseudo-terminal."""
        main, sub = pty.openpty()
        err_main, err_sub = pty.openpty()
        p = subprocess.Popen([os.path.abspath(MAPR_BIN)] + args,
                             cwd=self.tmp, stdin=subprocess.DEVNULL,
                             stdout=sub, stderr=err_sub)
        os.close(sub)
        os.close(err_sub)
        out, err = b"", b""
        for fd in (main, err_main):
            while True:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: the other end closed
                    break
                if not data:
                    break
                if fd == main:
                    out += data
                else:
                    err += data
            os.close(fd)
        p.wait(timeout=60)
        return out, err

    def test_values_are_escaped_on_a_terminal_only(self):
        self.write("a.log", self.LINE)
        out, _ = self.on_terminal(["-o", "csv", self.Q, "a.log"])
        self.assertNotIn(b"\x1b", out)
        self.assertIn(b'"\\x1b]0;pwned\\x07a\\x0db",1', out)
        # Through a pipe, the bytes as they are.
        piped, _ = self.mapr("-o", "csv", self.Q, "a.log")
        self.assertEqual(piped,
                         b'k,count($line)\n"\x1b]0;pwned\x07a\rb",1\n')
        # A partial's values, reduced to a terminal (the table).
        part, _ = self.mapr("map", self.Q, "a.log")
        self.write("a.part", part)
        out, _ = self.on_terminal(["reduce", "a.part"])
        self.assertNotIn(b"\x1b", out)
        self.assertIn(b"\\x1b]0;pwned\\x07a\\x0db", out)

    def test_messages_are_escaped_on_a_terminal(self):
        _, err = self.on_terminal([self.Q, "no\x1b(0ne.log"])
        self.assertNotIn(b"\x1b", err)
        self.assertIn(b"mapr: no\\x1b(0ne.log: No such file or directory",
                      err)


if __name__ == "__main__":
    unittest.main()
