#!/usr/bin/env python3
"""Every option of the `mapr` command is exercised under every command that
takes it (docs/cli.md).

The options are `mapr --help`'s (found at run time, so a new option is
covered at once). Which commands take an option is asked of the binary: a
run of `mapr [COMMAND] OPTION [VALUE] ...` over inputs that end at once
either is refused as misplaced (exit 2, "--x works only with ...") or is
not. Which pairs the tests exercise is read from their sources: every
Python list, tuple or call argument list of string literals, and every
shell line, that names an option (with the subcommand as its first word,
else a query run). A pair that is taken but exercised nowhere fails the
test unless UNEXERCISED lists it; a listed pair that a test now exercises
fails it too, so the list only shrinks. The test prints the list.

    MAPR_BIN=build/dev/bindings/cli/mapr python3 tests/cli/option_coverage_test.py
"""

import ast
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

MAPR_BIN = os.path.abspath(os.environ.get("MAPR_BIN", "mapr"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SUBCOMMANDS = ["map", "combine", "reduce", "inspect", "remote"]
COMMANDS = ["query"] + SUBCOMMANDS
QUERY = "select count($line) group by *"

# A value for each option that takes one, by option, else by its --help
# placeholder. A new placeholder needs one here.
SAMPLE_VALUES = {
    "--output": "csv", "--alert-format": "json", "FORMAT": "csv",
    "N": "3", "NAME": "h", "QUERY": QUERY, "LIST": "a.log",
    "REGEX": "^x", "FILE": "hosts.txt", "--journal-file": "none.journal",
    "--journal-cursor-file": "cursor", "DIR": "dir", "COMMAND": "ssh",
    "PATH": "/usr/local/bin/mapr", "ADDR:PORT": "127.0.0.1:0",
    "CONDITION": "count($line) > 1", "I|auto": "0",
    "[FILE=]OFFSET": "0", "P": "0", "R": "2", "LO:HI": "0:1", "ID": "x",
    "SECONDS": "5",
}
# What an option needs beside it before its own place is judged (a run
# without it is refused for that reason, not for the command).
CONTEXT = {
    "--delta": ["--follow"], "--from-start": ["--follow"],
    "--interval-ms": ["--follow"], "--alert": ["--follow"],
    "--alert-format": ["--follow", "--alert", "count($line) > 1"],
    "--listen": ["--follow"], "--until-eof": ["--follow"],
    # A FILE, not standard input; ends at its end, or at stdin's.
    "--resume-from": ["--follow", "--until-eof"],
    "--stop-on-stdin-eof": ["--follow"],
    "--message-id": ["--omprog", "dir"],
    # The journal options read an (empty) folder of journal files, not the
    # system's journal, and no FILE.
    "--journal": ["--journal-dir", "dir"],
    "--journal-cursor-file": ["--journal-dir", "dir"],
}

# (option, command) pairs that a command takes and no test exercises yet.
# Only shrinks: a test that exercises one must take it off.
UNEXERCISED = {
}


def help_options():
    """{long option: placeholder or None}, and {short: long}."""
    out = subprocess.run([MAPR_BIN, "--help"], capture_output=True,
                         check=True).stdout.decode()
    options, shorts = {}, {}
    for line in out.splitlines():
        m = re.match(r"^  (?:-(\w), |    )(--[a-z0-9-]+)(?: (\S+))?", line)
        if m:
            options[m.group(2)] = m.group(3)
            if m.group(1):
                shorts["-" + m.group(1)] = m.group(2)
    return options, shorts


def is_refused_as_misplaced(err):
    return re.search(r"^mapr: --[a-z0-9-]+ (.* )?(works only with|does not "
                     r"work with)", err, re.M) is not None


class OptionCoverageTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        with open(os.path.join(self.dir, "a.log"), "w") as f:
            f.write("a\nb\n")
        with open(os.path.join(self.dir, "hosts.txt"), "w") as f:
            f.write("web1\n")
        os.mkdir(os.path.join(self.dir, "dir"))
        # An ssh that fails at once, as for an unreachable host.
        self.ssh = os.path.join(self.dir, "failssh")
        with open(self.ssh, "w") as f:
            f.write("#!/bin/sh\nexit 255\n")
        os.chmod(self.ssh, 0o755)
        part = subprocess.run([MAPR_BIN, "map", QUERY, "a.log"], cwd=self.dir,
                              capture_output=True, check=True).stdout
        with open(os.path.join(self.dir, "a.part"), "wb") as f:
            f.write(part)

    def tearDown(self):
        self.tmp.cleanup()

    def run_mapr(self, command, option, value):
        """Runs COMMAND with OPTION over inputs that end at once; returns
        (exit status, stderr)."""
        args = [] if command == "query" else [command]
        args += CONTEXT.get(option, [])
        args += [option] + value
        if command in ("query", "map"):
            args += ["--query", QUERY]
            if "--journal-dir" not in args and "--omprog" not in args and \
                    option != "--journal-file":
                # A follow of standard input (empty) ends at once; so do a
                # file's --until-eof and --stop-on-stdin-eof.
                stdin = "--follow" in args and option not in (
                    "--resume-from", "--stop-on-stdin-eof", "--until-eof")
                args += ["-" if stdin else "a.log"]
        elif command == "remote":
            args += ["--ssh", self.ssh, "--query", QUERY, "a.log"]
            if option not in ("--hosts", "--hosts-file"):
                args += ["--hosts", "web1"]
        else:
            args += ["a.part"]
        p = subprocess.run([MAPR_BIN] + args, cwd=self.dir,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=120)
        return p.returncode, p.stderr.decode(errors="replace")

    def taken_pairs(self, options):
        taken = set()
        for option, placeholder in options.items():
            if option in ("--help", "--version"):
                continue
            value = []
            if placeholder is not None:
                key = option if option in SAMPLE_VALUES else placeholder
                self.assertIn(key, SAMPLE_VALUES, "a sample value for %s %s"
                              % (option, placeholder))
                value = [SAMPLE_VALUES[key]]
            for command in COMMANDS:
                code, err = self.run_mapr(command, option, value)
                if code == 2:
                    # A usage error must be about the option's place, not
                    # about a sample value.
                    self.assertTrue(is_refused_as_misplaced(err),
                                    (command, option, err))
                    continue
                taken.add((option, command))
        return taken

    def exercised_pairs(self, options, shorts):
        """(option, command) pairs named together in the tests' sources."""
        found = set()

        def note(words):
            words = [w for w in words if isinstance(w, str)]
            command = words[0] if words and words[0] in SUBCOMMANDS \
                else "query"
            for w in words:
                name = w.split("=", 1)[0]
                if name in options:
                    found.add((name, command))
                elif len(w) >= 2 and w[:2] in shorts:
                    found.add((shorts[w[:2]], command))

        def shell_lines(text):
            """Each command line of `text` that runs mapr ($MAPR, "$mapr",
            /usr/local/bin/mapr ...)."""
            for line in text.replace("\\\n", " ").splitlines():
                m = re.search(r"mapr\"?\}?\s(.*)", line, re.I)
                if not m:
                    continue
                try:
                    note(shlex.split(m.group(1), comments=True))
                except ValueError:
                    note(m.group(1).split())

        for folder in ("tests", "examples", "bindings"):
            for base, _, files in os.walk(os.path.join(ROOT, folder)):
                for name in files:
                    path = os.path.join(base, name)
                    if path == os.path.abspath(__file__):
                        continue
                    if name.endswith(".py"):
                        with open(path, encoding="utf-8") as f:
                            tree = ast.parse(f.read(), path)
                        for node in ast.walk(tree):
                            # A table of one command's options that a test
                            # runs one by one (cli_test's REMOTE_OPTIONS).
                            if (isinstance(node, ast.Assign) and
                                    isinstance(node.value, ast.Dict) and
                                    len(node.targets) == 1 and
                                    isinstance(node.targets[0], ast.Name)):
                                m = re.fullmatch(r"([A-Z]+)_OPTIONS",
                                                 node.targets[0].id)
                                if m and m.group(1).lower() in SUBCOMMANDS:
                                    note([m.group(1).lower()] + [
                                        k.value for k in node.value.keys
                                        if isinstance(k, ast.Constant)])
                            if isinstance(node, (ast.List, ast.Tuple)):
                                items = node.elts
                            elif isinstance(node, ast.Call):
                                items = node.args
                            else:
                                continue
                            note([e.value for e in items
                                  if isinstance(e, ast.Constant)])
                        # Shell command lines inside strings (GNU parallel's
                        # and Hadoop's commands).
                        for node in ast.walk(tree):
                            if isinstance(node, ast.Constant) and \
                                    isinstance(node.value, str):
                                shell_lines(node.value)
                    elif name.endswith((".sh", ".in")):
                        with open(path, encoding="utf-8") as f:
                            shell_lines(f.read())
        return found

    def test_every_taken_pair_is_exercised(self):
        options, shorts = help_options()
        self.assertGreater(len(options), 30)
        taken = self.taken_pairs(options)
        exercised = self.exercised_pairs(options, shorts)
        missing = sorted(taken - exercised)
        print("unexercised (option, command) pairs, %d of %d taken:" %
              (len(missing), len(taken)))
        for pair in missing:
            print("  %s under %s" % pair)
        self.assertEqual([p for p in missing if p not in UNEXERCISED], [],
                         "pairs no test exercises: add a test, or (only for "
                         "a pair that cannot run here) list it in UNEXERCISED")
        now_exercised = sorted(p for p in UNEXERCISED if p not in missing)
        self.assertEqual(now_exercised, [], "exercised or no longer taken: "
                         "take them off UNEXERCISED")


if __name__ == "__main__":
    unittest.main()
