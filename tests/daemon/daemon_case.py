"""What the daemon tests share (rsyslog_test.py, syslog_ng_test.py): a
private folder, the daemon's process group killed at the end, a wait with a
deadline that fails with the daemon's logs, and messages sent with
`logger` to the daemon's socket; journal_test.py uses the wait
(wait_until). Standard library only."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest


# CTest's SKIP_RETURN_CODE for the daemon tests.
SKIP_RETURN_CODE = 77


def take_binary_from_argv():
    """The mapr binary given as the first argument (taken out of argv, so
    that unittest does not read it), or None."""
    if len(sys.argv) > 1 and os.path.isfile(sys.argv[1]):
        return sys.argv.pop(1)
    return None


# The seed of a run's lines: MAPR_TEST_SEED repeats a run.
SEED = int(os.environ.get("MAPR_TEST_SEED", str(time.time_ns() % 2**32)))


def main(why_missing):
    """Runs the tests; exits 1 if one failed, else SKIP_RETURN_CODE with
    `why_missing` when it names what the tests lacked."""
    program = unittest.main(exit=False)
    if not program.result.wasSuccessful():
        sys.exit(1)
    if why_missing:
        print("SKIP: " + why_missing)
        sys.exit(SKIP_RETURN_CODE)


# The query both daemon tests run, its CSV header, and the users of the
# lines they send.
HEADER = "user,count($line),sum(bytes),max(bytes)"
USERS = ("alice", "bob", "carol", "dave", "erin")


def generate(rng, count, start):
    """`count` lines `user=U|status=S|bytes=B|seq=N`; some repeat the line
    before (the daemon must not reduce repeated messages)."""
    lines = []
    while len(lines) < count:
        if lines and rng.random() < 0.05:
            lines.append(lines[-1])
            continue
        lines.append("user=%s|status=%d|bytes=%d|seq=%d" %
                     (rng.choice(USERS), rng.choice((200, 404, 500)),
                      rng.randrange(0, 100000), start + len(lines)))
    return lines


def aggregate(lines):
    """What the query computes, per user: (count, sum, max) of bytes."""
    result = {}
    for line in lines:
        fields = dict(kv.split("=", 1) for kv in line.split("|"))
        count, total, biggest = result.get(fields["user"], (0, 0, None))
        b = int(fields["bytes"])
        result[fields["user"]] = (count + 1, total + b,
                                  b if biggest is None else max(biggest, b))
    return {u: (c, float(s), float(m)) for u, (c, s, m) in result.items()}


def wait_until(what, predicate, seconds, diagnostics=lambda: "",
               process=None, name="the process", every=0.02):
    """Polls predicate() every `every` seconds until it returns a true
    value, and returns that value. Raises AssertionError, with what
    diagnostics() returns, when `seconds` have passed, or at once when
    `process` (a Popen, called `name`) has exited. A test waits on such a
    condition, never on a sleep: how long a step takes depends on the build
    (release, sanitizers) and on the machine's load."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if process is not None and process.poll() is not None:
            raise AssertionError("%s exited with %d while waiting for %s\n%s"
                                 % (name, process.returncode, what,
                                    diagnostics()))
        if time.monotonic() > deadline:
            raise AssertionError("no %s after %d s\n%s" %
                                 (what, seconds, diagnostics()))
        time.sleep(every)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


class DaemonTestCase(unittest.TestCase):
    """Subclasses set DAEMON (its name in messages) and LOGS (the files of
    self.dir that diagnostics() shows), start the daemon as self.process
    in a session of its own, and have it listen on self.socket."""

    DAEMON = "the daemon"
    LOGS = ()
    SEED = 0

    def make_dir(self, prefix):
        """A private folder (self.dir), removed at the end; self.socket is
        its log.sock."""
        # A unix socket path must fit in 108 bytes.
        parent = None if len(tempfile.gettempdir()) < 60 else "/tmp"
        self.dir = tempfile.mkdtemp(prefix=prefix, dir=parent)
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.socket = self.path("log.sock")
        self.process = None

    def tearDown(self):
        # The daemon leads its own process group, which holds its children
        # (mapr) too: kill whatever of it is left, even if it has exited.
        if getattr(self, "process", None) is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def path(self, name):
        return os.path.join(self.dir, name)

    def diagnostics(self):
        parts = ["seed %d (MAPR_TEST_SEED)" % self.SEED]
        for name in self.LOGS:
            parts.append("--- %s:\n%s" % (name, read_text(self.path(name))))
        return "\n".join(parts)

    def wait_for(self, what, predicate, seconds):
        wait_until(what, predicate, seconds, self.diagnostics, self.process,
                   self.DAEMON)

    def send(self, tag, lines):
        """`lines` as messages of program `tag`, through `logger`."""
        batch = self.path("batch.txt")
        with open(batch, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        p = subprocess.run(["logger", "-u", self.socket, "-t", tag,
                            "-f", batch], capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
