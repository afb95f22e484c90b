// The C interface (mapr/c_api.h) over the C++ API.
//
// Every extern "C" function is noexcept and runs its body inside Guard(),
// whose catch-all turns any exception into an error object, so no exception
// crosses into C. Error objects are allocated with new; when even that
// fails, the caller gets a static "out of memory" error that
// mapr_error_free knows not to delete.
#include "mapr/c_api.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/aggregator.h"
#include "mapr/files.h"
#include "mapr/input.h"
#include "mapr/journal.h"
#include "mapr/log_format.h"
#include "mapr/outfile.h"
#include "mapr/partial.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "mapr/status.h"
#include "mapr/version.h"

struct mapr_error_t {
  mapr_code_t code = MAPR_OK;
  std::string message;
  std::optional<mapr::SourceSpan> span;
};

struct mapr_compile_options_t {
  mapr::CompileOptions options;
};

struct mapr_aggregator_options_t {
  mapr::AggregatorOptions options;
};

struct mapr_files_options_t {
  // Without callbacks: mapr_query_files sets them for each run.
  mapr::FilesOptions options;
  mapr_problem_fn on_problem = nullptr;
  void* problem_ctx = nullptr;
  mapr_progress_fn on_progress = nullptr;
  void* progress_ctx = nullptr;
};

struct mapr_query_t {
  explicit mapr_query_t(mapr::Query q)
      : query(std::move(q)),
        columns(query.column_names()),
        warnings(query.warnings()),
        outfile(query.outfile()) {}

  mapr::Query query;
  // Cached so accessors can hand out pointers owned by the handle.
  std::vector<std::string> columns;
  std::vector<std::string> warnings;
  std::optional<std::string> outfile;
};

struct mapr_aggregator_t {
  explicit mapr_aggregator_t(mapr::Aggregator a) : agg(std::move(a)) {}

  mapr::Aggregator agg;
  // Set when an exception escaped the engine: the state may hold half a
  // batch, so every later call fails (sticky, like max_groups).
  bool poisoned = false;
  std::string poison_message;
  // Set when this aggregator's state was merged into another.
  bool merged_away = false;
  // Set by mapr_aggregator_finish_partial: the input has ended, and
  // mapr_aggregator_finish only takes the result.
  bool input_finished = false;
};

struct mapr_result_t {
  mapr::ResultTable table;
};

namespace {

static_assert(MAPR_INVALID_ARGUMENT ==
              static_cast<int>(absl::StatusCode::kInvalidArgument));
static_assert(MAPR_RESOURCE_EXHAUSTED ==
              static_cast<int>(absl::StatusCode::kResourceExhausted));
static_assert(MAPR_FAILED_PRECONDITION ==
              static_cast<int>(absl::StatusCode::kFailedPrecondition));
static_assert(MAPR_INTERNAL == static_cast<int>(absl::StatusCode::kInternal));
static_assert(MAPR_UNAUTHENTICATED ==
              static_cast<int>(absl::StatusCode::kUnauthenticated));
static_assert(MAPR_VALUE_INTEGER ==
              static_cast<int>(mapr::ValueType::kInteger));
static_assert(MAPR_VALUE_NUMBER == static_cast<int>(mapr::ValueType::kNumber));
static_assert(MAPR_VALUE_TEXT == static_cast<int>(mapr::ValueType::kText));

// Returned when allocating an error object fails. The message fits the
// small-string buffer, so constructing it allocates nothing.
mapr_error_t g_out_of_memory{MAPR_RESOURCE_EXHAUSTED, "out of memory",
                             std::nullopt};

mapr_code_t ToCode(absl::StatusCode code) {
  int c = static_cast<int>(code);
  return c >= MAPR_OK && c <= MAPR_UNAUTHENTICATED ? static_cast<mapr_code_t>(c)
                                                   : MAPR_UNKNOWN;
}

// Replaces *errptr with a new error "<a><b>". Returns `code`.
mapr_code_t SetError(
    mapr_error_t** errptr, mapr_code_t code, std::string_view a,
    std::string_view b = {},
    std::optional<mapr::SourceSpan> span = std::nullopt) noexcept {
  if (errptr == nullptr) return code;
  mapr_error_free(*errptr);
  *errptr = nullptr;
  try {
    auto* error = new mapr_error_t;
    error->code = code;
    error->span = span;
    try {
      error->message.reserve(a.size() + b.size());
      error->message.append(a).append(b);
    } catch (...) {
      delete error;
      throw;
    }
    *errptr = error;
  } catch (...) {
    *errptr = &g_out_of_memory;
  }
  return code;
}

mapr_code_t Fail(mapr_error_t** errptr, const absl::Status& status) noexcept {
  std::optional<mapr::SourceSpan> span;
  try {
    span = mapr::GetSourceSpan(status);
  } catch (...) {
    // A span is a convenience; the message still names the position.
  }
  absl::string_view m = status.message();
  return SetError(errptr, ToCode(status.code()),
                  std::string_view(m.data(), m.size()), {}, span);
}

mapr_code_t InvalidArgument(mapr_error_t** errptr, const char* function,
                            const char* what) noexcept {
  return SetError(errptr, MAPR_INVALID_ARGUMENT, function, what);
}

// Describes the exception being handled. Call only inside a catch block.
mapr_code_t DescribeCurrentException(std::string_view* prefix,
                                     std::string* detail) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    *prefix = "out of memory (std::bad_alloc)";
    return MAPR_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    *prefix = "internal error: C++ exception: ";
    try {
      detail->assign(e.what());
    } catch (...) {
      // Keep the prefix alone.
    }
    return MAPR_INTERNAL;
  } catch (...) {
    *prefix = "internal error: C++ exception of unknown type";
    return MAPR_INTERNAL;
  }
}

// Runs `body`, turning any exception into an error. `body` returns R; on an
// exception the result is `on_exception`, or the exception's code if R is
// mapr_code_t.
template <typename R, typename Body>
R Guard(mapr_error_t** errptr, R on_exception, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    std::string_view prefix;
    std::string detail;
    mapr_code_t code = DescribeCurrentException(&prefix, &detail);
    SetError(errptr, code, prefix, detail);
    if constexpr (std::is_same_v<R, mapr_code_t>) return code;
    return on_exception;
  }
}

