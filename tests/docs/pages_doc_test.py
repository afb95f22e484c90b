#!/usr/bin/env python3
"""Runs the examples of docs/cli.md, docs/distributed.md and README.md and
compares what they print with what the pages show.

    python3 tests/docs/pages_doc_test.py build/dev/bindings/cli/mapr [PAGE...]

An example is a fenced block whose first line starts with "$ ": each "$ "
line is a shell command, and the lines after it, up to the next one, are
what it prints. The pages show what a user sees in a terminal, standard
error included, so a command passes when the lines shown equal its
standard output followed by its standard error, its standard error
followed by its standard output, or the two as written in one stream.
Lines are compared without trailing blanks. A command whose comment is
`# = OTHER` (`mapr reduce 1.part 0.part   # = mapr "$Q" app.log`) must
print what OTHER prints.

Each block runs in a scratch folder of its own with the files the page
names (FIXTURES: app.log is DTail's test log, /var/log/syslog the lines of
a golden file, ...); paths outside it are rewritten into it (PATHS), `mapr`
on PATH is the binary under test, TZ is UTC. What varies between runs (a
port, a host name) is marked once per page in VARIES and replaced on both
sides before comparing.

A block that cannot run here (a daemon, a fleet, a terminal) is listed in
UNRUN by page and heading with the reason; the test prints the list, so the
number of unchecked examples is visible and can only shrink: a listed
heading without such a block fails the test.
"""

import difflib
import functools
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import signal
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TIMEOUT_SECONDS = 120
DTAIL_LOG = os.path.join(ROOT, "tests", "golden", "dtail",
                         "mapr_testdata.log")


