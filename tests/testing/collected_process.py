"""A child process whose stdout and stderr are collected by two threads.

Shared by tests/cli/cli_test.py and tests/bad_input/files_test.py for runs of
`mapr --follow` that are read while they go on.
"""

import os
import subprocess
import threading


class CollectedProcess:
    """Starts `argv` in `cwd`; out() and err() return what it wrote so far.

    With stdin=True, self.p.stdin is a pipe the test writes to. kill() ends
    the process and closes its pipes; it is safe to call more than once.
    """

    def __init__(self, argv, cwd, stdin=False):
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd)
        self.lock = threading.Lock()
        self.buffers = {"out": bytearray(), "err": bytearray()}
        self.threads = [
            threading.Thread(target=self._collect, args=(f, key), daemon=True)
            for f, key in ((self.p.stdout, "out"), (self.p.stderr, "err"))
        ]
        for t in self.threads:
            t.start()

    def _collect(self, f, key):
        while True:
            data = os.read(f.fileno(), 65536)
            if not data:
                return
            with self.lock:
                self.buffers[key] += data

    def out(self):
        with self.lock:
            return bytes(self.buffers["out"])

    def err(self):
        with self.lock:
            return bytes(self.buffers["err"])

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        for f in (self.p.stdin, self.p.stdout, self.p.stderr):
            if f is not None:
                f.close()
