#!/usr/bin/env python3
"""Runs every example of docs/query-language.md and compares its output.

  python3 tests/docs/query_language_doc_test.py build/dev/bindings/cli/mapr
  python3 tests/docs/query_language_doc_test.py MAPR [--update] [DOC]

An example is a fenced code block whose first line starts with "$ ". In it,
each "$ " line is a shell command and the lines up to the next "$ " line (or
the end of the block) are its expected output:

    ```
    $ printf 'a=1\\n' | mapr -o csv 'select a logformat generickv' -
    a
    1
    ```

Each command runs under bash and is compared on what it prints on standard
output; add 2>&1 to show standard error too. A command that writes to
standard error without that fails, so that every example shows all a user
would see. Lines are compared without trailing whitespace (the terminal
table ends every line with a space), and trailing blank lines are ignored.
The exit status is not compared (show it with `; echo "exit $?"`).

Each block runs in a fresh temporary directory, so that outfile examples
leave nothing in the repository; the commands of one block share it. In it
`examples` links to the repository's examples/ (so examples/data/sample.log
resolves as from the repository root), and `mapr` on PATH is the binary
under test. TZ is UTC, so $timezone and $timeoffset are fixed.

--update rewrites the expected outputs from the binary (review the diff).
Exits 1 with a diff per mismatch. Standard library only.
"""

import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_DOC = os.path.join(ROOT, "docs", "query-language.md")
TIMEOUT_SECONDS = 60


class Command:
    def __init__(self, line_number, text):
        self.line_number = line_number  # 1-based, in the document.
        self.text = text
        self.expected = []  # Output lines as written in the document.


def parse_examples(lines):
    """Returns the example blocks: lists of Commands."""
    blocks = []
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        i += 1
        if not fence.startswith("```"):
            continue
        body_start = i
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        body = lines[body_start:i]
        i += 1  # The closing fence.
        if not body or not body[0].startswith("$ "):
            continue
        block = []
        for offset, line in enumerate(body):
            if line.startswith("$ "):
                block.append(Command(body_start + offset + 1, line[2:]))
            else:
                block[-1].expected.append(line)
        blocks.append(block)
    return blocks


def normalize(lines):
    out = [line.rstrip() for line in lines]
    while out and out[-1] == "":
        out.pop()
    return out


def run_block(block, mapr):
    """Runs one block's commands; returns their outputs (lists of lines)."""
    outputs = []
    with tempfile.TemporaryDirectory(prefix="mapr_doc_") as work:
        bin_dir = os.path.join(work, ".bin")
        os.mkdir(bin_dir)
        os.symlink(mapr, os.path.join(bin_dir, "mapr"))
        os.symlink(os.path.join(ROOT, "examples"),
                   os.path.join(work, "examples"))
        env = dict(os.environ)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        env["TZ"] = "UTC"
        env["LC_ALL"] = "C"
        for command in block:
            try:
                p = subprocess.run(
                    ["bash", "-c", command.text], cwd=work, env=env,
                    stdin=subprocess.DEVNULL, capture_output=True,
                    timeout=TIMEOUT_SECONDS)
                stdout = p.stdout.decode("utf-8", "replace")
                stderr = p.stderr.decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                stdout, stderr = "", "timed out after %ds" % TIMEOUT_SECONDS
            outputs.append((stdout.split("\n"), stderr))
    return outputs


def main(argv):
    update = "--update" in argv
    args = [a for a in argv[1:] if a != "--update"]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    mapr = os.path.abspath(args[0])
    doc = args[1] if len(args) > 1 else DEFAULT_DOC
    if not os.access(mapr, os.X_OK):
        sys.stderr.write("not an executable: %s\n" % mapr)
        return 2
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")

    blocks = parse_examples(lines)
    if not blocks:
        sys.stderr.write("%s: no examples found\n" % doc)
        return 1
    failures = 0
    commands = 0
    replacements = []  # (first line index, old length, new lines)
    for block in blocks:
        for command, (stdout, stderr) in zip(block, run_block(block, mapr)):
            commands += 1
            got = normalize(stdout)
            want = normalize(command.expected)
            if update:
                raw = list(stdout)
                while raw and raw[-1].strip() == "":
                    raw.pop()
                replacements.append(
                    (command.line_number, len(command.expected), raw))
                continue
            if got == want and not stderr:
                continue
            failures += 1
            print("FAIL %s:%d: $ %s" % (doc, command.line_number,
                                        command.text))
            for line in difflib.unified_diff(
                    want, got, "expected (document)", "actual (mapr)",
                    lineterm=""):
                print("  " + line)
            if stderr:
                print("  standard error (redirect it with 2>&1 to show it, "
                      "or silence it):")
                for line in stderr.rstrip().split("\n"):
                    print("    " + line)

    if update:
        # From the end, so earlier line numbers stay valid.
        for line_number, old, new in reversed(replacements):
            lines[line_number:line_number + old] = new
        with open(doc, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print("updated %d commands in %s" % (commands, doc))
        return 0
    print("%d of %d commands in %d examples match"
          % (commands - failures, commands, len(blocks)))
    return 1 if failures else 0


if __name__ == "__main__":
    if shutil.which("bash") is None:
        sys.stderr.write("bash is required\n")
        sys.exit(2)
    sys.exit(main(sys.argv))
