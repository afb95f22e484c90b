// The smallest complete mapr host: compile a query, push a file, print the
// DTail terminal table.
//
//   offline_tool 'from STATS select count($line) group by $hostname' app.log
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

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
  std::ifstream in(argv[2]);
  if (!agg.ok() || !in) {
    std::cerr << "cannot read " << argv[2] << "\n";
    return 1;
  }
  std::vector<std::string> batch;
  std::string line;
  auto flush = [&] {
    std::vector<std::string_view> views(batch.begin(), batch.end());
    absl::Status s = agg->PushLines(views);
    batch.clear();
    return s;
  };
  while (std::getline(in, line)) {
    batch.push_back(line);
    if (batch.size() == mapr::kMaxBatchRows && !flush().ok()) return 1;
  }
  absl::Status s = flush();
  s.Update(agg->FinishInput());
  absl::StatusOr<mapr::ResultTable> result = agg->TakeResult();
  if (!s.ok() || !result.ok()) {
    std::cerr << (s.ok() ? result.status() : s).message() << "\n";
    return 1;
  }
  std::cout << result->ToTable();
  return 0;
}
