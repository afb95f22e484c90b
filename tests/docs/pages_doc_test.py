#!/usr/bin/env python3
"""Runs the examples of docs/cli.md, docs/distributed.md and README.md and
compares what they print with what the pages show.

    python3 tests/docs/pages_doc_test.py [--without-python] \
        build/dev/bindings/cli/mapr [PAGE...]

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

A followed example is driven through the page's story (DRIVERS: lines
appended, waits for a report, Ctrl-C to its process group). A section
whose files and commands belong together (a private rsyslogd or syslog-ng
and its config, the page's "`PATH`:" blocks) is a SESSION: one folder, its
commands in order, `&` jobs in the background, `export` kept, and the
reader's steps between commands (wait for a socket or a report, start and
stop a daemon). A recipe (a ```sh, ```python block) runs when RECIPES or
a driver names it, with EDITS for what the reader does between its lines;
it passes with exit status 0 and, where each print() says what it prints
in a comment, with that output. Fleets are the stand-in ssh (a home per
host where a story gives one), a Dask cluster a LocalCluster.

A block that cannot run here (Slurm, Hadoop, a Prometheus server, this
machine's own journal, a build) is listed in UNRUN by page and heading with
the reason; the test prints the list, so the number of unchecked examples
is visible and can only shrink: a listed heading without such a block
fails the test.
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

from pages_config import NEEDS_PYTHON, PAGES, ROOT, SSH_STAND_IN  # noqa

TIMEOUT_SECONDS = 120
# Python recipes run with Debian's interpreter, which has python3-distributed
# (the pyenv one on PATH may not), and the build's mapr module.
PYTHON = "/usr/bin/python3"


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
        shown = shown_file(lines, start - 2) if not language else None
        if shown is not None and body and not body[0].startswith("$ "):
            # A file the page shows ("`PATH`:" just above): a session
            # writes it where the page says before its commands run.
            block = Block(heading, start, "file")
            block.path, block.executable = shown
            block.text = "\n".join(body) + "\n"
            blocks.append(block)
            continue
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


def shown_file(lines, fence):
    """(PATH, executable) when the paragraph just above the fence at index
    `fence` is "`PATH`:" or "`PATH` (executable...):", else None."""
    i = fence - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    end = i
    while i >= 0 and lines[i].strip():
        i -= 1
    paragraph = " ".join(l.strip() for l in lines[i + 1:end + 1])
    m = re.match(r"^`([^`\s]+)`(.*):$", paragraph)
    if not m or (m.group(2) and not m.group(2).startswith(" (executable")):
        return None
    return m.group(1), bool(m.group(2))


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


def wait_until(condition, alive=lambda: True):
    """Whether `condition()` came true within TIMEOUT_SECONDS, polled while
    `alive()` (the process that would make it true is still running)."""
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while not condition():
        if not alive() or time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def killpg(pgid, sig):
    """Signals the process group, which may have ended already (the recipe
    failed early: its output says why)."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def run_driven(text, steps, work, env):
    """Runs the command `text` in the background and drives it through
    `steps` (what another shell and the user do in the page's story):
    ("write", FILE, TEXT) and ("append", FILE, TEXT) change a file, ("wait",
    NEEDLE) waits until the output holds NEEDLE one more time than before,
    ("wait_size", FILE) until FILE is not empty, ("signal", SIG) sends a
    signal to its process group, ("rename", OLD,
    NEW) renames a file; the changes before the first other step make the
    files it starts with. Returns (stdout, stderr, both as they arrived,
    exit status)."""
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
    # A group of its own, which a signal reaches as a terminal's Ctrl-C
    # reaches the foreground job: every process of a pipeline.
    p = subprocess.Popen(["bash", "-c", "exec " + text], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
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

            def printed(needle=needle):
                with lock:
                    return b"".join(merged).count(needle) >= seen[needle]
            if not wait_until(printed, lambda: p.poll() is None):
                failure = "never printed %r" % step[1]
                break
        elif step[0] == "wait_size":
            # Until the file is there and not empty.
            path = os.path.join(work, step[1])
            if not wait_until(lambda: os.path.exists(path) and
                              os.path.getsize(path) > 0,
                              lambda: p.poll() is None):
                failure = "%s stayed empty" % step[1]
                break
        elif step[0] == "signal":
            killpg(p.pid, step[1])
    if failure:
        killpg(p.pid, signal.SIGKILL)
    try:
        code = p.wait(TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        killpg(p.pid, signal.SIGKILL)
        code = p.wait()
        failure = failure or "did not exit"
    for t in threads:
        t.join(TIMEOUT_SECONDS)
    split = lambda parts: b"".join(parts).decode("utf-8", "replace").split(
        "\n")
    err = split(chunks[p.stderr]) + (["driver: " + failure] if failure
                                     else [])
    return split(chunks[p.stdout]), err, split(merged), code


def expand(new, context):
    """A new path of PATHS with {work}, {mapr}, {root} and {build} filled in:
    the block's folder, the binary under test, the checkout and its build
    tree."""
    for name, value in context.items():
        new = new.replace("{%s}" % name, value)
    return new


def rewrite(text, paths, context):
    """`text` with the page's paths rewritten (PATHS)."""
    for old, new in paths.items():
        text = text.replace(old, expand(new, context))
    return text


def make_folder(work, config, mapr):
    """Fills the scratch folder `work` (fixtures, stand-ins) and returns
    (the environment, the rewrite context) of its commands."""
    bin_dir = os.path.join(work, ".bin")
    os.mkdir(bin_dir)
    os.symlink(mapr, os.path.join(bin_dir, "mapr"))
    with open(os.path.join(bin_dir, "ssh"), "w") as f:
        f.write(SSH_STAND_IN)
    os.chmod(os.path.join(bin_dir, "ssh"), 0o755)
    os.symlink(os.path.join(ROOT, "examples"), os.path.join(work, "examples"))
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
    # A reader's terminal has a login shell; CI's environment may not, and
    # GNU parallel runs remote jobs with $SHELL (none: every job fails
    # without a word).
    env["SHELL"] = "/bin/bash"
    env["MAPR_DOC_WORK"] = work
    # The build tree of build/X/bindings/cli/mapr (its example hosts).
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.realpath(mapr))))
    env["MAPR_DOC_BUILD"] = build
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(build, "bindings", "python")] +
        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    context = {"work": work, "mapr": mapr, "root": ROOT, "build": build}
    return env, context


