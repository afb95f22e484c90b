/* The installed C interface from a C11 program. */
#include <stdio.h>
#include <string.h>

#include "mapr/c_api.h"
#include "mapr/version.h"

int main(void) {
  const char* query = "select $line,count($line) group by $line";
  const char* input = "a\nb\na\n";
  mapr_error_t* err = NULL;
  mapr_result_t* r = mapr_run(query, strlen(query), input, strlen(input), &err);
  if (r == NULL) {
    fprintf(stderr, "%s\n", mapr_error_message(err));
    mapr_error_free(err);
    return 1;
  }
  char* csv = mapr_result_to_csv(r, NULL, &err);
  int ok = csv != NULL && strcmp(csv, "$line,count($line)\na,2\nb,1\n") == 0 &&
           strcmp(mapr_version(), MAPR_VERSION_STRING) == 0;
  printf("c_consumer: mapr %s %s", mapr_version(), ok ? "OK\n" : "FAILED\n");
  mapr_free(csv);
  mapr_result_free(r);
  return ok ? 0 : 1;
}
