"""A syslog-ng python() destination that runs a mapr query over the messages.

syslog-ng (3.38, Debian 12) loads it with

    destination d_mapr {
      python(class("mapr_syslogng.MaprDestination")
             batch-lines(100) batch-timeout(200)
             options("query" "select user,count($line) group by user logformat generickv"
                     "output" "/var/lib/mapr/report.csv"));
    };

with this folder and the mapr package on syslog-ng's PYTHONPATH
(docs/cli.md, "Behind syslog-ng"; tests/daemon/syslog_ng_test.py runs it).

Options (strings, as syslog-ng passes them):

  query     the query (required). A bad one fails init(): syslog-ng logs
            the error with its caret and does not start.
  mode      "report" (default): the cumulative result of every message so
            far, written to `output` every interval (temporary file, fsync,
            rename), and the final result when syslog-ng stops. Without
            `output`, a query's `outfile` clause names the file (written as
            the `mapr` command writes it).
            "partials": delta partials appended to `output` every interval,
            as `mapr map --follow` writes them, the last one marked final;
            `mapr reduce` adds up several destinations or instances.
  output    the report or partials file.
  format    report mode: csv (default), json, ndjson or table.
  interval  seconds between writes (a number; default the query's
            `interval` clause, else 5). A write happens only when new
            messages came since the last one, and without any further
            message (a timer thread).
  source    partials mode: the source name of the deltas (default
            syslog-ng-HOST-OUTPUT); each destination and each instance
            needs its own. After a reload or a restart the deltas go on
            after the source's last one in `output`, so `mapr reduce`
            joins them all.
  template  a syslog-ng template for the line (default: the message's
            MESSAGE, unchanged; a multi-line message is one line).
  hostname  the value of $hostname (default: this machine's name).

send() collects the line and returns QUEUED; flush() (called by syslog-ng
per batch-lines()/batch-timeout(), and before stopping) pushes the batch
into the aggregator in one call. The timer thread, send() and flush() take
one lock. deinit() writes the final result. Errors go to syslog-ng's own log
(its internal() source, or standard error with -e); none is dropped silently.
"""

import os
import socket
import struct
import sys
import tempfile
import threading

import mapr

try:  # Inside syslog-ng: its logger and templates.
    import _syslogng
except ImportError:  # Elsewhere (tests, pyflakes): standard error.
    _syslogng = None

_FORMATS = ("csv", "json", "ndjson", "table")
_MODES = ("report", "partials")
_DEFAULT_INTERVAL = 5.0


class _StderrLogger(object):
    """The syslog-ng Logger's methods, to standard error."""

    def _log(self, level, text):
        sys.stderr.write("%s: %s\n" % (level, text))
        sys.stderr.flush()

    def error(self, text):
        self._log("error", text)

    def warning(self, text):
        self._log("warning", text)

    def info(self, text):
        self._log("info", text)

    def debug(self, text):
        pass


def _logger():
    if _syslogng is not None:
        return _syslogng.Logger()
    return _StderrLogger()


def _option(options, name, default=None):
    value = options.get(name, default)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return value


def _last_split(path, source):
    """(end of the last split, its final mark) of the deltas of `source` in
    the partials file `path`; (0, True) when it holds none."""
    end, final = 0, True
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return end, final
    with f:
        offset = 0
        while True:
            head = f.read(32)
            if not head:
                return end, final
            size = struct.unpack_from("<Q", head, 24)[0] if len(
                head) == 32 else 0
            if head[:8] != b"MAPRPART" or size < 32:
                raise ValueError("%s: no partial at byte %d" % (path, offset))
            rest = f.read(size - 32)
            if len(rest) != size - 32:
                raise ValueError("%s: the partial at byte %d is cut short"
                                 % (path, offset))
            info = mapr.inspect_partial(head + rest)
            if info.source == source:
                end, final = info.splits[1], info.final
            offset += size