// Guard() for calls that change an aggregator: an exception also poisons it.
template <typename R, typename Body>
R GuardAggregator(mapr_aggregator_t* a, mapr_error_t** errptr, R on_exception,
                  Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    std::string_view prefix;
    std::string detail;
    mapr_code_t code = DescribeCurrentException(&prefix, &detail);
    SetError(errptr, code, prefix, detail);
    a->poisoned = true;
    try {
      a->poison_message.assign(prefix).append(detail);
    } catch (...) {
      // The flag alone is enough.
    }
    if constexpr (std::is_same_v<R, mapr_code_t>) return code;
    return on_exception;
  }
}

// MAPR_OK if `a` may be used, else sets the error.
mapr_code_t CheckUsable(const mapr_aggregator_t* a, const char* function,
                        mapr_error_t** errptr) noexcept {
  if (a == nullptr)
    return InvalidArgument(errptr, function, ": NULL aggregator");
  if (a->poisoned) {
    SetError(errptr, MAPR_INTERNAL, function,
             ": the aggregator is unusable after an earlier internal error");
    if (errptr != nullptr && *errptr != &g_out_of_memory) {
      try {
        (*errptr)->message.append(": ").append(a->poison_message);
      } catch (...) {
        // Keep the shorter message.
      }
    }
    return MAPR_INTERNAL;
  }
  if (a->merged_away) {
    return SetError(errptr, MAPR_FAILED_PRECONDITION, function,
                    ": the aggregator's state was merged into another");
  }
  return MAPR_OK;
}

// A new malloc'ed, NUL-terminated copy of `s`. Throws std::bad_alloc.
char* CopyOut(const std::string& s, size_t* len) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  if (len != nullptr) *len = s.size();
  return out;
}

std::string_view View(const char* data, size_t len) {
  return data == nullptr ? std::string_view() : std::string_view(data, len);
}

// mapr_counters_t's fields (the C struct stays spelled out for the ABI),
// named by the C identifiers themselves, in the struct's order.
struct CCounterField {
  std::string_view name;
  uint64_t mapr_counters_t::*value;
};
#define MAPR_C_COUNTER(field) \
  { #field, &mapr_counters_t::field }
constexpr CCounterField kCCounterFields[] = {
    MAPR_C_COUNTER(lines_read),           MAPR_C_COUNTER(lines_too_long),
    MAPR_C_COUNTER(lines_table_mismatch), MAPR_C_COUNTER(lines_ignored),
    MAPR_C_COUNTER(lines_malformed),      MAPR_C_COUNTER(lines_unmatched),
    MAPR_C_COUNTER(lines_header),         MAPR_C_COUNTER(lines_filtered),
    MAPR_C_COUNTER(lines_without_value),  MAPR_C_COUNTER(lines_aggregated),
    MAPR_C_COUNTER(values_unparsed),
};
#undef MAPR_C_COUNTER

// The C struct holds exactly the fields of mapr::kLineCounterFields (the
// C++ catalog), in the same order and under the same names.
static_assert(sizeof(mapr_counters_t) ==
                  std::size(kCCounterFields) * sizeof(uint64_t),
              "mapr_counters_t has a field missing from kCCounterFields");
static_assert(
    [] {
      if (std::size(kCCounterFields) != std::size(mapr::kLineCounterFields)) {
        return false;
      }
      for (size_t i = 0; i < std::size(kCCounterFields); ++i) {
        if (kCCounterFields[i].name != mapr::kLineCounterFields[i].name) {
          return false;
        }
      }
      return true;
    }(),
    "mapr_counters_t does not match mapr::kLineCounterFields (mapr/result.h)");

void CopyCounters(const mapr::LineCounters& c, mapr_counters_t* out) {
  for (size_t i = 0; i < std::size(kCCounterFields); ++i) {
    out->*kCCounterFields[i].value = c.*mapr::kLineCounterFields[i].value;
  }
}

mapr_result_t* NewResult(absl::StatusOr<mapr::ResultTable> r,
                         mapr_error_t** errptr) {
  if (!r.ok()) {
    Fail(errptr, r.status());
    return nullptr;
  }
  return new mapr_result_t{std::move(*r)};
}

mapr_code_t PushBytes(mapr_aggregator_t* a, uint64_t source, const char* data,
                      size_t len, const char* function,
                      mapr_error_t** errptr) noexcept {
  if (mapr_code_t c = CheckUsable(a, function, errptr); c != MAPR_OK) return c;
  if (data == nullptr && len != 0) {
    return InvalidArgument(errptr, function, ": NULL data with a length");
  }
  return GuardAggregator(a, errptr, MAPR_INTERNAL, [&] {
    absl::Status s = a->agg.PushBytes(View(data, len), source);
    return s.ok() ? MAPR_OK : Fail(errptr, s);
  });
}

mapr_code_t PushFile(mapr_aggregator_t* a, uint64_t source, const char* path,
                     size_t path_len, const char* function,
                     mapr_error_t** errptr) noexcept {
  if (mapr_code_t c = CheckUsable(a, function, errptr); c != MAPR_OK) return c;
  if (path == nullptr && path_len != 0) {
    return InvalidArgument(errptr, function, ": NULL path with a length");
  }
  return GuardAggregator(a, errptr, MAPR_INTERNAL, [&] {
    absl::Status s = mapr::PushFile(a->agg, View(path, path_len), source);
    return s.ok() ? MAPR_OK : Fail(errptr, s);
  });
}

mapr_code_t PushLines(mapr_aggregator_t* a, uint64_t source,
                      const char* const* lines, const size_t* lengths,
                      size_t count, const char* function,
                      mapr_error_t** errptr) noexcept {
  if (mapr_code_t c = CheckUsable(a, function, errptr); c != MAPR_OK) return c;
  if (lines == nullptr && count != 0) {
    return InvalidArgument(errptr, function, ": NULL lines with a count");
  }
  for (size_t i = 0; i < count; ++i) {
    // (NULL, 0) is the empty line; without lengths every line is a
    // NUL-terminated string, which NULL is not (as mapr_query_files' names).
    if (lines[i] == nullptr && lengths == nullptr) {
      return InvalidArgument(errptr, function, ": NULL line");
    }
    if (lines[i] == nullptr && lengths[i] != 0) {
      return InvalidArgument(errptr, function, ": NULL line with a length");
    }
  }
  return GuardAggregator(a, errptr, MAPR_INTERNAL, [&] {
    // Views are built one engine batch at a time, so a huge array needs no
    // equally huge temporary.
    std::vector<std::string_view> views;
    views.reserve(std::min(count, mapr::kMaxBatchRows));
    for (size_t begin = 0; begin < count; begin += mapr::kMaxBatchRows) {
      size_t n = std::min(count - begin, mapr::kMaxBatchRows);
      views.clear();
      for (size_t i = begin; i < begin + n; ++i) {
        const char* p = lines[i];
        size_t len = lengths != nullptr ? lengths[i] : std::strlen(p);
        // A NULL line is the empty line: a non-null empty view.
        // NOLINTNEXTLINE(bugprone-string-constructor)
        views.push_back(p == nullptr ? std::string_view("", 0)
                                     : std::string_view(p, len));
      }
      absl::Status s = a->agg.PushLines(views, source);
      if (!s.ok()) return Fail(errptr, s);
    }
    return MAPR_OK;
  });
}

}  // namespace