class Session:
    """What the commands of one folder share: the environment (`export`
    changes it), the jobs started with `&`, the hooks still to run."""

    def __init__(self, env, context, hooks):
        self.env = env
        self.context = context
        self.jobs = []
        self.hooks = list(hooks)

    def start_job(self, text, work):
        self.jobs.append(subprocess.Popen(
            ["bash", "-c", text], cwd=work, env=self.env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True))

    def step(self, step, work, paths):
        """Runs one step of a session's story that the page does not show;
        returns why it failed, or None."""
        if step[0] == "wait_file":
            # Until the file exists (a socket, say) and holds NEEDLE.
            path = os.path.join(work, rewrite(step[1], paths, self.context))

            def holds():
                if not step[2]:
                    return os.path.exists(path)
                try:
                    with open(path, encoding="utf-8",
                              errors="replace") as f:
                        return step[2] in f.read()
                except FileNotFoundError:
                    return False
            if wait_until(holds):
                return None
            return "%s never held %r" % (step[1], step[2])
        if step[0] == "wait_jobs":
            for job in self.jobs:
                try:
                    job.wait(TIMEOUT_SECONDS)
                except subprocess.TimeoutExpired:
                    return "a job started with & did not end"
            return None
        if step[0] == "job":
            self.start_job(rewrite(step[1], paths, self.context), work)
            return None
        if step[0] == "sh":
            out, err, _, code = run(rewrite(step[1], paths, self.context),
                                    work, self.env)
            if code != 0:
                return "story command failed (%d): %s\n%s" % (
                    code, step[1], "\n".join(out + err))
            return None
        raise ValueError("unknown step %r" % (step,))

    def end(self):
        for job in self.jobs:
            if job.poll() is None:
                killpg(job.pid, signal.SIGKILL)
            job.wait()


