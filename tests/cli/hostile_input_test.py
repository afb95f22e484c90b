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
import resource
import struct
import subprocess
import sys
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


class RemoteFrameTest(MaprTestCase):

    def stand_in_ssh(self, answers):
        """ssh that runs the host's command here; a host of `answers`
        ({host: file}) prints that file instead."""
        canned = "".join(
            'if [ "$host" = %s ]; then exec cat "%s"; fi\n' % (h, path)
            for h, path in answers.items())
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


if __name__ == "__main__":
    unittest.main()