extern "C" {

// ----------------------------------------------------------------- Version

const char* mapr_version(void) noexcept { return MAPR_VERSION_STRING; }

// ------------------------------------------------------------------ Errors

mapr_code_t mapr_error_code(const mapr_error_t* error) noexcept {
  return error == nullptr ? MAPR_OK : error->code;
}

const char* mapr_error_message(const mapr_error_t* error) noexcept {
  return error == nullptr ? "" : error->message.c_str();
}

size_t mapr_error_line(const mapr_error_t* error) noexcept {
  return error != nullptr && error->span ? error->span->line : 0;
}

size_t mapr_error_column(const mapr_error_t* error) noexcept {
  return error != nullptr && error->span ? error->span->column : 0;
}

int mapr_error_span(const mapr_error_t* error, size_t* offset,
                    size_t* length) noexcept {
  if (error == nullptr || !error->span) return 0;
  if (offset != nullptr) *offset = error->span->offset;
  if (length != nullptr) *length = error->span->length;
  return 1;
}

const char* mapr_code_name(mapr_code_t code) noexcept {
  static constexpr const char* kNames[] = {
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED",
  };
  int c = static_cast<int>(code);
  if (c < 0 || c >= static_cast<int>(std::size(kNames))) return "UNKNOWN_CODE";
  return kNames[c];
}

void mapr_error_free(mapr_error_t* error) noexcept {
  if (error != &g_out_of_memory) delete error;
}

void mapr_free(void* ptr) noexcept { std::free(ptr); }

// --------------------------------------------------------- Compile options

mapr_compile_options_t* mapr_compile_options_create(void) noexcept {
  return new (std::nothrow) mapr_compile_options_t;
}

void mapr_compile_options_set_max_query_bytes(mapr_compile_options_t* options,
                                              size_t max_query_bytes) noexcept {
  if (options != nullptr) options->options.max_query_bytes = max_query_bytes;
}

void mapr_compile_options_set_max_depth(mapr_compile_options_t* options,
                                        size_t max_depth) noexcept {
  if (options != nullptr) options->options.max_depth = max_depth;
}

void mapr_compile_options_set_max_items(mapr_compile_options_t* options,
                                        size_t max_items) noexcept {
  if (options != nullptr) options->options.max_items = max_items;
}

void mapr_compile_options_set_percentile(mapr_compile_options_t* options,
                                         uint32_t exact_values,
                                         double accuracy) noexcept {
  if (options == nullptr) return;
  options->options.percentile_exact_values = exact_values;
  options->options.percentile_accuracy = accuracy;
}

void mapr_compile_options_set_allow_file_lookups(
    mapr_compile_options_t* options, int allow) noexcept {
  if (options != nullptr) options->options.allow_file_lookups = allow != 0;
}

void mapr_compile_options_free(mapr_compile_options_t* options) noexcept {
  delete options;
}

// ------------------------------------------------------------------ Query

mapr_query_t* mapr_query_compile(const char* text, size_t text_len,
                                 const mapr_compile_options_t* options,
                                 mapr_error_t** errptr) noexcept {
  if (text == nullptr && text_len != 0) {
    InvalidArgument(errptr, "mapr_query_compile", ": NULL text with a length");
    return nullptr;
  }
  return Guard(
      errptr, static_cast<mapr_query_t*>(nullptr), [&]() -> mapr_query_t* {
        absl::StatusOr<mapr::Query> q = mapr::Query::Compile(
            View(text, text_len),
            options != nullptr ? options->options : mapr::CompileOptions());
        if (!q.ok()) {
          Fail(errptr, q.status());
          return nullptr;
        }
        return new mapr_query_t(std::move(*q));
      });
}

void mapr_query_free(mapr_query_t* query) noexcept { delete query; }

const char* mapr_query_text(const mapr_query_t* query, size_t* len) noexcept {
  if (query == nullptr) {
    if (len != nullptr) *len = 0;
    return nullptr;
  }
  const std::string& text = query->query.text();
  if (len != nullptr) *len = text.size();
  return text.c_str();
}

size_t mapr_query_column_count(const mapr_query_t* query) noexcept {
  return query == nullptr ? 0 : query->columns.size();
}

const char* mapr_query_column_name(const mapr_query_t* query,
                                   size_t col) noexcept {
  if (query == nullptr || col >= query->columns.size()) return nullptr;
  return query->columns[col].c_str();
}

size_t mapr_query_warning_count(const mapr_query_t* query) noexcept {
  return query == nullptr ? 0 : query->warnings.size();
}

const char* mapr_query_warning(const mapr_query_t* query, size_t i) noexcept {
  if (query == nullptr || i >= query->warnings.size()) return nullptr;
  return query->warnings[i].c_str();
}

const char* mapr_query_log_format(const mapr_query_t* query) noexcept {
  return query == nullptr ? nullptr : query->query.log_format().c_str();
}

int64_t mapr_query_interval_ms(const mapr_query_t* query) noexcept {
  return query == nullptr ? -1 : query->query.interval_ms();
}

int64_t mapr_query_limit(const mapr_query_t* query) noexcept {
  return query == nullptr ? -1 : query->query.limit();
}

const char* mapr_query_outfile(const mapr_query_t* query) noexcept {
  if (query == nullptr || !query->outfile) return nullptr;
  return query->outfile->c_str();
}

int mapr_query_outfile_append(const mapr_query_t* query) noexcept {
  return query != nullptr && query->query.outfile_append() ? 1 : 0;
}

char* mapr_query_to_string(const mapr_query_t* query,
                           mapr_error_t** errptr) noexcept {
  if (query == nullptr) {
    InvalidArgument(errptr, "mapr_query_to_string", ": NULL query");
    return nullptr;
  }
  return Guard(errptr, static_cast<char*>(nullptr),
               [&] { return CopyOut(query->query.ToString(), nullptr); });
}

char* mapr_query_explain(const mapr_query_t* query,
                         mapr_error_t** errptr) noexcept {
  if (query == nullptr) {
    InvalidArgument(errptr, "mapr_query_explain", ": NULL query");
    return nullptr;
  }
  return Guard(errptr, static_cast<char*>(nullptr),
               [&] { return CopyOut(query->query.Explain(), nullptr); });
}

// ------------------------------------------------------ Aggregator options

mapr_aggregator_options_t* mapr_aggregator_options_create(void) noexcept {
  return new (std::nothrow) mapr_aggregator_options_t;
}

// Sets a text option (hostname, source) from data[0, len).
static mapr_code_t AssignText(mapr_aggregator_options_t* options,
                              std::string mapr::AggregatorOptions::*field,
                              const char* data, size_t len) noexcept {
  if (options == nullptr || (data == nullptr && len != 0)) {
    return MAPR_INVALID_ARGUMENT;
  }
  try {
    (options->options.*field).assign(View(data, len));
    return MAPR_OK;
  } catch (...) {
    return MAPR_RESOURCE_EXHAUSTED;
  }
}

mapr_code_t mapr_aggregator_options_set_hostname(
    mapr_aggregator_options_t* options, const char* hostname,
    size_t hostname_len) noexcept {
  return AssignText(options, &mapr::AggregatorOptions::hostname, hostname,
                    hostname_len);
}

void mapr_aggregator_options_set_max_line_bytes(
    mapr_aggregator_options_t* options, size_t max_line_bytes) noexcept {
  if (options != nullptr) options->options.max_line_bytes = max_line_bytes;
}

mapr_code_t mapr_aggregator_options_set_partial_lookup_dir(
    mapr_aggregator_options_t* options, const char* dir,
    size_t dir_len) noexcept {
  return AssignText(options, &mapr::AggregatorOptions::partial_lookup_dir, dir,
                    dir_len);
}

void mapr_aggregator_options_set_max_groups(mapr_aggregator_options_t* options,
                                            uint64_t max_groups) noexcept {
  if (options != nullptr) options->options.max_groups = max_groups;
}

void mapr_aggregator_options_set_result_threads(
    mapr_aggregator_options_t* options, size_t result_threads) noexcept {
  if (options != nullptr) options->options.result_threads = result_threads;
}

void mapr_aggregator_options_free(mapr_aggregator_options_t* options) noexcept {
  delete options;
}

// -------------------------------------------------------------- Aggregator

mapr_aggregator_t* mapr_aggregator_create(
    const mapr_query_t* query, const mapr_aggregator_options_t* options,
    mapr_error_t** errptr) noexcept {
  if (query == nullptr) {
    InvalidArgument(errptr, "mapr_aggregator_create", ": NULL query");
    return nullptr;
  }
  return Guard(
      errptr, static_cast<mapr_aggregator_t*>(nullptr),
      [&]() -> mapr_aggregator_t* {
        absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(
            query->query,
            options != nullptr ? options->options : mapr::AggregatorOptions());
        if (!agg.ok()) {
          Fail(errptr, agg.status());
          return nullptr;
        }
        return new mapr_aggregator_t(std::move(*agg));
      });
}

void mapr_aggregator_free(mapr_aggregator_t* aggregator) noexcept {
  delete aggregator;
}

mapr_code_t mapr_aggregator_push_bytes(mapr_aggregator_t* aggregator,
                                       const char* data, size_t len,
                                       mapr_error_t** errptr) noexcept {
  return PushBytes(aggregator, 0, data, len, "mapr_aggregator_push_bytes",
                   errptr);
}

mapr_code_t mapr_aggregator_push_lines(mapr_aggregator_t* aggregator,
                                       const char* const* lines,
                                       const size_t* lengths, size_t count,
                                       mapr_error_t** errptr) noexcept {
  return PushLines(aggregator, 0, lines, lengths, count,
                   "mapr_aggregator_push_lines", errptr);
}

mapr_code_t mapr_aggregator_push_source_bytes(mapr_aggregator_t* aggregator,
                                              uint64_t source, const char* data,
                                              size_t len,
                                              mapr_error_t** errptr) noexcept {
  return PushBytes(aggregator, source, data, len,
                   "mapr_aggregator_push_source_bytes", errptr);
}

mapr_code_t mapr_aggregator_push_source_lines(
    mapr_aggregator_t* aggregator, uint64_t source, const char* const* lines,
    const size_t* lengths, size_t count, mapr_error_t** errptr) noexcept {
  return PushLines(aggregator, source, lines, lengths, count,
                   "mapr_aggregator_push_source_lines", errptr);
}

mapr_code_t mapr_aggregator_push_file(mapr_aggregator_t* aggregator,
                                      const char* path, size_t path_len,
                                      mapr_error_t** errptr) noexcept {
  return PushFile(aggregator, 0, path, path_len, "mapr_aggregator_push_file",
                  errptr);
}

mapr_code_t mapr_aggregator_push_source_file(mapr_aggregator_t* aggregator,
                                             uint64_t source, const char* path,
                                             size_t path_len,
                                             mapr_error_t** errptr) noexcept {
  return PushFile(aggregator, source, path, path_len,
                  "mapr_aggregator_push_source_file", errptr);
}

mapr_code_t mapr_aggregator_push_journal(mapr_aggregator_t* aggregator,
                                         const char* const* files,
                                         size_t n_files, const char* directory,
                                         const char* after_cursor,
                                         char** cursor,
                                         mapr_error_t** errptr) noexcept {
  constexpr char kFunction[] = "mapr_aggregator_push_journal";
  if (mapr_code_t c = CheckUsable(aggregator, kFunction, errptr);
      c != MAPR_OK) {
    return c;
  }
  if (files == nullptr && n_files != 0) {
    return InvalidArgument(errptr, kFunction, ": NULL files with a count");
  }
  for (size_t i = 0; i < n_files; ++i) {
    if (files[i] == nullptr) {
      return InvalidArgument(errptr, kFunction, ": a NULL file");
    }
  }
  if (cursor != nullptr) *cursor = nullptr;
  return GuardAggregator(aggregator, errptr, MAPR_INTERNAL, [&] {
    mapr::JournalSpec spec;
    spec.files.assign(files, files + n_files);
    if (directory != nullptr) spec.directory = directory;
    if (after_cursor != nullptr) spec.after_cursor = after_cursor;
    absl::StatusOr<std::unique_ptr<mapr::JournalReader>> reader =
        mapr::JournalReader::Open(spec);
    if (!reader.ok()) return Fail(errptr, reader.status());
    absl::Status s =
        (*reader)->ReadAll([&](std::span<const std::string_view> lines) {
          return aggregator->agg.PushLines(lines);
        });
    if (!s.ok()) return Fail(errptr, s);
    if (cursor != nullptr) *cursor = CopyOut((*reader)->cursor(), nullptr);
    return MAPR_OK;
  });
}

mapr_code_t mapr_aggregator_set_source_name(mapr_aggregator_t* aggregator,
                                            uint64_t source, const char* name,
                                            size_t name_len,
                                            mapr_error_t** errptr) noexcept {
  constexpr char kFunction[] = "mapr_aggregator_set_source_name";
  if (mapr_code_t c = CheckUsable(aggregator, kFunction, errptr);
      c != MAPR_OK) {
    return c;
  }
  if (name == nullptr && name_len != 0) {
    return InvalidArgument(errptr, kFunction, ": NULL name with a length");
  }
  return GuardAggregator(aggregator, errptr, MAPR_INTERNAL, [&] {
    absl::Status s =
        aggregator->agg.SetSourceName(source, View(name, name_len));
    return s.ok() ? MAPR_OK : Fail(errptr, s);
  });
}

mapr_code_t mapr_aggregator_end_source(mapr_aggregator_t* aggregator,
                                       uint64_t source,
                                       mapr_error_t** errptr) noexcept {
  if (mapr_code_t c =
          CheckUsable(aggregator, "mapr_aggregator_end_source", errptr);
      c != MAPR_OK) {
    return c;
  }
  return GuardAggregator(aggregator, errptr, MAPR_INTERNAL, [&] {
    absl::Status s = aggregator->agg.EndSource(source);
    return s.ok() ? MAPR_OK : Fail(errptr, s);
  });
}

mapr_code_t mapr_aggregator_merge(mapr_aggregator_t* aggregator,
                                  mapr_aggregator_t* later,
                                  mapr_error_t** errptr) noexcept {
  if (mapr_code_t c = CheckUsable(aggregator, "mapr_aggregator_merge", errptr);
      c != MAPR_OK) {
    return c;
  }
  if (mapr_code_t c =
          CheckUsable(later, "mapr_aggregator_merge (later)", errptr);
      c != MAPR_OK) {
    return c;
  }
  if (aggregator == later) {
    return InvalidArgument(errptr, "mapr_aggregator_merge",
                           ": cannot merge an aggregator into itself");
  }
  return GuardAggregator(aggregator, errptr, MAPR_INTERNAL, [&] {
    absl::Status s = aggregator->agg.Merge(std::move(later->agg));
    if (!s.ok()) return Fail(errptr, s);
    later->merged_away = true;
    return MAPR_OK;
  });
}

mapr_result_t* mapr_aggregator_snapshot(const mapr_aggregator_t* aggregator,
                                        mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_snapshot", errptr) != MAPR_OK) {
    return nullptr;
  }
  // Snapshot is const: an exception leaves the state as it was.
  return Guard(errptr, static_cast<mapr_result_t*>(nullptr),
               [&] { return NewResult(aggregator->agg.Snapshot(), errptr); });
}

