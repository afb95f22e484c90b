// mapr/prometheus.h: ResultTable -> Prometheus text exposition format.
#include "mapr/prometheus.h"

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace mapr {
namespace {

bool IsNameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

// `text` in snake_case: each run of characters other than [a-zA-Z0-9_]
// as one '_', a '_' between a lower-case letter or digit and an upper-case
// letter, all lower case, leading and trailing '_' dropped
// (max(lifetimeConnections) -> max_lifetime_connections).
std::string Sanitize(std::string_view text) {
  std::string out;
  auto is_lower_or_digit = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && is_lower_or_digit(text[i - 1])) out.push_back('_');
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (IsNameChar(c, /*first=*/false)) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  size_t lead = 0;
  while (lead < out.size() && out[lead] == '_') ++lead;
  return out.substr(lead);
}

// `name`, or name_2, name_3, ... if taken; the result is taken afterwards.
std::string Unique(std::string name, absl::flat_hash_set<std::string>* taken) {
  std::string candidate = name;
  for (int n = 2; taken->contains(candidate); ++n) {
    candidate = absl::StrCat(name, "_", n);
  }
  taken->insert(candidate);
  return candidate;
}

// The length of the well-formed UTF-8 sequence at the front of `s`, or 0.
size_t Utf8Length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  size_t n;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  uint32_t cp = c & (0x7f >> n);
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// A label value: \\, \" and \n escaped, bytes that are not UTF-8 as U+FFFD.
void AppendLabelValue(std::string_view v, std::string* out) {
  while (!v.empty()) {
    const size_t n = Utf8Length(v);
    if (n == 0) {
      out->append("\xef\xbf\xbd");
      v.remove_prefix(1);
      continue;
    }
    if (n == 1 && (v[0] == '\\' || v[0] == '"')) {
      out->push_back('\\');
      out->push_back(v[0]);
    } else if (n == 1 && v[0] == '\n') {
      out->append("\\n");
    } else {
      out->append(v.data(), n);
    }
    v.remove_prefix(n);
  }
}

// HELP text: \\ and \n escaped (a column name has no newline, but a quoted
// alias could).
void AppendHelp(std::string_view v, std::string* out) {
  for (const char c : v) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
}

void AppendValue(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "+Inf" : "-Inf");
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out->append(buf, r.ptr);
  }
}

bool ValidPrefix(std::string_view prefix) {
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char c = prefix[i];
    if (!IsNameChar(c, i == 0) && c != ':') return false;
  }
  return true;
}

}  // namespace

absl::Status WritePrometheus(const ResultTable& table,
                             const PrometheusOptions& options,
                             ResultSink sink) {
  if (!ValidPrefix(options.prefix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid metric name prefix '", options.prefix,
        "' (use letters, digits, '_' and ':', not first a digit)"));
  }
  const std::vector<ResultColumn>& columns = table.columns();
  std::vector<size_t> label_columns, metric_columns;
  std::vector<std::string> label_names, metric_names;
  absl::flat_hash_set<std::string> labels_taken, metrics_taken;
  for (size_t c = 0; c < columns.size(); ++c) {
    const ResultColumn& col = columns[c];
    if (col.is_group_key) {
      std::string name = Sanitize(col.name);
      if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
        name.insert(0, "l");
      }
      label_columns.push_back(c);
      label_names.push_back(Unique(std::move(name), &labels_taken));
    } else if (col.type != ValueType::kText) {
      metric_columns.push_back(c);
      metric_names.push_back(Unique(
          absl::StrCat(options.prefix, Sanitize(col.name)), &metrics_taken));
    }
  }
  // Each row's label set, rendered once: {a="x",b="y"} (empty: none).
  std::vector<std::string> labels(table.num_rows());
  absl::flat_hash_map<std::string_view, size_t> seen;
  for (size_t r = 0; r < table.num_rows(); ++r) {
    std::string& l = labels[r];
    for (size_t i = 0; i < label_columns.size(); ++i) {
      l.append(i == 0 ? "{" : ",");
      l.append(label_names[i]);
      l.append("=\"");
      AppendLabelValue(table.cell(r, label_columns[i]), &l);
      l.push_back('"');
    }
    if (!l.empty()) l.push_back('}');
  }
  for (size_t r = 0; r < labels.size(); ++r) {
    const auto [it, inserted] = seen.emplace(labels[r], r);
    if (!inserted && !metric_columns.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rows ", it->second + 1, " and ", r + 1, " get the same labels",
          labels[r].empty() ? " (none)" : "",
          ": select every group-by field, so that each row's labels "
          "tell it apart"));
    }
  }
  std::string out;
  auto flush = [&](bool force) {
    if (force || out.size() >= (size_t{1} << 16)) {
      sink(out);
      out.clear();
    }
  };
  for (size_t m = 0; m < metric_columns.size(); ++m) {
    const size_t c = metric_columns[m];
    absl::StrAppend(&out, "# HELP ", metric_names[m], " ");
    AppendHelp(columns[c].name, &out);
    absl::StrAppend(&out, "\n# TYPE ", metric_names[m], " gauge\n");
    for (size_t r = 0; r < table.num_rows(); ++r) {
      absl::StrAppend(&out, metric_names[m], labels[r], " ");
      AppendValue(table.value(r, c), &out);
      out.push_back('\n');
      flush(false);
    }
  }
  if (!out.empty()) flush(true);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ToPrometheus(const ResultTable& table,
                                         const PrometheusOptions& options) {
  std::string out;
  absl::Status s = WritePrometheus(
      table, options, [&out](std::string_view chunk) { out.append(chunk); });
  if (!s.ok()) return s;
  return out;
}

}  // namespace mapr
