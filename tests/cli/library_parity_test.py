#!/usr/bin/env python3
"""The `mapr` command cuts lines exactly as the library's PushBytes does.

Random inputs (line lengths around --max-line-bytes, lone and doubled '\\r'
before '\\n', with or without a final newline) go through the command
(--stats, CSV) and through mapr.Aggregator.push_bytes in random chunks; the
counters, too-long lines included, and the result must be the same.

  MAPR_BIN=build/dev/bindings/cli/mapr \\
  PYTHONPATH=build/dev/bindings/python:bindings/python \\
  python3 tests/cli/library_parity_test.py
"""

import os
import random
import subprocess
import tempfile
import unittest

import mapr

MAPR_BIN = os.environ.get("MAPR_BIN", "")
QUERY = "select count($line),last($line) group by * logformat generic"


class LibraryParityTest(unittest.TestCase):

    def test_random_inputs_count_alike(self):
        rng = random.Random(7)
        with tempfile.TemporaryDirectory(prefix="mapr_parity_") as tmp:
            path = os.path.join(tmp, "in.log")
            for trial in range(40):
                max_bytes = rng.choice([10, 11, 4096, 70000])
                parts = []
                for _ in range(rng.randrange(1, 300)):
                    n = rng.choice([0, 1, 9, 10, 11, 12, 4095, 4096, 4097,
                                    rng.randrange(0, 200000)])
                    parts.append(b"y" * n +
                                 rng.choice([b"", b"\r", b"\r\r", b" "]))
                data = b"\n".join(parts) + rng.choice([b"", b"\n", b"\r\n"])
                with open(path, "wb") as f:
                    f.write(data)
                threads = str(rng.choice([1, 2, 3]))
                p = subprocess.run(
                    [MAPR_BIN, "--stats", "--quiet", "-o", "csv", "-t", threads,
                     "--max-line-bytes", str(max_bytes), QUERY, path],
                    capture_output=True, check=True, timeout=120)
                cli = dict(line.split(": ", 1)
                           for line in p.stderr.decode().splitlines())
                del cli["groups"]
                agg = mapr.Aggregator(mapr.compile(QUERY),
                                      max_line_bytes=max_bytes)
                at = 0
                while at < len(data):
                    n = rng.randrange(1, 100000)
                    agg.push_bytes(data[at:at + n])
                    at += n
                result = agg.finish()
                lib = {k: str(v) for k, v in result.stats.as_dict().items()}
                context = "trial %d, max %d" % (trial, max_bytes)
                self.assertEqual(cli, lib, context)
                self.assertEqual(p.stdout, result.to_csv().encode(), context)


if __name__ == "__main__":
    unittest.main()