mapr_result_t* mapr_aggregator_take_delta(mapr_aggregator_t* aggregator,
                                          mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_take_delta", errptr) !=
      MAPR_OK) {
    return nullptr;
  }
  return GuardAggregator(
      aggregator, errptr, static_cast<mapr_result_t*>(nullptr),
      [&] { return NewResult(aggregator->agg.TakeDelta(), errptr); });
}

// Ends the aggregator's input once (the finishing calls may follow each
// other: finish_partial, then finish).
static absl::Status EndInputOnce(mapr_aggregator_t* aggregator) {
  if (aggregator->input_finished) return absl::OkStatus();
  absl::Status s = aggregator->agg.FinishInput();
  if (s.ok()) aggregator->input_finished = true;
  return s;
}

mapr_result_t* mapr_aggregator_finish(mapr_aggregator_t* aggregator,
                                      mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_finish", errptr) != MAPR_OK) {
    return nullptr;
  }
  return GuardAggregator(
      aggregator, errptr, static_cast<mapr_result_t*>(nullptr),
      [&]() -> mapr_result_t* {
        if (absl::Status s = EndInputOnce(aggregator); !s.ok()) {
          Fail(errptr, s);
          return nullptr;
        }
        return NewResult(aggregator->agg.TakeResult(), errptr);
      });
}

