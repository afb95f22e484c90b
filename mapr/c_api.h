/* mapr/c_api.h: the C interface to mapr.
 *
 * A C11 interface over the C++ API for hosts written in C and for foreign
 * function interfaces (Rust, Go, Zig, ctypes). It compiles a query, feeds it
 * log lines, and reads or renders the result, with the same semantics as
 * mapr/query.h, mapr/aggregator.h and mapr/result.h. It is implemented in
 * bindings/c/c_api.cc and is part of libmapr (static and shared).
 *
 * Example:
 *   mapr_error_t* err = NULL;
 *   const char* text = "from STATS select count($line) group by $hostname";
 *   mapr_result_t* r = mapr_run(text, strlen(text), input, input_len, &err);
 *   if (r == NULL) { fprintf(stderr, "%s\n", mapr_error_message(err));
 *                    mapr_error_free(err); return 2; }
 *   char* csv = mapr_result_to_csv(r, NULL, NULL);
 *   if (csv != NULL) fputs(csv, stdout);
 *   mapr_free(csv); mapr_result_free(r);
 *
 * Conventions (as in leveldb's c.h and duckdb.h):
 *  - Every name starts with mapr_ or MAPR_. mapr_query_t, mapr_aggregator_t,
 *    mapr_result_t, mapr_error_t and the three option types are opaque
 *    handles.
 *  - Errors. A function that can fail takes `mapr_error_t** errptr` as its
 *    last argument and signals failure through its return value: NULL for a
 *    function returning a handle or a string, a code other than MAPR_OK for
 *    one returning mapr_code_t. On failure, if errptr is not NULL, *errptr is
 *    set to a new error object (free with mapr_error_free); an error already
 *    in *errptr is freed first. On success *errptr is left unchanged, so a
 *    caller may initialize it to NULL once and test it after several calls.
 *    errptr may be NULL when the return value is all the caller needs.
 *  - Exceptions. No C++ exception ever crosses this interface: every
 *    function is noexcept. An exception escaping the engine (a bug in mapr,
 *    or a host's C++ LogFormat that throws, which mapr/log_format.h forbids)
 *    is caught at the boundary and reported as MAPR_INTERNAL, or as
 *    MAPR_RESOURCE_EXHAUSTED for std::bad_alloc. An aggregator that saw such
 *    an exception may hold a half-aggregated batch, so it is poisoned: every
 *    later call on it fails with MAPR_INTERNAL; it can only be freed.
 *  - Input strings are a pointer and a byte length; they need not be
 *    NUL-terminated and need to live only for the duration of the call.
 *    (NULL, 0) is the empty string.
 *  - Output strings. A `const char*` returned by an accessor is
 *    NUL-terminated and owned by the handle it came from: it stays valid
 *    until that handle is freed. A `char*` is owned by the caller: free with
 *    mapr_free. Where a `size_t* len` out-parameter is offered it receives
 *    the length in bytes (cells may contain NUL bytes); it may be NULL.
 *  - NULL. Every *_free function accepts NULL. Every other function given a
 *    NULL handle (query, aggregator, result, options) fails with
 *    MAPR_INVALID_ARGUMENT ("FUNCTION: NULL aggregator"); a setter that
 *    returns void then does nothing, and one that returns mapr_code_t
 *    returns MAPR_INVALID_ARGUMENT (also for a NULL pointer with a non-zero
 *    length) or MAPR_RESOURCE_EXHAUSTED when out of memory, leaving the
 *    options unchanged either way. Accessors never crash on a bad index or a
 *    NULL handle: they return NULL, 0 or NaN as documented, and set any
 *    `*len` out-parameter to 0.
 *  - Thread safety is that of the C++ types: a mapr_query_t is immutable and
 *    may be shared by any number of threads; a mapr_aggregator_t is
 *    thread-compatible (one thread at a time); a mapr_result_t and a
 *    mapr_error_t may be read concurrently.
 *  - ABI: the handles hide every C++ type. Enum values, struct layouts and
 *    function signatures change only with the library's SOVERSION.
 */
#ifndef MAPR_MAPR_C_API_H_
#define MAPR_MAPR_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "mapr/export.h"

