// References for tests/bench/formats.sh's json count query: how fast
// simdjson alone gets through a JSON-lines file, with nothing else to do
// (no batches, no counters, no result).
//
//   simdjson_count FILE            the lines as a document stream
//   simdjson_count --array FILE    the lines as one array (small files)
//
// Loads FILE whole (as `mapr` reads it, through read(2)), then:
//  - by default, runs simdjson's whole-document path for JSON lines: the
//    DOM document stream (dom::parser::parse_many), which validates every
//    document fully (stage 1 and stage 2) and runs stage 1 of the next
//    batch on a second thread when the library is built with threads
//    (Debian's is). Prints the number of documents that are objects, and
//    on standard error the wall and CPU seconds the parse took, leaving
//    out the load (`query_time: WALL CPU`, as formats.sh's DuckDB runs
//    print theirs); exit 1 if any document is not valid JSON.
//  - with --array, joins the lines into one array `[line,line,...]`, so no
//    cost is paid per line, and prints simdjson's best speed over 10 runs
//    (GB/s) for a DOM parse of it and for an On-Demand iteration that
//    skips each element by its brackets (stage 1 and the skips: the least
//    simdjson does to walk the lines), with the kernel it chose.
// Not part of ctest; built by formats.sh with g++ -O2 against
// libsimdjson-dev.
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <string_view>

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

int Stream(const simdjson::padded_string& data, const char* path) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  simdjson::dom::parser parser;
  simdjson::dom::document_stream stream;
  if (parser.parse_many(data).get(stream) != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson_count: cannot parse %s\n", path);
    return 1;
  }
  unsigned long long objects = 0;
  for (auto doc : stream) {
    simdjson::dom::element element;
    if (doc.get(element) != simdjson::SUCCESS) {
      std::fprintf(stderr, "simdjson_count: invalid JSON in %s\n", path);
      return 1;
    }
    objects += element.is_object();
  }
  const double wall = Seconds(start);
  // Process CPU time: both threads.
  const double cpu =
      static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::fprintf(stderr, "query_time: %.3f %.3f\n", wall, cpu);
  std::printf("%llu\n", objects);
  return 0;
}

int Array(const simdjson::padded_string& data, const char* path) {
  std::string joined = "[";
  std::string_view rest(data.data(), data.size());
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    if (!line.empty()) {
      if (joined.size() > 1) joined += ',';
      joined += line;
    }
    rest =
        nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  joined += ']';
  const simdjson::padded_string doc(joined);
  double dom_best = 1e9, od_best = 1e9;
  size_t elements = 0;
  simdjson::dom::parser dom;
  simdjson::ondemand::parser od;
  for (int run = 0; run < 10; ++run) {
    auto start = std::chrono::steady_clock::now();
    simdjson::dom::element root;
    if (dom.parse(doc).get(root) != simdjson::SUCCESS) {
      std::fprintf(stderr, "simdjson_count: invalid JSON in %s\n", path);
      return 1;
    }
    dom_best = std::min(dom_best, Seconds(start));
    start = std::chrono::steady_clock::now();
    simdjson::ondemand::document d;
    simdjson::ondemand::array array;
    if (od.iterate(doc).get(d) != simdjson::SUCCESS ||
        d.get_array().get(array) != simdjson::SUCCESS) {
      std::fprintf(stderr, "simdjson_count: invalid JSON in %s\n", path);
      return 1;
    }
    elements = 0;
    for (auto element : array) {
      if (element.error() != simdjson::SUCCESS) return 1;
      ++elements;
    }
    od_best = std::min(od_best, Seconds(start));
  }
  const double bytes = static_cast<double>(joined.size());
  std::printf(
      "%s kernel, %zu elements, %.0f bytes: DOM parse %.2f GB/s, "
      "On-Demand skip %.2f GB/s\n",
      std::string(simdjson::get_active_implementation()->name()).c_str(),
      elements, bytes, bytes / dom_best / 1e9, bytes / od_best / 1e9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool array = argc == 3 && std::string_view(argv[1]) == "--array";
  if (argc != 2 && !array) {
    std::fprintf(stderr, "usage: simdjson_count [--array] FILE\n");
    return 2;
  }
  const char* path = argv[argc - 1];
  simdjson::padded_string data;
  if (simdjson::padded_string::load(path).get(data) != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson_count: cannot read %s\n", path);
    return 2;
  }
  return array ? Array(data, path) : Stream(data, path);
}
