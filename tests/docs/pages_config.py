"""What tests/docs/pages_doc_test.py needs to run each page's examples:
the files a page names, its environment, path rewrites, what varies, the
stories around followed examples, the sessions of daemon examples and the
blocks that cannot run here (with why)."""

import json
import os
import signal

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
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
# command here, in the block's folder (or in .hosts/HOST, where a story
# gives a host a home of its own), except for the hosts in
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
[ "$1" = "--" ] && shift
for down in $MAPR_DOC_DOWN_HOSTS; do
  if [ "$host" = "$down" ]; then
    echo "ssh: connect to host $host port 22: Connection refused" >&2
    exit 255
  fi
done
home=$MAPR_DOC_WORK
[ -d "$home/.hosts/$host" ] && home=$home/.hosts/$host
cd "$home" && exec bash -c "$*"
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


def rsyslog_story():
    """The first rsyslog recipe's messages, through the section's own
    rsyslog.conf (written from the page): the story before its commands."""
    logger = "logger -u /tmp/mapr-rsyslog/log.sock "
    return [("sh", "mkdir -p /tmp/mapr-rsyslog/parts"),
            ("job", "rsyslogd -n -f /tmp/mapr-rsyslog/rsyslog.conf "
                    "-i /tmp/mapr-rsyslog/rsyslogd.pid"),
            ("wait_file", "/tmp/mapr-rsyslog/log.sock", ""),
            ("sh", "printf 'user=alice|status=200|bytes=512\\nuser=bob|"
                   "status=404|bytes=0\\n' | " + logger + "-t webapp"),
            ("sh", logger + "-t cron 'user=alice|status=200|bytes=999'"),
            ("sh", "printf 'user=alice|status=200|bytes=2048\\nuser=carol|"
                   "status=500|bytes=17\\n' | " + logger + "-t webapp"),
            # rsyslog drops what is still in its queue when it stops: the
            # reader stops it once the copies' partials hold all four.
            ("sh", "until mapr reduce -o csv /tmp/mapr-rsyslog/parts/*.parts "
                   "2>/dev/null | awk -F, 'NR > 1 { n += $2 } "
                   "END { exit n != 4 }'; do sleep 0.05; done"),
            ("sh", "kill $(cat /tmp/mapr-rsyslog/rsyslogd.pid)"),
            ("wait_jobs",)]


