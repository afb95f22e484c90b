#include "parser/source_span.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mapr/status.h"
#include "util/strings.h"

namespace mapr::parser {

LineCol OffsetToLineCol(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  LineCol lc;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++lc.line;
      line_start = i + 1;
    }
  }
  lc.column = offset - line_start + 1;
  return lc;
}

namespace {

void AppendSnippet(std::string_view text, const ast::Span& span,
                   std::string* out) {
  size_t offset = std::min<size_t>(span.offset, text.size());
  size_t line_start = 0;
  if (offset > 0) {
    size_t nl = text.rfind('\n', offset - 1);
    if (nl != std::string_view::npos) line_start = nl + 1;
  }
  size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string line(text.substr(line_start, line_end - line_start));
  size_t col = offset - line_start;  // 0-based
  size_t len =
      std::max<size_t>(1, std::min<size_t>(span.length, line_end - offset));
  // Make the snippet printable: tabs and control bytes become spaces so the
  // caret stays aligned.
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  // Cut long lines around the span (DuckDB style).
  std::string prefix;
  if (line.size() > kMaxSnippetWidth) {
    size_t half = kMaxSnippetWidth / 2;
    size_t start = col > half ? col - half : 0;
    size_t end = std::min(line.size(), start + kMaxSnippetWidth);
    if (end == line.size() && end > kMaxSnippetWidth) {
      start = end - kMaxSnippetWidth;
    }
    // Never split a UTF-8 sequence: move both cuts to character starts.
    auto continuation = [&](size_t i) {
      return (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
    };
    while (start > 0 && start < col && continuation(start)) ++start;
    while (end < line.size() && end > col + 1 && continuation(end)) --end;
    std::string cut = line.substr(start, end - start);
    // Underline only what is shown: the span may run past the cut.
    len = std::max<size_t>(1, std::min(len, end - col));
    if (start > 0) {
      cut = "..." + cut;
      col = col - start + 3;
    }
    if (end < line.size()) cut += "...";
    line = std::move(cut);
  }
  absl::StrAppend(out, "\n", line, "\n", std::string(col, ' '), "^",
                  std::string(len - 1, '~'));
}

}  // namespace

std::string RenderQueryError(std::string_view text, const QueryError& error) {
  LineCol lc = OffsetToLineCol(text, error.span.offset);
  std::string out = absl::StrCat(lc.line, ":", lc.column);
  if (error.span.length > 1) {
    // Inclusive end column, clipped to the end of the line.
    size_t line_end = text.find('\n', error.span.offset);
    if (line_end == std::string_view::npos) line_end = text.size();
    size_t end =
        std::min<size_t>(error.span.offset + error.span.length, line_end);
    if (end > error.span.offset + 1) {
      absl::StrAppend(&out, "-", lc.column + (end - error.span.offset) - 1);
    }
  }
  absl::StrAppend(&out, ": ", error.message);
  AppendSnippet(text, error.span, &out);
  if (!error.hint.empty()) absl::StrAppend(&out, "\nhint: ", error.hint);
  return out;
}

absl::Status QueryErrorStatus(std::string_view text, const QueryError& error) {
  return QueryErrorsStatus(text, {error});
}

absl::Status QueryErrorsStatus(std::string_view text,
                               const std::vector<QueryError>& errors) {
  std::vector<std::string> parts;
  parts.reserve(errors.size());
  for (const QueryError& e : errors) parts.push_back(RenderQueryError(text, e));
  absl::Status status =
      absl::InvalidArgumentError(absl::StrJoin(parts, "\n\n"));
  const QueryError& first = errors.front();
  LineCol lc = OffsetToLineCol(text, first.span.offset);
  SetSourceSpan(status, SourceSpan{first.span.offset, first.span.length,
                                   lc.line, lc.column});
  return status;
}

ast::Span TokenSpanAt(std::string_view text, size_t offset) {
  if (offset >= text.size()) {
    return ast::Span{static_cast<uint32_t>(text.size()), 0};
  }
  size_t end = offset;
  char c = text[offset];
  if (c == '"' || c == '`') {
    size_t close = text.find(c, offset + 1);
    end = close == std::string_view::npos ? text.size() : close + 1;
  } else {
    while (end < text.size() &&
           !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != ',' && text[end] != '"' && text[end] != '`') {
      ++end;
    }
    if (end == offset) end = offset + 1;
  }
  return ast::Span{static_cast<uint32_t>(offset),
                   static_cast<uint32_t>(end - offset)};
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates) {
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  std::string_view best;
  size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    size_t d = EditDistance(lower, candidate);
    if (best.empty() || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  // Accept up to a third of the word's length (at most 3): short words only
  // match when they differ in case alone.
  size_t allowed = std::min<size_t>(word.size() / 3, 3);
  if (best.empty() || best_distance > allowed) return {};
  return best;
}

}  // namespace mapr::parser
