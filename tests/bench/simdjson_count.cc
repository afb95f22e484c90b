// A reference for tests/bench/formats.sh's json count query: how fast
// simdjson alone validates a JSON-lines file and counts its objects, with
// nothing else to do (no batches, no counters, no result).
//
//   simdjson_count FILE
//
// Loads FILE whole (as `mapr` reads it, through read(2)), then runs
// simdjson's fastest whole-document path over it: the DOM document stream
// (dom::parser::parse_many), which validates every document fully (stage 1
// and stage 2) and runs stage 1 of the next batch on a second thread when
// the library is built with threads (Debian's is). Prints the number of
// documents that are objects, and on standard error the wall and CPU
// seconds the parse took, leaving out the load (`query_time: WALL CPU`, as
// formats.sh's DuckDB runs print theirs); exit 1 if any document is not
// valid JSON.
// Not part of ctest; built by formats.sh with g++ -O2 against
// libsimdjson-dev.
#include <chrono>
#include <cstdio>
#include <ctime>

#include <simdjson.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: simdjson_count FILE\n");
    return 2;
  }
  simdjson::padded_string data;
  if (simdjson::padded_string::load(argv[1]).get(data) != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson_count: cannot read %s\n", argv[1]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  simdjson::dom::parser parser;
  simdjson::dom::document_stream stream;
  if (parser.parse_many(data).get(stream) != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson_count: cannot parse %s\n", argv[1]);
    return 1;
  }
  unsigned long long objects = 0;
  for (auto doc : stream) {
    simdjson::dom::element element;
    if (doc.get(element) != simdjson::SUCCESS) {
      std::fprintf(stderr, "simdjson_count: invalid JSON in %s\n", argv[1]);
      return 1;
    }
    objects += element.is_object();
  }
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - start;
  // Process CPU time: both threads.
  const double cpu =
      static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::fprintf(stderr, "query_time: %.3f %.3f\n", took.count(), cpu);
  std::printf("%llu\n", objects);
  return 0;
}