def run_blocks(blocks, page, mapr, story=None):
    """[(command, ok, expected, got)] for the commands of `blocks`, run in
    one scratch folder; `story` is a session's hooks ([(PREFIX, steps)]:
    in order, each runs before the next command starting with PREFIX)."""
    config = PAGES[page]
    paths = config["paths"]
    results = []
    with tempfile.TemporaryDirectory(prefix="mapr_pages_") as work:
        env, context = make_folder(work, config, mapr)
        session = Session(env, context, story or [])
        try:
            for block in blocks:
                results += run_commands(block, config, work, session)
        finally:
            session.end()
        for prefix, _ in session.hooks:
            results.append((Command(blocks[0].line_number, "(story) " +
                                    prefix), False,
                            ["a command starting with this"], ["none"]))
    return results


def run_commands(block, config, work, session):
    """[(command, ok, expected, got)] for a block, in `session`'s folder."""
    paths = config["paths"]
    results = []
    code = 0
    env = session.env
    if block.language == "file":
        return write_shown_file(block, paths, work, session.context)
    for command in block.commands:
        text = rewrite(command.text, paths, session.context)
        if session.hooks and command.text.startswith(session.hooks[0][0]):
            for step in session.hooks.pop(0)[1]:
                why = session.step(step, work, paths)
                if why:
                    results.append((command, False, [], ["story: " + why]))
                    return results
        if block.language:
            results.append(run_recipe(text, block, command, config, work,
                                      env))
            continue
        m = re.match(r"^export (\w+)=(\S*)$", text)
        if m:
            env[m.group(1)] = m.group(2)
            results.append((command, not command.expected, command.expected,
                            []))
            continue
        if text.rstrip().endswith("&") and not text.rstrip().endswith("&&"):
            # A job in the background: it prints nothing here (the page
            # redirects it) and is stopped at the end of the session.
            session.start_job(text.rstrip()[:-1], work)
            results.append((command, not command.expected, command.expected,
                            []))
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
        results.append(judge(command, text, (out, err, merged), ctrl_c,
                             config, work, env, session.context))
    return results


def write_shown_file(block, paths, work, context):
    """Writes a file the page shows where the page says (rewritten into the
    folder); [] or the failure of a path outside it."""
    path = os.path.normpath(os.path.join(work, rewrite(block.path, paths,
                                                       context)))
    if not path.startswith(work + os.sep):
        # Never write outside the folder: the page's path needs a rewrite
        # in PATHS.
        return [(Command(block.line_number, "(file) " + block.path), False,
                 ["a path in the folder"], [path])]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(rewrite(block.text, paths, context))
    if block.executable:
        os.chmod(path, 0o755)
    return []


def judge(command, text, printed, ctrl_c, config, work, env, context):
    """(command, ok, expected, got): whether what `command` printed
    ((stdout, stderr, both as they arrived)) is what the page shows."""
    varies = config["varies"]
    out, err, merged = printed
    # What mapr prints names the rewritten paths: name the page's.
    for old, new in config["paths"].items():
        new = expand(new, context)
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
        # A terminal echoes Ctrl-C as ^C where the cursor is: on the blank
        # line between two reports, or on a line of its own.
        wants = [["" if l == "^C" else l for l in want],
                 [l for l in want if l != "^C"]]
    other = equivalent_command(text)
    if other is not None and not command.expected:
        wants = [normalize(run(other, work, env)[0], varies)]
        got = [normalize(out, varies)]
    ok = any(matches(w, g) for w in wants for g in got)
    if other is None or command.expected:
        ok = ok or any(matches_interleaved(
            w, tuple(normalize(out, varies)), tuple(normalize(err, varies)))
            for w in wants)
    return command, ok, wants[0], got[-1]