void mapr_aggregator_counters(const mapr_aggregator_t* aggregator,
                              mapr_counters_t* counters) noexcept {
  if (counters == nullptr) return;
  CopyCounters(
      aggregator == nullptr ? mapr::LineCounters() : aggregator->agg.stats(),
      counters);
}

// ---------------------------------------------------------------- Partials

mapr_code_t mapr_aggregator_options_set_splits(
    mapr_aggregator_options_t* options, uint64_t begin, uint64_t end) noexcept {
  if (options == nullptr) {
    return InvalidArgument(nullptr, "mapr_aggregator_options_set_splits",
                           ": NULL options");
  }
  if (begin >= end) {
    return InvalidArgument(nullptr, "mapr_aggregator_options_set_splits",
                           ": begin must be less than end");
  }
  options->options.splits = {begin, end};
  return MAPR_OK;
}

mapr_code_t mapr_aggregator_options_set_source(
    mapr_aggregator_options_t* options, const char* source,
    size_t source_len) noexcept {
  return AssignText(options, &mapr::AggregatorOptions::source, source,
                    source_len);
}

char* mapr_aggregator_finish_partition(mapr_aggregator_t* aggregator,
                                       uint32_t count, uint32_t index,
                                       size_t* len,
                                       mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_finish_partition", errptr) !=
      MAPR_OK) {
    return nullptr;
  }
  if (len == nullptr || index >= count) {
    InvalidArgument(errptr, "mapr_aggregator_finish_partition",
                    len == nullptr ? ": NULL len" : ": index >= count");
    return nullptr;
  }
  return GuardAggregator(
      aggregator, errptr, static_cast<char*>(nullptr), [&]() -> char* {
        if (absl::Status s = EndInputOnce(aggregator); !s.ok()) {
          Fail(errptr, s);
          return nullptr;
        }
        absl::StatusOr<std::string> frame =
            aggregator->agg.SerializePartition(count, index);
        if (!frame.ok()) {
          Fail(errptr, frame.status());
          return nullptr;
        }
        return CopyOut(*frame, len);
      });
}

