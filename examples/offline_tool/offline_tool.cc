// The smallest complete mapr host: compile a query, push a file (plain or
// compressed), print the DTail terminal table.
//
//   offline_tool 'from STATS select count($line) group by $hostname' app.log
#include <iostream>

#include "mapr/mapr.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: offline_tool QUERY FILE\n";
    return 2;
  }
  absl::StatusOr<mapr::Query> query = mapr::Query::Compile(argv[1]);
  if (!query.ok()) {
    std::cerr << query.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(*query);
  if (!agg.ok()) {
    std::cerr << agg.status().message() << "\n";
    return 1;
  }
  // Reads the file through mapr's input layer (mapr/input.h): .gz, .zst, .xz
  // and .bz2 files are decompressed; errors name the file.
  absl::Status s = mapr::PushFile(*agg, argv[2]);
  s.Update(agg->FinishInput());
  absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
  if (!s.ok() || !result.ok()) {
    std::cerr << (s.ok() ? result.status() : s).message() << "\n";
    return 1;
  }
  std::cout << result->ToTable();
  return 0;
}