def _file_mode():
    """0666 less the umask: the mode open() would give a new file."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _write_atomically(path, data, mode):
    """Writes `data` to `path` through a temporary file in the same folder:
    fsync, rename, fsync of the folder. A reader sees the old file or the
    new one, never a part."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path),
                               suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)  # mkstemp's is 0600.
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class MaprDestination(object):
    """syslog-ng python() destination: see the module's docstring."""

    # syslog-ng sets these on the class; the values are its 3.38 ones, for
    # use outside syslog-ng.
    DROP, ERROR, SUCCESS, QUEUED = 0, 1, 3, 4

    def init(self, options):
        self._log = _logger()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._timer = None
        self._pending = []
        self._unwritten = []
        self._dirty = False
        self._lines = 0
        self._pushes = 0
        self._largest_push = 0
        self._writes = 0
        self._failed = False
        try:
            return self._configure(options)
        except Exception as e:  # A clear message, then syslog-ng stops.
            self._log.error("mapr_syslogng: %s" % e)
            return False

    def _configure(self, options):
        text = _option(options, "query")
        if not text:
            self._log.error('mapr_syslogng: options("query" "...") is required')
            return False
        try:
            self._query = mapr.compile(text)
        except mapr.QueryError as e:
            # One log line each: syslog-ng would escape the newlines.
            lines = str(e).splitlines() or [""]
            self._log.error("mapr_syslogng: bad query: " + lines[0])
            for line in lines[1:]:
                self._log.error("mapr_syslogng: " + line)
            return False
        self._mode = _option(options, "mode", "report")
        if self._mode not in _MODES:
            self._log.error("mapr_syslogng: mode %r is not one of %s" %
                            (self._mode, ", ".join(_MODES)))
            return False
        self._format = _option(options, "format", "csv")
        if self._format not in _FORMATS:
            self._log.error("mapr_syslogng: format %r is not one of %s" %
                            (self._format, ", ".join(_FORMATS)))
            return False
        self._output = _option(options, "output")
        if not self._output and not (self._mode == "report" and
                                     self._query.outfile):
            self._log.error('mapr_syslogng: options("output" "FILE") is '
                            "required (in report mode, a query's outfile "
                            "clause will do)")
            return False
        interval = _option(options, "interval")
        if interval is None:
            ms = self._query.interval_ms
            self._interval = ms / 1000.0 if ms > 0 else _DEFAULT_INTERVAL
        else:
            try:
                self._interval = float(interval)
            except ValueError:
                self._interval = 0
            if not self._interval > 0:
                self._log.error("mapr_syslogng: interval %r is not a "
                                "positive number of seconds" % interval)
                return False
        self._template = None
        template = _option(options, "template")
        if template:
            if _syslogng is None:
                self._log.error("mapr_syslogng: template needs syslog-ng")
                return False
            self._template = _syslogng.LogTemplate(template)
        source = None
        splits = None
        if self._mode == "partials":
            source = _option(options, "source") or "syslog-ng-%s-%s" % (
                socket.gethostname(), os.path.abspath(self._output))
            # Delta k covers split k of the source. After a reload or a
            # restart the deltas go on after the source's last one in the
            # file, so that a reduce joins them all.
            first, final = _last_split(self._output, source)
            if not final:
                self._log.warning(
                    "mapr_syslogng: the last partial of source %r in %s is "
                    "not final: the run that wrote it did not end cleanly, "
                    "and the messages it held since are not in it" %
                    (source, self._output))
            splits = (first, first + 1)
        self._source = source
        self._agg = mapr.Aggregator(self._query,
                                    hostname=_option(options, "hostname"),
                                    source=source, splits=splits)
        if self._output and not os.path.isdir(
                os.path.dirname(os.path.abspath(self._output))):
            self._log.error("mapr_syslogng: no folder for output %r" %
                            self._output)
            return False
        self._file_mode = _file_mode()
        self._parts = None
        if self._mode == "partials":
            self._parts = os.open(self._output,
                                  os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                  0o644)
        self._log.info("mapr_syslogng: %s mode, every %g s, to %s: %s" %
                       (self._mode, self._interval,
                        self._output or self._query.outfile,
                        self._query.text))
        return True

    def open(self):
        if self._timer is None:
            self._timer = threading.Thread(target=self._tick,
                                           name="mapr_syslogng timer",
                                           daemon=True)
            self._timer.start()
        return True

    def is_opened(self):
        return self._timer is not None

    def close(self):
        pass

    def send(self, msg):
        if self._template is not None:
            line = self._template.format(msg, self.template_options)
        else:
            line = msg["MESSAGE"]
        with self._lock:
            self._pending.append(line)
        return self.QUEUED

    def flush(self):
        with self._lock:
            return self._push_pending()

    def deinit(self):
        if getattr(self, "_agg", None) is None:  # init() failed.
            return
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
            self._timer = None
        with self._lock:
            self._push_pending()
            try:
                if self._mode == "report":
                    self._write_report(self._agg.finish())
                else:
                    self._write_partial(final=True)
                    os.close(self._parts)
            except Exception as e:
                self._log.error("mapr_syslogng: the final %s was not "
                                "written: %s" % (
                                    "report" if self._mode == "report"
                                    else "partial", e))
                return
            self._log.info(
                "mapr_syslogng: %d lines in %d pushes (at most %d a push), "
                "%d interval writes, then the final %s to %s" %
                (self._lines, self._pushes, self._largest_push, self._writes,
                 "report" if self._mode == "report" else "partial",
                 self._output or self._query.outfile))

    # Below, the caller holds self._lock.

    def _push_pending(self):
        if not self._pending:
            return self.SUCCESS
        lines, self._pending = self._pending, []
        try:
            self._agg.push(lines)
        except Exception as e:
            # Not retried: part of the batch may be counted already.
            self._log.error("mapr_syslogng: %d messages dropped: %s" %
                            (len(lines), e))
            return self.DROP
        self._lines += len(lines)
        self._pushes += 1
        self._largest_push = max(self._largest_push, len(lines))
        self._dirty = True
        return self.SUCCESS

    def _tick(self):
        while not self._stop.wait(self._interval):
            with self._lock:
                if not self._dirty:
                    continue
                try:
                    if self._mode == "report":
                        self._write_report(self._agg.snapshot())
                    else:
                        self._write_partial(final=False)
                    self._dirty = False
                    self._writes += 1
                    if self._failed:
                        self._log.info("mapr_syslogng: writing works again")
                        self._failed = False
                except Exception as e:  # Tried again next interval.
                    if not self._failed:
                        self._log.error("mapr_syslogng: interval write "
                                        "failed: %s" % e)
                    self._failed = True

    def _write_report(self, result):
        if not self._output:
            result.write_outfile(self._query)
            return
        if self._format == "csv":
            text = result.to_csv()
        elif self._format == "json":
            text = result.to_json()
        elif self._format == "ndjson":
            text = result.to_ndjson()
        else:
            text = result.to_table(self._query.limit or 10)
        _write_atomically(self._output,
                          text.encode("utf-8", "surrogateescape"),
                          self._file_mode)

    def _write_partial(self, final):
        # A delta taken is the only copy of its lines: one that could not
        # be written waits in _unwritten for the next try, and a frame
        # written in part is cut off again.
        frame = self._agg.take_delta_partial(final=final)
        self._unwritten.append(frame)
        data = memoryview(b"".join(self._unwritten))
        start = os.fstat(self._parts).st_size
        try:
            while data:
                data = data[os.write(self._parts, data):]
            os.fsync(self._parts)
        except BaseException:
            os.ftruncate(self._parts, start)
            raise
        self._unwritten = []
