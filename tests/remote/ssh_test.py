#!/usr/bin/env python3
"""`mapr remote` over real OpenSSH, hermetically on loopback.

Starts a private sshd (its own host key, key-only authentication, its own
config, pid file and folder; listening on 127.0.0.1 and 127.0.0.2 only) and
runs `mapr remote` through the system's ssh client against it. Each "host"
is one loopback address: the --remote-mapr wrapper changes into a folder
named after the address the session came in on (SSH_CONNECTION), so the
hosts hold different logs. 127.0.0.3 has no sshd: a host that fails.

Checks: the batch result equals one pass over the hosts' logs concatenated
in host order (first()/last() included), for both host orders; a failed
host is named and makes the result partial (exit 1, or 0 with
--allow-partial); --follow reports grow as the logs grow, each ends with its
terminator line, and SIGINT gives the exact final result; a killed client
leaves no `mapr map` behind on a quiet log; an older remote mapr (usage
error) is named as a version problem.

Exit 77 (skipped) without /usr/sbin/sshd, ssh or ssh-keygen
(scripts/install-deps installs openssh-server and openssh-client).
Standard library only. MAPR_BIN names the binary.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

MAPR_BIN = os.path.abspath(os.environ.get("MAPR_BIN", ""))
SSHD = "/usr/sbin/sshd"
QUERY = ("select host,count($line),sum(n),first(n),last(n),max(n) "
         "group by host logformat generickv")
TIMEOUT = 20.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_lines(base, n):
    return "".join("host=h%d|n=%d\n" % (i % 3, base + i) for i in range(n))


class SshFixture:
    """A private sshd and the ssh command that reaches it."""

    def __init__(self, root):
        self.root = root
        self.port = free_port()
        key = os.path.join(root, "host_key")
        client = os.path.join(root, "client_key")
        for path in (key, client):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                            "-f", path], check=True)
        shutil.copy(client + ".pub", os.path.join(root, "authorized_keys"))
        config = os.path.join(root, "sshd_config")
        with open(config, "w") as f:
            f.write("\n".join([
                "Port %d" % self.port,
                "ListenAddress 127.0.0.1",
                "ListenAddress 127.0.0.2",
                "HostKey " + key,
                "PidFile " + os.path.join(root, "sshd.pid"),
                "AuthorizedKeysFile " + os.path.join(root, "authorized_keys"),
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "PermitRootLogin prohibit-password",
                "LogLevel ERROR",
                ""]))
        if os.geteuid() == 0:
            # sshd's privilege separation folder, as the package makes it.
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", config],
                                     stderr=subprocess.PIPE)
        self.ssh = " ".join([
            "ssh", "-F", "/dev/null", "-p", str(self.port), "-i", client,
            "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "ConnectTimeout=5"])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.sshd.poll() is not None:
                raise RuntimeError("sshd exited: %s" %
                                   self.sshd.stderr.read().decode())
            try:
                socket.create_connection(("127.0.0.2", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("sshd did not start")

    def stop(self):
        self.sshd.terminate()
        self.sshd.wait(10)


FIXTURE = None


class RemoteTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="mapr-ssh-")
        global FIXTURE
        FIXTURE = SshFixture(cls.root)
        # The remote mapr: runs in the folder of the address dialled.
        cls.wrapper = os.path.join(cls.root, "remote-mapr")
        with open(cls.wrapper, "w") as f:
            f.write('#!/bin/sh\n'
                    'set -- "$@"\n'
                    'cd "%s/$(echo "$SSH_CONNECTION" | cut -d" " -f3)" '
                    '|| exit 1\n'
                    'exec "%s" "$@"\n' % (cls.root, MAPR_BIN))
        os.chmod(cls.wrapper, 0o755)
        cls.old = os.path.join(cls.root, "old-mapr")
        with open(cls.old, "w") as f:
            f.write("#!/bin/sh\necho \"mapr: unknown option '--source'\" >&2\n"
                    "exit 2\n")
        os.chmod(cls.old, 0o755)
        for host in ("127.0.0.1", "127.0.0.2"):
            os.makedirs(os.path.join(cls.root, host), exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        FIXTURE.stop()
        shutil.rmtree(cls.root, ignore_errors=True)

    def write(self, host, name, text, mode="w"):
        with open(os.path.join(self.root, host, name), mode) as f:
            f.write(text)

    def remote(self, *args, hosts="127.0.0.1,127.0.0.2", mapr=None):
        return [MAPR_BIN, "remote", "--ssh", FIXTURE.ssh, "--remote-mapr",
                mapr or self.wrapper, "--hosts", hosts] + list(args)

    def run_remote(self, *args, code=0, **kw):
        p = subprocess.run(self.remote(*args, **kw), capture_output=True,
                           timeout=TIMEOUT)
        self.assertEqual(p.returncode, code, p.stderr.decode())
        return p.stdout.decode(), p.stderr.decode()

    def one_pass(self, text):
        p = subprocess.run([MAPR_BIN, "-o", "csv", QUERY, "-"],
                           input=text.encode(), capture_output=True,
                           timeout=TIMEOUT, check=True)
        return p.stdout.decode()

    def test_batch_equals_one_pass_in_host_order(self):
        one, two = log_lines(0, 500), log_lines(10000, 300)
        self.write("127.0.0.1", "app.log", one)
        self.write("127.0.0.2", "app.log", two)
        out, err = self.run_remote("-o", "csv", QUERY, "app.log")
        self.assertEqual(out, self.one_pass(one + two))
        out, _ = self.run_remote("-o", "csv", QUERY, "app.log",
                                 hosts="127.0.0.2,127.0.0.1")
        self.assertEqual(out, self.one_pass(two + one))
        self.assertNotEqual(out, self.one_pass(one + two))  # last() moved.

    def test_failed_host_makes_the_result_partial(self):
        one, two = log_lines(0, 50), log_lines(500, 40)
        self.write("127.0.0.1", "app.log", one)
        self.write("127.0.0.2", "app.log", two)
        hosts = "127.0.0.1,127.0.0.3,127.0.0.2"
        out, err = self.run_remote("-o", "csv", QUERY, "app.log", hosts=hosts,
                                   code=1)
        self.assertEqual(out, self.one_pass(one + two))
        self.assertIn("mapr: 127.0.0.3: failed: ssh failed (exit status 255)",
                      err)
        self.assertIn("the result is partial: host 127.0.0.3 failed (none "
                      "of its lines are counted)", err)
        out, _ = self.run_remote("--allow-partial", "-o", "csv", QUERY,
                                 "app.log", hosts=hosts)
        self.assertEqual(out, self.one_pass(one + two))
        # A file missing on one host: that host's mapr says so.
        out, err = self.run_remote("-o", "csv", QUERY, "nope.log", code=1)
        self.assertIn("mapr: 127.0.0.1: mapr: nope.log: No such file", err)
        self.assertIn("no host sent a partial", err)

    def test_older_remote_mapr_is_named(self):
        self.write("127.0.0.1", "app.log", log_lines(0, 5))
        _, err = self.run_remote(QUERY, "app.log", hosts="127.0.0.1",
                                 mapr=self.old, code=1)
        self.assertIn("its mapr refused the request (exit status 2): is it "
                      "another version?", err)
        self.assertIn("unknown option '--source'", err)

    def test_follow_reports_and_exact_final_result(self):
        self.write("127.0.0.1", "live.log", "")
        self.write("127.0.0.2", "live.log", "")
        p = subprocess.Popen(
            self.remote("--follow", "--from-start", "--interval-ms", "300",
                        "-o", "csv",
                        QUERY, "live.log"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # --from-start: lines written before the hosts start count too.
            # Quiet intervals print no report, so the first report holds
            # lines.
            read_until = self.follow_reader(p)
            one, two = log_lines(0, 30), log_lines(100, 20)
            self.write("127.0.0.1", "live.log", one, "a")
            self.write("127.0.0.2", "live.log", two, "a")
            want_now = self.one_pass(one + two).encode()
            read_until(lambda o: want_now + b"# end of report " in o)
            more = log_lines(1000, 7)
            self.write("127.0.0.1", "live.log", more, "a")
            seen = read_until(lambda o: True)
            p.send_signal(signal.SIGINT)
            rest, err = p.communicate(timeout=TIMEOUT)
            out = seen + rest
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 0, err.decode())
        final = out.decode().split("\n\n")[-1]
        body, end = final.rsplit("# end of report ", 1)
        self.assertTrue(end.endswith(" (final)\n"), final)
        self.assertEqual(body, self.one_pass(one + more + two))
        self.assertIn("2 hosts: 2 reporting", err.decode())
        # A report only for an interval in which lines arrived: the first
        # holds lines, and no two in a row are the same.
        reports = [r.rsplit("# end of report ", 1)[0]
                   for r in out.decode().split("\n\n") if r]
        self.assertNotEqual(reports[0], self.one_pass(""))
        for a, b in zip(reports, reports[1:]):
            self.assertNotEqual(a, b)

    def follow_reader(self, p):
        """A function that reads p's stdout until marker(out) holds."""
        os.set_blocking(p.stdout.fileno(), False)
        out = [b""]
        deadline = time.monotonic() + TIMEOUT

        def read_until(marker):
            while time.monotonic() < deadline:
                chunk = p.stdout.read()
                if chunk:
                    out[0] += chunk
                if marker(out[0]):
                    return out[0]
                time.sleep(0.05)
            self.fail("timed out; stdout %r" % out[0])
        return read_until

    def test_follow_reconnects_a_lost_session_exactly(self):
        self.write("127.0.0.1", "cut.log", "")
        self.write("127.0.0.2", "cut.log", "")
        p = subprocess.Popen(
            self.remote("--follow", "--from-start", "--interval-ms", "200",
                        "-o", "csv",
                        QUERY, "cut.log"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            read_until = self.follow_reader(p)
            one = log_lines(0, 40)
            two = log_lines(300, 10)
            self.write("127.0.0.1", "cut.log", one, "a")
            self.write("127.0.0.2", "cut.log", two, "a")
            want = self.one_pass(one + two).encode() + b"# end of report "
            read_until(lambda o: want in o)
            # Cut 127.0.0.1's session: its ssh client dies.
            ssh = subprocess.run(
                ["pgrep", "-f", r"^ssh .*-p %d .* 127\.0\.0\.1 " %
                 FIXTURE.port], capture_output=True).stdout.split()
            self.assertEqual(len(ssh), 1, ssh)
            os.kill(int(ssh[0]), signal.SIGKILL)
            more = log_lines(1000, 25)
            self.write("127.0.0.1", "cut.log", more, "a")
            want = (self.one_pass(one + more + two).encode() +
                    b"# end of report ")
            seen = read_until(lambda o: want in o)
            p.send_signal(signal.SIGINT)
            rest, err = p.communicate(timeout=TIMEOUT)
            out = seen + rest
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        err = err.decode()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("127.0.0.1: session lost (ssh was killed by signal 9",
                      err)
        self.assertIn("reconnecting in 1s (1 of 3) from cut.log byte %d" % len(one),
                      err)
        final = out.decode().split("\n\n")[-1]
        body, end = final.rsplit("# end of report ", 1)
        self.assertTrue(end.endswith(" (final)\n"), final)
        self.assertEqual(body, self.one_pass(one + more + two))

    def remote_maps(self):
        p = subprocess.run(["pgrep", "-f", "--", "--stop-on-stdin-eof"],
                           capture_output=True)
        return p.stdout.split()

    def test_killed_client_leaves_no_map_behind(self):
        self.write("127.0.0.1", "quiet.log", "")
        p = subprocess.Popen(
            self.remote("--follow", "--interval-ms", "200", QUERY,
                        "quiet.log", hosts="127.0.0.1"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + TIMEOUT
        while not self.remote_maps() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(self.remote_maps(), "the remote map never started")
        # The client and its ssh die at once; the log stays quiet.
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 10
        while self.remote_maps() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.remote_maps(), [],
                         "mapr map still runs after its session ended")


def main():
    for tool in (SSHD, shutil.which("ssh"), shutil.which("ssh-keygen")):
        if not tool or not os.path.exists(tool):
            print("skipped: no OpenSSH server or client (scripts/install-deps "
                  "installs openssh-server)")
            return 77
    if not os.path.isfile(MAPR_BIN):
        print("MAPR_BIN must name the mapr binary")
        return 2
    result = unittest.main(exit=False, verbosity=2).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
