// libFuzzer target: the whole pipeline. The first line of the input picks a
// query from a small set (and a log format); the rest is log bytes pushed in
// two chunks into one aggregator and, split elsewhere, into two partials
// that are merged: both must give the same CSV.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mapr/aggregator.h"

namespace {

constexpr std::string_view kQueries[] = {
    "from STATS select count($line),last($time),avg(x),min(x),max(x),len(y) "
    "group by $hostname",
    "select count($line),sum(a),percentage(a),percentile(a) group by b "
    "logformat generickv",
    "select count($line),last(c) group by a,b logformat csv",
    "from * select $time,count($line) where x > 1 or not y contains \"a\" "
    "set $m = md5sum(y), $d = maskdigits($line) group by $m,$time order by "
    "count($line) limit 5",
    "select count($line) group by *",
};

std::string Run(const mapr::Query& q, std::string_view bytes, size_t split) {
  mapr::AggregatorOptions options;
  options.hostname = "fuzz";
  options.max_line_bytes = 4096;
  auto a = mapr::Aggregator::Create(q, options);
  auto b = mapr::Aggregator::Create(q, options);
  if (!a.ok() || !b.ok()) __builtin_trap();
  (void)a->PushBytes(bytes.substr(0, split));
  (void)b->PushBytes(bytes.substr(split));
  // The unfinished line of `a` continues in `b` only within one stream, so
  // close `a`'s first: the partial split must be at a line boundary.
  (void)a->Merge(std::move(*b));
  if (!a->FinishInput().ok()) __builtin_trap();
  auto r = a->TakeResult();
  if (!r.ok()) __builtin_trap();
  (void)r->ToTable();
  (void)r->ToJson();
  return r->ToCsv();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t which = data[0] % std::size(kQueries);
  const mapr::Query q = *mapr::Query::Compile(kQueries[which]);
  std::string_view bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  // Split at the line boundary nearest to data[1]'s share of the input.
  size_t split = bytes.size() * data[1] / 256;
  size_t nl = bytes.find('\n', split);
  split = nl == std::string_view::npos ? bytes.size() : nl + 1;
  std::string one = Run(q, bytes, bytes.size());
  std::string two = Run(q, bytes, split);
  // CSV learns a header per source, so a second partial reads its first
  // line as a header: only the stateless formats must match.
  if (q.log_format() != "csv" && one != two) __builtin_trap();
  return 0;
}