char* mapr_aggregator_finish_partial(mapr_aggregator_t* aggregator, size_t* len,
                                     mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_finish_partial", errptr) !=
      MAPR_OK) {
    return nullptr;
  }
  if (len == nullptr) {
    InvalidArgument(errptr, "mapr_aggregator_finish_partial", ": NULL len");
    return nullptr;
  }
  return GuardAggregator(
      aggregator, errptr, static_cast<char*>(nullptr), [&]() -> char* {
        if (absl::Status s = EndInputOnce(aggregator); !s.ok()) {
          Fail(errptr, s);
          return nullptr;
        }
        absl::StatusOr<std::string> frame = aggregator->agg.SerializePartial();
        if (!frame.ok()) {
          Fail(errptr, frame.status());
          return nullptr;
        }
        return CopyOut(*frame, len);
      });
}

mapr_code_t mapr_aggregator_merge_serialized(mapr_aggregator_t* aggregator,
                                             const char* data, size_t len,
                                             mapr_error_t** errptr) noexcept {
  if (mapr_code_t c =
          CheckUsable(aggregator, "mapr_aggregator_merge_serialized", errptr);
      c != MAPR_OK) {
    return c;
  }
  if (data == nullptr && len != 0) {
    return InvalidArgument(errptr, "mapr_aggregator_merge_serialized",
                           ": NULL data with a length");
  }
  return GuardAggregator(aggregator, errptr, MAPR_INTERNAL, [&] {
    absl::Status s = aggregator->agg.MergeSerialized(View(data, len));
    if (!s.ok()) return Fail(errptr, s);
    return MAPR_OK;
  });
}

mapr_aggregator_t* mapr_aggregator_from_partial(
    const char* data, size_t len, const mapr_aggregator_options_t* options,
    mapr_error_t** errptr) noexcept {
  if (data == nullptr && len != 0) {
    InvalidArgument(errptr, "mapr_aggregator_from_partial",
                    ": NULL data with a length");
    return nullptr;
  }
  return Guard(
      errptr, static_cast<mapr_aggregator_t*>(nullptr),
      [&]() -> mapr_aggregator_t* {
        absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::FromPartial(
            View(data, len),
            options != nullptr ? options->options : mapr::AggregatorOptions());
        if (!agg.ok()) {
          Fail(errptr, agg.status());
          return nullptr;
        }
        return new mapr_aggregator_t(std::move(*agg));
      });
}

char* mapr_aggregator_take_delta_partial(mapr_aggregator_t* aggregator,
                                         size_t* len,
                                         mapr_error_t** errptr) noexcept {
  if (CheckUsable(aggregator, "mapr_aggregator_take_delta_partial", errptr) !=
      MAPR_OK) {
    return nullptr;
  }
  if (len == nullptr) {
    InvalidArgument(errptr, "mapr_aggregator_take_delta_partial", ": NULL len");
    return nullptr;
  }
  return GuardAggregator(
      aggregator, errptr, static_cast<char*>(nullptr), [&]() -> char* {
        absl::StatusOr<std::string> frame = aggregator->agg.TakeDeltaPartial();
        if (!frame.ok()) {
          Fail(errptr, frame.status());
          return nullptr;
        }
        return CopyOut(*frame, len);
      });
}

