// libFuzzer target: the whole pipeline. The first bytes drive a small
// grammar-aware query generator (every clause, aggregate, operator and log
// format); the rest is log bytes (one input in 64 followed by a block with
// more than 4096 distinct values) pushed in two chunks into one aggregator
// and, split elsewhere, into two partials that are merged: both must give the
// same CSV.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/query_internal.h"
#include "mapr/aggregator.h"

namespace {

// Reads choices from the front of the input; runs out gracefully (zeros).
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t Pick(size_t n) { return (pos_ < size_ ? data_[pos_++] : 0) % n; }
  size_t used() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The lookup() table the generated queries may read, written once: keys
// and values that lines of the fuzzer's input may well hold.
const std::string& LookupTable() {
  static const std::string path = [] {
    std::string p = (std::filesystem::temp_directory_path() /
                     "mapr_pipeline_fuzzer_lookup.csv")
                        .string();
    std::ofstream(p, std::ios::binary)
        << "k,v\n1,one\na,\"A, a\"\n,empty\nx,1.5\n-2.5,neg\n";
    return p;
  }();
  return path;
}

// A small grammar-aware query generator: every clause of the language, in
// shapes that compile most of the time (a query that does not compile is
// still a compiler input).
// Every query must give the same bytes split and merged as in one pass:
// sums of floating-point values are exact (rounded once), so the order in
// which partials add them does not matter.
std::string GenerateQuery(Choices& c) {
  static constexpr const char* kFields[] = {
      "x", "y", "a", "b", "$time", "$line", "$hostname", "c", "$empty", "$s"};
  static constexpr const char* kAggregates[] = {
      "count",  "sum",      "min",     "max",        "avg",
      "last",   "first",    "len",     "percentage", "percentile",
      "median", "p99",      "p99.9",   "p0",         "dcount",
      "stddev", "variance", "stddevp", "variancep",  "rate",
      "cumsum", "topk",     "rare",    "histogram",  ""};
  static constexpr const char* kFloatOps[] = {
      "==", "!=", "<", "<=", ">", ">=", "=<", "=>"};
  static constexpr const char* kStringOps[] = {
      "eq",        "ne",         "contains",  "ncontains",  "lacks",
      "hasprefix", "nhasprefix", "hassuffix", "nhassuffix", "ieq",
      "ine",       "icontains",  "nicontains"};
  static constexpr const char* kInValues[] = {"\"a\"", "1", "\"\"", "-2.5",
                                              "\"A\""};
  static constexpr const char* kLiterals[] = {"1",     "-2.5", "0", "1e3",
                                              "\"a\"", "\"\"", "x", "b"};
  static constexpr const char* kFormats[] = {
      "",
      " logformat generic",
      " logformat generickv",
      " logformat csv",
      " logformat auto",
      " logformat pattern '<x> <y>=<a>;<_>|<b>'"};
  auto field = [&] { return std::string(kFields[c.Pick(std::size(kFields))]); };
  std::string q = c.Pick(2) == 0 ? "from STATS select " : "from * select ";
  const size_t items = 1 + c.Pick(4);
  std::vector<std::string> names;
  for (size_t i = 0; i < items; ++i) {
    const std::string agg = kAggregates[c.Pick(std::size(kAggregates))];
    std::string item = agg.empty() ? field() : agg + "(" + field() + ")";
    if (agg == "topk" || agg == "rare") {
      // topk(x, k): exact up to 4096 distinct values per group; past them
      // (WideBlock) a sketch whose list must be as split-invariant.
      static constexpr const char* kCounts[] = {"1", "2", "100"};
      item.insert(item.size() - 1,
                  std::string(", ") + kCounts[c.Pick(std::size(kCounts))]);
    } else if (agg == "histogram") {
      static constexpr const char* kWidths[] = {"1", "0.5", "100", "1e-3"};
      item.insert(item.size() - 1,
                  std::string(", ") + kWidths[c.Pick(std::size(kWidths))]);
    } else if (!agg.empty() && c.Pick(6) == 0) {
      // A running total of an aggregate: cumsum(count(x)).
      item = "cumsum(" + item + ")";
    }
    if (i > 0) q += ",";
    q += item;
    names.push_back(item);
  }
  if (c.Pick(2) == 0) {
    q += " where ";
    const size_t conditions = 1 + c.Pick(3);
    for (size_t i = 0; i < conditions; ++i) {
      if (i > 0) q += c.Pick(2) == 0 ? " and " : " or ";
      if (c.Pick(4) == 0) q += "not ";
      const bool string_op = c.Pick(2) == 0;
      // An operand may be an expression or a call (`where len(x) > 1`).
      static constexpr const char* kWhereExprs[] = {
          "@ + 1",           "(@ - y) * 2",    "len(@)", "lower(@)",
          "substr(@, 1, 2)", "coalesce(@, b)", "@ / 0",  "(@)",
          "template(@)",     "isnull(@)"};
      std::string lhs = field();
      if (c.Pick(3) == 0) {
        std::string e = kWhereExprs[c.Pick(std::size(kWhereExprs))];
        e.replace(e.find('@'), 1, lhs);
        lhs = e;
      }
      if (string_op && c.Pick(4) == 0) {
        q += lhs + " in (";
        const size_t n = 1 + c.Pick(3);
        for (size_t k = 0; k < n; ++k) {
          if (k > 0) q += ", ";
          q += kInValues[c.Pick(std::size(kInValues))];
        }
        q += ")";
        continue;
      }
      q += lhs + " " +
           (string_op ? kStringOps[c.Pick(std::size(kStringOps))]
                      : kFloatOps[c.Pick(std::size(kFloatOps))]) +
           " " + kLiterals[c.Pick(std::size(kLiterals))];
    }
  }
  bool has_set = false;
  if (c.Pick(3) == 0) {
    // $s is also one of kFields: where, group by and aggregates read it.
    static constexpr const char* kCalls[] = {
        "md5sum(@)",
        "maskdigits(@)",
        "time(@)",
        "time(@, '%Y-%m-%d %H:%M:%S')",
        "bucket(@, 1m)",
        "bucket(@, 5m)",
        "bucket(@, 1h)",
        "bucket(@, 1d)",
        "bucket(@, 30s)",
        "bucket(@, 100)",
        "bucket(@, 0.5)",
        "bucket(time(@), 5m)",
        "duration(@)",
        "bytes(@)",
        "lower(@)",
        "upper(@)",
        "len(@)",
        "substr(@, 2, 3)",
        "substr(@, -2)",
        "split(@, '.', 2)",
        "split(@, '=', -1)",
        "@ + 1",
        "@ * 2 - 0.5",
        "(@ - y) / 4",
        "@ / 0",
        "coalesce(@, 'none')",
        "coalesce(@, x) * b",
        "len(@) + duration(b)",
        "bucket(@ * 10, 0.5)",
        "format_time(@, '%Y-%m-%d %H:%M')",
        "format_time(bucket(time(@), 1h), '%a %E3S')",
        "template(@)",
        "template(lower(@))",
        "cidr(@, 24)",
        "cidr(@, 8, 48)",
        "cidr(@, '10.0.0.0/8')",
        "ip_in(@, '10.0.0.0/8 ::1, 192.168.0.0/16')",
        "lookup(@, '%T', 'v')",
        "lookup('%T', @, 'k', 'v')",
        "isnull(@)",
        "isnull(regex(@, 'a+')) + 1"};
    std::string call = kCalls[c.Pick(std::size(kCalls))];
    call.replace(call.find('@'), 1, field());
    if (const size_t t = call.find("%T"); t != std::string::npos) {
      call.replace(t, 2, LookupTable());
    }
    q += " set $s = " + call;
    has_set = true;
  }
  // Sometimes a window, grouped by: the result joins the hops.
  const bool window = c.Pick(6) == 0;
  if (window) {
    static constexpr const char* kWindows[] = {
        "window(@, 5m, 1m)", "window(@, 1h, 15m)", "window(@, 2m, 2m)",
        "window(time(@), 3m, 1m)", "window(@, 1d, 1h)"};
    std::string call = kWindows[c.Pick(std::size(kWindows))];
    call.replace(call.find('@'), 1, field());
    q += (has_set ? ", $w = " : " set $w = ") + call;
  }
  // Values having and order by may name: the select items, group fields
  // and (having only) aggregates that are not selected (hidden slots).
  std::vector<std::string> values = names;
  if (window) {
    q += c.Pick(2) == 0 ? " group by $w" : " group by $w, " + field();
    values.push_back("$w");
  } else if (c.Pick(3) != 0) {
    std::string g = field();
    q += " group by " + g;
    values.push_back(g);
    if (c.Pick(2) == 0) {
      g = field();
      q += "," + g;
      values.push_back(g);
    }
  }
  auto value = [&] {
    if (c.Pick(4) == 0) {
      const std::string agg = kAggregates[c.Pick(std::size(kAggregates) - 1)];
      return agg + "(" + field() + ")";
    }
    return values[c.Pick(values.size())];
  };
  if (c.Pick(3) == 0) {
    q += " having ";
    const size_t conditions = 1 + c.Pick(3);
    for (size_t i = 0; i < conditions; ++i) {
      if (i > 0) q += c.Pick(2) == 0 ? " and " : " or ";
      if (c.Pick(4) == 0) q += "not ";
      const bool string_op = c.Pick(2) == 0;
      q += value() + " " +
           (string_op ? kStringOps[c.Pick(std::size(kStringOps))]
                      : kFloatOps[c.Pick(std::size(kFloatOps))]) +
           " " + (c.Pick(2) == 0 ? value() : kLiterals[c.Pick(4)]);
    }
  }
  if (c.Pick(3) == 0) {
    q += c.Pick(4) == 0 ? " rorder by " : " order by ";
    const size_t keys = 1 + c.Pick(3);
    for (size_t i = 0; i < keys; ++i) {
      if (i > 0) q += ", ";
      q += values[c.Pick(values.size())];
      if (c.Pick(3) == 0) q += " asc";
    }
  }
  if (c.Pick(3) == 0) q += " limit " + std::to_string(c.Pick(5));
  q += kFormats[c.Pick(std::size(kFormats))];
  // Events of several lines (`multiline`).
  static constexpr const char* kMultiline[] = {
      " multiline indented", " multiline stacktrace", " multiline '^[a-z]'",
      " multiline '^\\d'"};
  if (c.Pick(4) == 0) q += kMultiline[c.Pick(std::size(kMultiline))];
  return q;
}

constexpr size_t kMaxLineBytes = 4096;

std::string Run(const mapr::Query& q, std::string_view bytes, size_t split) {
  mapr::AggregatorOptions options;
  options.hostname = "fuzz";
  options.max_line_bytes = kMaxLineBytes;
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

// Lines with more than 4096 distinct values of x, y, a and b (so topk,
// dcount and histogram pass their exact limits), a few of them frequent,
// in the shapes of the DTail default format and of generickv: `shape`
// picks how many and how skewed.
std::string WideBlock(size_t shape) {
  const size_t distinct = 4097 + shape * 13;
  const size_t hot = 1 + shape % 7;
  std::string out;
  for (size_t i = 0; i < distinct + hot * 60; ++i) {
    // The lines past `distinct` repeat the hot values.
    const size_t v = i < distinct ? i * 7919 % distinct : i % hot;
    const std::string value = std::to_string(v) + (v % 3 == 0 ? ".5" : "");
    if (i % 2 == 0) {
      out +=
          "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|"
          "MAPREDUCE:STATS|";
    }
    out += "x=" + value + "|y=" + std::to_string(v % 5000) +
           "|a=" + std::to_string(v / 2) + "|b=w" + std::to_string(v) + "\n";
  }
  return out;
}

// The UTF-8 byte-order mark, dropped at the start of each stream.
constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Choices choices(data + 1, size - 1);
  const std::string text = GenerateQuery(choices);
  mapr::CompileOptions options;
  options.allow_file_lookups = true;
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(text, options);
  if (!q.ok()) return 0;
  // The generated text round-trips through the compiler's own spelling.
  if (!mapr::Query::Compile(q->ToString(), options).ok()) __builtin_trap();
  // One input in 64 ends with a wide block (after a line break), chosen
  // by a hash of the whole input, so that a mutant of a wide input is
  // seldom wide too (4100 to 4900 lines cost as much as a hundred other
  // inputs; chosen by a byte, wide inputs came to fill the corpus).
  uint64_t fnv = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    fnv = (fnv ^ data[i]) * 0x100000001b3ULL;
  }
  std::string input(reinterpret_cast<const char*>(data + 1 + choices.used()),
                    size - 1 - choices.used());
  if (fnv >> 58 == 0) input += "\n" + WideBlock((fnv >> 40) % 32);
  const std::string_view bytes = input;
  // Split at the line boundary nearest to data[0]'s share of the input.
  size_t split = bytes.size() * data[0] / 256;
  size_t nl = bytes.find('\n', split);
  split = nl == std::string_view::npos ? bytes.size() : nl + 1;
  // The second partial is a new stream, whose byte-order mark is dropped
  // (a file split by byte ranges continues its stream: LineSplitter::
  // ContinueStream); so split after a line that starts with none.
  while (split < bytes.size() && bytes.substr(split).starts_with(kBom)) {
    nl = bytes.find('\n', split);
    split = nl == std::string_view::npos ? bytes.size() : nl + 1;
  }
  // A `multiline` query's splits begin where an event starts (as mapr cuts
  // files: io/files_plan.cc), never at a line Run() drops as too long.
  if (const mapr::parser::EventStart* rule =
          mapr::QueryInternal::GetPlan(*q).event_start.get();
      rule != nullptr) {
    while (split < bytes.size()) {
      nl = bytes.find('\n', split);
      const size_t end = nl == std::string_view::npos ? bytes.size() : nl;
      const std::string_view line = bytes.substr(split, end - split);
      const size_t bare = line.ends_with('\r') ? line.size() - 1 : line.size();
      if (!line.starts_with(kBom) && bare <= kMaxLineBytes &&
          rule->Starts(line)) {
        break;
      }
      split = nl == std::string_view::npos ? bytes.size() : nl + 1;
    }
  }
  std::string one = Run(*q, bytes, bytes.size());
  std::string two = Run(*q, bytes, split);
  // CSV learns a header per source, so a second partial reads its first
  // line as a header: only the stateless formats must match.
  if (q->log_format() != "csv" && one != two) __builtin_trap();
  return 0;
}
