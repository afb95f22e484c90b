"""mapr: DTail-compatible MapReduce queries over log lines, in process.

A query such as

    from STATS select count($line),avg($goroutines) group by $hostname

is compiled once and then aggregates any number of log lines. The engine is
the mapr C++ library; aggregation runs with the GIL released, and lines are
handed over in large chunks, so pushing a list of a million lines costs
little more than the C++ API.

Quick start:

    >>> import mapr
    >>> r = mapr.run("select count($line) group by *", lines=["a", "b", "c"])
    >>> r.to_csv()
    'count($line)\\n3\\n'
    >>> r.rows
    [(3,)]

Files (gzip, zstd, xz and bzip2 files are decompressed):

    r = mapr.run_file("from STATS select count($line) group by *",
                      "app.log.1.xz")

Many files and globs on several threads (the result is the same for any
number; unreadable inputs raise InputError after the run unless
strict=False):

    r = mapr.run_files("from STATS select count($line) group by *",
                       ["app.log", "app.log.*.gz"], threads=4)

Streaming:

    >>> q = mapr.compile("select $line,count($line) group by $line")
    >>> agg = mapr.Aggregator(q)
    >>> agg.push(["x", "y", "x"])
    >>> agg.snapshot().to_dicts()[0]
    {'$line': 'x', 'count($line)': 2}
    >>> agg.finish().stats.lines_read
    3

Errors in a query raise QueryError, which carries the position and a caret
message; other failures raise MaprError. Both have a `.code` such as
"INVALID_ARGUMENT" or "FAILED_PRECONDITION".

Partials (an aggregator's state as bytes, for MapReduce across processes;
mapr.dask runs a query on a Dask cluster this way):

    part = agg.serialize_partial()      # after the input of one split
    agg2 = mapr.Aggregator.from_partial(part)
    agg2.merge_serialized(next_part)    # adjacent splits only
    mapr.inspect_partial(part).splits   # (0, 1)

Contents: compile, run, run_file, run_files, Query, Aggregator, Result,
Stats, MaprError, QueryError, InputError, InputProblem, Progress,
PartialError, PartialInfo, inspect_partial, __version__.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, fields
from typing import (Any, Callable, Iterable, Iterator, List, Optional,
                    Sequence, Tuple, Union)


def _import_failure(error: ImportError) -> str:
    """Why the compiled module _mapr did not import, and what fixes it."""
    import glob
    import sys
    import sysconfig
    here = os.path.dirname(os.path.abspath(__file__))
    built = sorted(os.path.basename(p)
                   for p in glob.glob(os.path.join(here, "_mapr*.so")))
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if not built:
        return ("mapr's compiled module _mapr is missing from %s: build it "
                "(cmake --build ... --target _mapr, or scripts/run-sample) "
                "(%s)" % (here, error))
    if ("_mapr" + suffix) not in built:
        return ("mapr's compiled module in %s was built for another Python "
                "(%s); this is Python %s at %s, which loads _mapr%s: build "
                "it for this interpreter (cmake -DPython_EXECUTABLE=%s ...)"
                % (here, ", ".join(built), sys.version.split()[0],
                   sys.executable, suffix, sys.executable))
    return "mapr's compiled module %s did not load: %s" % (
        os.path.join(here, "_mapr" + suffix), error)


try:  # mapr/_mapr.<abi>.so next to this file, installed or in a build tree.
    from . import _mapr
except ImportError as _error:
    raise ImportError(_import_failure(_error)) from _error

__all__ = [
    "Aggregator",
    "InputError",
    "InputProblem",
    "MaprError",
    "Note",
    "PartialError",
    "PartialInfo",
    "PartialReducer",
    "Progress",
    "inspect_partial",
    "Query",
    "QueryError",
    "Result",
    "Stats",
    "compile",
    "run",
    "run_file",
    "run_files",
]

__version__: str = _mapr.version

_READ_CHUNK = 1 << 20

Lines = Union[Iterable[Union[str, bytes]], bytes, bytearray, memoryview]


class MaprError(Exception):
    """A mapr operation failed.

    Attributes:
        message: the full message (for a query error: position, query line,
            caret underline and possibly a hint).
        code: the canonical status code name, e.g. "FAILED_PRECONDITION"
            (calls in the wrong order), "RESOURCE_EXHAUSTED" (max_groups),
            "INTERNAL".
    """

    def __init__(
        self,
        message: str,
        code: str = "UNKNOWN",
        line: Optional[int] = None,
        column: Optional[int] = None,
        offset: Optional[int] = None,
        length: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.line = line
        self.column = column
        self.offset = offset
        self.length = length

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        # Keeps code and position through pickling (Dask, multiprocessing).
        return (self.__class__, (self.message, self.code, self.line,
                                 self.column, self.offset, self.length))


class QueryError(MaprError, ValueError):
    """A query text is invalid (syntax, unknown names, limits).

    str(error) is the caret message, for example:

        1:8-11: unknown aggregation 'avgg'
        select avgg(x) from STATS
               ^~~~
        hint: did you mean 'avg'?

    Attributes (beyond MaprError's):
        line, column: 1-based position of the offending part, or None.
        offset, length: its byte range in the query text, or None.
    """


class PartialError(MaprError):
    """A partial (serialized aggregator state) was refused or could not be
    made. `.code` tells why, with the same codes as the C++ and C APIs:

        "INVALID_ARGUMENT"     not a partial (empty, text), unknown flag bits,
                               another query's partial, overlapping splits
        "DATA_LOSS"            truncated or corrupt, missing splits
        "FAILED_PRECONDITION"  a newer major version, a call in the wrong
                               phase (merging after finish)
        "RESOURCE_EXHAUSTED"   max_groups
    """


@dataclass(frozen=True)
class InputProblem:
    """A problem with one input of run_files(): the run went on without it
    (or without its rest: the lines read before the problem count).

    Attributes:
        path: the input as given ("-" for standard input) or as its glob
            pattern expanded it, or the pattern that matched nothing.
        code: the canonical status code name: "NOT_FOUND" (a missing file,
            or a pattern that matches nothing), "PERMISSION_DENIED",
            "FAILED_PRECONDITION" (a directory), "DATA_LOSS" (corrupt or
            truncated compressed data), "UNIMPLEMENTED" (a compressed format
            mapr cannot read).
        message: the reason alone, e.g. "No such file or directory",
            "no file matches this pattern", "unexpected end of gzip data".
    """

    path: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class InputError(MaprError):
    """run_files() (with strict=True, the default) could not read every
    input. It is raised after the run, which read everything it could.

    Attributes (beyond MaprError's; `.code` is the first problem's):
        problems: the InputProblems, patterns that matched nothing first,
            then in input order.
        result: the Result of the inputs that could be read (None after
            pickling).

    str(error) names every failed input, one per line:

        could not read 2 of 3 inputs:
          logs/*.gz: no file matches this pattern
          logs/app.log: No such file or directory
    """

    def __init__(
        self,
        message: str,
        code: str = "UNKNOWN",
        problems: Sequence[InputProblem] = (),
        result: Optional["Result"] = None,
    ) -> None:
        super().__init__(message, code)
        self.problems = list(problems)
        self.result = result

    def __reduce__(self):
        # A Result does not pickle: the problems travel without it.
        return (self.__class__, (self.message, self.code, self.problems))


_mapr._set_error_types(MaprError, QueryError, PartialError)


@dataclass(frozen=True)
class Note:
    """A note on a result that is probably not what was meant.

    Attributes:
        code: what it is about: "lines_too_long", "lines_with_nul",
            "empty_input", "no_line_aggregated", "lines_unparsable",
            "input_without_parsed_lines", "values_unparsed",
            "values_not_numeric" or "field_not_found".
        text: one sentence, as `mapr` prints it after "warning: ".
    """

    code: str
    text: str


@dataclass(frozen=True)
class Stats:
    """What happened to the input lines. Every line read is counted once in
    exactly one of the lines_* fields (lines_read is their sum);
    values_unparsed counts values time(), bucket(), duration(), bytes(),
    cidr(), ip_in() or arithmetic could not read.

    The fields are those of the C++ mapr::LineCounters, in its order
    (mapr/result.h, kLineCounterFields; _mapr.line_counters names them, and
    a test checks that this list matches)."""

    lines_read: int = 0
    lines_too_long: int = 0
    lines_table_mismatch: int = 0
    lines_ignored: int = 0
    lines_malformed: int = 0
    lines_unmatched: int = 0
    lines_header: int = 0
    lines_filtered: int = 0
    lines_without_value: int = 0
    lines_aggregated: int = 0
    # Not a line outcome: values time(), bucket(), duration(), bytes(),
    # cidr(), ip_in() or arithmetic could not read.
    values_unparsed: int = 0

    @property
    def lines_matched(self) -> int:
        """Lines that matched the `from` table (not too long, no mismatch)."""
        return self.lines_read - self.lines_too_long - self.lines_table_mismatch

    @property
    def lines_parsed(self) -> int:
        """Lines the log format turned into fields."""
        return (
            self.lines_matched
            - self.lines_ignored
            - self.lines_malformed
            - self.lines_unmatched
            - self.lines_header
        )

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Query:
    """A compiled query: immutable, reusable, safe to share between threads.

    Create with mapr.compile(text).
    """

    __slots__ = ("_q",)

    def __init__(self, compiled: "_mapr.Query") -> None:
        self._q = compiled

    @property
    def text(self) -> str:
        """The query text as given."""
        return self._q.text

    @property
    def columns(self) -> List[str]:
        """Output column names, in order."""
        return self._q.columns

    @property
    def warnings(self) -> List[str]:
        """Compile-time warnings (for example unknown $variables)."""
        return self._q.warnings

    @property
    def log_format(self) -> str:
        """The log format that parses lines (canonical name)."""
        return self._q.log_format

    @property
    def multiline(self) -> Optional[str]:
        """The `multiline` rule (a regex, or a built-in name in lower
        case), or None when the query reads lines, not events."""
        return self._q.multiline

    @property
    def interval_ms(self) -> int:
        """The `interval` in milliseconds (default 5000)."""
        return self._q.interval_ms

    @property
    def limit(self) -> Optional[int]:
        """The `limit`, or None."""
        limit = self._q.limit
        return None if limit < 0 else limit

    @property
    def outfile(self) -> Optional[str]:
        """The `outfile` path, or None."""
        return self._q.outfile

    @property
    def outfile_append(self) -> bool:
        """True for `outfile append ...`."""
        return self._q.outfile_append

    def explain(self) -> str:
        """A multi-line description of the plan."""
        return self._q.explain()

    def __str__(self) -> str:
        """A canonical text that compiles to the same plan."""
        return self._q.to_string()

    def __repr__(self) -> str:
        return f"mapr.compile({self.text!r})"


def compile(  # noqa: A001 - mirrors re.compile
    text: str,
    *,
    max_query_bytes: Optional[int] = None,
    max_depth: Optional[int] = None,
    max_items: Optional[int] = None,
    percentile_exact_values: Optional[int] = None,
    percentile_accuracy: Optional[float] = None,
    allow_file_lookups: bool = False,
) -> Query:
    """Compiles a query text into a Query.

    The optional limits default to the library's (64 KiB, depth 64, 1024
    items). median()/pN() are exact up to percentile_exact_values values
    per group (default 1024), then within percentile_accuracy (default
    0.01). allow_file_lookups lets lookup() read its CSV table when the
    query compiles (off by default). Raises QueryError (with .line, .column
    and a caret message) for any problem in the text, ValueError for
    settings out of range.
    """
    if isinstance(text, Query):
        return text
    if percentile_exact_values is not None and percentile_exact_values < 0:
        raise ValueError("percentile_exact_values must be >= 0")
    return Query(
        _mapr.Query.compile(
            text,
            max_query_bytes or 0,
            max_depth or 0,
            max_items or 0,
            -1 if percentile_exact_values is None else percentile_exact_values,
            percentile_accuracy or 0.0,
            allow_file_lookups,
        )
    )


class Result:
    """A query result: columns, rows and the line counters.

    Attributes:
        columns: column headers (select items as DTail spells them, or
            their `as` alias).
        column_kinds: per column, "count", "sum", "avg", "last", ...
        rows: list of tuples of Python values: count -> int, other
            aggregates -> float (unrounded), last() and group fields -> str.
        cells: list of tuples of str, rendered exactly as DTail does.
        values: list of tuples of float: the number that orders each cell.
        stats: a Stats with the line counters.
        total_groups: number of groups before `limit`.
        notes: list of Note(code, text): what looks wrong about the result
            (lines skipped or unparsable, a field never found, values that
            were not numbers, no input); the `mapr` command prints each
            text as "warning: <text>".
    """

    __slots__ = ("_r", "_rows")

    def __init__(self, table: "_mapr.Result") -> None:
        self._r = table
        self._rows: Optional[List[Tuple[Any, ...]]] = None

    @property
    def columns(self) -> List[str]:
        return self._r.columns

    @property
    def column_kinds(self) -> List[str]:
        return self._r.column_kinds

    @property
    def rows(self) -> List[Tuple[Any, ...]]:
        if self._rows is None:
            self._rows = self._r.rows()
        return list(self._rows)

    @property
    def cells(self) -> List[Tuple[str, ...]]:
        return self._r.cells()

    @property
    def values(self) -> List[Tuple[float, ...]]:
        return self._r.values()

    @property
    def stats(self) -> Stats:
        return Stats(**self._r.stats())

    @property
    def total_groups(self) -> int:
        return self._r.total_groups

    @property
    def notes(self) -> List["Note"]:
        return [Note(code, text) for code, text in self._r.notes]

    def to_dicts(self) -> List[dict]:
        """The rows as dicts keyed by column name (typed values, as rows)."""
        cols = self.columns
        return [dict(zip(cols, row)) for row in self.rows]

    def to_csv(self) -> str:
        """CSV as DTail writes an outfile: header, then one line per row."""
        return self._r.to_csv()

    def to_json(self) -> str:
        """A JSON array of objects keyed by column name."""
        return self._r.to_json()

    def to_ndjson(self) -> str:
        """One JSON object per line."""
        return self._r.to_ndjson()

    def to_table(self, max_rows: Optional[int] = None) -> str:
        """DTail's terminal table, with at most max_rows rows (None: all)."""
        return self._r.to_table(-1 if max_rows is None else max_rows)

    def write_outfile(self, query: Query) -> None:
        """Writes the result to the query's `outfile` as DTail does."""
        query._q.write_outfile(self._r)

    def __len__(self) -> int:
        return self._r.num_rows

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        return iter(self.rows)

    def __getitem__(self, i: int) -> Tuple[Any, ...]:
        return self.rows[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self._r == other._r

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return self.to_table()

    def __repr__(self) -> str:
        return f"<mapr.Result columns={self.columns!r} rows={len(self)}>"


def _as_query(query: Union[Query, str]) -> Query:
    return query if isinstance(query, Query) else compile(query)


class Aggregator:
    """Aggregates lines for one query; one aggregator per input stream.

    Example:
        agg = mapr.Aggregator(q, hostname="web1")
        for batch in batches:
            agg.push(batch)             # iterable of str/bytes lines
            print(agg.snapshot())       # cumulative result so far
        result = agg.finish()

    Options (keyword-only): hostname (the value of $hostname; default: this
    machine's), max_line_bytes (longer lines are counted as too long;
    default 1 MiB), max_groups (0 or None: unlimited; exceeding it raises
    MaprError with code RESOURCE_EXHAUSTED), result_threads (threads that
    sort the groups and render a result, used from about 32768 groups per
    thread; the result is the same for any number; default 1).

    Calls are serialized by a lock, so threads may share an aggregator, but
    the usual pattern is one per thread combined with merge(). Pushing after
    finish() raises MaprError (FAILED_PRECONDITION).
    """

    __slots__ = ("_a", "query")

    def __init__(
        self,
        query: Union[Query, str],
        *,
        hostname: Optional[str] = None,
        max_line_bytes: Optional[int] = None,
        max_groups: Optional[int] = None,
        splits: Optional[Tuple[int, int]] = None,
        result_threads: Optional[int] = None,
        source: Optional[str] = None,
    ) -> None:
        """`splits` = (begin, end): the input splits this aggregator covers,
        for partials (split i of n is (i, i + 1); default (0, 1)).
        `source`: the host (or daemon instance) its partials come from, when
        several number their delta partials each from 0; partials of
        different sources refuse to merge_serialized(), and `mapr reduce`
        adds sources up (docs/distributed.md)."""
        self.query = _as_query(query)
        self._a = _mapr.Aggregator(
            self.query._q, hostname, max_line_bytes, max_groups,
            None if splits is None else tuple(splits), result_threads,
            source,
        )

    @classmethod
    def from_partial(
        cls,
        data: Union[bytes, bytearray, memoryview],
        *,
        hostname: Optional[str] = None,
        max_line_bytes: Optional[int] = None,
        max_groups: Optional[int] = None,
        result_threads: Optional[int] = None,
        partial_lookup_dir: Optional[str] = None,
    ) -> "Aggregator":
        """An open aggregator holding a partial's state, for the query stored
        in it and its splits; merge more with merge_serialized(), or push
        more lines. A partial comes from elsewhere: the lookup() tables its
        query names are read only from inside `partial_lookup_dir` (None:
        such a partial raises PartialError). Raises PartialError."""
        self = cls.__new__(cls)
        self._a = _mapr.Aggregator.from_partial(
            data, hostname, max_line_bytes, max_groups, result_threads,
            partial_lookup_dir)
        self.query = Query(self._a.query())
        return self

    def serialize_partial(self) -> bytes:
        """Ends the input (as finish() does) and returns the aggregator's
        state as a partial: bytes of one MAPRPART frame
        (docs/partial-format.md). finish() still returns the result
        afterwards. Raises PartialError."""
        return self._a.serialize_partial()

    def serialize_partitions(self, count: int) -> List[bytes]:
        """Ends the input (as finish() does) and returns the state as
        `count` partials, one per hash partition of the group keys (frame 0
        also carries the line counters): each partition is merged apart,
        and mapr reduce joins them (docs/distributed.md, "Partitioned
        reduce"). Raises PartialError (INVALID_ARGUMENT unless
        1 <= count <= 65536)."""
        return self._a.serialize_partitions(count)

    def merge_serialized(self, data: Union[bytes, bytearray, memoryview]) -> None:
        """Validates the partial `data` completely, then adds it: same query,
        splits adjacent to this aggregator's (before or after). On error
        (PartialError) the aggregator is unchanged, except for max_groups."""
        self._a.merge_serialized(data)

    def take_delta_partial(self, *, final: bool = False) -> bytes:
        """The partial of the lines pushed since the previous call (or
        creation); then resets the state and counters, like take_delta().
        Successive deltas cover successive splits, so a central reducer sees
        a missing one. `final=True` marks the stream's last delta (`mapr
        inspect` says `final: yes`, and reduce knows the source complete)
        and first completes unfinished bytes and multi-line events. Raises
        PartialError."""
        return self._a.take_delta_partial(final)

    def push(self, lines: Lines, *, source: int = 0) -> None:
        """Aggregates lines.

        `lines` is an iterable of str or bytes, one line each (a trailing
        newline is ignored), for example a list or a generator. A bytes-like
        object (bytes, bytearray, memoryview) is instead a raw chunk of a
        byte stream, as push_bytes. An open file (text or binary) is read to
        its end in large chunks, which is much faster than iterating it.
        `source` identifies the input stream (formats like CSV keep one
        header per source).
        """
        if isinstance(lines, (bytes, bytearray, memoryview)):
            self._a.push_bytes(lines, source)
        elif isinstance(lines, io.IOBase) and lines.readable():
            # An open file: read big chunks instead of making one object
            # per line, and end the stream at EOF.
            while True:
                chunk = lines.read(_READ_CHUNK)
                if not chunk:
                    break
                if isinstance(chunk, str):
                    chunk = chunk.encode("utf-8", "surrogateescape")
                self._a.push_bytes(chunk, source)
            self._a.end_source(source)
        elif isinstance(lines, str):
            raise TypeError(
                "push() takes an iterable of lines, not a str; "
                "use push([line]) or push_bytes(text.encode())"
            )
        else:
            self._a.push_lines(lines, source)

    def push_bytes(self, data: Union[bytes, bytearray, memoryview], *,
                   source: int = 0) -> None:
        """Aggregates a chunk of a byte stream; chunks may cut lines
        anywhere (an unfinished last line waits for the next chunk or for
        end_source()/finish())."""
        self._a.push_bytes(data, source)

    def push_file(self, path: Union[str, os.PathLike], *, source: int = 0) -> None:
        """Reads and aggregates a whole file (in C++, without the GIL).

        The file is read as the `mapr` command reads it (mapr/input.h):
        gzip, zstd, xz and bzip2 files are decompressed, recognized by
        their first bytes whatever their name; lz4, lzip, compress (.Z), 7z
        and zip files are refused (MaprError, code "UNIMPLEMENTED"), never
        read as text. The file is the byte stream of `source`, ended at the
        end of the file. A missing or unreadable file raises
        FileNotFoundError or PermissionError; truncated or corrupt
        compressed data raises MaprError (code "DATA_LOSS") naming the
        file, after the lines before the damage were aggregated.
        """
        self._a.push_file(os.fspath(path), source)

    def push_journal(self, files: Sequence[Union[str, os.PathLike]] = (),
                     *, directory: Union[str, os.PathLike, None] = None,
                     after_cursor: str = "") -> str:
        """Reads systemd's journal (in C++, without the GIL) and returns the
        cursor of the last entry read, to resume from with after_cursor.

        Each entry is one JSON line as `journalctl -o json --all` prints
        it, for a query with `logformat journal`. Reads the journal files
        `files`, else the folder `directory`, else the local system's
        journal. A missing file raises FileNotFoundError; a malformed
        cursor MaprError (code "INVALID_ARGUMENT"); a mapr built without
        libsystemd MaprError (code "UNIMPLEMENTED").
        """
        return self._a.push_journal(
            [os.fspath(f) for f in files],
            os.fspath(directory) if directory is not None else "",
            after_cursor)

    def end_source(self, source: int = 0) -> None:
        """Ends a source: aggregates the unfinished last line of its byte
        stream (and, for a `multiline` query, its last event) and frees its
        parser. Lines pushed for it afterwards begin a new input (a csv
        source starts with its header again); its name is kept."""
        self._a.end_source(source)

    def set_source_name(self, source: int, name: str) -> None:
        """Names a source (a file's path, say) for the $file variable; a
        source never named has an empty $file. push_file names its source
        with the path itself."""
        self._a.set_source_name(source, name)

    def merge(self, later: "Aggregator") -> None:
        """Adds the state of `later` (same query; its lines come after this
        one's). `later` is emptied and cannot be used afterwards."""
        self._a.merge(later._a)

    def snapshot(self) -> Result:
        """The cumulative result so far; the state is kept."""
        return Result(self._a.snapshot())

    def take_delta(self) -> Result:
        """The result since the previous delta; resets groups and counters
        (DTail's tail mode)."""
        return Result(self._a.take_delta())

    def finish(self) -> Result:
        """Ends the input and returns the final result (once)."""
        return Result(self._a.finish())

    @property
    def stats(self) -> Stats:
        """The line counters so far."""
        return Stats(**self._a.stats())


@dataclass(frozen=True)
class PartialInfo:
    """What a partial holds (inspect_partial)."""

    major: int
    minor: int
    query: str
    log_format: str
    fingerprint: Tuple[int, int]  # XXH3-128 (low, high)
    splits: Tuple[int, int]  # the coverage [begin, end)
    stats: Stats
    groups: int
    frame_bytes: int
    source: str = ""  # Aggregator(source=...); "" without one
    final: bool = False  # the last delta of a `mapr map --follow` stream
    # (input, offset): how far each input of the stream was read.
    positions: Tuple[Tuple[str, int], ...] = ()
    # A hash-partitioned partial: partition `partition` of `partitions`
    # (0 partitions: not partitioned).
    partitions: int = 0
    partition: int = 0


def inspect_partial(data: Union[bytes, bytearray, memoryview]) -> PartialInfo:
    """Validates one partial (magic, versions, sizes, checksum) and returns
    its header facts. Raises PartialError."""
    d = _mapr.inspect_partial(data)
    d["stats"] = Stats(**d["stats"])
    d["positions"] = tuple(d["positions"])
    return PartialInfo(**d)


class PartialReducer:
    """Merges the partials of several sources (hosts, daemon instances),
    each numbering its own splits, into one result (mapr::PartialReducer):
    the sources add up in the order declare_source() gives, then in the
    order first met; within a source, partials join by the split rules of
    Aggregator.merge_serialized(). Hash-partitioned partials
    (Aggregator.serialize_partitions) join across partitions; feeding them
    one partition at a time and calling end_partition() after each keeps
    only the groups the result can show (`order by ... limit N`), so the
    reducer holds one partition plus the result's rows. Not for concurrent
    use from several threads at once (calls are serialized)."""

    __slots__ = ("_r",)

    def __init__(self, *, hostname: Optional[str] = None,
                 max_groups: Optional[int] = None,
                 result_threads: Optional[int] = None,
                 partial_lookup_dir: Optional[str] = None) -> None:
        """`partial_lookup_dir`: as for Aggregator.from_partial."""
        self._r = _mapr.PartialReducer(hostname, max_groups, result_threads,
                                       partial_lookup_dir)

    def declare_source(self, source: str) -> None:
        """Places `source` after the sources declared or met so far."""
        self._r.declare_source(source)

    def add(self, data: Union[bytes, bytearray, memoryview]) -> None:
        """Adds one partial to its source's state. Raises PartialError
        (prefixed "source 'NAME': " for a source's split errors)."""
        self._r.add(data)

    def end_partition(self, index: int) -> None:
        """Ends partition `index` of partitioned partials: its sources are
        merged and cut down to the groups the result can show; later
        partials of it are refused. Raises PartialError."""
        self._r.end_partition(index)

    def result(self) -> "Result":
        """The result over everything added so far (the state is kept)."""
        return Result(self._r.result())

    def take_result(self) -> "Result":
        """The same result, taking the state (the reducer is then empty)."""
        return Result(self._r.take_result())


_NOT_LINES = (
    "run() takes lines, not a {0}: use run(query, lines=[...]) for lines "
    "in memory, or run_file(query, path) to read a file"
)


def run(
    query: Union[Query, str],
    lines: Lines,
    *,
    hostname: Optional[str] = None,
    max_line_bytes: Optional[int] = None,
    max_groups: Optional[int] = None,
    result_threads: Optional[int] = None,
) -> Result:
    """Runs a query over lines in memory and returns the final Result.

    `query` is a Query or a query text. `lines` is one of:
      - an iterable of str or bytes lines (a list, a generator);
      - an open file object (text or binary), read to its end in chunks;
      - a bytes-like object: raw bytes, split into lines at '\\n'.
    A str or a path is refused with TypeError, since a str could be a line
    or a file name: pass lines=[text], or call run_file(query, path). The
    keyword options are those of Aggregator.
    """
    if isinstance(lines, str):
        raise TypeError(_NOT_LINES.format("str"))
    if isinstance(lines, os.PathLike):
        raise TypeError(_NOT_LINES.format("path"))
    agg = Aggregator(
        query, hostname=hostname, max_line_bytes=max_line_bytes,
        max_groups=max_groups, result_threads=result_threads,
    )
    agg.push(lines)
    return agg.finish()


def run_file(
    query: Union[Query, str],
    path: Union[str, bytes, os.PathLike],
    *,
    hostname: Optional[str] = None,
    max_line_bytes: Optional[int] = None,
    max_groups: Optional[int] = None,
    result_threads: Optional[int] = None,
) -> Result:
    """Runs a query over the lines of a file and returns the final Result.

    The file is read in C++ as Aggregator.push_file reads it: gzip, zstd,
    xz and bzip2 files are decompressed; lz4, lzip, compress (.Z), 7z and
    zip files raise MaprError (code "UNIMPLEMENTED"). `path` is a str,
    bytes or os.PathLike. The keyword options are those of Aggregator.
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(
            "run_file() takes a path (str, bytes or os.PathLike), not a "
            f"{type(path).__name__}; use run(query, lines=...) for lines")
    agg = Aggregator(
        query, hostname=hostname, max_line_bytes=max_line_bytes,
        max_groups=max_groups, result_threads=result_threads,
    )
    agg.push_file(path)
    return agg.finish()


@dataclass(frozen=True)
class Progress:
    """How far a run_files() run is (the on_progress callback's argument).

    Attributes:
        bytes_read: bytes read from the inputs (compressed bytes for
            compressed input).
        total_bytes: the inputs' total size, or None when some input is not
            a regular file (standard input, a pipe).
        lines: lines read so far.
        elapsed: seconds since the run started.
        done: True for the last call only: every input has been read.
    """

    bytes_read: int
    total_bytes: Optional[int]
    lines: int
    elapsed: float
    done: bool


_Path = Union[str, bytes, os.PathLike]


def _file_names(paths: Union[_Path, Iterable[_Path]]) -> List[bytes]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    elif isinstance(paths, (bytearray, memoryview)) or not isinstance(
            paths, Iterable):
        raise TypeError(
            "run_files() takes a path or an iterable of paths (str, bytes or "
            f"os.PathLike), not a {type(paths).__name__}")
    names = []
    for p in paths:
        if not isinstance(p, (str, bytes, os.PathLike)):
            raise TypeError(
                "run_files() takes paths (str, bytes or os.PathLike), not a "
                f"{type(p).__name__}")
        names.append(os.fsencode(p))
    if not names:
        raise ValueError(
            "run_files() needs at least one path ('-' reads standard input)")
    return names


def run_files(
    query: Union[Query, str],
    paths: Union[_Path, Iterable[_Path]],
    *,
    threads: Optional[int] = None,
    strict: bool = True,
    on_problem: Optional[Callable[[InputProblem], None]] = None,
    on_progress: Optional[Callable[[Progress], None]] = None,
    progress_interval: float = 0.25,
    hostname: Optional[str] = None,
    max_line_bytes: Optional[int] = None,
    max_groups: Optional[int] = None,
) -> Result:
    """Runs a query over files and glob patterns on several threads and
    returns the final Result: what the `mapr` command does with its files
    (mapr::QueryFiles in C++).

    `paths` is one path or an iterable of them (str, bytes or os.PathLike),
    expanded in order: "-" is standard input; a name with a glob character
    ('*', '?', '[') that does not exist as given is a pattern, replaced by
    its matches in sorted order. Each input is its own source ($file is its
    name), read as run_file() reads a file (gzip, zstd, xz and bzip2 are
    decompressed). The inputs are read in C++ on `threads` threads (None:
    one per CPU, os.cpu_count(), as the `mapr` command) without the GIL and
    merged in input order, so the result, last() included, is the same for
    any number of threads.

    A problem with one input (a missing file, a pattern that matches
    nothing, truncated compressed data) does not stop the run. Each is
    passed, as an InputProblem, to `on_problem` as it is found; then, if
    `strict` (the default), InputError is raised after the run, naming
    every failed input and holding the result of the others. With
    strict=False the result is returned and on_problem is the only report.

    `on_progress`, if given, is called with a Progress about every
    `progress_interval` seconds while the run reads, and once at the end
    with done=True. The callbacks run on the calling thread, one at a time,
    with the GIL held; if one raises, the run goes on without calling
    either again, and the exception is raised when it ends.

    Engine errors raise MaprError as run_file() does (code
    "RESOURCE_EXHAUSTED" for max_groups); a query text that does not compile
    raises QueryError. hostname, max_line_bytes and max_groups are those of
    Aggregator; every aggregator of the run uses `threads` result threads.
    """
    q = _as_query(query)
    names = _file_names(paths)
    if threads is None:
        threads = os.cpu_count() or 1
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, not {threads!r}")

    def problem(name: bytes, code: str, message: str) -> None:
        on_problem(InputProblem(os.fsdecode(name), code, message))

    def progress(bytes_read: int, total_bytes: int, lines: int,
                 elapsed: float, done: bool) -> None:
        on_progress(Progress(bytes_read, total_bytes or None, lines, elapsed,
                             done))

    table, inputs_ok, inputs_failed, problems = _mapr.query_files(
        q._q, names, threads, hostname, max_line_bytes, max_groups,
        None if on_problem is None else problem,
        None if on_progress is None else progress, progress_interval)
    result = Result(table)
    if strict and problems:
        found = [InputProblem(os.fsdecode(n), c, m) for n, c, m in problems]
        total = inputs_ok + inputs_failed
        lines = [f"could not read {inputs_failed} of {total} "
                 f"input{'s' if total != 1 else ''}:"]
        lines += [f"  {p}" for p in found]
        raise InputError("\n".join(lines), found[0].code, found, result)
    return result
