/* Tests for the C interface (mapr/c_api.h), compiled as C11.
 *
 * Covers every function: version, errors (code, message, line, column,
 * span), options, compiling, pushing bytes, line arrays and files (also per
 * source), merge, snapshot, delta, finish, result access, rendering,
 * outfile, the one-call mapr_run, runs over files and globs on several
 * threads (mapr_query_files), phase errors, limits, NULL handles and
 * out-of-range indices, and exceptions thrown by a host log format (which
 * must surface as errors, never cross into C). Run under valgrind as well
 * (c_api_test_valgrind), so every error path is also checked for leaks. */
/* mkdtemp, rmdir: the test's files go to a directory of their own, so
 * c_api_test and c_api_test_valgrind may run at the same time. */
#define _POSIX_C_SOURCE 200809L

#include "mapr/c_api.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapr/version.h"

/* From c_api_test_helper.cc. */
int mapr_test_register_throwing_format(void);
void mapr_test_set_throw_mode(int mode);
enum {
  kNoThrow = 0,
  kThrowInParseBatch = 1,
  kThrowIntInParseBatch = 2,
  kThrowBadAllocInNewParser = 3,
  kThrowInVariables = 4
};

static int g_checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++g_checks;                                                                \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_STREQ(actual, expected)                                    \
  do {                                                                   \
    const char* a_ = (actual);                                           \
    const char* e_ = (expected);                                         \
    ++g_checks;                                                          \
    if (a_ == NULL || strcmp(a_, e_) != 0) {                             \
      fprintf(stderr, "%s:%d: CHECK_STREQ failed: %s\n  actual:   %s\n", \
              __FILE__, __LINE__, #actual, a_ == NULL ? "(NULL)" : a_);  \
      fprintf(stderr, "  expected: %s\n", e_);                           \
      exit(1);                                                           \
    }                                                                    \
  } while (0)

/* Fails with the error's message if `err` is set. */
#define CHECK_NO_ERROR(err)                                                   \
  do {                                                                        \
    ++g_checks;                                                               \
    if ((err) != NULL) {                                                      \
      fprintf(stderr, "%s:%d: unexpected error %s: %s\n", __FILE__, __LINE__, \
              mapr_code_name(mapr_error_code(err)), mapr_error_message(err)); \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

/* Whether `message` holds `needle` (any message for a NULL needle). */
static int MessageHolds(const char* message, const char* needle) {
  return needle == NULL || strstr(message, needle) != NULL;
}

/* Compiling `text` with `options` fails with InvalidArgument, and the
 * message holds `needle` (unless it is NULL). Uses and resets `err`. */
#define CHECK_COMPILE_REFUSED(text, options, needle)                          \
  do {                                                                        \
    CHECK(mapr_query_compile((text), strlen(text), (options), &err) == NULL); \
    CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);                     \
    CHECK(MessageHolds(mapr_error_message(err), (needle)));                   \
    mapr_error_free(err);                                                     \
    err = NULL;                                                               \
  } while (0)

static mapr_query_t* Compile(const char* text) {
  mapr_error_t* err = NULL;
  mapr_query_t* q = mapr_query_compile(text, strlen(text), NULL, &err);
  CHECK_NO_ERROR(err);
  CHECK(q != NULL);
  return q;
}

static mapr_aggregator_t* NewAggregator(const mapr_query_t* q) {
  mapr_error_t* err = NULL;
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  CHECK(options != NULL);
  CHECK(mapr_aggregator_options_set_hostname(options, "host1", 5) == MAPR_OK);
  mapr_aggregator_t* agg = mapr_aggregator_create(q, options, &err);
  mapr_aggregator_options_free(options); /* Not needed after create. */
  CHECK_NO_ERROR(err);
  CHECK(agg != NULL);
  return agg;
}

/* Renders `r` as CSV; the caller frees with free_csv. */
static char* Csv(const mapr_result_t* r) {
  mapr_error_t* err = NULL;
  size_t len = 0;
  char* csv = mapr_result_to_csv(r, &len, &err);
  CHECK_NO_ERROR(err);
  CHECK(csv != NULL);
  CHECK(strlen(csv) == len);
  return csv;
}

static void CheckCsv(const mapr_result_t* r, const char* expected) {
  char* csv = Csv(r);
  CHECK_STREQ(csv, expected);
  mapr_free(csv);
}

/* A small CSV log: a header and five rows. */
static const char kCsvLog[] =
    "host,status,latency\n"
    "a,200,10\n"
    "b,500,20\n"
    "a,200,30\n"
    "c,404,x\n"
    "a,500,50\n";

static const char kByHost[] =
    "select host,count($line),sum(latency),last(status) group by host "
    "order by count($line) logformat csv";

/* ---------------------------------------------------------------- tests */

static void TestVersionAndCodes(void) {
  CHECK_STREQ(mapr_version(), MAPR_VERSION_STRING);
  CHECK_STREQ(mapr_code_name(MAPR_OK), "OK");
  CHECK_STREQ(mapr_code_name(MAPR_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  CHECK_STREQ(mapr_code_name(MAPR_INTERNAL), "INTERNAL");
  CHECK_STREQ(mapr_code_name(MAPR_UNAUTHENTICATED), "UNAUTHENTICATED");
  CHECK_STREQ(mapr_code_name((mapr_code_t)99), "UNKNOWN_CODE");
  CHECK_STREQ(mapr_code_name((mapr_code_t)-1), "UNKNOWN_CODE");
  /* NULL is accepted everywhere it is harmless. */
  CHECK(mapr_error_code(NULL) == MAPR_OK);
  CHECK_STREQ(mapr_error_message(NULL), "");
  CHECK(mapr_error_line(NULL) == 0);
  CHECK(mapr_error_column(NULL) == 0);
  CHECK(mapr_error_span(NULL, NULL, NULL) == 0);
  mapr_error_free(NULL);
  mapr_free(NULL);
  mapr_query_free(NULL);
  mapr_aggregator_free(NULL);
  mapr_result_free(NULL);
  mapr_compile_options_free(NULL);
  mapr_aggregator_options_free(NULL);
}

static void TestQueryAccessors(void) {
  mapr_query_t* q = Compile(
      "from STATS select count($line),avg($goroutines) as g "
      "where lifetimeConnections >= 3 group by $hostname "
      "order by count($line) limit 10 interval 2 outfile append r.csv");
  size_t len = 0;
  const char* text = mapr_query_text(q, &len);
  CHECK(text != NULL && strlen(text) == len);
  CHECK(strncmp(text, "from STATS select", 17) == 0);
  CHECK(mapr_query_column_count(q) == 2);
  CHECK_STREQ(mapr_query_column_name(q, 0), "count($line)");
  CHECK_STREQ(mapr_query_column_name(q, 1), "g");
  CHECK(mapr_query_column_name(q, 2) == NULL);
  CHECK_STREQ(mapr_query_log_format(q), "default");
  CHECK(mapr_query_interval_ms(q) == 2000);
  CHECK(mapr_query_limit(q) == 10);
  CHECK_STREQ(mapr_query_outfile(q), "r.csv");
  CHECK(mapr_query_outfile_append(q) == 1);
  CHECK(mapr_query_warning_count(q) == 0);
  CHECK(mapr_query_warning(q, 0) == NULL);

  mapr_error_t* err = NULL;
  char* canonical = mapr_query_to_string(q, &err);
  CHECK_NO_ERROR(err);
  CHECK(canonical != NULL && strstr(canonical, "count($line)") != NULL);
  /* The canonical text compiles to a query with the same columns. */
  mapr_query_t* again = Compile(canonical);
  CHECK(mapr_query_column_count(again) == 2);
  CHECK_STREQ(mapr_query_column_name(again, 1), "g");
  mapr_query_free(again);
  mapr_free(canonical);

  char* explain = mapr_query_explain(q, &err);
  CHECK_NO_ERROR(err);
  CHECK(explain != NULL && strlen(explain) > 0);
  mapr_free(explain);
  mapr_query_free(q);

  /* Defaults, and a warning for an unknown $variable. */
  q = Compile("select count($line),last($nosuchvar) group by *");
  CHECK(mapr_query_limit(q) == -1);
  CHECK(mapr_query_interval_ms(q) == 5000);
  CHECK(mapr_query_outfile(q) == NULL);
  CHECK(mapr_query_outfile_append(q) == 0);
  CHECK(mapr_query_warning_count(q) == 1);
  CHECK(strstr(mapr_query_warning(q, 0), "$nosuchvar") != NULL);
  mapr_query_free(q);

  /* NULL query handles. */
  CHECK(mapr_query_text(NULL, NULL) == NULL);
  CHECK(mapr_query_column_count(NULL) == 0);
  CHECK(mapr_query_column_name(NULL, 0) == NULL);
  CHECK(mapr_query_warning_count(NULL) == 0);
  CHECK(mapr_query_log_format(NULL) == NULL);
  CHECK(mapr_query_interval_ms(NULL) == -1);
  CHECK(mapr_query_limit(NULL) == -1);
  CHECK(mapr_query_outfile(NULL) == NULL);
  CHECK(mapr_query_to_string(NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_query_explain(NULL, &err) == NULL); /* Replaces the error. */
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
}

static void TestCompileErrors(void) {
  mapr_error_t* err = NULL;
  const char* text = "select avgg(x) from STATS";
  CHECK(mapr_query_compile(text, strlen(text), NULL, &err) == NULL);
  CHECK(err != NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err),
              "1:8-11: unknown aggregation 'avgg'\n"
              "select avgg(x) from STATS\n"
              "       ^~~~\n"
              "hint: did you mean 'avg'?");
  CHECK(mapr_error_line(err) == 1);
  CHECK(mapr_error_column(err) == 8);
  size_t offset = 99, length = 99;
  CHECK(mapr_error_span(err, &offset, &length) == 1);
  CHECK(offset == 7 && length == 4);
  CHECK(mapr_error_span(err, NULL, NULL) == 1);

  /* A second failure replaces (and frees) the first error. */
  text = "select count($line)\nlogformat nginx";
  CHECK(mapr_query_compile(text, strlen(text), NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_error_line(err) == 2);
  CHECK(mapr_error_column(err) == 11);
  CHECK(strncmp(mapr_error_message(err),
                "2:11-15: unknown log format 'nginx'\n", 36) == 0);

  /* The text need not be NUL-terminated: only `len` bytes are read. */
  const char padded[] = "select count($line) group by *XXXX";
  mapr_query_t* q = mapr_query_compile(padded, strlen(padded) - 4, NULL, &err);
  CHECK(q != NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT); /* Untouched. */
  mapr_query_free(q);
  mapr_error_free(err);
  err = NULL;

  /* errptr may be NULL; the return value still tells. */
  CHECK(mapr_query_compile("selec", 5, NULL, NULL) == NULL);
  /* NULL text with a length. */
  CHECK(mapr_query_compile(NULL, 3, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_error_line(err) == 0 && mapr_error_column(err) == 0);
  CHECK(mapr_error_span(err, NULL, NULL) == 0);
  mapr_error_free(err);
  err = NULL;

  /* Compile options: limits are errors, never crashes. */
  mapr_compile_options_t* options = mapr_compile_options_create();
  CHECK(options != NULL);
  mapr_compile_options_set_max_query_bytes(options, 10);
  text = "select count($line) group by *";
  CHECK_COMPILE_REFUSED(text, options, "max_query_bytes");
  mapr_compile_options_set_max_query_bytes(options, 1000);
  mapr_compile_options_set_max_depth(options, 2);
  text = "select count($line) where ((((a > 1)))) group by *";
  CHECK_COMPILE_REFUSED(text, options, NULL);
  mapr_compile_options_set_max_depth(options, 64);
  mapr_compile_options_set_max_items(options, 1);
  text = "select count($line),sum(x) group by *";
  CHECK_COMPILE_REFUSED(text, options, NULL);
  mapr_compile_options_set_max_items(options, 1024);
  q = mapr_query_compile(text, strlen(text), options, &err);
  CHECK_NO_ERROR(err);
  mapr_query_free(q);
  /* Percentile settings: out of range is refused. */
  text = "select p99(x) group by *";
  mapr_compile_options_set_percentile(options, 10, 0.5);
  CHECK_COMPILE_REFUSED(text, options, "percentile_accuracy");
  mapr_compile_options_set_percentile(options, 10, 0.05);
  q = mapr_query_compile(text, strlen(text), options, &err);
  CHECK_NO_ERROR(err);
  mapr_query_free(q);
  /* lookup() reads its table only when allowed. */
  {
    FILE* table = fopen("c_api_test_lookup.csv", "w");
    CHECK(table != NULL);
    fputs("k,v\na,1\n", table);
    fclose(table);
  }
  text = "select $v set $v = lookup(k, 'c_api_test_lookup.csv', 'v')";
  CHECK_COMPILE_REFUSED(text, options, "allow_file_lookups");
  mapr_compile_options_set_allow_file_lookups(options, 1);
  q = mapr_query_compile(text, strlen(text), options, &err);
  CHECK_NO_ERROR(err);
  mapr_query_free(q);
  remove("c_api_test_lookup.csv");
  mapr_compile_options_free(options);
}

static void TestPushBytesInPieces(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_aggregator_t* agg = NewAggregator(q);
  mapr_query_free(q); /* The aggregator shares the plan. */
  mapr_error_t* err = NULL;
  /* Chunks cut mid-line, and a last line without '\n'. */
  size_t n = strlen(kCsvLog);
  size_t cut1 = 7, cut2 = 31;
  CHECK(mapr_aggregator_push_bytes(agg, kCsvLog, cut1, &err) == MAPR_OK);
  CHECK(mapr_aggregator_push_bytes(agg, kCsvLog + cut1, cut2 - cut1, &err) ==
        MAPR_OK);
  CHECK(mapr_aggregator_push_bytes(agg, kCsvLog + cut2, n - cut2 - 1, &err) ==
        MAPR_OK);
  CHECK(mapr_aggregator_push_bytes(agg, NULL, 0, &err) == MAPR_OK);
  CHECK_NO_ERROR(err);

  mapr_counters_t c;
  mapr_aggregator_counters(agg, &c);
  CHECK(c.lines_read == 5); /* "a,500,50" is still unfinished. */

  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  CHECK(r != NULL);
  CheckCsv(r,
           "host,count($line),sum(latency),last(status)\n"
           "a,3,90.000000,500\n"
           "b,1,20.000000,500\n"
           "c,1,0.000000,404\n");

  /* Result access. */
  CHECK(mapr_result_column_count(r) == 4);
  CHECK_STREQ(mapr_result_column_name(r, 0), "host");
  CHECK_STREQ(mapr_result_column_name(r, 1), "count($line)");
  CHECK(mapr_result_column_name(r, 4) == NULL);
  CHECK_STREQ(mapr_result_column_aggregate(r, 0), "last");
  CHECK_STREQ(mapr_result_column_aggregate(r, 1), "count");
  CHECK_STREQ(mapr_result_column_aggregate(r, 2), "sum");
  CHECK_STREQ(mapr_result_column_aggregate(r, 3), "last");
  CHECK(mapr_result_column_aggregate(r, 4) == NULL);
  CHECK(mapr_result_column_type(r, 0) == MAPR_VALUE_TEXT);
  CHECK(mapr_result_column_type(r, 1) == MAPR_VALUE_INTEGER);
  CHECK(mapr_result_column_type(r, 2) == MAPR_VALUE_NUMBER);
  CHECK(mapr_result_column_type(r, 3) == MAPR_VALUE_TEXT);
  CHECK(mapr_result_row_count(r) == 3);
  CHECK(mapr_result_total_groups(r) == 3);
  /* c's latency "x" is not a number: a note names the field. */
  CHECK(mapr_result_note_count(r) == 1);
  CHECK_STREQ(mapr_result_note_code(r, 0), "values_not_numeric");
  CHECK_STREQ(mapr_result_note_text(r, 0),
              "1 value of field 'latency' was not a number (such as 'x') and "
              "counted as missing in its numeric aggregates; read durations "
              "and sizes with duration() and bytes() in a set");
  CHECK(mapr_result_note_code(r, 1) == NULL);
  CHECK(mapr_result_note_text(r, 1) == NULL);
  size_t len = 0;
  CHECK_STREQ(mapr_result_cell(r, 0, 0, &len), "a");
  CHECK(len == 1);
  CHECK_STREQ(mapr_result_cell(r, 0, 2, &len), "90.000000");
  CHECK(len == 9);
  CHECK_STREQ(mapr_result_cell(r, 2, 3, NULL), "404");
  CHECK(mapr_result_cell(r, 3, 0, &len) == NULL);
  CHECK(mapr_result_cell(r, 0, 4, &len) == NULL);
  CHECK(mapr_result_value(r, 0, 1) == 3.0);
  CHECK(mapr_result_value(r, 0, 2) == 90.0);
  CHECK(mapr_result_value(r, 2, 3) == 404.0); /* last() parsed. */
  CHECK(mapr_result_value(r, 0, 0) == 0.0);   /* "a" is not numeric. */
  CHECK(isnan(mapr_result_value(r, 3, 0)));
  CHECK(isnan(mapr_result_value(r, 0, 9)));

  mapr_result_counters(r, &c);
  CHECK(c.lines_read == 6);
  CHECK(c.lines_header == 1);
  CHECK(c.lines_aggregated == 5);
  CHECK(c.lines_read ==
        c.lines_too_long + c.lines_table_mismatch + c.lines_ignored +
            c.lines_malformed + c.lines_unmatched + c.lines_header +
            c.lines_filtered + c.lines_without_value + c.lines_aggregated);
  mapr_aggregator_counters(agg, &c);
  CHECK(c.lines_read == 6);

  /* Renderings. */
  char* json = mapr_result_to_json(r, &len, &err);
  CHECK_NO_ERROR(err);
  CHECK(json != NULL && strlen(json) == len);
  CHECK(strncmp(json, "[{\"host\":\"a\",\"count($line)\":3,", 30) == 0);
  mapr_free(json);
  char* ndjson = mapr_result_to_ndjson(r, NULL, &err);
  CHECK_NO_ERROR(err);
  CHECK(strncmp(ndjson, "{\"host\":\"a\",", 12) == 0);
  CHECK(ndjson[strlen(ndjson) - 1] == '\n');
  mapr_free(ndjson);
  char* table = mapr_result_to_table(r, -1, &len, &err);
  CHECK_NO_ERROR(err);
  CHECK_STREQ(table,
              " host | count($line) | sum(latency) | last(status) \n"
              "------|--------------|--------------|--------------\n"
              "    a |            3 |    90.000000 |          500 \n"
              "    b |            1 |    20.000000 |          500 \n"
              "    c |            1 |     0.000000 |          404 \n");
  mapr_free(table);
  table = mapr_result_to_table(r, 1, NULL, &err);
  CHECK_NO_ERROR(err);
  CHECK(strstr(table, "    a |") != NULL && strstr(table, "    b |") == NULL);
  mapr_free(table);
  mapr_result_free(r);

  /* Phases are enforced. */
  CHECK(mapr_aggregator_push_bytes(agg, "a,1,1\n", 6, &err) ==
        MAPR_FAILED_PRECONDITION);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  CHECK(mapr_aggregator_finish(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  CHECK(mapr_aggregator_snapshot(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  CHECK(mapr_aggregator_take_delta(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  mapr_aggregator_free(agg);
}

static void TestPushLineArrays(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_aggregator_t* agg = NewAggregator(q);
  mapr_error_t* err = NULL;

  /* NUL-terminated lines (lengths == NULL). */
  const char* lines[] = {"host,status,latency", "a,200,10", "b,500,20"};
  CHECK(mapr_aggregator_push_lines(agg, lines, NULL, 3, &err) == MAPR_OK);
  /* Pointers and lengths into one buffer, no terminators. */
  const char buf[] = "a,200,30c,404,x";
  const char* views[] = {buf, buf + 8};
  size_t lengths[] = {8, 7};
  CHECK(mapr_aggregator_push_lines(agg, views, lengths, 2, &err) == MAPR_OK);
  CHECK(mapr_aggregator_push_lines(agg, NULL, NULL, 0, &err) == MAPR_OK);
  CHECK_NO_ERROR(err);

  /* A snapshot keeps the state. */
  mapr_result_t* snap = mapr_aggregator_snapshot(agg, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(snap,
           "host,count($line),sum(latency),last(status)\n"
           "a,2,40.000000,200\n"
           "b,1,20.000000,500\n"
           "c,1,0.000000,404\n");
  mapr_result_free(snap);

  /* A second source has its own CSV header. */
  const char* other[] = {"latency,host,status", "5,a,201"};
  CHECK(mapr_aggregator_push_source_lines(agg, 7, other, NULL, 2, &err) ==
        MAPR_OK);
  CHECK(mapr_aggregator_push_source_bytes(agg, 8, "host,latency\nd,1", 16,
                                          &err) == MAPR_OK);
  CHECK(mapr_aggregator_end_source(agg, 8, &err) == MAPR_OK);
  CHECK(mapr_aggregator_end_source(agg, 9, &err) == MAPR_OK); /* Unknown. */
  CHECK_NO_ERROR(err);

  /* Invalid arguments. */
  CHECK(mapr_aggregator_push_lines(agg, NULL, NULL, 2, &err) ==
        MAPR_INVALID_ARGUMENT);
  const char* with_null[] = {NULL};
  size_t one[] = {1};
  CHECK(mapr_aggregator_push_lines(agg, with_null, one, 1, &err) ==
        MAPR_INVALID_ARGUMENT);
  /* Without lengths a line is a NUL-terminated string, which NULL is not:
   * refused (nothing aggregated), as mapr_query_files refuses a NULL name. */
  const char* then_null[] = {"host=z|latency=1", NULL};
  CHECK(mapr_aggregator_push_lines(agg, then_null, NULL, 2, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err), "mapr_aggregator_push_lines: NULL line");
  CHECK(mapr_aggregator_push_bytes(agg, NULL, 4, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_push_bytes(NULL, "x", 1, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(strstr(mapr_error_message(err), "NULL aggregator") != NULL);
  mapr_error_free(err);
  err = NULL;

  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r,
           "host,count($line),sum(latency),last(status)\n"
           "a,3,45.000000,201\n"
           "b,1,20.000000,500\n"
           "c,1,0.000000,404\n"
           "d,1,1.000000,\n");
  mapr_counters_t c;
  mapr_result_counters(r, &c);
  CHECK(c.lines_header == 3);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
}

static void TestDeltaAndMerge(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  mapr_aggregator_t* first = NewAggregator(q);
  mapr_aggregator_t* later = NewAggregator(q);
  CHECK(mapr_aggregator_push_bytes(first, kCsvLog, strlen(kCsvLog), &err) ==
        MAPR_OK);

  /* Tail mode: a delta resets the groups and counters. */
  mapr_result_t* d1 = mapr_aggregator_take_delta(first, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_result_row_count(d1) == 3);
  mapr_result_free(d1);
  mapr_counters_t c;
  mapr_aggregator_counters(first, &c);
  CHECK(c.lines_read == 0);
  CHECK(mapr_aggregator_push_bytes(first, "a,200,1\n", 8, &err) == MAPR_OK);
  mapr_result_t* d2 = mapr_aggregator_take_delta(first, &err);
  CheckCsv(d2,
           "host,count($line),sum(latency),last(status)\n"
           "a,1,1.000000,200\n");
  mapr_result_free(d2);

  /* Merge: `later`'s lines come after `first`'s; last() takes its values. */
  CHECK(mapr_aggregator_push_bytes(first, "a,200,2\n", 8, &err) == MAPR_OK);
  CHECK(mapr_aggregator_push_bytes(later, "host,status,latency\na,301,3\n", 28,
                                   &err) == MAPR_OK);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_merge(first, first, &err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_merge(first, later, &err) == MAPR_OK);
  mapr_error_free(err);
  err = NULL;
  /* `later` is emptied; using it fails until it is freed. */
  CHECK(mapr_aggregator_push_bytes(later, "a,1,1\n", 6, &err) ==
        MAPR_FAILED_PRECONDITION);
  CHECK(mapr_aggregator_merge(first, later, &err) == MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  err = NULL;
  mapr_aggregator_free(later);

  mapr_result_t* r = mapr_aggregator_finish(first, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r,
           "host,count($line),sum(latency),last(status)\n"
           "a,2,5.000000,301\n");
  mapr_result_free(r);
  mapr_aggregator_free(first);

  /* Merging a different query's aggregator fails and changes nothing. */
  mapr_query_t* other_q = Compile("select count($line) group by *");
  mapr_aggregator_t* a = NewAggregator(q);
  mapr_aggregator_t* b = NewAggregator(other_q);
  CHECK(mapr_aggregator_merge(a, b, &err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_push_bytes(b, "x\n", 2, &err) == MAPR_OK);
  mapr_error_free(err);
  mapr_aggregator_free(a);
  mapr_aggregator_free(b);
  mapr_query_free(other_q);
  mapr_query_free(q);
}

static void TestLimits(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  mapr_aggregator_options_set_max_groups(options, 2);
  mapr_aggregator_options_set_max_line_bytes(options, 20);
  CHECK(mapr_aggregator_options_set_hostname(NULL, "x", 1) ==
        MAPR_INVALID_ARGUMENT);
  mapr_aggregator_t* agg = mapr_aggregator_create(q, options, &err);
  mapr_aggregator_options_free(options);
  CHECK_NO_ERROR(err);
  /* A too-long line is counted, not an error. */
  const char* long_line = "a,200,123456789012345";
  CHECK(mapr_aggregator_push_lines(agg, &long_line, NULL, 1, &err) == MAPR_OK);
  mapr_counters_t c;
  mapr_aggregator_counters(agg, &c);
  CHECK(c.lines_too_long == 1);
  /* The third group exceeds max_groups; the error is sticky. */
  CHECK(mapr_aggregator_push_bytes(agg, kCsvLog, strlen(kCsvLog), &err) ==
        MAPR_RESOURCE_EXHAUSTED);
  CHECK(mapr_error_code(err) == MAPR_RESOURCE_EXHAUSTED);
  CHECK(strstr(mapr_error_message(err), "max_groups") != NULL);
  CHECK(mapr_aggregator_push_bytes(agg, "a,1,1\n", 6, &err) ==
        MAPR_RESOURCE_EXHAUSTED);
  mapr_error_free(err);
  mapr_aggregator_free(agg);

  /* NULL query. */
  err = NULL;
  CHECK(mapr_aggregator_create(NULL, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
  mapr_aggregator_counters(NULL, &c);
  CHECK(c.lines_read == 0);
  mapr_query_free(q);
}

static void TestRun(void) {
  mapr_error_t* err = NULL;
  const char* query = "select count($line) group by *";
  mapr_result_t* r = mapr_run(query, strlen(query), "x\ny\nz", 5, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r, "count($line)\n3\n");
  mapr_result_free(r);
  /* Empty input: no rows, and a note that says so. */
  r = mapr_run(query, strlen(query), NULL, 0, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_result_row_count(r) == 0);
  CHECK(mapr_result_note_count(r) == 1);
  CHECK_STREQ(mapr_result_note_code(r, 0), "empty_input");
  CHECK_STREQ(mapr_result_note_text(r, 0),
              "the input had no lines, so the result is empty; is it the "
              "file you meant?");
  CHECK(mapr_result_note_text(r, 1) == NULL);
  mapr_result_free(r);
  /* A query error keeps its position. */
  query = "select count($line) group by * limit x";
  CHECK(mapr_run(query, strlen(query), "x\n", 2, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_error_line(err) == 1 && mapr_error_column(err) > 1);
  mapr_error_free(err);
  err = NULL;
  CHECK(mapr_run(NULL, 1, NULL, 0, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);

  /* NULL results. */
  CHECK(mapr_result_column_count(NULL) == 0);
  CHECK(mapr_result_column_name(NULL, 0) == NULL);
  CHECK(mapr_result_column_aggregate(NULL, 0) == NULL);
  CHECK(mapr_result_column_type(NULL, 0) == MAPR_VALUE_TEXT);
  CHECK(mapr_result_row_count(NULL) == 0);
  CHECK(mapr_result_total_groups(NULL) == 0);
  CHECK(mapr_result_note_count(NULL) == 0);
  CHECK(mapr_result_note_code(NULL, 0) == NULL);
  CHECK(mapr_result_note_text(NULL, 0) == NULL);
  CHECK(mapr_result_cell(NULL, 0, 0, NULL) == NULL);
  CHECK(isnan(mapr_result_value(NULL, 0, 0)));
  err = NULL;
  CHECK(mapr_result_to_csv(NULL, NULL, &err) == NULL);
  CHECK(mapr_result_to_json(NULL, NULL, &err) == NULL);
  CHECK(mapr_result_to_ndjson(NULL, NULL, &err) == NULL);
  CHECK(mapr_result_to_table(NULL, -1, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
}

static void TestOutfile(void) {
  mapr_error_t* err = NULL;
  const char* path = "c_api_test_outfile.csv";
  char text[200];
  snprintf(text, sizeof(text), "select count($line) group by * outfile %s",
           path);
  remove(path);
  mapr_query_t* q = Compile(text);
  mapr_aggregator_t* agg = NewAggregator(q);
  CHECK(mapr_aggregator_push_bytes(agg, "a\nb\n", 4, &err) == MAPR_OK);
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_result_write_outfile(r, q, &err) == MAPR_OK);
  CHECK_NO_ERROR(err);
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL);
  char content[100] = {0};
  size_t n = fread(content, 1, sizeof(content) - 1, f);
  fclose(f);
  CHECK(n > 0);
  CHECK_STREQ(content, "count($line)\n2\n");
  remove(path);
  char sidecar[220];
  snprintf(sidecar, sizeof(sidecar), "%s.query", path);
  remove(sidecar);

  /* A query without outfile. */
  mapr_query_t* plain = Compile("select count($line) group by *");
  CHECK(mapr_result_write_outfile(r, plain, &err) == MAPR_FAILED_PRECONDITION);
  CHECK(mapr_result_write_outfile(NULL, plain, &err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
  err = NULL;
  /* An unwritable path. */
  mapr_query_t* bad = Compile(
      "select count($line) group by * outfile /nonexistent-dir/x/r.csv");
  CHECK(mapr_result_write_outfile(r, bad, &err) != MAPR_OK);
  CHECK(strstr(mapr_error_message(err), "/nonexistent-dir/x/r.csv") != NULL);
  mapr_error_free(err);
  mapr_query_free(bad);
  mapr_query_free(plain);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
}

/* kCsvLog, gzip-compressed (Python: gzip.compress(kCsvLog, mtime=0)). */
static const char kCsvLogGz[] =
    "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xcb\xc8\x2f\x2e\xd1\x29"
    "\x2e\x49\x2c\x29\x2d\xd6\xc9\x49\x2c\x49\xcd\x4b\xae\xe4\x4a\xd4"
    "\x31\x32\x30\xd0\x31\x34\xe0\x4a\xd2\x31\x05\x32\x8c\x0c\xa0\x22"
    "\xc6\x06\x5c\xc9\x3a\x26\x06\x26\x3a\x15\x40\x01\x90\x8c\xa9\x01"
    "\x17\x00\xb3\xb2\x9c\x96\x40\x00\x00\x00";

static void WriteBytes(const char* path, const char* data, size_t len) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  CHECK(fwrite(data, 1, len, f) == len);
  fclose(f);
}

/* Files through the library's input layer (mapr/input.h): plain and
 * compressed files give the same result; errors name the file and keep
 * the codes of the C++ API. */
static void TestSourceNames(void) {
  mapr_error_t* err = NULL;
  mapr_query_t* q = Compile("select $file,count($line) group by $file");
  mapr_aggregator_t* agg = NewAggregator(q);
  const char* lines[] = {"a", "b"};
  CHECK(mapr_aggregator_set_source_name(agg, 4, "app.log", 7, &err) == MAPR_OK);
  CHECK(mapr_aggregator_push_source_lines(agg, 4, lines, NULL, 2, &err) ==
        MAPR_OK);
  CHECK(mapr_aggregator_push_source_lines(agg, 5, lines, NULL, 1, &err) ==
        MAPR_OK);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_set_source_name(agg, 4, NULL, 3, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err),
              "mapr_aggregator_set_source_name: NULL name with a length");
  mapr_error_free(err);
  err = NULL;
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r, "$file,count($line)\n,1\napp.log,2\n");
  CHECK(mapr_aggregator_set_source_name(agg, 4, "x", 1, &err) ==
        MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
}

static void TestPushFile(void) {
  mapr_error_t* err = NULL;
  const char* plain = "c_api_test_push.csv";
  const char* gz = "c_api_test_push.csv.gz";
  WriteBytes(plain, kCsvLog, strlen(kCsvLog));
  WriteBytes(gz, kCsvLogGz, sizeof(kCsvLogGz) - 1);
  const char* want =
      "host,count($line),sum(latency),last(status)\n"
      "a,3,90.000000,500\n"
      "b,1,20.000000,500\n"
      "c,1,0.000000,404\n";
  mapr_query_t* q = Compile(kByHost);
  for (int i = 0; i < 2; ++i) {
    const char* path = i == 0 ? plain : gz;
    mapr_aggregator_t* agg = NewAggregator(q);
    CHECK(mapr_aggregator_push_file(agg, path, strlen(path), &err) == MAPR_OK);
    CHECK_NO_ERROR(err);
    mapr_result_t* r = mapr_aggregator_finish(agg, &err);
    CHECK_NO_ERROR(err);
    CheckCsv(r, want);
    mapr_result_free(r);
    mapr_aggregator_free(agg);
  }
  /* Two sources: each file has its own CSV header. The path needs no
   * NUL terminator. */
  mapr_aggregator_t* agg = NewAggregator(q);
  char path_buf[64];
  memcpy(path_buf, gz, strlen(gz));
  CHECK(mapr_aggregator_push_source_file(agg, 1, path_buf, strlen(gz), &err) ==
        MAPR_OK);
  CHECK(mapr_aggregator_push_source_file(agg, 2, plain, strlen(plain), &err) ==
        MAPR_OK);
  CHECK_NO_ERROR(err);
  mapr_counters_t c;
  mapr_aggregator_counters(agg, &c);
  CHECK(c.lines_read == 12 && c.lines_header == 2);

  /* A missing file. */
  CHECK(mapr_aggregator_push_file(agg, "c_api_test_missing.log", 22, &err) ==
        MAPR_NOT_FOUND);
  CHECK_STREQ(mapr_error_message(err),
              "c_api_test_missing.log: No such file or directory");
  /* A format the library refuses rather than read as text (an lz4 frame). */
  const char* lz4 = "c_api_test_push.lz4";
  WriteBytes(lz4, "\x04\x22\x4d\x18\x64\x40\xa7 and more", 14);
  CHECK(mapr_aggregator_push_file(agg, lz4, strlen(lz4), &err) ==
        MAPR_UNIMPLEMENTED);
  CHECK_STREQ(mapr_error_message(err),
              "c_api_test_push.lz4: lz4-compressed input is not supported; "
              "decompress it first (lz4 -dc c_api_test_push.lz4)");
  /* Truncated compressed data: the complete lines count. */
  const char* cut = "c_api_test_push_cut.gz";
  WriteBytes(cut, kCsvLogGz, sizeof(kCsvLogGz) - 1 - 12);
  CHECK(mapr_aggregator_push_source_file(agg, 3, cut, strlen(cut), &err) ==
        MAPR_DATA_LOSS);
  CHECK_STREQ(mapr_error_message(err),
              "c_api_test_push_cut.gz: unexpected end of gzip data");
  /* Bad arguments. */
  CHECK(mapr_aggregator_push_file(agg, NULL, 3, &err) == MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_push_file(NULL, plain, strlen(plain), &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_push_file(agg, "a\0b", 3, &err) ==
        MAPR_INVALID_ARGUMENT);
  /* The journal: a missing file (or a libmapr without libsystemd), bad
   * arguments. tests/daemon/journal_test.py reads real journal files. */
  const char* journals[] = {"c_api_test_missing.journal"};
  char* cursor = NULL;
  mapr_code_t jc =
      mapr_aggregator_push_journal(agg, journals, 1, NULL, NULL, &cursor, &err);
  CHECK(jc == MAPR_NOT_FOUND || jc == MAPR_UNIMPLEMENTED);
  CHECK(cursor == NULL);
  if (jc == MAPR_NOT_FOUND) {
    CHECK_STREQ(mapr_error_message(err),
                "journal file c_api_test_missing.journal: No such file or "
                "directory");
  }
  CHECK(mapr_aggregator_push_journal(agg, NULL, 2, NULL, NULL, NULL, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err),
              "mapr_aggregator_push_journal: NULL files with a count");
  mapr_error_free(err);
  err = NULL;
  /* Input errors are not the aggregator's: it goes on. */
  mapr_aggregator_counters(agg, &c);
  CHECK(c.lines_read >= 12);
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  CHECK(r != NULL);
  /* After finish: FAILED_PRECONDITION, before the file is opened. */
  CHECK(mapr_aggregator_push_file(agg, "c_api_test_missing.log", 22, &err) ==
        MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
  remove(plain);
  remove(gz);
  remove(lz4);
  remove(cut);
}

/* What the callbacks of mapr_query_files saw. */
typedef struct FilesSeen {
  int problems;
  char text[1024]; /* "name|CODE|reason\n" per problem */
  int progress_calls;
  int done_calls;
  uint64_t bytes_read, total_bytes, lines;
} FilesSeen;

static void OnProblem(void* ctx, const char* name, size_t name_len,
                      mapr_code_t code, const char* reason, size_t reason_len) {
  FilesSeen* seen = (FilesSeen*)ctx;
  CHECK(strlen(name) == name_len && strlen(reason) == reason_len);
  ++seen->problems;
  size_t used = strlen(seen->text);
  snprintf(seen->text + used, sizeof(seen->text) - used, "%s|%s|%s\n", name,
           mapr_code_name(code), reason);
}

static void OnProgress(void* ctx, uint64_t bytes_read, uint64_t total_bytes,
                       uint64_t lines, int done) {
  FilesSeen* seen = (FilesSeen*)ctx;
  ++seen->progress_calls;
  CHECK(seen->done_calls == 0); /* Nothing after the last call. */
  CHECK(bytes_read >= seen->bytes_read && lines >= seen->lines);
  seen->bytes_read = bytes_read;
  seen->total_bytes = total_bytes;
  seen->lines = lines;
  if (done) ++seen->done_calls;
}

/* mapr_query_files: names and globs, plain and gzip files, on one and three
 * threads; problems with single inputs go to the callback and the run goes
 * on; engine errors fail the run. */
static void TestQueryFiles(void) {
  char dir[] = "c_api_test_files_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char a[64], b[64], gz[64], glob[64], missing[64], nothing[64];
  snprintf(a, sizeof(a), "%s/a.csv", dir);
  snprintf(b, sizeof(b), "%s/b.csv", dir);
  snprintf(gz, sizeof(gz), "%s/c.csv.gz", dir);
  snprintf(glob, sizeof(glob), "%s/*.csv", dir);
  snprintf(missing, sizeof(missing), "%s/missing.log", dir);
  snprintf(nothing, sizeof(nothing), "%s/*.nothing", dir);
  static const char kMore[] = "host,status,latency\na,302,5\nd,200,7\n";
  WriteBytes(a, kCsvLog, strlen(kCsvLog));
  WriteBytes(b, kMore, strlen(kMore));
  WriteBytes(gz, kCsvLogGz, sizeof(kCsvLogGz) - 1);
  const uint64_t total =
      strlen(kCsvLog) + strlen(kMore) + (sizeof(kCsvLogGz) - 1);
  /* The gzip file, then the glob's matches a.csv and b.csv in sorted order:
   * last(status) of host a comes from b.csv, the last input. */
  const char* names[] = {gz, glob, missing, nothing};
  char want_problems[512];
  snprintf(want_problems, sizeof(want_problems),
           "%s|NOT_FOUND|no file matches this pattern\n"
           "%s|NOT_FOUND|No such file or directory\n",
           nothing, missing);
  const char* want =
      "host,count($line),sum(latency),last(status)\n"
      "a,7,185.000000,302\n"
      "b,2,40.000000,500\n"
      "c,2,0.000000,404\n"
      "d,1,7.000000,200\n";
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  char* first_csv = NULL;
  for (size_t threads = 1; threads <= 3; threads += 2) {
    mapr_files_options_t* options = mapr_files_options_create();
    CHECK(options != NULL);
    FilesSeen seen;
    memset(&seen, 0, sizeof(seen));
    mapr_files_options_set_threads(options, threads);
    mapr_files_options_set_on_problem(options, OnProblem, &seen);
    mapr_files_options_set_on_progress(options, OnProgress, &seen, 0);
    mapr_files_report_t report;
    memset(&report, 0xff, sizeof(report));
    mapr_result_t* r =
        mapr_query_files(q, names, NULL, 4, options, &report, &err);
    mapr_files_options_free(options);
    CHECK_NO_ERROR(err);
    CHECK(r != NULL);
    char* csv = Csv(r);
    CHECK_STREQ(csv, want);
    if (first_csv == NULL) {
      first_csv = csv;
    } else {
      CHECK_STREQ(csv, first_csv);
      mapr_free(csv);
    }
    mapr_counters_t c;
    mapr_result_counters(r, &c);
    CHECK(c.lines_read == 15 && c.lines_header == 3);
    mapr_result_free(r);
    CHECK(seen.problems == 2);
    CHECK_STREQ(seen.text, want_problems);
    CHECK(report.inputs_ok == 3 && report.inputs_failed == 2);
    CHECK(report.lines_with_nul == 0);
    CHECK(seen.progress_calls >= 1 && seen.done_calls == 1);
    CHECK(seen.lines == 15);
    CHECK(seen.bytes_read == total && seen.total_bytes == total);
  }
  mapr_free(first_csv);

  /* Names with lengths need no NUL; NULL options and report: one thread,
   * no callbacks. */
  char buf[64];
  memcpy(buf, a, strlen(a));
  const char* one[] = {buf};
  const size_t one_len[] = {strlen(a)};
  mapr_result_t* r = mapr_query_files(q, one, one_len, 1, NULL, NULL, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r,
           "host,count($line),sum(latency),last(status)\n"
           "a,3,90.000000,500\n"
           "b,1,20.000000,500\n"
           "c,1,0.000000,404\n");
  mapr_result_free(r);

  /* No input could be read: an empty result, and the report says why. */
  mapr_files_report_t report;
  const char* none[] = {missing};
  r = mapr_query_files(q, none, NULL, 1, NULL, &report, &err);
  CHECK_NO_ERROR(err);
  CHECK(r != NULL && mapr_result_row_count(r) == 0);
  CHECK(report.inputs_ok == 0 && report.inputs_failed == 1);
  mapr_result_free(r);

  /* An engine error ends the run: max_groups (there are four hosts). */
  mapr_files_options_t* options = mapr_files_options_create();
  mapr_aggregator_options_t* agg_options = mapr_aggregator_options_create();
  mapr_aggregator_options_set_max_groups(agg_options, 2);
  CHECK(mapr_files_options_set_aggregator_options(options, agg_options) ==
        MAPR_OK);
  mapr_aggregator_options_free(agg_options); /* Copied. */
  mapr_files_options_set_threads(options, 2);
  r = mapr_query_files(q, names, NULL, 2, options, &report, &err);
  CHECK(r == NULL);
  CHECK(mapr_error_code(err) == MAPR_RESOURCE_EXHAUSTED);
  CHECK(strstr(mapr_error_message(err), "more than 2 groups") != NULL);
  CHECK(report.inputs_ok == 0 && report.inputs_failed == 0);
  mapr_error_free(err);
  err = NULL;
  /* NULL restores the default aggregator options. */
  CHECK(mapr_files_options_set_aggregator_options(options, NULL) == MAPR_OK);
  r = mapr_query_files(q, names, NULL, 2, options, NULL, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_result_row_count(r) == 4);
  mapr_result_free(r);
  mapr_files_options_free(options);

  /* Bad arguments. */
  CHECK(mapr_query_files(NULL, names, NULL, 1, NULL, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err), "mapr_query_files: NULL query");
  CHECK(mapr_query_files(q, names, NULL, 0, NULL, NULL, &err) == NULL);
  CHECK_STREQ(mapr_error_message(err),
              "mapr_query_files: no names (the name \"-\" reads standard "
              "input)");
  CHECK(mapr_query_files(q, NULL, NULL, 1, NULL, NULL, &err) == NULL);
  CHECK_STREQ(mapr_error_message(err),
              "mapr_query_files: NULL names with a count");
  const char* with_null[] = {a, NULL};
  CHECK(mapr_query_files(q, with_null, NULL, 2, NULL, NULL, &err) == NULL);
  CHECK_STREQ(mapr_error_message(err), "mapr_query_files: NULL name");
  const char* nul[] = {"a\0b"};
  const size_t nul_len[] = {3};
  CHECK(mapr_query_files(q, nul, nul_len, 1, NULL, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK_STREQ(mapr_error_message(err),
              "mapr_query_files: a name contains a NUL byte");
  mapr_error_free(err);
  /* NULL options are ignored by the setters. */
  mapr_files_options_set_threads(NULL, 2);
  mapr_files_options_set_on_problem(NULL, OnProblem, NULL);
  mapr_files_options_set_on_progress(NULL, OnProgress, NULL, 0);
  CHECK(mapr_files_options_set_aggregator_options(NULL, NULL) ==
        MAPR_INVALID_ARGUMENT);
  mapr_files_options_free(NULL);

  mapr_query_free(q);
  remove(a);
  remove(b);
  remove(gz);
  CHECK(rmdir(dir) == 0);
}

/* Exceptions thrown by a host's C++ log format become errors. */
static void TestExceptionsNeverCrossTheBoundary(void) {
  CHECK(mapr_test_register_throwing_format() == 1);
  const char* text =
      "select count($line),last(x) group by x logformat throwing";
  mapr_error_t* err = NULL;

  /* Without throwing, the format works. */
  mapr_test_set_throw_mode(kNoThrow);
  mapr_result_t* r = mapr_run(text, strlen(text), "a\nb\na\n", 6, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r, "count($line),last(x)\n2,a\n1,b\n");
  mapr_result_free(r);

  /* At compile time (LogFormat::variables): MAPR_INTERNAL. */
  mapr_test_set_throw_mode(kThrowInVariables);
  CHECK(mapr_query_compile(text, strlen(text), NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);
  CHECK_STREQ(mapr_error_message(err),
              "internal error: C++ exception: host variables() failed");
  CHECK(mapr_error_line(err) == 0);
  CHECK(mapr_run(text, strlen(text), "a\n", 2, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);

  mapr_test_set_throw_mode(kNoThrow);
  mapr_query_t* q = Compile(text);

  /* std::bad_alloc (from NewParser, on the first push): RESOURCE_EXHAUSTED,
   * and the aggregator is poisoned. */
  mapr_aggregator_t* agg = NewAggregator(q);
  mapr_test_set_throw_mode(kThrowBadAllocInNewParser);
  CHECK(mapr_aggregator_push_bytes(agg, "a\n", 2, &err) ==
        MAPR_RESOURCE_EXHAUSTED);
  CHECK_STREQ(mapr_error_message(err), "out of memory (std::bad_alloc)");
  mapr_test_set_throw_mode(kNoThrow);
  CHECK(mapr_aggregator_push_bytes(agg, "a\n", 2, &err) == MAPR_INTERNAL);
  CHECK(strstr(mapr_error_message(err),
               "unusable after an earlier internal "
               "error: out of memory") != NULL);
  mapr_aggregator_free(agg);

  /* std::exception from ParseBatch, through push_lines. */
  agg = NewAggregator(q);
  const char* lines[] = {"a", "b"};
  CHECK(mapr_aggregator_push_lines(agg, lines, NULL, 2, &err) == MAPR_OK);
  mapr_test_set_throw_mode(kThrowInParseBatch);
  CHECK(mapr_aggregator_push_lines(agg, lines, NULL, 2, &err) == MAPR_INTERNAL);
  CHECK_STREQ(mapr_error_message(err),
              "internal error: C++ exception: host parser failed");
  mapr_test_set_throw_mode(kNoThrow);
  /* Every later call on the poisoned aggregator fails. */
  CHECK(mapr_aggregator_snapshot(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);
  CHECK(mapr_aggregator_take_delta(agg, &err) == NULL);
  CHECK(mapr_aggregator_end_source(agg, 0, &err) == MAPR_INTERNAL);
  CHECK(mapr_aggregator_push_source_bytes(agg, 1, "a\n", 2, &err) ==
        MAPR_INTERNAL);
  CHECK(mapr_aggregator_push_source_lines(agg, 1, lines, NULL, 2, &err) ==
        MAPR_INTERNAL);
  mapr_aggregator_t* healthy = NewAggregator(q);
  CHECK(mapr_aggregator_merge(healthy, agg, &err) == MAPR_INTERNAL);
  CHECK(mapr_aggregator_merge(agg, healthy, &err) == MAPR_INTERNAL);
  CHECK(mapr_aggregator_finish(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);
  mapr_aggregator_free(agg);
  mapr_aggregator_free(healthy);

  /* A non-std exception, through push_bytes and finish's last line. */
  agg = NewAggregator(q);
  CHECK(mapr_aggregator_push_bytes(agg, "a", 1, &err) == MAPR_OK);
  mapr_test_set_throw_mode(kThrowIntInParseBatch);
  CHECK(mapr_aggregator_finish(agg, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);
  CHECK_STREQ(mapr_error_message(err),
              "internal error: C++ exception of unknown type");
  mapr_aggregator_free(agg);

  /* Through mapr_run. */
  CHECK(mapr_run(text, strlen(text), "a\n", 2, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INTERNAL);
  mapr_test_set_throw_mode(kNoThrow);
  mapr_error_free(err);
  mapr_query_free(q);
}

/* Partials: serialize after finish, merge in either order, from_partial,
 * inspect, delta partials, and the error codes. */
static mapr_aggregator_t* NewSplitAggregator(const mapr_query_t* q,
                                             uint64_t begin, uint64_t end) {
  mapr_error_t* err = NULL;
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  CHECK(options != NULL);
  CHECK(mapr_aggregator_options_set_hostname(options, "host1", 5) == MAPR_OK);
  CHECK(mapr_aggregator_options_set_splits(options, begin, end) == MAPR_OK);
  CHECK(mapr_aggregator_options_set_splits(options, 3, 3) ==
        MAPR_INVALID_ARGUMENT);
  mapr_aggregator_t* agg = mapr_aggregator_create(q, options, &err);
  mapr_aggregator_options_free(options);
  CHECK_NO_ERROR(err);
  CHECK(agg != NULL);
  return agg;
}

static const char kPartA[] = "host,status,latency\na,200,10\nb,500,20\n";
static const char kPartB[] =
    "host,status,latency\na,200,30\nc,404,x\na,500,50\n";

/* The partial of `text` pushed into an aggregator covering [begin, end). */
static char* PartialOf(const mapr_query_t* q, const char* text, uint64_t begin,
                       uint64_t end, size_t* len) {
  mapr_error_t* err = NULL;
  mapr_aggregator_t* agg = NewSplitAggregator(q, begin, end);
  CHECK(mapr_aggregator_push_bytes(agg, text, strlen(text), &err) == MAPR_OK);
  char* part = mapr_aggregator_finish_partial(agg, len, &err);
  CHECK_NO_ERROR(err);
  CHECK(part != NULL && *len > 8 && memcmp(part, "MAPRPART", 8) == 0);
  /* Still finished, and its own result can be taken. */
  CHECK(mapr_aggregator_push_bytes(agg, "x\n", 2, &err) ==
        MAPR_FAILED_PRECONDITION);
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK(r != NULL);
  mapr_result_free(r);
  mapr_error_free(err);
  mapr_aggregator_free(agg);
  return part;
}

static void TestPartials(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  /* One pass over both parts, each with its header (two sources). */
  mapr_aggregator_t* one = NewAggregator(q);
  CHECK(mapr_aggregator_push_source_bytes(one, 0, kPartA, strlen(kPartA),
                                          &err) == MAPR_OK);
  CHECK(mapr_aggregator_push_source_bytes(one, 1, kPartB, strlen(kPartB),
                                          &err) == MAPR_OK);
  mapr_result_t* r = mapr_aggregator_finish(one, &err);
  CHECK_NO_ERROR(err);
  char* expected = Csv(r);
  mapr_result_free(r);
  mapr_aggregator_free(one);

  size_t len0 = 0, len1 = 0, len2 = 0;
  char* p0 = PartialOf(q, kPartA, 0, 1, &len0);
  char* p1 = PartialOf(q, kPartB, 1, 2, &len1);
  char* p2 = PartialOf(q, kPartB, 2, 3, &len2);

  mapr_partial_info_t info;
  char* text = NULL;
  char* format = NULL;
  CHECK(mapr_partial_inspect(p1, len1, &info, &text, &format, &err) == MAPR_OK);
  CHECK_NO_ERROR(err);
  CHECK(info.major == 1);
  CHECK(info.split_begin == 1 && info.split_end == 2);
  CHECK(info.groups == 2);
  CHECK(info.frame_bytes == len1);
  CHECK(info.counters.lines_read == 4);
  CHECK(text != NULL && strstr(text, "count($line)") != NULL);
  CHECK_STREQ(format, "csv");
  mapr_free(text);
  mapr_free(format);
  CHECK(mapr_partial_inspect(p0, len0, NULL, NULL, NULL, &err) == MAPR_OK);

  /* Either order of merging gives the one-pass result. */
  for (int later_first = 0; later_first < 2; ++later_first) {
    mapr_error_free(err);
    err = NULL;
    mapr_aggregator_t* agg = mapr_aggregator_from_partial(
        later_first ? p1 : p0, later_first ? len1 : len0, NULL, &err);
    CHECK_NO_ERROR(err);
    CHECK(agg != NULL);
    CHECK(mapr_aggregator_merge_serialized(agg, later_first ? p0 : p1,
                                           later_first ? len0 : len1,
                                           &err) == MAPR_OK);
    /* Overlap: split 0 again. The aggregator is untouched. */
    CHECK(mapr_aggregator_merge_serialized(agg, p0, len0, &err) ==
          MAPR_INVALID_ARGUMENT);
    r = mapr_aggregator_finish(agg, &err);
    CHECK(r != NULL);
    char* csv = Csv(r);
    CHECK_STREQ(csv, expected);
    mapr_free(csv);
    mapr_result_free(r);
    /* After finish. */
    CHECK(mapr_aggregator_merge_serialized(agg, p2, len2, &err) ==
          MAPR_FAILED_PRECONDITION);
    mapr_aggregator_free(agg);
  }

  /* Errors. */
  mapr_aggregator_t* agg = mapr_aggregator_from_partial(p0, len0, NULL, &err);
  CHECK(agg != NULL);
  CHECK(mapr_aggregator_merge_serialized(agg, "hello\n", 6, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_merge_serialized(agg, "", 0, &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_merge_serialized(agg, p1, len1 - 1, &err) ==
        MAPR_DATA_LOSS);
  CHECK(mapr_aggregator_merge_serialized(agg, p2, len2, &err) ==
        MAPR_DATA_LOSS); /* missing split 1 */
  p1[len1 - 1] ^= 1;     /* checksum */
  CHECK(mapr_aggregator_merge_serialized(agg, p1, len1, &err) ==
        MAPR_DATA_LOSS);
  p1[len1 - 1] ^= 1;
  CHECK(mapr_partial_inspect("MAPRPAR", 7, &info, NULL, NULL, &err) != MAPR_OK);
  CHECK(mapr_aggregator_from_partial(NULL, 3, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  /* Another query's partial. */
  mapr_query_t* other =
      Compile("select host,count($line) group by host logformat csv");
  size_t other_len = 0;
  char* po = PartialOf(other, kPartB, 1, 2, &other_len);
  CHECK(mapr_aggregator_merge_serialized(agg, po, other_len, &err) ==
        MAPR_INVALID_ARGUMENT);
  /* Still mergeable after all that. */
  CHECK(mapr_aggregator_merge_serialized(agg, p1, len1, &err) == MAPR_OK);
  r = mapr_aggregator_finish(agg, &err);
  CHECK(r != NULL);
  char* csv = Csv(r);
  CHECK_STREQ(csv, expected);
  mapr_free(csv);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_free(po);
  mapr_query_free(other);

  /* Delta partials: successive splits. */
  agg = NewSplitAggregator(q, 0, 1);
  CHECK(mapr_aggregator_push_source_bytes(agg, 0, kPartA, strlen(kPartA),
                                          &err) == MAPR_OK);
  size_t d0_len = 0, d1_len = 0;
  char* d0 = mapr_aggregator_take_delta_partial(agg, &d0_len, &err);
  CHECK(d0 != NULL);
  CHECK(mapr_aggregator_push_source_bytes(agg, 1, kPartB, strlen(kPartB),
                                          &err) == MAPR_OK);
  char* d1 = mapr_aggregator_take_delta_partial(agg, &d1_len, &err);
  CHECK(d1 != NULL);
  CHECK(mapr_partial_inspect(d1, d1_len, &info, NULL, NULL, &err) == MAPR_OK);
  CHECK(info.split_begin == 1 && info.split_end == 2);
  CHECK(mapr_aggregator_take_delta_partial(agg, NULL, &err) == NULL);
  r = mapr_aggregator_finish(agg, &err);
  CHECK(r != NULL);
  mapr_result_free(r);
  CHECK(mapr_aggregator_take_delta_partial(agg, &d1_len, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  mapr_aggregator_free(agg);
  agg = mapr_aggregator_from_partial(d0, d0_len, NULL, &err);
  CHECK(agg != NULL);
  CHECK(mapr_partial_inspect(d1, d1_len, &info, NULL, NULL, &err) == MAPR_OK);
  CHECK(mapr_aggregator_merge_serialized(agg, d1, info.frame_bytes, &err) ==
        MAPR_OK);
  r = mapr_aggregator_finish(agg, &err);
  CHECK(r != NULL);
  csv = Csv(r);
  CHECK_STREQ(csv, expected);
  mapr_free(csv);
  mapr_result_free(r);
  mapr_aggregator_free(agg);

  mapr_free(d0);
  mapr_free(d1);
  mapr_free(p0);
  mapr_free(p1);
  mapr_free(p2);
  mapr_free(expected);
  mapr_error_free(err);
  mapr_query_free(q);
}

/* The CSV of `query` over `bytes` with `result_threads`. */
static char* CsvWithResultThreads(const char* query, const char* bytes,
                                  size_t len, size_t result_threads) {
  mapr_query_t* q = Compile(query);
  mapr_error_t* err = NULL;
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  mapr_aggregator_options_set_result_threads(options, result_threads);
  mapr_aggregator_t* agg = mapr_aggregator_create(q, options, &err);
  mapr_aggregator_options_free(options);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_push_bytes(agg, bytes, len, &err) == MAPR_OK);
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  CHECK_NO_ERROR(err);
  char* csv = Csv(r);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
  return csv;
}

/* Enough groups for three result threads: the same CSV as one thread. */
/* Sources: deltas of two sources do not merge into one aggregator. */
static void TestSources(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  char* deltas[2];
  size_t lens[2];
  for (int i = 0; i < 2; ++i) {
    mapr_aggregator_options_t* options = mapr_aggregator_options_create();
    CHECK(mapr_aggregator_options_set_source(
              options, i == 0 ? "web-a" : "web-b", 5) == MAPR_OK);
    CHECK(mapr_aggregator_options_set_source(NULL, "x", 1) ==
          MAPR_INVALID_ARGUMENT);
    CHECK(mapr_aggregator_options_set_source(options, NULL, 1) ==
          MAPR_INVALID_ARGUMENT);
    mapr_aggregator_t* agg = mapr_aggregator_create(q, options, &err);
    mapr_aggregator_options_free(options);
    CHECK_NO_ERROR(err);
    CHECK(mapr_aggregator_push_bytes(agg, kPartA, strlen(kPartA), &err) ==
          MAPR_OK);
    deltas[i] = mapr_aggregator_take_delta_partial(agg, &lens[i], &err);
    CHECK_NO_ERROR(err);
    CHECK(deltas[i] != NULL);
    mapr_aggregator_free(agg);
  }
  mapr_aggregator_t* reducer =
      mapr_aggregator_from_partial(deltas[0], lens[0], NULL, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_merge_serialized(reducer, deltas[1], lens[1], &err) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(strstr(mapr_error_message(err),
               "partial of another source: source "
               "'web-b' cannot merge with source "
               "'web-a'") != NULL);
  mapr_error_free(err);
  mapr_aggregator_free(reducer);
  mapr_free(deltas[0]);
  mapr_free(deltas[1]);
  mapr_query_free(q);
}

/* Partitions: the frames of every partition, each with its partition. */
static void TestPartitions(void) {
  mapr_query_t* q = Compile(kByHost);
  mapr_error_t* err = NULL;
  mapr_aggregator_t* agg = NewAggregator(q);
  CHECK(mapr_aggregator_push_bytes(agg, kPartA, strlen(kPartA), &err) ==
        MAPR_OK);
  uint64_t groups = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    size_t len = 0;
    char* frame = mapr_aggregator_finish_partition(agg, 3, i, &len, &err);
    CHECK_NO_ERROR(err);
    CHECK(frame != NULL);
    mapr_partial_info_t info;
    CHECK(mapr_partial_inspect(frame, len, &info, NULL, NULL, &err) == MAPR_OK);
    groups += info.groups;
    CHECK(info.counters.lines_read == (i == 0 ? 3u : 0u));
    mapr_free(frame);
  }
  CHECK(groups == 2);
  size_t len = 0;
  CHECK(mapr_aggregator_finish_partition(agg, 3, 3, &len, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
  err = NULL;
  CHECK(mapr_aggregator_finish_partition(agg, 0, 0, &len, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
}

static void TestResultThreads(void) {
  enum { kGroups = 100000 };
  char* log = malloc((size_t)kGroups * 32 + 32);
  CHECK(log != NULL);
  size_t len = (size_t)sprintf(log, "host,status,latency\n");
  for (int i = 0; i < kGroups; ++i) {
    len += (size_t)sprintf(log + len, "h%d,%d,%d\n", (i * 7919) % kGroups,
                           200 + i % 3, i % 1000);
  }
  const char* query =
      "select host,count($line),sum(latency),percentile(latency) group by "
      "host logformat csv";
  char* one = CsvWithResultThreads(query, log, len, 1);
  char* three = CsvWithResultThreads(query, log, len, 3);
  CHECK(strlen(one) > (size_t)kGroups * 10);
  CHECK_STREQ(three, one);
  mapr_free(one);
  mapr_free(three);
  free(log);
}

/* The header's contracts around NULL and finished aggregators
 * (mapr/c_api.h, "Conventions", mapr_aggregator_merge,
 * mapr_aggregator_finish_partial). */
static void TestNullAndPhaseContracts(void) {
  mapr_error_t* err = NULL;
  /* Accessors: NULL, 0 or NaN, and *len 0. */
  size_t len = 99;
  CHECK(mapr_query_text(NULL, &len) == NULL && len == 0);
  len = 99;
  CHECK(mapr_result_cell(NULL, 0, 0, &len) == NULL && len == 0);
  CHECK(mapr_query_column_count(NULL) == 0);
  CHECK(mapr_result_row_count(NULL) == 0);
  CHECK(isnan(mapr_result_value(NULL, 0, 0)));

  /* Every other entry point answers a NULL handle with
   * MAPR_INVALID_ARGUMENT, naming the function. */
#define CHECK_NULL_REFUSED(call, function)                    \
  do {                                                        \
    (void)(call);                                             \
    CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);     \
    CHECK(strncmp(mapr_error_message(err), function ": NULL", \
                  strlen(function ": NULL")) == 0);           \
    mapr_error_free(err);                                     \
    err = NULL;                                               \
  } while (0)
  const char* one_line[] = {"x"};
  CHECK_NULL_REFUSED(mapr_aggregator_create(NULL, NULL, &err),
                     "mapr_aggregator_create");
  CHECK_NULL_REFUSED(mapr_aggregator_push_bytes(NULL, "x", 1, &err),
                     "mapr_aggregator_push_bytes");
  CHECK_NULL_REFUSED(mapr_aggregator_push_lines(NULL, one_line, NULL, 1, &err),
                     "mapr_aggregator_push_lines");
  CHECK_NULL_REFUSED(mapr_aggregator_push_file(NULL, "f", 1, &err),
                     "mapr_aggregator_push_file");
  CHECK_NULL_REFUSED(mapr_aggregator_end_source(NULL, 0, &err),
                     "mapr_aggregator_end_source");
  CHECK_NULL_REFUSED(mapr_aggregator_merge(NULL, NULL, &err),
                     "mapr_aggregator_merge");
  CHECK_NULL_REFUSED(mapr_aggregator_snapshot(NULL, &err),
                     "mapr_aggregator_snapshot");
  CHECK_NULL_REFUSED(mapr_aggregator_finish(NULL, &err),
                     "mapr_aggregator_finish");
  CHECK_NULL_REFUSED(mapr_aggregator_finish_partial(NULL, &len, &err),
                     "mapr_aggregator_finish_partial");
  CHECK_NULL_REFUSED(mapr_aggregator_merge_serialized(NULL, "x", 1, &err),
                     "mapr_aggregator_merge_serialized");
  CHECK_NULL_REFUSED(mapr_result_to_csv(NULL, &len, &err),
                     "mapr_result_to_csv");
  CHECK_NULL_REFUSED(mapr_result_to_json(NULL, &len, &err),
                     "mapr_result_to_json");
  CHECK_NULL_REFUSED(mapr_result_to_ndjson(NULL, &len, &err),
                     "mapr_result_to_ndjson");
  CHECK_NULL_REFUSED(mapr_result_to_table(NULL, -1, &len, &err),
                     "mapr_result_to_table");
#undef CHECK_NULL_REFUSED
  /* Setters returning a code: NULL options, or a NULL text with a length. */
  CHECK(mapr_aggregator_options_set_hostname(NULL, "h", 1) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_options_set_source(NULL, "s", 1) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_options_set_splits(NULL, 0, 1) ==
        MAPR_INVALID_ARGUMENT);
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  CHECK(options != NULL);
  CHECK(mapr_aggregator_options_set_hostname(options, NULL, 3) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_options_set_hostname(options, "web1", 4) == MAPR_OK);
  CHECK(mapr_aggregator_options_set_splits(options, 2, 2) ==
        MAPR_INVALID_ARGUMENT);
  /* Void setters with NULL options do nothing. */
  mapr_aggregator_options_set_max_groups(NULL, 3);
  mapr_aggregator_options_set_max_line_bytes(NULL, 3);

  /* finish_partial twice: the same bytes; after finish: refused. */
  const char* text = "select $line,count($line) group by $line";
  mapr_query_t* q = mapr_query_compile(text, strlen(text), NULL, &err);
  CHECK_NO_ERROR(err);
  mapr_aggregator_t* first = mapr_aggregator_create(q, options, &err);
  CHECK_NO_ERROR(err);
  const char* lines[] = {"a", "b", "a"};
  CHECK(mapr_aggregator_push_lines(first, lines, NULL, 3, &err) == MAPR_OK);
  size_t len1 = 0, len2 = 0;
  char* p1 = mapr_aggregator_finish_partial(first, &len1, &err);
  CHECK_NO_ERROR(err);
  char* p2 = mapr_aggregator_finish_partial(first, &len2, &err);
  CHECK_NO_ERROR(err);
  CHECK(p1 != NULL && p2 != NULL && len1 == len2 && len1 > 0);
  CHECK(memcmp(p1, p2, len1) == 0);
  CHECK(mapr_aggregator_finish_partial(first, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  mapr_error_free(err);
  err = NULL;

  /* merge: `later` finished by finish_partial merges; a target that is
   * finished does not. */
  mapr_aggregator_options_set_splits(options, 1, 2);
  mapr_aggregator_t* later = mapr_aggregator_create(q, options, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_push_lines(later, lines, NULL, 2, &err) == MAPR_OK);
  size_t later_len = 0;
  char* later_bytes = mapr_aggregator_finish_partial(later, &later_len, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_merge(first, later, &err) ==
        MAPR_FAILED_PRECONDITION); /* first is finished */
  mapr_error_free(err);
  err = NULL;
  mapr_aggregator_options_set_splits(options, 0, 1);
  mapr_aggregator_t* open = mapr_aggregator_create(q, options, &err);
  CHECK_NO_ERROR(err);
  CHECK(mapr_aggregator_push_lines(open, lines, NULL, 3, &err) == MAPR_OK);
  CHECK(mapr_aggregator_merge(open, later, &err) == MAPR_OK);
  CHECK_NO_ERROR(err);
  /* Merged away: a second merge of it is refused. */
  CHECK(mapr_aggregator_merge(open, later, &err) == MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  err = NULL;
  mapr_result_t* r = mapr_aggregator_finish(open, &err);
  CHECK_NO_ERROR(err);
  CheckCsv(r, "$line,count($line)\na,3\nb,2\n");
  mapr_result_free(r);
  /* After mapr_aggregator_finish (the result taken), finish_partial is
   * refused. */
  CHECK(mapr_aggregator_finish_partial(open, &len, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_FAILED_PRECONDITION);
  mapr_error_free(err);
  err = NULL;
  mapr_free(p1);
  mapr_free(p2);
  mapr_free(later_bytes);
  mapr_aggregator_free(open);
  mapr_aggregator_free(later);
  mapr_aggregator_free(first);
  mapr_aggregator_options_free(options);
  mapr_query_free(q);
}

/* A partial's query reads its lookup() tables only from the folder the
 * options name. */
static void TestPartialLookupDir(void) {
  char path[] = "/tmp/mapr_c_lookup_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK(write(fd, "host,owner\nweb1,alice\n", 22) == 22);
  close(fd);
  char text[256];
  snprintf(text, sizeof(text),
           "select $o, count($line) set $o = lookup(host, '%s', 'owner') "
           "group by $o logformat logfmt",
           path);
  mapr_error_t* err = NULL;
  mapr_compile_options_t* copts = mapr_compile_options_create();
  mapr_compile_options_set_allow_file_lookups(copts, 1);
  mapr_query_t* q = mapr_query_compile(text, strlen(text), copts, &err);
  CHECK_NO_ERROR(err);
  mapr_compile_options_free(copts);
  size_t len = 0;
  char* part = PartialOf(q, "host=web1\n", 0, 1, &len);
  /* No folder named: refused. */
  CHECK(mapr_aggregator_from_partial(part, len, NULL, &err) == NULL);
  CHECK(mapr_error_code(err) == MAPR_INVALID_ARGUMENT);
  CHECK(strstr(mapr_error_message(err), "partial_lookup_dir") != NULL);
  mapr_error_free(err);
  err = NULL;
  mapr_aggregator_options_t* options = mapr_aggregator_options_create();
  CHECK(mapr_aggregator_options_set_partial_lookup_dir(NULL, "/", 1) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_options_set_partial_lookup_dir(options, NULL, 1) ==
        MAPR_INVALID_ARGUMENT);
  CHECK(mapr_aggregator_options_set_partial_lookup_dir(options, "/", 1) ==
        MAPR_OK);
  mapr_aggregator_t* agg =
      mapr_aggregator_from_partial(part, len, options, &err);
  CHECK_NO_ERROR(err);
  CHECK(agg != NULL);
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  char* csv = Csv(r);
  CHECK_STREQ(csv, "$o,count($line)\nalice,1\n");
  mapr_free(csv);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_aggregator_options_free(options);
  mapr_free(part);
  mapr_query_free(q);
  unlink(path);
}

int main(void) {
  TestVersionAndCodes();
  TestQueryAccessors();
  TestCompileErrors();
  TestPushBytesInPieces();
  TestPushLineArrays();
  TestDeltaAndMerge();
  TestLimits();
  TestRun();
  TestOutfile();
  TestPushFile();
  TestSourceNames();
  TestQueryFiles();
  TestExceptionsNeverCrossTheBoundary();
  TestPartials();
  TestSources();
  TestPartitions();
  TestPartialLookupDir();
  TestResultThreads();
  TestNullAndPhaseContracts();
  printf("c_api_test: %d checks passed\n", g_checks);
  return 0;
}