mapr_code_t mapr_partial_inspect(const char* data, size_t len,
                                 mapr_partial_info_t* info, char** query,
                                 char** log_format,
                                 mapr_error_t** errptr) noexcept {
  if (data == nullptr && len != 0) {
    return InvalidArgument(errptr, "mapr_partial_inspect",
                           ": NULL data with a length");
  }
  return Guard(errptr, MAPR_INTERNAL, [&]() -> mapr_code_t {
    absl::StatusOr<mapr::PartialInfo> i = mapr::InspectPartial(View(data, len));
    if (!i.ok()) return Fail(errptr, i.status());
    char* q = query != nullptr ? CopyOut(i->query, nullptr) : nullptr;
    char* f = nullptr;
    if (log_format != nullptr) {
      try {
        f = CopyOut(i->log_format, nullptr);
      } catch (...) {
        std::free(q);
        throw;
      }
    }
    if (query != nullptr) *query = q;
    if (log_format != nullptr) *log_format = f;
    if (info != nullptr) {
      info->major = i->major;
      info->minor = i->minor;
      info->split_begin = i->splits.begin;
      info->split_end = i->splits.end;
      info->groups = i->groups;
      info->frame_bytes = i->frame_bytes;
      info->fingerprint_low = i->fingerprint[0];
      info->fingerprint_high = i->fingerprint[1];
      CopyCounters(i->counters, &info->counters);
    }
    return MAPR_OK;
  });
}

// ------------------------------------------------------------------- Files

mapr_files_options_t* mapr_files_options_create(void) noexcept {
  return new (std::nothrow) mapr_files_options_t;
}

void mapr_files_options_set_threads(mapr_files_options_t* options,
                                    size_t threads) noexcept {
  if (options == nullptr) return;
  options->options.threads =
      static_cast<int>(std::clamp<size_t>(threads, 1, INT_MAX));
}

mapr_code_t mapr_files_options_set_aggregator_options(
    mapr_files_options_t* options,
    const mapr_aggregator_options_t* aggregator_options) noexcept {
  if (options == nullptr) return MAPR_INVALID_ARGUMENT;
  try {
    options->options.aggregator = aggregator_options != nullptr
                                      ? aggregator_options->options
                                      : mapr::AggregatorOptions();
    return MAPR_OK;
  } catch (...) {
    return MAPR_RESOURCE_EXHAUSTED;
  }
}

void mapr_files_options_set_on_problem(mapr_files_options_t* options,
                                       mapr_problem_fn on_problem,
                                       void* ctx) noexcept {
  if (options == nullptr) return;
  options->on_problem = on_problem;
  options->problem_ctx = ctx;
}

void mapr_files_options_set_on_progress(mapr_files_options_t* options,
                                        mapr_progress_fn on_progress, void* ctx,
                                        uint32_t interval_ms) noexcept {
  if (options == nullptr) return;
  options->on_progress = on_progress;
  options->progress_ctx = ctx;
  options->options.progress_interval = std::chrono::milliseconds(interval_ms);
}

void mapr_files_options_free(mapr_files_options_t* options) noexcept {
  delete options;
}

mapr_result_t* mapr_query_files(const mapr_query_t* query,
                                const char* const* names,
                                const size_t* name_lengths, size_t count,
                                const mapr_files_options_t* options,
                                mapr_files_report_t* report,
                                mapr_error_t** errptr) noexcept {
  constexpr char kFunction[] = "mapr_query_files";
  if (report != nullptr) *report = mapr_files_report_t{};
  if (query == nullptr) {
    InvalidArgument(errptr, kFunction, ": NULL query");
    return nullptr;
  }
  // No names would be standard input in the C++ API: too easy a mistake
  // for a library call to block on.
  if (count == 0) {
    InvalidArgument(errptr, kFunction,
                    ": no names (the name \"-\" reads standard input)");
    return nullptr;
  }
  if (names == nullptr) {
    InvalidArgument(errptr, kFunction, ": NULL names with a count");
    return nullptr;
  }
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) {
      InvalidArgument(errptr, kFunction, ": NULL name");
      return nullptr;
    }
  }
  return Guard(
      errptr, static_cast<mapr_result_t*>(nullptr), [&]() -> mapr_result_t* {
        std::vector<std::string> list;
        list.reserve(count);
        for (size_t i = 0; i < count; ++i) {
          const std::string_view name =
              name_lengths != nullptr
                  ? std::string_view(names[i], name_lengths[i])
                  : std::string_view(names[i]);
          if (name.find('\0') != std::string_view::npos) {
            InvalidArgument(errptr, kFunction, ": a name contains a NUL byte");
            return nullptr;
          }
          list.emplace_back(name);
        }
        mapr::FilesOptions run_options =
            options != nullptr ? options->options : mapr::FilesOptions();
        // A C++ host's callback that throws ends the run (QueryFiles stops
        // and joins its threads first) and Guard reports MAPR_INTERNAL.
        if (options != nullptr && options->on_problem != nullptr) {
          run_options.on_problem =
              [fn = options->on_problem,
               ctx = options->problem_ctx](const mapr::InputProblem& p) {
                // The status's message is not promised to be NUL-terminated.
                const absl::string_view m = p.status.message();
                const std::string reason(m.data(), m.size());
                fn(ctx, p.name.c_str(), p.name.size(), ToCode(p.status.code()),
                   reason.c_str(), reason.size());
              };
        }
        if (options != nullptr && options->on_progress != nullptr) {
          run_options.on_progress =
              [fn = options->on_progress,
               ctx = options->progress_ctx](const mapr::FilesProgress& p) {
                fn(ctx, p.bytes_read, p.total_bytes, p.lines, p.done ? 1 : 0);
              };
        }
        mapr::FilesReport files_report;
        absl::StatusOr<mapr::ResultTable> table =
            mapr::QueryFiles(query->query, list, run_options, &files_report);
        mapr_result_t* result = NewResult(std::move(table), errptr);
        if (result != nullptr && report != nullptr) {
          report->inputs_ok = files_report.inputs_ok;
          report->inputs_failed = files_report.inputs_failed;
          report->lines_with_nul = files_report.lines_with_nul;
        }
        return result;
      });
}

// ---------------------------------------------------------------- One call