def journal_export():
    """Six entries of another machine's journal (export format), three in
    each of two hours."""
    out = []
    for i, (minute, unit, message) in enumerate([
            (2, "ssh.service", "Accepted publickey for ann"),
            (15, "cron.service", "(root) CMD (run-parts /etc/cron.hourly)"),
            (48, "ssh.service", "Disconnected from user ann"),
            (63, "nginx.service", "worker process 812 exited on signal 9"),
            (75, "cron.service", "(root) CMD (run-parts /etc/cron.hourly)"),
            (118, "ssh.service", "Accepted publickey for bob")]):
        t = 1764597600 + minute * 60  # 2026-12-01 14:00 UTC
        out.append("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n"
                   "_BOOT_ID=5e0c7b4d2c1f4a3e9d8b7a6f5e4d3c2b\n"
                   "_HOSTNAME=old-root\n_SYSTEMD_UNIT=%s\nPRIORITY=6\n"
                   "MESSAGE=%s\n\n" % (t * 1000000, (i + 1) * 1000000,
                                        unit, message))
    return "".join(out)


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
            # shape of `journalctl -o json`, whatever the options; with -f
            # (`-o cat -f -n 0 -t webapp`) the messages the page's story
            # appends to journal.follow, as they come.
            ".bin/journalctl": "#!/bin/sh\ncase \" $* \" in *\" -f \"*)\n"
                               "  exec tail -n +1 -F \"$MAPR_DOC_WORK/"
                               "journal.follow\" 2>/dev/null ;;\nesac\n"
                               "cat <<'EOF'\n" + "".join(
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
            # A journal in systemd's export format, which the session of
            # "The journal, in process" turns into a journal file.
            "journal.export": journal_export,
            # dpkg's log: lines of no DTail table.
            "var/log/dpkg.log": lambda: "".join(
                "2026-11-30 06:25:%02d status installed pkg%d:amd64 1.%d\n"
                % (i % 60, i, i) for i in range(6422)),
        },
        "env": {"Q": "from STATS select count($line),avg($goroutines) "
                     "group by $hostname",
                "MAPR_DOC_DOWN_HOSTS": "web3"},
        "paths": {"/tmp/mapr-rsyslog": "{work}/mapr-rsyslog",
                  "/tmp/mapr-syslog-ng": "{work}/mapr-syslog-ng",
                  "/usr/local/src/mapr/build/release": "{build}",
                  "/usr/local/src/mapr": "{root}",
                  "/usr/local/bin/mapr": "{mapr}",
                  "/mnt/old-root/var/log/journal": "old-root-journal",
                  "/var/log/syslog-5424.log": "rfc5424/syslog-5424.log",
                  "/var/log/syslog": "var/log/syslog",
                  "/var/log/dpkg.log": "var/log/dpkg.log",
                  "/var/log/app.log": "var/log/app.log"},
        "varies": [(r"(?<=hostname=\")[^\"]+(?=\")", "HOST"),
                   (r"the number of CPUs, \d+", "the number of CPUs, N"),
                   # syslog-ng's log: its times, and how many intervals
                   # passed with new messages (the story waits for them).
                   (r"^\[\d{4}-\d\d-\d\dT[\d:.]+\] ", "[TIME] "),
                   (r"\b\d+ interval writes", "N interval writes"),
                   # and how syslog-ng batched them (on a loaded machine a
                   # batch's 200 ms may end between two logger calls).
                   (r"\b\d+ pushes \(at most \d+ a push\)",
                    "N pushes (at most M a push)")],
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
            "journald (`journalctl -f`) | journalctl -o cat -f": [
                ("write", "journal.follow", ""),
                ("wait", "mapr: following"),
                ("append", "journal.follow",
                 "user=alice|status=200|bytes=512\n"
                 "user=bob|status=404|bytes=0\n"),
                ("wait", "# end of report"),
                ("append", "journal.follow",
                 "user=alice|status=200|bytes=2048\n"
                 "user=carol|status=500|bytes=17\n"),
                ("wait", "# end of report"),
                ("signal", signal.SIGINT)],
            "Alerts (`--alert CONDITION`) | mapr --follow --delta --alert "
            "'count($line) >= 5' -o csv": alert_story("alert started",
                                                      "alert ended"),
            "Alerts (`--alert CONDITION`) | mapr --follow --delta --alert "
            "'count($line) >= 5' --alert-format json": alert_story(
                '"started"', '"ended"'),
        },
        # The daemon recipes: each section's files and commands in one
        # folder, with what the page's reader does between the commands.
        "sessions": {
            "rsyslog (`omprog`)": [
                ("printf 'user=alice|status=200|bytes=512", [
                    ("wait_file", "/tmp/mapr-rsyslog/log.sock", "")]),
                # "A second passed between the groups of commands."
                ("printf 'user=alice|status=200|bytes=2048", [
                    ("wait_file", "/tmp/mapr-rsyslog/report.csv",
                     "# end of report 1")]),
                ("kill $(cat /tmp/mapr-rsyslog/rsyslogd.pid)", [
                    ("wait_file", "/tmp/mapr-rsyslog/report.csv",
                     "# end of report 2")]),
                ("cat /tmp/mapr-rsyslog/report.csv", [("wait_jobs",)]),
            ],
            "Several omprog instances": [("mapr reduce", rsyslog_story())],
            "Confirmed delivery (`map --omprog`)": [
                ("mapr map --omprog", rsyslog_story())],
            "The journal, in process (`--journal`)": [
                ("mapr --journal-dir", [
                    ("sh", "mkdir -p /mnt/old-root/var/log/journal && "
                           "for j in /lib/systemd/systemd-journal-remote "
                           "/usr/lib/systemd/systemd-journal-remote; do "
                           "[ -x $j ] && break; done && "
                           "$j -o /mnt/old-root/var/log/journal/"
                           "system.journal - < journal.export")])],
            "Behind syslog-ng (`python()` destination)": [
                ("logger -u /tmp/mapr-syslog-ng/log.sock", [
                    ("wait_file", "/tmp/mapr-syslog-ng/log.sock", "")]),
                ("cat /tmp/mapr-syslog-ng/report.csv", [
                    ("wait_file", "/tmp/mapr-syslog-ng/report.csv", "bob,")]),
                # "A second passed between the groups of commands": the
                # messages are in before the stop.
                ("kill $(cat /tmp/mapr-syslog-ng/syslog-ng.pid)", [
                    ("wait_file", "/tmp/mapr-syslog-ng/report.csv",
                     "carol,")]),
                ("cat /tmp/mapr-syslog-ng/report.csv", [("wait_jobs",)]),
            ],
        },
        "unrun": {
            "Prometheus scraping (`--listen ADDR:PORT`)":
                "a Prometheus server scraping mapr "
                "(tests/cli/prometheus_test.py checks the metrics)",
            "The journal, in process (`--journal`) | mapr --journal -o csv":
                "the machine's own journal (tests/daemon/journal_test.py "
                "compares --journal with journalctl on journal files)",
            "The journal, in process (`--journal`) | mapr --journal "
            "--follow": "follows the machine's own journal until stopped "
                        "(tests/daemon/journal_test.py resumes a cursor "
                        "file through kills)",
        },
    },
    "docs/distributed.md": {
        "fixtures": {"app.log": dtail_log, "var/log/app.log": dtail_log,
                     "logs/app.log": dtail_log,
                     # Eight rotated logs, 50 to 400 lines of DTail's.
                     **{"logs/app.log.%d" % i: dtail_lines(0, 50 * i)
                        for i in range(1, 9)},
                     "hosts.txt": "web1\nweb2\nweb3\n"},
        # The page's query (its first recipe exports it).
        "env": {"Q": "from STATS select count($line),avg($goroutines) "
                     "group by $hostname"},
        "paths": {"/var/log/app.log": "var/log/app.log",
                  "/var/spool/mapr/outbox": "outbox",
                  "| delta_shipper": "| $MAPR_DOC_BUILD/examples/"
                                     "delta_shipper",
                  "/logs/": "logs/"},
        "varies": [],
        # What the reader does between a recipe's lines.
        "edits": {
            # The first delta is out before inspect reads the file; the
            # follow ends when the reader is done.
            "Live partials: `mapr map --follow` | mapr map --follow "
            "--interval-ms": [
                ("> live.parts &\n", "> live.parts &\n"
                 "until [ -s live.parts ]; do sleep 0.05; done\n"),
                ("# everything so far", "# everything so far\n"
                 "kill -INT %1")],
            # The log ends (its tail is stopped) once a delta is shipped.
            "A daemon on every host": [
                ('"$(hostname)"\n', '"$(hostname)" &\n'
                 "until ls outbox/*.part >/dev/null 2>&1; do sleep 0.05; "
                 "done\n"),
                ("mapr reduce outbox/*.part",
                 "mapr reduce outbox/*.part\nkill %1")],
            # Each host of hosts.txt gets a home of its own (the stand-in
            # ssh runs its commands there) that sees the shared logs/, so
            # --return and --cleanup move real files.
            "GNU parallel | parallel --sshloginfile": [
                ("parallel --sshloginfile",
                 "for h in web1 web2 web3; do mkdir -p .hosts/$h; "
                 "ln -s ../../logs .hosts/$h/logs; done\n"
                 "parallel --sshloginfile")],
            # The cluster is a LocalCluster in this process; the page's
            # Q and paths, app.log.1.gz made from app.log.
            "Dask": [
                ("import mapr.dask\n",
                 "import gzip, os, shutil\n"
                 "from distributed import LocalCluster\n"
                 "import mapr.dask\n"
                 "Q = os.environ['Q']\n"
                 "paths = ['logs/app.log']\n"
                 "with open('logs/app.log', 'rb') as i, "
                 "gzip.open('logs/app.log.1.gz', 'wb') as o:\n"
                 "    shutil.copyfileobj(i, o)\n"),
                ('Client("scheduler:8786")',
                 "Client(LocalCluster(n_workers=2, processes=False, "
                 "dashboard_address=None))")],
        },
        # Followed recipes: the page's story (more lines in the hosts'
        # log, then Ctrl-C).
        "drivers": {
            "Many hosts over SSH: `mapr remote`": [
                ("wait", "3 hosts: 3 reporting"),
                ("append", "var/log/app.log", dtail_lines(0, 100)),
                ("wait", "# end of report"),
                ("signal", signal.SIGINT)],
            "Live partials: `mapr map --follow` | mapr map --follow "
            "--resume-from": [
                ("wait_size", "live.parts"),
                ("signal", signal.SIGINT)],
        },
        # The recipes run here (the hosts through the stand-in ssh); every
        # other one is in "unrun".
        "recipes": [
            "GNU parallel | export Q=",
            "GNU parallel | for h in",
            "Partitioned reduce: `--partitions R` | # Map i reads",
            "Partitioned reduce: `--partitions R` | export RUN=",
            "GNU parallel | parallel --sshloginfile",
            "Many hosts over SSH: `mapr remote`",
            "Live partials: `mapr map --follow`",
            "A daemon on every host",
            "Dask",
        ],
        "unrun": {
            "Slurm": "sbatch and srun", "Hadoop Streaming": "hadoop jar",
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
        # The Python example runs with the build's module.
        "recipes": ["Installing and using the library | import mapr"],
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
        },
    },
}


# The blocks that need the mapr Python module (by page: "HEADING" or
# "HEADING | PREFIX"); a build without it (no pybind11, a sanitizer build,
# whose module no plain interpreter loads) runs the test with
# --without-python, and they are named as not run in that build.
NEEDS_PYTHON = {
    "docs/cli.md": ["Behind syslog-ng (`python()` destination)"],
    "docs/distributed.md": ["Dask"],
    "README.md": ["Installing and using the library | import mapr"],
}