def golden_input(name):
    """The input lines of tests/golden/NAME.test."""
    lines, on = [], False
    with open(os.path.join(ROOT, "tests", "golden", name + ".test"),
              encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line == "input":
                on = True
            elif line.startswith("----"):
                on = False
            elif on:
                lines.append(line)
    return "\n".join(lines) + "\n"


# A stand-in for ssh, on PATH in every block's folder: it runs the host's
# command here (in the block's folder), except for the hosts in
# $MAPR_DOC_DOWN_HOSTS, which it refuses as an unreachable host.
SSH_STAND_IN = """#!/bin/bash
while [ $# -gt 0 ]; do
  case $1 in
    -o|-p|-i|-l|-F|-J) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=$1; shift
for down in $MAPR_DOC_DOWN_HOSTS; do
  if [ "$host" = "$down" ]; then
    echo "ssh: connect to host $host port 22: Connection refused" >&2
    exit 255
  fi
done
cd "$MAPR_DOC_WORK" && exec bash -c "$*"
"""


def dtail_log():
    with open(DTAIL_LOG, encoding="utf-8") as f:
        return f.read()


def dtail_lines(lo, hi):
    """Lines [lo, hi) of DTail's test log, as text."""
    return "".join(dtail_log().splitlines(True)[lo:hi])


def alert_story(started, ended):
    """cli.md's alert examples: 7 lines of host a (its alert starts), then 2
    of host b (a's ends in that delta), then Ctrl-C."""
    return [("write", "app.log", ""),
            ("wait", "mapr: following"),
            ("append", "app.log", kv_lines("a", 7)),
            ("wait", started),
            ("append", "app.log", kv_lines("b", 2)),
            ("wait", ended),
            ("signal", signal.SIGINT)]


def kv_lines(host, n):
    return "".join("host=%s|n=%d\n" % (host, i) for i in range(n))


# Per page: files made in each block's folder (name: text, or a function
# giving it), environment, path rewrites, varying parts, blocks not run.
PAGES = {
    "docs/cli.md": {
        "fixtures": {
            "app.log": dtail_log,
            "var/log/syslog": lambda: golden_input("syslog_var_log_syslog"),
            "var/log/app.log": dtail_log,
            # What rsyslog's RSYSLOG_SyslogProtocol23Format template writes
            # (RFC 5424) for the page's five logger calls.
            "rfc5424/syslog-5424.log": (
                "<38>1 2026-12-01T14:00:00.000000+00:00 web-01 sshd 4242 - - "
                "Accepted publickey for ann\n"
                "<78>1 2026-12-01T14:00:01.000000+00:00 web-01 CRON 4243 - - "
                "(root) CMD (run-parts)\n"
                "<131>1 2026-12-01T14:00:02.000000+00:00 web-01 webapp 4244 "
                "- - payment failed\n"
                "<13>1 2026-12-01T14:00:03.000000+00:00 web-01 ann - - - "
                "hello\n"
                "<12>1 2026-12-01T14:00:04.000000+00:00 web-01 ann - - - "
                "careful\n"),
            # A stand-in journalctl (made executable): four entries in the
            # shape of `journalctl -o json`, whatever the options.
            ".bin/journalctl": "#!/bin/sh\ncat <<'EOF'\n" + "".join(
                json.dumps(e, separators=(",", ":")) + "\n" for e in [
                    {"__REALTIME_TIMESTAMP": "1764590400000000",
                     "_HOSTNAME": "web-01", "PRIORITY": "4",
                     "SYSLOG_IDENTIFIER": "kernel",
                     "MESSAGE": "usb 1-1: new high-speed USB device number "
                                "2 using xhci_hcd"},
                    {"__REALTIME_TIMESTAMP": "1764590401000000",
                     "_HOSTNAME": "web-01", "_SYSTEMD_UNIT": "ssh.service",
                     "PRIORITY": "6", "SYSLOG_IDENTIFIER": "sshd",
                     "_PID": "812", "MESSAGE": "Accepted publickey for ann "
                                               "from 10.0.0.7 port 52144 ssh2"},
                    {"__REALTIME_TIMESTAMP": "1764590402000000",
                     "_HOSTNAME": "web-01", "_SYSTEMD_UNIT": "cron.service",
                     "PRIORITY": "6", "SYSLOG_IDENTIFIER": "CRON",
                     "_PID": "901",
                     "MESSAGE": "(root) CMD (run-parts /etc/cron.hourly)"},
                    {"__REALTIME_TIMESTAMP": "1764590403000000",
                     "_HOSTNAME": "web-01", "_SYSTEMD_UNIT": "ssh.service",
                     "PRIORITY": "3", "SYSLOG_IDENTIFIER": "sshd",
                     "_PID": "815",
                     "MESSAGE": "error: kex_exchange_identification: "
                                "Connection closed by remote host"}]) +
                "EOF\n",
            # dpkg's log: lines of no DTail table.
            "var/log/dpkg.log": lambda: "".join(
                "2026-11-30 06:25:%02d status installed pkg%d:amd64 1.%d\n"
                % (i % 60, i, i) for i in range(6422)),
        },
        "env": {"Q": "from STATS select count($line),avg($goroutines) "
                     "group by $hostname",
                "MAPR_DOC_DOWN_HOSTS": "web3"},
        "paths": {"/var/log/syslog-5424.log": "rfc5424/syslog-5424.log",
                  "/var/log/syslog": "var/log/syslog",
                  "/var/log/dpkg.log": "var/log/dpkg.log",
                  "/var/log/app.log": "var/log/app.log"},
        "varies": [(r"(?<=hostname=\")[^\"]+(?=\")", "HOST"),
                   (r"the number of CPUs, \d+", "the number of CPUs, N")],
        # Follow mode: the stories the page tells around each example.
        "drivers": {
            "Follow mode (`--follow`) | mapr --follow --hostname": [
                ("write", "live.log", dtail_lines(0, 300)),
                ("wait", "mapr: following"),
                ("append", "live.log", dtail_lines(300, 450)),
                ("wait", "# end of report"),
                ("append", "live.log", dtail_lines(450, 597)),
                ("wait", "# end of report"),
                ("signal", signal.SIGINT)],
            "Follow mode (`--follow`) | mapr --follow --from-start --delta": [
                ("write", "live.log", dtail_lines(0, 300)),
                ("wait", "# end of report"),
                ("append", "live.log", dtail_lines(300, 450)),
                ("wait", "# end of report"),
                ("append", "live.log", dtail_lines(450, 597)),
                ("signal", signal.SIGTERM)],
            "Follow mode (`--follow`) | mapr --follow --interval-ms 500": [
                ("write", "gen.log", ""),
                ("wait", "mapr: following"),
                ("append", "gen.log", "a\nb\n"),
                ("wait", "# end of report"),
                ("rename", "gen.log", "gen.log.1"),
                ("write", "gen.log", "c\nd\n"),
                ("wait", "# end of report"),
                ("write", "gen.log", "e\n"),
                ("wait", "# end of report"),
                ("write", "missing.log", "f\ng\n"),
                ("wait", "# end of report"),
                ("signal", signal.SIGTERM)],
            "Alerts (`--alert CONDITION`) | mapr --follow --delta --alert "
            "'count($line) >= 5' -o csv": alert_story("alert started",
                                                      "alert ended"),
            "Alerts (`--alert CONDITION`) | mapr --follow --delta --alert "
            "'count($line) >= 5' --alert-format json": alert_story(
                '"started"', '"ended"'),
        },
        "unrun": {
            "Prometheus scraping (`--listen ADDR:PORT`)":
                "a Prometheus server scraping mapr "
                "(tests/cli/prometheus_test.py checks the metrics)",
            "rsyslog (`omprog`)": "a private rsyslogd "
                                  "(tests/daemon/rsyslog_test.py)",
            "Several omprog instances": "a private rsyslogd "
                                        "(tests/daemon/rsyslog_test.py)",
            "Confirmed delivery (`map --omprog`)":
                "a private rsyslogd (tests/daemon/rsyslog_test.py)",
            "Behind syslog-ng (`python()` destination)":
                "a private syslog-ng (tests/daemon/syslog_ng_test.py)",
            "The journal, in process (`--journal`)":
                "the system's journal (tests/daemon/journal_test.py)",
            "journald (`journalctl -f`)": "the system's journal, followed",
        },
    },
    "docs/distributed.md": {
        "fixtures": {"app.log": dtail_log, "var/log/app.log": dtail_log,
                     "hosts.txt": "web1\nweb2\nweb3\n"},
        # The page's query (its first recipe exports it).
        "env": {"Q": "from STATS select count($line),avg($goroutines) "
                     "group by $hostname"},
        "paths": {"/var/log/app.log": "var/log/app.log"},
        "varies": [],
        # The recipes run here (the hosts through the stand-in ssh); every
        # other one is in "unrun".
        "recipes": [
            "GNU parallel | export Q=",
            "GNU parallel | for h in",
            "Partitioned reduce: `--partitions R` | # Map i reads",
            "Partitioned reduce: `--partitions R` | export RUN=",
        ],
        "unrun": {
            "Many hosts over SSH: `mapr remote`":
                "its second line follows the hosts' logs until Ctrl-C "
                "(tests/remote/ssh_test.py runs both against a private "
                "sshd)",
            "Live partials: `mapr map --follow`":
                "follows /var/log/app.log until stopped "
                "(tests/cli/cli_test.py MapFollowTest)",
            "GNU parallel | parallel --sshloginfile":
                "GNU parallel's remote side (perl over ssh, --return) "
                "needs real hosts",
            "Slurm": "sbatch and srun", "Hadoop Streaming": "hadoop jar",
            "Dask": "a Dask cluster (tests/dask/dask_test.py)",
            "A daemon on every host": "tail -F follows for ever "
                                      "(delta_shipper_test runs the shipper)",
            "Partitioned reduce: `--partitions R` | mkdir -p folded":
                "sbatch",
            "Partitioned reduce: `--partitions R` | hadoop jar":
                "hadoop jar",
        },
    },
    "README.md": {
        "fixtures": {"app.log": dtail_log},
        "env": {},
        "paths": {"build/release/bindings/cli/mapr": "mapr",
                  # The example host, from the build tree of the mapr under
                  # test.
                  "examples/log_daemon ": "$MAPR_DOC_BUILD/examples/"
                                          "log_daemon "},
        "drivers": {
            "Example hosts (built and run by the test suite) | "
            "examples/log_daemon": [
                ("wait", "--- interval ---"),
                ("wait", " 6.000000"),
                ("signal", signal.SIGINT)],
        },
        "varies": [],
        "unrun": {
            "Quick start (Debian 12) | scripts/run-sample":
                "builds the project; readme_test runs it on a clean clone",
            "Embedding": "C++: tests/header_examples compiles and runs it",
            "Installing and using the library | import mapr":
                "Python: readme_test runs it with the built module",
        },
    },
}


class Command:
    def __init__(self, line_number, text):
        self.line_number = line_number
        self.text = text
        self.expected = []


class Block:
    def __init__(self, heading, line_number, language=""):
        self.heading = heading
        self.line_number = line_number
        # "sh", "python", ...: a recipe (no output shown), run whole.
        self.language = language
        self.commands = []


def parse_blocks(lines):
    """The example blocks of a page, each with its nearest heading."""
    blocks, heading, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = re.match(r"^#+ (.*)$", line)
        if m:
            heading = m.group(1).strip()
            continue
        if not line.strip().startswith("```"):
            continue
        indent = len(line) - len(line.lstrip())
        language = line.strip()[3:].strip()
        start = i
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        body = [l[indent:] for l in lines[start:i]]
        i += 1
        if language in RECIPE_LANGUAGES and body:
            # A recipe: its lines as one script.
            block = Block(heading, start, language)
            block.commands.append(Command(start + 1, "\n".join(body)))
            blocks.append(block)
            continue
        if not body or not body[0].startswith("$ "):
            continue
        block = Block(heading, start)
        for offset, text in enumerate(body):
            if text.startswith("$ "):
                block.commands.append(Command(start + offset + 1, text[2:]))
            else:
                block.commands[-1].expected.append(text)
        blocks.append(block)
    return blocks


# Fenced blocks of these languages are recipes.
RECIPE_LANGUAGES = ("sh", "bash", "python", "c++", "c")


def normalize(lines, varies):
    out = []
    for line in lines:
        for rx, mark in varies:
            line = re.sub(rx, mark, line)
        out.append(line.rstrip())
    while out and out[-1] == "":
        out.pop()
    return out


def matches(want, got):
    """Whether `got` is `want`, where a line "..." in `want` stands for any
    number of lines."""
    if "..." not in want:
        return want == got
    i = want.index("...")
    head, tail = want[:i], want[i + 1:]
    if got[:len(head)] != head:
        return False
    rest = got[len(head):]
    return any(matches(tail, rest[k:]) for k in range(len(rest) + 1))


def matches_interleaved(want, out, err):
    """Whether `want` is one way a terminal may show `out` and `err`: their
    lines in any interleaving that keeps each stream's own order (stdout
    to a pipe is flushed when mapr likes, stderr at once), where a line
    "..." in `want` stands for any number of lines."""
    @functools.lru_cache(maxsize=None)
    def go(i, j, k):
        if i == len(want):
            return j == len(out) and k == len(err)
        if want[i] == "...":
            return (go(i + 1, j, k) or (j < len(out) and go(i, j + 1, k))
                    or (k < len(err) and go(i, j, k + 1)))
        return ((j < len(out) and out[j] == want[i] and go(i + 1, j + 1, k))
                or (k < len(err) and err[k] == want[i]
                    and go(i + 1, j, k + 1)))

    return go(0, 0, 0)


def equivalent_command(text):
    """OTHER of a trailing `# = OTHER` comment, else None."""
    m = re.search(r"\s#\s*=\s*(.+)$", text)
    return m.group(1).strip() if m else None


def run(text, work, env):
    """(stdout, stderr, both as they arrived, exit status) of one run of a
    command."""
    p = subprocess.Popen(["bash", "-c", text], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    chunks = {p.stdout: [], p.stderr: []}
    merged = []
    sel = selectors.DefaultSelector()
    for pipe in chunks:
        sel.register(pipe, selectors.EVENT_READ)
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                continue
            chunks[key.fileobj].append(data)
            merged.append(data)
    if sel.get_map():
        p.kill()
        p.wait()
        return [], ["timed out after %ds" % TIMEOUT_SECONDS], [], -1
    code = p.wait()
    split = lambda parts: b"".join(parts).decode("utf-8", "replace").split(
        "\n")
    return (split(chunks[p.stdout]), split(chunks[p.stderr]), split(merged),
            code)


def run_driven(text, steps, work, env):
    """Runs the command `text` in the background and drives it through
    `steps` (what another shell and the user do in the page's story):
    ("write", FILE, TEXT) and ("append", FILE, TEXT) change a file, ("wait",
    NEEDLE) waits until the output holds NEEDLE one more time than before,
    ("signal", SIG) sends a signal, ("rename", OLD, NEW) renames a file;
    the changes before the first other step make the files it starts with.
    Returns (stdout, stderr, both as they
    arrived, exit status)."""
    def change(step):
        if step[0] == "rename":
            os.rename(os.path.join(work, step[1]), os.path.join(work, step[2]))
            return
        with open(os.path.join(work, step[1]),
                  "w" if step[0] == "write" else "a") as f:
            f.write(step[2])

    # The files as they are when the story starts.
    steps = list(steps)
    while steps and steps[0][0] in ("write", "append"):
        change(steps.pop(0))
    p = subprocess.Popen(["bash", "-c", "exec " + text], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    chunks = {p.stdout: [], p.stderr: []}
    merged = []
    lock = threading.Lock()

    def reader(pipe):
        while True:
            data = os.read(pipe.fileno(), 65536)
            if not data:
                return
            with lock:
                chunks[pipe].append(data)
                merged.append(data)

    threads = [threading.Thread(target=reader, args=(pipe,), daemon=True)
               for pipe in chunks]
    for t in threads:
        t.start()
    seen = {}
    failure = None
    for step in steps:
        if step[0] in ("write", "append", "rename"):
            change(step)
        elif step[0] == "wait":
            needle = step[1].encode()
            seen[needle] = seen.get(needle, 0) + 1
            deadline = time.monotonic() + TIMEOUT_SECONDS
            while True:
                with lock:
                    count = b"".join(merged).count(needle)
                if count >= seen[needle]:
                    break
                if p.poll() is not None or time.monotonic() > deadline:
                    failure = "never printed %r" % step[1]
                    break
                time.sleep(0.02)
            if failure:
                break
        elif step[0] == "signal":
            p.send_signal(step[1])
    if failure:
        p.kill()
    try:
        code = p.wait(TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        p.kill()
        code = p.wait()
        failure = failure or "did not exit"
    for t in threads:
        t.join(TIMEOUT_SECONDS)
    split = lambda parts: b"".join(parts).decode("utf-8", "replace").split(
        "\n")
    err = split(chunks[p.stderr]) + (["driver: " + failure] if failure
                                     else [])
    return split(chunks[p.stdout]), err, split(merged), code


def run_block(block, page, mapr):
    """[(command, ok, expected, got)] for the block's commands."""
    config = PAGES[page]
    results = []
    with tempfile.TemporaryDirectory(prefix="mapr_pages_") as work:
        bin_dir = os.path.join(work, ".bin")
        os.mkdir(bin_dir)
        os.symlink(mapr, os.path.join(bin_dir, "mapr"))
        with open(os.path.join(bin_dir, "ssh"), "w") as f:
            f.write(SSH_STAND_IN)
        os.chmod(os.path.join(bin_dir, "ssh"), 0o755)
        os.symlink(os.path.join(ROOT, "examples"),
                   os.path.join(work, "examples"))
        for name, text in config["fixtures"].items():
            path = os.path.join(work, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text() if callable(text) else text)
            if name.startswith(".bin/"):
                os.chmod(path, 0o755)
        env = dict(os.environ)
        env.update(config["env"])
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        env["TZ"] = "UTC"
        env["LC_ALL"] = "C"
        env["MAPR_DOC_WORK"] = work
        # The build tree of build/X/bindings/cli/mapr (its example hosts).
        env["MAPR_DOC_BUILD"] = os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.realpath(mapr))))
        varies = config["varies"]
        code = 0
        for command in block.commands:
            text = command.text
            for old, new in config["paths"].items():
                text = text.replace(old, new)
            if block.language:
                # A recipe runs as a script that stops at its first failure;
                # it passes if it ends with 0 (its jobs in the background
                # end with it).
                script = os.path.join(work, ".recipe")
                with open(script, "w", encoding="utf-8") as f:
                    f.write("set -eo pipefail\n" + text + "\nwait\n")
                out, err, _, code = run("bash " + script, work, env)
                results.append((command, code == 0, ["exit status 0"], [
                    "exit status %d" % code] + err))
                continue
            if text.strip() == "echo $?":  # The block's previous command's.
                text = "echo %d" % code
            steps = driver_steps(config, block, command)
            ctrl_c = False
            if steps is not None:
                out, err, merged, code = run_driven(text, steps, work, env)
                ctrl_c = "^C" in command.expected
            else:
                out, err, merged, code = run(text, work, env)
            # What mapr prints names the rewritten paths: name the page's.
            for old, new in config["paths"].items():
                if "/" not in new:
                    continue
                undo = lambda lines: [
                    re.sub(r"(?<![\w/.])" + re.escape(new), old, line)
                    for line in lines]
                out, err, merged = undo(out), undo(err), undo(merged)
            got = [normalize(out + err, varies), normalize(err + out, varies),
                   normalize(merged, varies)]
            want = normalize(command.expected, varies)
            wants = [want]
            if ctrl_c:
                # A terminal echoes Ctrl-C as ^C where the cursor is: on the
                # blank line between two reports, or on a line of its own.
                wants = [["" if l == "^C" else l for l in want],
                         [l for l in want if l != "^C"]]
            other = equivalent_command(text)
            if other is not None and not command.expected:
                wants = [normalize(run(other, work, env)[0], varies)]
                got = [normalize(out, varies)]
            ok = any(matches(w, g) for w in wants for g in got)
            if other is None or command.expected:
                ok = ok or any(matches_interleaved(
                    w, tuple(normalize(out, varies)),
                    tuple(normalize(err, varies))) for w in wants)
            results.append((command, ok, wants[0], got[-1]))
    return results


def driver_steps(config, block, command):
    """The steps of the page's story for `command`, if it is driven."""
    for key, steps in config.get("drivers", {}).items():
        heading, _, prefix = key.partition(" | ")
        if heading == block.heading and command.text.startswith(prefix):
            return steps
    return None


def unrun_key(unrun, block):
    """The UNRUN entry of `block`: "HEADING" for every block under it, or
    "HEADING | PREFIX" for the one whose first command starts with PREFIX;
    None if it is to run."""
    for key in unrun:
        heading, _, prefix = key.partition(" | ")
        if heading == block.heading and \
                block.commands[0].text.startswith(prefix):
            return key
    return None


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    mapr = os.path.abspath(argv[1])
    pages = argv[2:] or list(PAGES)
    failures = commands = 0
    unrun_listed = []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            blocks = parse_blocks(f.read().split("\n"))
        unrun = PAGES[page]["unrun"]
        seen_unrun = set()
        allowed = PAGES[page].get("recipes", [])
        for block in blocks:
            key = unrun_key(unrun, block)
            if key is not None:
                seen_unrun.add(key)
                continue
            if block.language and unrun_key(allowed, block) is None:
                # Never run a recipe nobody looked at: it may need a fleet,
                # write outside its folder, or reach the network.
                failures += 1
                print("FAIL %s:%d (%s): a %s recipe neither in \"recipes\" "
                      "(run) nor in \"unrun\" (with why)" % (
                          page, block.line_number, block.heading,
                          block.language))
                continue
            for command, ok, want, got in run_block(block, page, mapr):
                commands += 1
                if ok:
                    continue
                failures += 1
                print("FAIL %s:%d (%s): $ %s" % (page, command.line_number,
                                                 block.heading, command.text))
                for line in difflib.unified_diff(
                        want, got, "shown (%s)" % page, "printed", lineterm=""):
                    print("  " + line)
        for heading in sorted(set(unrun) - seen_unrun):
            failures += 1
            print("FAIL %s: UNRUN lists \"%s\", which matches no example "
                  "block (take it off)" % (page, heading))
        for heading in sorted(seen_unrun):
            unrun_listed.append("%s, \"%s\": %s" % (page, heading,
                                                    unrun[heading]))
    print("blocks not run (%d):" % len(unrun_listed))
    for line in unrun_listed:
        print("  " + line)
    print("%d passed, %d failed" % (commands - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    if shutil.which("bash") is None:
        sys.stderr.write("bash is required\n")
        sys.exit(2)
    sys.exit(main(sys.argv))