mapr_result_t* mapr_run(const char* query, size_t query_len, const char* input,
                        size_t input_len, mapr_error_t** errptr) noexcept {
  if ((query == nullptr && query_len != 0) ||
      (input == nullptr && input_len != 0)) {
    InvalidArgument(errptr, "mapr_run", ": NULL pointer with a length");
    return nullptr;
  }
  return Guard(
      errptr, static_cast<mapr_result_t*>(nullptr), [&]() -> mapr_result_t* {
        absl::StatusOr<mapr::Query> q =
            mapr::Query::Compile(View(query, query_len));
        if (!q.ok()) {
          Fail(errptr, q.status());
          return nullptr;
        }
        absl::StatusOr<mapr::Aggregator> agg = mapr::Aggregator::Create(*q);
        if (!agg.ok()) {
          Fail(errptr, agg.status());
          return nullptr;
        }
        absl::Status s = agg->PushBytes(View(input, input_len));
        s.Update(agg->FinishInput());
        if (!s.ok()) {
          Fail(errptr, s);
          return nullptr;
        }
        return NewResult(agg->TakeResult(), errptr);
      });
}

// ------------------------------------------------------------------ Result

void mapr_result_free(mapr_result_t* result) noexcept { delete result; }

size_t mapr_result_column_count(const mapr_result_t* result) noexcept {
  return result == nullptr ? 0 : result->table.num_columns();
}

const char* mapr_result_column_name(const mapr_result_t* result,
                                    size_t col) noexcept {
  if (result == nullptr || col >= result->table.num_columns()) return nullptr;
  return result->table.columns()[col].name.c_str();
}

const char* mapr_result_column_aggregate(const mapr_result_t* result,
                                         size_t col) noexcept {
  if (result == nullptr || col >= result->table.num_columns()) return nullptr;
  return result->table.columns()[col].aggregate.c_str();
}

mapr_value_type_t mapr_result_column_type(const mapr_result_t* result,
                                          size_t col) noexcept {
  if (result == nullptr || col >= result->table.num_columns()) {
    return MAPR_VALUE_TEXT;
  }
  return static_cast<mapr_value_type_t>(result->table.columns()[col].type);
}

size_t mapr_result_row_count(const mapr_result_t* result) noexcept {
  return result == nullptr ? 0 : result->table.num_rows();
}

uint64_t mapr_result_total_groups(const mapr_result_t* result) noexcept {
  return result == nullptr ? 0 : result->table.total_groups();
}

size_t mapr_result_note_count(const mapr_result_t* result) noexcept {
  return result == nullptr ? 0 : result->table.notes().size();
}

const char* mapr_result_note_code(const mapr_result_t* result,
                                  size_t i) noexcept {
  if (result == nullptr || i >= result->table.notes().size()) return nullptr;
  return result->table.notes()[i].code.c_str();
}

const char* mapr_result_note_text(const mapr_result_t* result,
                                  size_t i) noexcept {
  if (result == nullptr || i >= result->table.notes().size()) return nullptr;
  return result->table.notes()[i].text.c_str();
}

const char* mapr_result_cell(const mapr_result_t* result, size_t row,
                             size_t col, size_t* len) noexcept {
  if (result == nullptr || row >= result->table.num_rows() ||
      col >= result->table.num_columns()) {
    if (len != nullptr) *len = 0;
    return nullptr;
  }
  if (len != nullptr) *len = result->table.cell(row, col).size();
  return result->table.cell_c_str(row, col);
}

double mapr_result_value(const mapr_result_t* result, size_t row,
                         size_t col) noexcept {
  if (result == nullptr || row >= result->table.num_rows() ||
      col >= result->table.num_columns()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return result->table.value(row, col);
}

void mapr_result_counters(const mapr_result_t* result,
                          mapr_counters_t* counters) noexcept {
  if (counters == nullptr) return;
  CopyCounters(result == nullptr ? mapr::LineCounters() : result->table.stats(),
               counters);
}

extern "C++" {
namespace {

// Renders `result` with `render` into a malloc'ed copy (the shared body of
// the mapr_result_to_* functions).
template <typename Render>
char* RenderResult(const mapr_result_t* result, size_t* len,
                   mapr_error_t** errptr, const char* function,
                   Render render) noexcept {
  if (result == nullptr) {
    InvalidArgument(errptr, function, ": NULL result");
    return nullptr;
  }
  return Guard(errptr, static_cast<char*>(nullptr),
               [&] { return CopyOut(render(result->table), len); });
}

}  // namespace
}  // extern "C++"

char* mapr_result_to_csv(const mapr_result_t* result, size_t* len,
                         mapr_error_t** errptr) noexcept {
  return RenderResult(result, len, errptr, "mapr_result_to_csv",
                      [](const mapr::ResultTable& t) { return t.ToCsv(); });
}

char* mapr_result_to_json(const mapr_result_t* result, size_t* len,
                          mapr_error_t** errptr) noexcept {
  return RenderResult(result, len, errptr, "mapr_result_to_json",
                      [](const mapr::ResultTable& t) { return t.ToJson(); });
}

char* mapr_result_to_ndjson(const mapr_result_t* result, size_t* len,
                            mapr_error_t** errptr) noexcept {
  return RenderResult(result, len, errptr, "mapr_result_to_ndjson",
                      [](const mapr::ResultTable& t) { return t.ToNdjson(); });
}

char* mapr_result_to_table(const mapr_result_t* result, int64_t max_rows,
                           size_t* len, mapr_error_t** errptr) noexcept {
  return RenderResult(result, len, errptr, "mapr_result_to_table",
                      [max_rows](const mapr::ResultTable& t) {
                        mapr::TableOptions options;
                        options.max_rows = max_rows;
                        return t.ToTable(options);
                      });
}

mapr_code_t mapr_result_write_outfile(const mapr_result_t* result,
                                      const mapr_query_t* query,
                                      mapr_error_t** errptr) noexcept {
  if (result == nullptr || query == nullptr) {
    return InvalidArgument(errptr, "mapr_result_write_outfile",
                           ": NULL result or query");
  }
  return Guard(errptr, MAPR_INTERNAL, [&] {
    absl::Status s = mapr::WriteOutfile(query->query, result->table);
    return s.ok() ? MAPR_OK : Fail(errptr, s);
  });
}

}  // extern "C"
