// lookup(x, 'hosts.csv', 'column'): the `column` of the row of a CSV table
// whose first column (or the column named by a fourth argument) is the
// value; missing if no row has it. The table is read when the query
// compiles (CompileOptions::allow_file_lookups), and its bytes' hash is part
// of the query's fingerprint: partials made with different tables refuse to
// merge.
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/csv.h"
#include "runtime/function.h"
#include "runtime/functions/function_args.h"
#include "util/arena.h"
#include "util/strings.h"
#include "xxhash.h"

namespace mapr::runtime {
namespace {

struct LookupBinding : plan::FunctionBinding {
  std::string path, column, key_column;  // As written.
  absl::flat_hash_map<std::string, std::string> rows;
  std::string ArgsText() const override {
    return absl::StrCat(", '", path, "', '", column, "'",
                        key_column.empty() ? "" : ", '", key_column,
                        key_column.empty() ? "" : "'");
  }
};

constexpr std::string_view kUsage =
    "lookup(x, 'table.csv', 'column') or lookup(x, 'table.csv', 'column', "
    "'key')";

bool QuotedArg(const ast::Token& t, std::string_view what,
               plan::BindContext& ctx) {
  if (t.kind == ast::TokenKind::kString && !t.text.empty()) return true;
  ctx.Error(t.span,
            absl::StrCat("the ", util::ToAbsl(what),
                         " of lookup() must be a non-empty 'quoted' string"),
            absl::StrCat("write: ", util::ToAbsl(kUsage)));
  return false;
}

// The table's lines: `text` cut at '\n', a '\r' before it dropped, and a
// last empty line (after the final '\n') left out.
std::vector<std::string_view> TableLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    at = end + 1;
  }
  return lines;
}

// Splits the table's CSV lines, reusing its buffers from line to line.
class FieldSplitter {
 public:
  // The fields of `line` (none if it has more than kMaxFields).
  std::vector<std::string> Fields(std::string_view line) {
    arena_.Reset();
    const CsvSplitResult r =
        SplitCsvRecord(line, views_.data(), views_.size(), &arena_);
    std::vector<std::string> fields;
    if (r.too_many) return fields;  // Refused by the caller.
    for (size_t i = 0; i < r.num_fields; ++i) fields.emplace_back(views_[i]);
    return fields;
  }

 private:
  static constexpr size_t kMaxFields = 4096;
  std::vector<std::string_view> views_ =
      std::vector<std::string_view>(kMaxFields);
  util::Arena arena_;
};

bool Bind(std::span<const ast::Token> args, plan::BindContext& ctx,
          std::shared_ptr<const plan::FunctionBinding>* binding) {
  if (!QuotedArg(args[0], "table", ctx) || !QuotedArg(args[1], "column", ctx) ||
      (args.size() > 2 && !QuotedArg(args[2], "key column", ctx))) {
    return false;
  }
  auto b = std::make_shared<LookupBinding>();
  b->path = args[0].text;
  b->column = args[1].text;
  if (args.size() > 2) b->key_column = args[2].text;
  const ast::Span span = args[0].span;
  absl::StatusOr<std::string> text = ctx.ReadLookupFile(b->path);
  if (!text.ok()) {
    ctx.Error(span, std::string(text.status().message()),
              "lookup() reads a CSV file whose first line names its columns");
    return false;
  }
  const std::vector<std::string_view> lines = TableLines(*text);
  FieldSplitter splitter;
  const std::vector<std::string> header =
      lines.empty() ? std::vector<std::string>() : splitter.Fields(lines[0]);
  if (header.empty()) {
    ctx.Error(
        span,
        absl::StrCat("the lookup table '", b->path, "' has no header line"),
        "its first line names the columns: host,owner,rack");
    return false;
  }
  auto column_of = [&](const std::string& name, const ast::Token& t,
                       size_t* out) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) {
        *out = i;
        return true;
      }
    }
    ctx.Error(
        t.span,
        absl::StrCat("the lookup table '", b->path, "' has no column '", name,
                     "'"),
        absl::StrCat("its columns: '", absl::StrJoin(header, "', '"), "'"));
    return false;
  };
  size_t key = 0, value = 0;
  if (!column_of(b->column, args[1], &value)) return false;
  if (args.size() > 2 && !column_of(b->key_column, args[2], &key)) {
    return false;
  }
  for (size_t n = 1; n < lines.size(); ++n) {
    if (lines[n].empty()) continue;
    const std::vector<std::string> row = splitter.Fields(lines[n]);
    if (row.size() != header.size()) {
      ctx.Error(span,
                absl::StrCat("line ", n + 1, " of the lookup table '", b->path,
                             "' has ", row.size(),
                             row.size() == 1 ? " field" : " fields",
                             ", its header ", header.size()),
                "every row has one value per column (quote values that "
                "hold ',' in \"...\")");
      return false;
    }
    auto [it, added] = b->rows.try_emplace(row[key], row[value]);
    if (!added) {
      // The key is the table's content: in the hint, which a partial's
      // query (compiled from elsewhere) does not show.
      ctx.Error(span,
                absl::StrCat("line ", n + 1, " of the lookup table '", b->path,
                             "' repeats the key of an earlier line"),
                absl::StrCat("the key '", row[key],
                             "'; each key may have one row, so every lookup "
                             "has one answer"));
      return false;
    }
  }
  // The table is part of the query: partials of other tables do not merge.
  const XXH128_hash_t h = XXH3_128bits(text->data(), text->size());
  ctx.AddFingerprint(absl::StrCat("lookup table ", b->path, " xxh3-128 ",
                                  absl::Hex(h.high64, absl::kZeroPad16),
                                  absl::Hex(h.low64, absl::kZeroPad16)));
  *binding = std::move(b);
  return true;
}

constexpr plan::FunctionInfo kInfo = {
    "lookup",
    "the column of the CSV table's row whose first (or named) column is "
    "the value; missing if there is none",
    kUsage,
    2,
    1,
    Bind,
    /*expression_only=*/false,
    /*first_literal_may_lead=*/true};

void Apply(const plan::FunctionBinding* binding,
           std::span<std::string_view> values, uint8_t*, FunctionContext&) {
  const LookupBinding& b = BindingAs<LookupBinding>(binding);
  MapPresent(values, [&](std::string_view v) {
    auto it = b.rows.find(util::ToAbsl(v));
    return it == b.rows.end() ? std::string_view()
                              : std::string_view(it->second);
  });
}

}  // namespace

extern const ScalarFunction kLookupFunction = {kInfo, Apply};

}  // namespace mapr::runtime
