#include "bindings/cli/chart.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapr/time.h"
#include "util/number.h"

namespace mapr::cli {
namespace {

// The eighth blocks, 1/8 to 7/8 of a cell (U+258F down to U+2589).
constexpr std::string_view kEighths[] = {"▏", "▎", "▍", "▌", "▋", "▊", "▉"};
constexpr std::string_view kFull = "█";

// Terminal columns of UTF-8 text: one per code point (no wide characters).
size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `s` cut to at most `width` columns, ending in '…' when cut.
std::string Fit(std::string_view s, size_t width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (starts && ++n > width - 1) break;
    out.push_back(s[i]);
  }
  return out + "…";
}

void Pad(size_t columns, std::string* out) { out->append(columns, ' '); }

bool IsNumeric(ValueType t) { return t != ValueType::kText; }

}  // namespace

absl::StatusOr<std::string> RenderChart(const ResultTable& r,
                                        const ChartOptions& options) {
  std::optional<size_t> value_col;
  std::vector<size_t> label_cols;
  for (size_t c = 0; c < r.num_columns(); ++c) {
    if (IsNumeric(r.columns()[c].type)) {
      if (!value_col) value_col = c;
    } else {
      label_cols.push_back(c);
    }
  }
  if (!value_col) {
    return absl::InvalidArgumentError(
        "--output chart draws the first numeric column, and the result has "
        "none: select an aggregate such as count($line)");
  }
  // The rows, in time order for a time series: timestamps in one of
  // time()'s fixed layouts by the instant (CLF and syslog times do not sort
  // as text), numbers by value, other keys by text; a missing key first.
  // Stable, so equal keys keep the result's order.
  std::vector<size_t> rows(r.num_rows());
  std::iota(rows.begin(), rows.end(), 0);
  std::optional<size_t> series;
  for (size_t c = 0; c < r.num_columns() && !series; ++c) {
    if (r.columns()[c].is_bucket) series = c;
  }
  if (series) {
    const size_t tc = *series;
    std::vector<std::string_view> cells(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) cells[i] = r.cell(i, tc);
    // (Times without a year cross New Year in order: mapr::ReadTimes.)
    const std::vector<std::optional<TimeInstant>> times = ReadTimes(cells);
    std::vector<TimeInstant> instants(rows.size());
    std::vector<double> numbers(rows.size());
    bool all_times = true, all_numbers = true;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (cells[i].empty()) continue;
      if (all_times) {
        if (times[i]) {
          instants[i] = *times[i];
        } else {
          all_times = false;
        }
      }
      if (all_numbers) all_numbers = util::ParseNumber(cells[i], &numbers[i]);
    }
    std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
      const bool ea = r.cell(a, tc).empty(), eb = r.cell(b, tc).empty();
      if (ea || eb) return ea && !eb;
      if (all_times) return instants[a] < instants[b];
      if (all_numbers) return numbers[a] < numbers[b];
      return r.cell(a, tc) < r.cell(b, tc);
    });
  }
  if (options.max_rows >= 0 &&
      rows.size() > static_cast<size_t>(options.max_rows)) {
    rows.resize(static_cast<size_t>(options.max_rows));
  }

  const size_t width = static_cast<size_t>(std::max(options.width, 20));
  std::vector<std::string> labels;
  size_t label_width = 1;
  size_t value_width = 0;
  double max = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string label;
    for (size_t c : label_cols) {
      if (!label.empty()) label.push_back(' ');
      label += r.cell(rows[i], c);
    }
    if (label_cols.empty()) label = absl::StrCat("#", i + 1);
    label_width = std::max(label_width, DisplayWidth(label));
    labels.push_back(std::move(label));
    value_width = std::max(value_width, r.cell(rows[i], *value_col).size());
    const double v = r.value(rows[i], *value_col);
    if (std::isfinite(v)) max = std::max(max, v);
  }
  label_width = std::min(label_width, width / 3);
  // label '│' bar ' ' value, the bar at least 10 columns.
  const size_t bar_width =
      std::max<size_t>(10, width > label_width + 2 + value_width
                               ? width - label_width - 2 - value_width
                               : 0);

  std::string out;
  Pad(label_width, &out);
  absl::StrAppend(&out, "│", r.columns()[*value_col].name, "\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string label = Fit(labels[i], label_width);
    out += label;
    Pad(label_width - DisplayWidth(label), &out);
    out += "│";
    const double v = r.value(rows[i], *value_col);
    size_t eighths = 0;
    if (max > 0 && std::isfinite(v) && v > 0) {
      eighths = static_cast<size_t>(
          std::llround(v / max * static_cast<double>(bar_width * 8)));
      eighths = std::min(eighths, bar_width * 8);
    }
    for (size_t k = 0; k < eighths / 8; ++k) out += kFull;
    if (eighths % 8 != 0) out += kEighths[eighths % 8 - 1];
    if (eighths > 0) out += ' ';
    out += r.cell(rows[i], *value_col);
    out += '\n';
  }
  return out;
}

bool HasNumericColumn(const Query& query) {
  const std::vector<ResultColumn> columns = query.columns();
  return std::any_of(columns.begin(), columns.end(),
                     [](const ResultColumn& c) { return IsNumeric(c.type); });
}

int TerminalWidth() {
  if (const char* env = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0 && n < 100000) {
      return static_cast<int>(n);
    }
  }
  if (isatty(STDOUT_FILENO) == 1) {
    struct winsize ws {};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
      return ws.ws_col;
    }
  }
  return 80;
}

}  // namespace mapr::cli