#ifdef __cplusplus
#define MAPR_C_NOEXCEPT noexcept
extern "C" {
#else
#define MAPR_C_NOEXCEPT
#endif

/* ------------------------------------------------------------------ Types */

typedef struct mapr_query_t mapr_query_t;
typedef struct mapr_aggregator_t mapr_aggregator_t;
typedef struct mapr_result_t mapr_result_t;
typedef struct mapr_error_t mapr_error_t;
typedef struct mapr_compile_options_t mapr_compile_options_t;
typedef struct mapr_aggregator_options_t mapr_aggregator_options_t;
typedef struct mapr_files_options_t mapr_files_options_t;

/* Error codes. The values are Abseil's canonical status codes, so a code
 * from mapr's C++ API (absl::StatusCode) converts by a cast. mapr returns
 * INVALID_ARGUMENT for problems in a query text, FAILED_PRECONDITION for
 * calls in the wrong phase, RESOURCE_EXHAUSTED for limits such as
 * max_groups (and out of memory), NOT_FOUND / PERMISSION_DENIED and similar
 * for file I/O, and INTERNAL for exceptions and bugs. */
typedef enum mapr_code_t {
  MAPR_OK = 0,
  MAPR_CANCELLED = 1,
  MAPR_UNKNOWN = 2,
  MAPR_INVALID_ARGUMENT = 3,
  MAPR_DEADLINE_EXCEEDED = 4,
  MAPR_NOT_FOUND = 5,
  MAPR_ALREADY_EXISTS = 6,
  MAPR_PERMISSION_DENIED = 7,
  MAPR_RESOURCE_EXHAUSTED = 8,
  MAPR_FAILED_PRECONDITION = 9,
  MAPR_ABORTED = 10,
  MAPR_OUT_OF_RANGE = 11,
  MAPR_UNIMPLEMENTED = 12,
  MAPR_INTERNAL = 13,
  MAPR_UNAVAILABLE = 14,
  MAPR_DATA_LOSS = 15,
  MAPR_UNAUTHENTICATED = 16
} mapr_code_t;

/* How a result column's cells render (mapr::ValueType). */
typedef enum mapr_value_type_t {
  MAPR_VALUE_INTEGER = 0, /* count(): whole numbers */
  MAPR_VALUE_NUMBER = 1,  /* sum, avg, min, max, ...: six decimals */
  MAPR_VALUE_TEXT = 2     /* last(), first(), plain fields: text as read */
} mapr_value_type_t;

/* What happened to the input lines (mapr::LineCounters). Every line read is
 * counted exactly once in one of the line buckets:
 *   lines_read = lines_too_long + lines_table_mismatch + lines_ignored
 *              + lines_malformed + lines_unmatched + lines_header
 *              + lines_filtered + lines_without_value + lines_aggregated
 * values_unparsed counts values, not lines: those time(), bucket(),
 * duration(), bytes(), cidr(), ip_in() or arithmetic could not read.
 * (lines_unmatched is new in 0.2.0 and values_unparsed, appended at the end,
 * later: check mapr_version() against MAPR_VERSION_STRING before trusting the
 * layout.) */
typedef struct mapr_counters_t {
  uint64_t lines_read;           /* handed to the aggregator */
  uint64_t lines_too_long;       /* longer than max_line_bytes */
  uint64_t lines_table_mismatch; /* no |MAPREDUCE:TABLE| marker of `from` */
  uint64_t lines_ignored;        /* the log format does not apply */
  uint64_t lines_malformed;      /* the log format could not parse them */
  uint64_t lines_unmatched;      /* did not match `logformat regex` */
  uint64_t lines_header;         /* CSV header lines */
  uint64_t lines_filtered;       /* `where` was false */
  uint64_t lines_without_value;  /* no select item took a value */
  uint64_t lines_aggregated;     /* contributed to an aggregate */
  uint64_t values_unparsed;      /* values time()/bucket() could not read */
} mapr_counters_t;

/* ---------------------------------------------------------------- Version */

/* The library's version, "MAJOR.MINOR.PATCH" (compare with the header's
 * MAPR_VERSION_STRING to detect a mismatched shared library). Static
 * storage: do not free. */
MAPR_EXPORT const char* mapr_version(void) MAPR_C_NOEXCEPT;

/* ----------------------------------------------------------------- Errors */

/* The error's code; MAPR_OK for a NULL error. */
MAPR_EXPORT mapr_code_t mapr_error_code(const mapr_error_t* error)
    MAPR_C_NOEXCEPT;

/* The full message, owned by `error`. For a query error it is the same
 * multi-line text the C++ API gives: a first line such as
 *   1:32-35: unknown aggregation 'avgg'
 * then the query line, a caret underline and possibly a hint line such as
 *   hint: did you mean 'avg'?
 * "" for NULL. */
MAPR_EXPORT const char* mapr_error_message(const mapr_error_t* error)
    MAPR_C_NOEXCEPT;

/* The 1-based line and column of the offending part of the query text, or 0
 * when the error has no position (it is not a query error, or NULL). */
MAPR_EXPORT size_t mapr_error_line(const mapr_error_t* error) MAPR_C_NOEXCEPT;
MAPR_EXPORT size_t mapr_error_column(const mapr_error_t* error) MAPR_C_NOEXCEPT;

/* Returns 1 and stores the byte offset and length of the offending part of
 * the query text (either pointer may be NULL) if the error has a position,
 * else returns 0 and leaves them unchanged (mapr::GetSourceSpan). */
MAPR_EXPORT int mapr_error_span(const mapr_error_t* error, size_t* offset,
                                size_t* length) MAPR_C_NOEXCEPT;

/* The name of a code, such as "INVALID_ARGUMENT"; "UNKNOWN_CODE" for a value
 * outside the enum. Static storage: do not free. */
MAPR_EXPORT const char* mapr_code_name(mapr_code_t code) MAPR_C_NOEXCEPT;

/* Frees an error object. */
MAPR_EXPORT void mapr_error_free(mapr_error_t* error) MAPR_C_NOEXCEPT;

/* Frees a string returned as `char*` by this interface. */
MAPR_EXPORT void mapr_free(void* ptr) MAPR_C_NOEXCEPT;

/* -------------------------------------------------------- Compile options */

/* Options for mapr_query_compile (mapr::CompileOptions), set to their
 * defaults. Returns NULL only when out of memory. Free with
 * mapr_compile_options_free. */
MAPR_EXPORT mapr_compile_options_t* mapr_compile_options_create(void)
    MAPR_C_NOEXCEPT;
/* Longest accepted query text in bytes. Default: 64 KiB. */
MAPR_EXPORT void mapr_compile_options_set_max_query_bytes(
    mapr_compile_options_t* options, size_t max_query_bytes) MAPR_C_NOEXCEPT;
/* Deepest nesting of parentheses, `not` and calls; values above 1000 act
 * as 1000. Default: 64. */
MAPR_EXPORT void mapr_compile_options_set_max_depth(
    mapr_compile_options_t* options, size_t max_depth) MAPR_C_NOEXCEPT;
/* Most select items, comparisons, assignments and group fields. Default:
 * 1024. */
MAPR_EXPORT void mapr_compile_options_set_max_items(
    mapr_compile_options_t* options, size_t max_items) MAPR_C_NOEXCEPT;
/* median()/pN() are exact while a group holds at most `exact_values`
 * values (at most 1048576); past it a DDSketch of relative accuracy
 * `accuracy` (0.0001 to 0.2) takes over; out-of-range values make
 * mapr_query_compile fail with MAPR_INVALID_ARGUMENT. Defaults: 1024, 0.01.
 */
MAPR_EXPORT void mapr_compile_options_set_percentile(
    mapr_compile_options_t* options, uint32_t exact_values,
    double accuracy) MAPR_C_NOEXCEPT;
/* Nonzero lets lookup(x, 'table.csv', 'column') read its CSV table (a path
 * relative to the working directory) when the query compiles
 * (mapr::CompileOptions::allow_file_lookups). Default: 0, lookup() is
 * refused. */
MAPR_EXPORT void mapr_compile_options_set_allow_file_lookups(
    mapr_compile_options_t* options, int allow) MAPR_C_NOEXCEPT;
MAPR_EXPORT void mapr_compile_options_free(mapr_compile_options_t* options)
    MAPR_C_NOEXCEPT;

/* ----------------------------------------------------------------- Query */

/* Compiles the query text[0, text_len). `options` may be NULL for the
 * defaults and may be freed right after the call. Returns a new query (free
 * with mapr_query_free), or NULL with MAPR_INVALID_ARGUMENT for a problem in
 * the text; the error then has a line, a column and a span. */
MAPR_EXPORT mapr_query_t* mapr_query_compile(
    const char* text, size_t text_len, const mapr_compile_options_t* options,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Frees a query. Aggregators created from it stay valid (they share the
 * compiled plan). */
MAPR_EXPORT void mapr_query_free(mapr_query_t* query) MAPR_C_NOEXCEPT;

/* The query text as given, owned by `query`; *len (if not NULL) receives
 * its length. NULL (and *len 0) for a NULL query. */
MAPR_EXPORT const char* mapr_query_text(const mapr_query_t* query,
                                        size_t* len) MAPR_C_NOEXCEPT;

/* Number of output columns, and the name of column `col` (owned by `query`;
 * NULL when out of range). */
MAPR_EXPORT size_t mapr_query_column_count(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_query_column_name(const mapr_query_t* query,
                                               size_t col) MAPR_C_NOEXCEPT;

/* Compile-time warnings (unknown $variables), without a "warning: " prefix;
 * owned by `query`, NULL when out of range. */
MAPR_EXPORT size_t mapr_query_warning_count(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_query_warning(const mapr_query_t* query,
                                           size_t i) MAPR_C_NOEXCEPT;

/* The canonical name of the log format, owned by `query`. */
MAPR_EXPORT const char* mapr_query_log_format(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;

/* The `interval` in milliseconds (default 5000; 0 as written) and the
 * `limit` (-1 when none). Both -1 for NULL. */
MAPR_EXPORT int64_t mapr_query_interval_ms(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT int64_t mapr_query_limit(const mapr_query_t* query) MAPR_C_NOEXCEPT;

/* The `outfile` path owned by `query`, or NULL when the query has none; and
 * 1 if it is in append mode, else 0. */
MAPR_EXPORT const char* mapr_query_outfile(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT int mapr_query_outfile_append(const mapr_query_t* query)
    MAPR_C_NOEXCEPT;

/* A canonical text that compiles to the same plan, and a multi-line plan
 * description. New strings: free with mapr_free. NULL on failure. */
MAPR_EXPORT char* mapr_query_to_string(const mapr_query_t* query,
                                       mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT char* mapr_query_explain(const mapr_query_t* query,
                                     mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* ----------------------------------------------------- Aggregator options */

/* Options for mapr_aggregator_create (mapr::AggregatorOptions), set to their
 * defaults. Returns NULL only when out of memory. Free with
 * mapr_aggregator_options_free. */
MAPR_EXPORT mapr_aggregator_options_t* mapr_aggregator_options_create(void)
    MAPR_C_NOEXCEPT;
/* The value of $hostname and $server. Default: empty, meaning the machine's
 * host name. The bytes are copied. Returns MAPR_OK, MAPR_INVALID_ARGUMENT
 * for NULL options (or a NULL hostname with a length), or
 * MAPR_RESOURCE_EXHAUSTED when out of memory (options unchanged). */
MAPR_EXPORT mapr_code_t mapr_aggregator_options_set_hostname(
    mapr_aggregator_options_t* options, const char* hostname,
    size_t hostname_len) MAPR_C_NOEXCEPT;
/* Longer lines are counted as too long, never split. Default: 1 MiB. */
MAPR_EXPORT void mapr_aggregator_options_set_max_line_bytes(
    mapr_aggregator_options_t* options, size_t max_line_bytes) MAPR_C_NOEXCEPT;
/* Most groups; the push that would exceed it fails with
 * MAPR_RESOURCE_EXHAUSTED, and so does a result (snapshot, delta, finish)
 * of a window() query with more windows than that. 0 means unlimited.
 * Default: 0. */
MAPR_EXPORT void mapr_aggregator_options_set_max_groups(
    mapr_aggregator_options_t* options, uint64_t max_groups) MAPR_C_NOEXCEPT;
/* The folder the lookup() tables of a partial's query must be in when a
 * partial is read (mapr_aggregator_from_partial): a partial comes from
 * elsewhere, and its query must not make this process read its files.
 * Default: none; such a partial fails with MAPR_INVALID_ARGUMENT. "/" reads
 * them anywhere (for a query the caller wrote itself). Returns
 * MAPR_INVALID_ARGUMENT for a NULL options or dir (with dir_len > 0). */
MAPR_EXPORT mapr_code_t mapr_aggregator_options_set_partial_lookup_dir(
    mapr_aggregator_options_t* options, const char* dir,
    size_t dir_len) MAPR_C_NOEXCEPT;
/* Threads that build a result (mapr_aggregator_finish, snapshots): with
 * many groups (32768 or more per thread) they sort the groups and render
 * the cells. The calling thread is one of them; the result is the same for
 * any value. 0 counts as 1. Default: 1. */
MAPR_EXPORT void mapr_aggregator_options_set_result_threads(
    mapr_aggregator_options_t* options, size_t result_threads) MAPR_C_NOEXCEPT;
/* The input splits the aggregator covers, [begin, end) in the input's
 * order (split i of n is [i, i + 1)); partials record it and merging them
 * requires adjacent coverage (mapr/partial.h). Returns MAPR_OK, or
 * MAPR_INVALID_ARGUMENT (options unchanged) unless begin < end. Default:
 * [0, 1). */
MAPR_EXPORT mapr_code_t mapr_aggregator_options_set_splits(
    mapr_aggregator_options_t* options, uint64_t begin,
    uint64_t end) MAPR_C_NOEXCEPT;
/* The source of the aggregator's partials (AggregatorOptions::source): the
 * host or daemon instance whose lines they hold, when several number their
 * delta partials each from 0. Partials of different sources refuse to merge
 * in mapr_aggregator_merge_serialized; `mapr reduce` (and
 * mapr::PartialReducer) adds sources up. Returns MAPR_OK,
 * MAPR_INVALID_ARGUMENT for NULL options (or a NULL source with a length),
 * MAPR_RESOURCE_EXHAUSTED without memory. Default: none. */
MAPR_EXPORT mapr_code_t mapr_aggregator_options_set_source(
    mapr_aggregator_options_t* options, const char* source,
    size_t source_len) MAPR_C_NOEXCEPT;
MAPR_EXPORT void mapr_aggregator_options_free(
    mapr_aggregator_options_t* options) MAPR_C_NOEXCEPT;

/* ------------------------------------------------------------ Aggregator */

/* Creates an aggregator for `query` (which may be freed afterwards).
 * `options` may be NULL for the defaults and may be freed right after the
 * call. Returns a new aggregator (free with mapr_aggregator_free), or NULL
 * with MAPR_INVALID_ARGUMENT for a NULL query, MAPR_FAILED_PRECONDITION if
 * the query's log format is no longer registered (mapr::Aggregator::Create),
 * or MAPR_RESOURCE_EXHAUSTED when out of memory. (An error of a host log
 * format's NewParser comes from the push that brings a source's first
 * line.) */
MAPR_EXPORT mapr_aggregator_t* mapr_aggregator_create(
    const mapr_query_t* query, const mapr_aggregator_options_t* options,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Frees an aggregator, with any state not yet taken. */
MAPR_EXPORT void mapr_aggregator_free(mapr_aggregator_t* aggregator)
    MAPR_C_NOEXCEPT;

/* Aggregates a chunk of raw bytes: the complete lines in it are aggregated
 * now ('\n' ends a line; a '\r' before it is trimmed); an unfinished last
 * line is kept until the next chunk completes it or the input ends. Chunks
 * may be cut anywhere. The bytes need to live only for the call. Fails with
 * MAPR_FAILED_PRECONDITION after mapr_aggregator_finish, and with
 * MAPR_RESOURCE_EXHAUSTED when max_groups would be exceeded or with the
 * error of a host log format's NewParser (both sticky: every later call
 * returns the same error). */
MAPR_EXPORT mapr_code_t
mapr_aggregator_push_bytes(mapr_aggregator_t* aggregator, const char* data,
                           size_t len, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Aggregates `count` lines, line i being lines[i][0, lengths[i]) without its
 * '\n' ((NULL, 0) is an empty line). If `lengths` is NULL, every line is a
 * NUL-terminated string. The lines need to live only for the call. Errors
 * as for push_bytes; MAPR_INVALID_ARGUMENT, with nothing aggregated, for
 * NULL lines with a count, or a NULL line when `lengths` is NULL or gives
 * it a length. */
MAPR_EXPORT mapr_code_t mapr_aggregator_push_lines(
    mapr_aggregator_t* aggregator, const char* const* lines,
    const size_t* lengths, size_t count, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* The same for input source `source` (a file, a socket). Formats with
 * per-source state (CSV's header) keep one state per source, and each
 * source has its own unfinished last line. The functions above use source
 * 0. */
MAPR_EXPORT mapr_code_t mapr_aggregator_push_source_bytes(
    mapr_aggregator_t* aggregator, uint64_t source, const char* data,
    size_t len, mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT mapr_code_t mapr_aggregator_push_source_lines(
    mapr_aggregator_t* aggregator, uint64_t source, const char* const* lines,
    const size_t* lengths, size_t count, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Reads the file path[0, path_len) and aggregates its lines as the byte
 * stream of source 0 (the _source_ variant: of `source`), then ends that
 * stream: mapr::PushFile (mapr/input.h). gzip, zstd, xz and bzip2 files are
 * decompressed, recognized by their first bytes whatever their name; lz4,
 * lzip, compress (.Z), 7z and zip files are refused with
 * MAPR_UNIMPLEMENTED, never read as text. Errors name the file ("app.log.xz:
 * unexpected end of xz data"): the OS error's code for a file that cannot
 * be read (MAPR_NOT_FOUND, MAPR_PERMISSION_DENIED, MAPR_FAILED_PRECONDITION
 * for a directory, ...), MAPR_DATA_LOSS for truncated or corrupt compressed
 * data (the lines before the damage are aggregated, the unfinished one is
 * dropped), MAPR_INVALID_ARGUMENT for a NULL path with a length or a path
 * with a NUL byte; otherwise as for push_bytes. */
MAPR_EXPORT mapr_code_t mapr_aggregator_push_file(
    mapr_aggregator_t* aggregator, const char* path, size_t path_len,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT mapr_code_t mapr_aggregator_push_source_file(
    mapr_aggregator_t* aggregator, uint64_t source, const char* path,
    size_t path_len, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Aggregates the entries of systemd's journal (mapr/journal.h), each one
 * JSON line as `journalctl -o json --all` prints it, for a query with
 * `logformat journal` (or json): the `n_files` NUL-terminated paths in
 * `files`, else the folder `directory` (NULL: none), else the local
 * system's journal; starting after the entry `after_cursor` names (NULL or
 * "": from the first). On success, if `cursor` is not NULL, it receives the
 * cursor of the last entry read (NUL-terminated; free with mapr_free), to
 * resume from; it is the given after_cursor (or "") when no entry was
 * read. MAPR_UNIMPLEMENTED when libmapr was built without libsystemd;
 * MAPR_NOT_FOUND and the other OS codes for a file or folder that cannot
 * be opened; MAPR_INVALID_ARGUMENT for a malformed cursor, NULL paths with
 * a count, or both files and a directory; otherwise as for push_lines. */
MAPR_EXPORT mapr_code_t mapr_aggregator_push_journal(
    mapr_aggregator_t* aggregator, const char* const* files, size_t n_files,
    const char* directory, const char* after_cursor, char** cursor,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Names `source` (a file's path, say) for the `$file` variable; a source
 * never named has an empty $file (push_file names its source itself).
 * MAPR_INVALID_ARGUMENT for a NULL name with a length; MAPR_FAILED_PRECONDITION
 * after mapr_aggregator_finish. */
MAPR_EXPORT mapr_code_t mapr_aggregator_set_source_name(
    mapr_aggregator_t* aggregator, uint64_t source, const char* name,
    size_t name_len, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Ends `source`: aggregates the unfinished last line of its byte stream, if
 * any (mapr_aggregator_finish does this for every source), and, for a query
 * with `multiline`, its last event; and frees its log format parser. Lines
 * pushed for `source` afterwards begin a new input (a csv source starts with
 * its header line again; the first line starts an event); its name is kept.
 */
MAPR_EXPORT mapr_code_t
mapr_aggregator_end_source(mapr_aggregator_t* aggregator, uint64_t source,
                           mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Adds the state of `later`, an aggregator of the same query whose lines
 * come after this one's (its last() values win). On success `later` is
 * emptied: it must still be freed with mapr_aggregator_free, and any other
 * call on it fails with MAPR_FAILED_PRECONDITION. On failure both are
 * unchanged: MAPR_INVALID_ARGUMENT for a different query,
 * MAPR_FAILED_PRECONDITION if `aggregator` is finished or `later` was
 * merged away, freed of its result (mapr_aggregator_finish) or poisoned;
 * `later` may itself be finished by mapr_aggregator_finish_partial (as the
 * C++ rule allows: its input has ended, its state is whole). */
MAPR_EXPORT mapr_code_t
mapr_aggregator_merge(mapr_aggregator_t* aggregator, mapr_aggregator_t* later,
                      mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* The cumulative result so far; the state is kept (DTail's dmap). Returns a
 * new result (free with mapr_result_free), or NULL with
 * MAPR_FAILED_PRECONDITION once the final result was taken, or with
 * MAPR_RESOURCE_EXHAUSTED for a window() query's result of more windows
 * than max_groups (the state is kept). */
MAPR_EXPORT mapr_result_t* mapr_aggregator_snapshot(
    const mapr_aggregator_t* aggregator, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* The result since the previous delta, and resets the groups and counters
 * (DTail's tail mode, one call per `interval`). Returns a new result (free
 * with mapr_result_free), or NULL as for snapshot. */
MAPR_EXPORT mapr_result_t* mapr_aggregator_take_delta(
    mapr_aggregator_t* aggregator, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Declares the end of input (aggregating every source's unfinished last
 * line) and returns the final result: a new result, free with
 * mapr_result_free. A second call, or a push afterwards, fails with
 * MAPR_FAILED_PRECONDITION. The aggregator must still be freed. */
MAPR_EXPORT mapr_result_t* mapr_aggregator_finish(
    mapr_aggregator_t* aggregator, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Stores the counters so far in *counters (zeros for NULL). */
MAPR_EXPORT void mapr_aggregator_counters(const mapr_aggregator_t* aggregator,
                                          mapr_counters_t* counters)
    MAPR_C_NOEXCEPT;

/* --------------------------------------------------------------- Partials
 *
 * A partial is an aggregator's state as bytes: one versioned MAPRPART frame
 * (docs/partial-format.md) for MapReduce across processes and machines. A
 * map step ends its input with mapr_aggregator_finish_partial; a combine or
 * reduce step starts from one with mapr_aggregator_from_partial and adds the
 * others, of adjacent splits, with mapr_aggregator_merge_serialized. The
 * bytes returned are owned by the caller (free with mapr_free); the bytes
 * passed in need to live only for the call.
 *
 * Error codes, as in the C++ API: MAPR_INVALID_ARGUMENT for bytes that are
 * not a partial (empty, text), unknown flag bits, another query's partial,
 * overlapping splits; MAPR_DATA_LOSS for a truncated or corrupt frame, for
 * missing splits between two partials and for counts or exact sums that
 * overflow when merged (hostile partials); MAPR_FAILED_PRECONDITION for a
 * newer major version or a call in the wrong phase; MAPR_RESOURCE_EXHAUSTED
 * for max_groups. */

/* The header facts of a partial (mapr::PartialInfo). */
typedef struct mapr_partial_info_t {
  uint16_t major;
  uint16_t minor;
  uint64_t split_begin; /* the coverage [split_begin, split_end) */
  uint64_t split_end;
  uint64_t groups;
  uint64_t frame_bytes;     /* the size of the (first) frame */
  uint64_t fingerprint_low; /* XXH3-128 of query, format, layout, options */
  uint64_t fingerprint_high;
  mapr_counters_t counters;
} mapr_partial_info_t;

/* Ends the input, as mapr_aggregator_finish does, and returns the
 * aggregator's partial: a new buffer of *len bytes (len may not be NULL),
 * free with mapr_free. The aggregator stays finished: mapr_aggregator_finish
 * then returns its final result, and calling this again returns the same
 * bytes. NULL on failure: MAPR_FAILED_PRECONDITION once the result was
 * taken (mapr_aggregator_finish), MAPR_INVALID_ARGUMENT for a NULL len, or
 * the error of a failed aggregator. */
/* As mapr_aggregator_finish_partial, but the frame of partition `index` of
 * `count` (Aggregator::SerializePartitions, docs/partial-format.md): the
 * groups whose key hashes to it, and the line counters in partition 0 only.
 * Call it once per index; the aggregator stays finished. NULL on failure:
 * the errors of mapr_aggregator_finish_partial, MAPR_INVALID_ARGUMENT
 * unless 1 <= count <= 65536 and index < count. */
MAPR_EXPORT char* mapr_aggregator_finish_partition(
    mapr_aggregator_t* aggregator, uint32_t count, uint32_t index, size_t* len,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT char* mapr_aggregator_finish_partial(
    mapr_aggregator_t* aggregator, size_t* len,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Validates the partial data[0, len) completely, then adds its state:
 * mapr::Aggregator::MergeSerialized. Its splits must be adjacent to the
 * aggregator's (before or after). On any failure the aggregator is
 * unchanged, except for MAPR_RESOURCE_EXHAUSTED (max_groups), which is
 * sticky. Errors as listed above; MAPR_FAILED_PRECONDITION after
 * mapr_aggregator_finish or finish_partial. */
MAPR_EXPORT mapr_code_t mapr_aggregator_merge_serialized(
    mapr_aggregator_t* aggregator, const char* data, size_t len,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* A new open aggregator holding the partial data[0, len), for the query
 * stored in it and its splits (free with mapr_aggregator_free). `options`
 * (may be NULL) give hostname, max_line_bytes and max_groups; their splits
 * are ignored. NULL on failure, with the codes listed above. */
MAPR_EXPORT mapr_aggregator_t* mapr_aggregator_from_partial(
    const char* data, size_t len, const mapr_aggregator_options_t* options,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* The streaming form for daemons: the partial of everything pushed since
 * the previous call (or creation); then resets the state and counters, like
 * mapr_aggregator_take_delta. Successive deltas cover successive splits
 * ([b, b + 1), [b + 1, b + 2), ... from the options' split_begin b), so a
 * central reducer can see that none is missing. A new buffer of *len bytes,
 * free with mapr_free; NULL on failure (MAPR_FAILED_PRECONDITION after
 * finish). */
MAPR_EXPORT char* mapr_aggregator_take_delta_partial(
    mapr_aggregator_t* aggregator, size_t* len,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Validates the single partial data[0, len) and stores its header facts in
 * *info (which may be NULL). If `query` is not NULL, *query receives the
 * canonical query text stored in it (NUL-terminated; free with mapr_free);
 * likewise `log_format`. Returns MAPR_OK, or the codes listed above (then
 * nothing is stored). */
MAPR_EXPORT mapr_code_t mapr_partial_inspect(
    const char* data, size_t len, mapr_partial_info_t* info, char** query,
    char** log_format, mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* ------------------------------------------------------------------ Files
 *
 * Runs a query over files and glob patterns, plain or compressed, on
 * several threads: what the `mapr` command does with its FILE arguments
 * (mapr::QueryFiles, mapr/files.h). The names are expanded in order: "-" is
 * standard input; a name with a glob character ('*', '?', '[') that does
 * not exist as given is a pattern, replaced by its matches in sorted order.
 * Each input is its own source ($file is its name), read as
 * mapr_aggregator_push_file reads a file (gzip, zstd, xz and bzip2 are
 * decompressed). The inputs are dealt into at most `threads` contiguous
 * groups, each read by one thread, and the groups are merged in input
 * order: the result, last() included, is the same for any thread count.
 *
 * A problem with one input (a missing file, a pattern that matches
 * nothing, truncated compressed data) does not stop the run: it is reported
 * once to the on_problem callback and counted in the report, and the lines
 * read before it count. Only an engine error (max_groups, memory, an error
 * of the query) makes the run fail. */

/* Called once for every problem with an input, as it is found: `name` is
 * the input's name as given ("-" for standard input) or the pattern that
 * matched nothing; `code` and `reason` give the reason alone, without the
 * name: MAPR_NOT_FOUND "No such file or directory", MAPR_PERMISSION_DENIED
 * "Permission denied", MAPR_FAILED_PRECONDITION "Is a directory",
 * MAPR_DATA_LOSS for corrupt or truncated compressed data ("unexpected end
 * of gzip data"), MAPR_UNIMPLEMENTED for a compressed format mapr cannot
 * read, and MAPR_NOT_FOUND "no file matches this pattern" for a pattern.
 * Both strings are NUL-terminated and valid only during the call. */
typedef void (*mapr_problem_fn)(void* ctx, const char* name, size_t name_len,
                                mapr_code_t code, const char* reason,
                                size_t reason_len);

/* Called about every interval while the run reads, and once at the end
 * with done = 1: the bytes read from the inputs (compressed bytes for
 * compressed input), the inputs' total size when every input is a regular
 * file (else 0: unknown), and the lines read so far. */
typedef void (*mapr_progress_fn)(void* ctx, uint64_t bytes_read,
                                 uint64_t total_bytes, uint64_t lines,
                                 int done);

/* What a run found besides its result (mapr::FilesReport). */
typedef struct mapr_files_report_t {
  uint64_t inputs_ok;      /* inputs read to their end */
  uint64_t inputs_failed;  /* inputs (and patterns) with a problem */
  uint64_t lines_with_nul; /* lines with a NUL byte: binary input? */
} mapr_files_report_t;

/* Options for mapr_query_files (mapr::FilesOptions), set to their defaults.
 * Returns NULL only when out of memory. Free with mapr_files_options_free.
 */
MAPR_EXPORT mapr_files_options_t* mapr_files_options_create(void)
    MAPR_C_NOEXCEPT;
/* Threads that read, decompress and aggregate; the result is the same for
 * any value. 0 counts as 1. Default: 1. */
MAPR_EXPORT void mapr_files_options_set_threads(mapr_files_options_t* options,
                                                size_t threads) MAPR_C_NOEXCEPT;
/* The options of every aggregator of the run (hostname, max_line_bytes,
 * max_groups; result_threads is raised to the thread count). Copied:
 * `aggregator_options` may be freed right after the call; NULL restores
 * the defaults. Returns MAPR_OK, or MAPR_RESOURCE_EXHAUSTED when out of
 * memory (options unchanged). */
MAPR_EXPORT mapr_code_t mapr_files_options_set_aggregator_options(
    mapr_files_options_t* options,
    const mapr_aggregator_options_t* aggregator_options) MAPR_C_NOEXCEPT;
/* The problem callback and its first argument; NULL for none (the
 * default). Callbacks are called on the thread that called
 * mapr_query_files, never concurrently. */
MAPR_EXPORT void mapr_files_options_set_on_problem(
    mapr_files_options_t* options, mapr_problem_fn on_problem,
    void* ctx) MAPR_C_NOEXCEPT;
/* The progress callback, its first argument and the least time between two
 * calls in milliseconds (0: as often as the run checks); NULL for none (the
 * default). Default interval: 250. */
MAPR_EXPORT void mapr_files_options_set_on_progress(
    mapr_files_options_t* options, mapr_progress_fn on_progress, void* ctx,
    uint32_t interval_ms) MAPR_C_NOEXCEPT;
MAPR_EXPORT void mapr_files_options_free(mapr_files_options_t* options)
    MAPR_C_NOEXCEPT;

/* Runs `query` over the files and patterns names[0, count), name i being
 * names[i][0, name_lengths[i]) (if `name_lengths` is NULL, every name is a
 * NUL-terminated string), and returns the final result: a new result, free
 * with mapr_result_free. `options` may be NULL for the defaults (one
 * thread, no callbacks). If `report` is not NULL, it receives the counts of
 * the run (zeros on failure). When no input could be read at all the
 * result is empty and the report and the callback say why. NULL on
 * failure: MAPR_INVALID_ARGUMENT for a NULL query, no names (count 0; the
 * name "-" reads standard input), NULL names, a NULL name or a name with a
 * NUL byte; MAPR_RESOURCE_EXHAUSTED for max_groups, memory or a thread that
 * cannot start; or an error of the query. */
MAPR_EXPORT mapr_result_t* mapr_query_files(
    const mapr_query_t* query, const char* const* names,
    const size_t* name_lengths, size_t count,
    const mapr_files_options_t* options, mapr_files_report_t* report,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* --------------------------------------------------------------- One call */

/* Compiles `query`, aggregates input[0, input_len) as one byte stream (the
 * last line needs no final '\n') and returns the final result: a new
 * result, free with mapr_result_free; NULL on failure (a query error has a
 * line and column). The helper for small tools and tests. */
MAPR_EXPORT mapr_result_t* mapr_run(const char* query, size_t query_len,
                                    const char* input, size_t input_len,
                                    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* ----------------------------------------------------------------- Result */

/* Frees a result. */
MAPR_EXPORT void mapr_result_free(mapr_result_t* result) MAPR_C_NOEXCEPT;

/* Number of columns; a column's header (the select item as DTail spells it,
 * or its alias; owned by `result`, NULL when out of range), the aggregate
 * that produced it ("count", "avg", "last" for a plain field; owned by
 * `result`, NULL when out of range) and its value type (MAPR_VALUE_TEXT when
 * out of range). */
MAPR_EXPORT size_t mapr_result_column_count(const mapr_result_t* result)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_result_column_name(const mapr_result_t* result,
                                                size_t col) MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_result_column_aggregate(
    const mapr_result_t* result, size_t col) MAPR_C_NOEXCEPT;
MAPR_EXPORT mapr_value_type_t mapr_result_column_type(
    const mapr_result_t* result, size_t col) MAPR_C_NOEXCEPT;

/* Number of rows (after `limit`), and the number of groups before `limit`
 * was applied. */
MAPR_EXPORT size_t mapr_result_row_count(const mapr_result_t* result)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT uint64_t mapr_result_total_groups(const mapr_result_t* result)
    MAPR_C_NOEXCEPT;

/* The cell's text, rendered exactly as DTail renders it (count as an
 * integer, other numbers with six decimals, last() raw); owned by `result`.
 * *len (if not NULL) receives its length. NULL when out of range. */
MAPR_EXPORT const char* mapr_result_cell(const mapr_result_t* result,
                                         size_t row, size_t col,
                                         size_t* len) MAPR_C_NOEXCEPT;

/* The number behind the cell, which orders the rows: the value for numeric
 * kinds, for last() the text parsed as a number (0 if not numeric). NaN when
 * out of range. */
MAPR_EXPORT double mapr_result_value(const mapr_result_t* result, size_t row,
                                     size_t col) MAPR_C_NOEXCEPT;

/* The notes on a result that is probably not what was meant (lines
 * skipped or unparsable, a field never found, values that were not
 * numbers, an empty input; mapr::ResultNote): their number, and note i's
 * code ("lines_unparsable", "values_not_numeric", ...) and one-sentence
 * text, owned by `result` (NULL when out of range). The `mapr` command
 * prints each text as "warning: <text>". */
MAPR_EXPORT size_t mapr_result_note_count(const mapr_result_t* result)
    MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_result_note_code(const mapr_result_t* result,
                                              size_t i) MAPR_C_NOEXCEPT;
MAPR_EXPORT const char* mapr_result_note_text(const mapr_result_t* result,
                                              size_t i) MAPR_C_NOEXCEPT;

/* Stores the line counters at the time the result was produced in
 * *counters (zeros for NULL). */
MAPR_EXPORT void mapr_result_counters(
    const mapr_result_t* result, mapr_counters_t* counters) MAPR_C_NOEXCEPT;

/* Renderings of the result (see mapr/result.h): CSV (DTail's outfile
 * bytes), a JSON array of objects, NDJSON, and DTail's terminal table with
 * at most `max_rows` rows (negative: all). Each returns a new
 * NUL-terminated string (free with mapr_free) and stores its length in
 * *len if `len` is not NULL; NULL on failure: MAPR_INVALID_ARGUMENT for a
 * NULL result, MAPR_RESOURCE_EXHAUSTED when out of memory. */
MAPR_EXPORT char* mapr_result_to_csv(const mapr_result_t* result, size_t* len,
                                     mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT char* mapr_result_to_json(const mapr_result_t* result, size_t* len,
                                      mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT char* mapr_result_to_ndjson(const mapr_result_t* result,
                                        size_t* len,
                                        mapr_error_t** errptr) MAPR_C_NOEXCEPT;
MAPR_EXPORT char* mapr_result_to_table(const mapr_result_t* result,
                                       int64_t max_rows, size_t* len,
                                       mapr_error_t** errptr) MAPR_C_NOEXCEPT;

/* Writes `result` as CSV to `query`'s `outfile`, as DTail does (temporary
 * file and rename, or append; a `.query` sidecar). Fails with
 * MAPR_FAILED_PRECONDITION if the query has no outfile, and with
 * MAPR_NOT_FOUND, MAPR_PERMISSION_DENIED and similar codes for I/O errors;
 * the message names the path. */
MAPR_EXPORT mapr_code_t mapr_result_write_outfile(
    const mapr_result_t* result, const mapr_query_t* query,
    mapr_error_t** errptr) MAPR_C_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MAPR_MAPR_C_API_H_ */
