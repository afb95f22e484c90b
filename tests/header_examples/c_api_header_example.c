/* The example of mapr/c_api.h, compiled as C11 and run. The code between
 * "clang-format off/on" is the header's, line for line
 * (header_examples_test checks that it stays so). */
#include <stdio.h>
#include <string.h>

#include "mapr/c_api.h"

static int Example(const char* input, size_t input_len) {
  /* clang-format off */
  mapr_error_t* err = NULL;
  const char* text = "from STATS select count($line) group by $hostname";
  mapr_result_t* r = mapr_run(text, strlen(text), input, input_len, &err);
  if (r == NULL) { fprintf(stderr, "%s\n", mapr_error_message(err));
                   mapr_error_free(err); return 2; }
  char* csv = mapr_result_to_csv(r, NULL, NULL);
  if (csv != NULL) fputs(csv, stdout);
  mapr_free(csv); mapr_result_free(r);
  /* clang-format on */
  return 0;
}

int main(void) {
  const char* input =
      "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
      "currentConnections=0|lifetimeConnections=1\n";
  return Example(input, strlen(input));
}
