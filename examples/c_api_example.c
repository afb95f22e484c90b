/* A small C host: compile a query, stream a file through an aggregator in
 * fixed-size chunks, print the DTail table and the line counters.
 *
 *   c_api_example 'from STATS select count($line) group by $hostname' app.log
 *
 * Every handle and string is freed, so valgrind reports no leaks (the test
 * suite runs it under valgrind --leak-check=full). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapr/c_api.h"

/* Prints and frees `err`; returns `exit_code`. */
static int Fail(mapr_error_t* err, int exit_code) {
  fprintf(stderr, "error (%s): %s\n", mapr_code_name(mapr_error_code(err)),
          mapr_error_message(err));
  mapr_error_free(err);
  return exit_code;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c_api_example QUERY FILE\n");
    return 2;
  }
  mapr_error_t* err = NULL;
  mapr_query_t* query =
      mapr_query_compile(argv[1], strlen(argv[1]), NULL, &err);
  if (query == NULL) return Fail(err, 2);
  for (size_t i = 0; i < mapr_query_warning_count(query); ++i) {
    fprintf(stderr, "warning: %s\n", mapr_query_warning(query, i));
  }

  mapr_aggregator_t* agg = mapr_aggregator_create(query, NULL, &err);
  if (agg == NULL) {
    mapr_query_free(query);
    return Fail(err, 1);
  }
  FILE* in = fopen(argv[2], "rb");
  if (in == NULL) {
    perror(argv[2]);
    mapr_aggregator_free(agg);
    mapr_query_free(query);
    return 1;
  }
  /* Chunks cut lines anywhere; the aggregator carries partial lines. (This
   * shows streaming; for a file, mapr_aggregator_push_file also reads
   * compressed ones.) */
  char buf[4096];
  size_t n;
  mapr_code_t code = MAPR_OK;
  while (code == MAPR_OK && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
    code = mapr_aggregator_push_bytes(agg, buf, n, &err);
  }
  fclose(in);
  mapr_result_t* result = NULL;
  if (code == MAPR_OK) result = mapr_aggregator_finish(agg, &err);
  mapr_aggregator_free(agg);
  if (result == NULL) {
    mapr_query_free(query);
    return Fail(err, 1);
  }

  char* table = mapr_result_to_table(result, -1, NULL, &err);
  if (table == NULL) {
    mapr_result_free(result);
    mapr_query_free(query);
    return Fail(err, 1);
  }
  fputs(table, stdout);
  mapr_free(table);

  mapr_counters_t c;
  mapr_result_counters(result, &c);
  printf("%llu lines read, %llu aggregated, %zu rows\n",
         (unsigned long long)c.lines_read,
         (unsigned long long)c.lines_aggregated, mapr_result_row_count(result));

  if (mapr_query_outfile(query) != NULL &&
      mapr_result_write_outfile(result, query, &err) != MAPR_OK) {
    mapr_result_free(result);
    mapr_query_free(query);
    return Fail(err, 1);
  }
  mapr_result_free(result);
  mapr_query_free(query);
  return 0;
}