def run_recipe(text, block, command, config, work, env):
    """(command, ok, expected, got) of a recipe: a script that stops at its
    first failure and passes if it ends with 0 (its jobs in the background
    end with it). EDITS put in what the page's reader does between its
    lines (wait for a first partial, stop a daemon), each (OLD, NEW) once;
    a driven recipe gets its story's steps as a command does."""
    for old, new in config.get("edits", {}).get(
            recipe_key(config.get("edits", {}), block, command), []):
        if old not in text:
            return (command, False, ["the recipe holds " + repr(old)],
                    ["it does not (EDITS is stale)"])
        text = text.replace(old, new, 1)
    if block.language == "python":
        script = os.path.join(work, ".recipe.py")
        body, runner = text, PYTHON + " "
    else:
        script = os.path.join(work, ".recipe")
        body, runner = "set -eo pipefail\n" + text + "\nwait\n", "bash "
    with open(script, "w", encoding="utf-8") as f:
        f.write(body)
    steps = driver_steps(config, block, command)
    if steps is not None:
        out, err, _, code = run_driven(runner + script, steps, work, env)
    else:
        out, err, _, code = run(runner + script, work, env)
    want, got = ["exit status 0"], ["exit status %d" % code]
    prints = re.findall(r"^print\(.*?\)(?:\s+#\s*(.*))?$", text, re.M)
    if prints and all(prints):
        # Each print(...) says what it prints in its comment.
        want, got = want + prints, got + normalize(out, [])
    return (command, want == got, want, got + err)


def recipe_key(table, block, command):
    """The key of `table` ("HEADING | PREFIX" or "HEADING") for the recipe
    `command` of `block`, or None."""
    for key in table:
        heading, _, prefix = key.partition(" | ")
        if heading == block.heading and command.text.startswith(prefix):
            return key
    return None


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
        first = block.commands[0].text if block.commands else ""
        if heading == block.heading and first.startswith(prefix) and \
                (first or not prefix):
            return key
    return None


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    argv = list(argv)
    without_python = "--without-python" in argv
    if without_python:
        argv.remove("--without-python")
    mapr = os.path.abspath(argv[1])
    pages = argv[2:] or list(PAGES)
    failures = commands = 0
    unrun_listed = []
    not_in_build = []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            blocks = parse_blocks(f.read().split("\n"))
        unrun = PAGES[page]["unrun"]
        seen_unrun = set()
        allowed = PAGES[page].get("recipes", [])
        sessions = PAGES[page].get("sessions", {})
        runs = []  # (blocks, story), in page order
        for block in blocks:
            key = unrun_key(unrun, block)
            if key is not None:
                seen_unrun.add(key)
                continue
            if without_python and unrun_key(NEEDS_PYTHON.get(page, []),
                                            block) is not None:
                not_in_build.append("%s:%d (%s)" % (page, block.line_number,
                                                    block.heading))
                continue
            if block.heading in sessions:
                # The blocks of a session run in one folder, in order.
                if not runs or runs[-1][1] is None or \
                        runs[-1][0][0].heading != block.heading:
                    runs.append(([], sessions[block.heading]))
                runs[-1][0].append(block)
                continue
            if block.language == "file":
                continue  # a file no session writes: nothing to run
            if block.language and unrun_key(allowed, block) is None:
                # Never run a recipe nobody looked at: it may need a fleet,
                # write outside its folder, or reach the network.
                failures += 1
                print("FAIL %s:%d (%s): a %s recipe neither in \"recipes\" "
                      "(run) nor in \"unrun\" (with why)" % (
                          page, block.line_number, block.heading,
                          block.language))
                continue
            runs.append(([block], None))
        for run_of, story in runs:
            block = run_of[0]
            for command, ok, want, got in run_blocks(run_of, page, mapr,
                                                     story):
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
    if not_in_build:
        print("not run in this build, which has no Python module (%d):" %
              len(not_in_build))
        for line in not_in_build:
            print("  " + line)
    print("%d passed, %d failed" % (commands - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    if shutil.which("bash") is None:
        sys.stderr.write("bash is required\n")
        sys.exit(2)
    sys.exit(main(sys.argv))
