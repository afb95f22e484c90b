// template(x): the value with its variable parts masked, to group lines by
// their shape (log templates, as LogQL's pattern detection and Drain find
// them). Left to right:
//   "..." and '...' (backslash escapes inside)              -> <str>
//   where a word starts (not after a letter, digit, '_' or '.'):
//     UUIDs, 8-4-4-4-12 hex digits                          -> <uuid>
//     IPv4 addresses, a.b.c.d with parts <= 255             -> <ip>
//     0x and hex digits; 8+ hex digits with a letter and a digit -> <hex>
//   any other run of digits, with its '.digits' parts (3.14, 1.2.3),
//   inside words too (T12, user42, http2)                   -> <num>
// Every other byte is kept. The result depends on the value alone, so it
// is the same for any split of the input.
#include <cstddef>
#include <cstring>
#include <string_view>

#include "runtime/function.h"
#include "runtime/functions/function_args.h"

namespace mapr::runtime {
namespace {

constexpr plan::FunctionInfo kInfo = {
    "template",
    "the value with quoted strings, UUIDs, IPv4 addresses, hex ids and "
    "numbers masked as <str> <uuid> <ip> <hex> <num>, to group lines by "
    "shape",
    "template(x)"};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsWordChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '_';
}

// The end of the hex digits from `i`.
size_t HexEnd(std::string_view s, size_t i) {
  while (i < s.size() && IsHex(s[i])) ++i;
  return i;
}

// True if a word ends at `i` (nothing of a word or a number follows).
bool WordEnds(std::string_view s, size_t i) {
  return i == s.size() || !IsWordChar(s[i]);
}

// The size of a UUID at `i`, or 0.
size_t Uuid(std::string_view s, size_t i) {
  constexpr size_t kGroups[] = {8, 4, 4, 4, 12};
  size_t at = i;
  for (size_t g = 0; g < 5; ++g) {
    if (g > 0) {
      if (at >= s.size() || s[at] != '-') return 0;
      ++at;
    }
    const size_t end = HexEnd(s, at);
    if (end - at != kGroups[g]) return 0;
    at = end;
  }
  return WordEnds(s, at) ? at - i : 0;
}

// The size of an IPv4 address at `i`, or 0.
size_t Ipv4(std::string_view s, size_t i) {
  size_t at = i;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (at >= s.size() || s[at] != '.') return 0;
      ++at;
    }
    int value = 0;
    size_t digits = 0;
    while (at < s.size() && IsDigit(s[at]) && digits < 4) {
      value = value * 10 + (s[at] - '0');
      ++at;
      ++digits;
    }
    if (digits == 0 || digits > 3 || value > 255) return 0;
  }
  // Not followed by more of a number (1.2.3.4.5, 1.2.3.45x).
  if (at < s.size() &&
      (IsWordChar(s[at]) ||
       (s[at] == '.' && at + 1 < s.size() && IsDigit(s[at + 1])))) {
    return 0;
  }
  return at - i;
}

// The size of a hex id at `i`, or 0.
size_t HexId(std::string_view s, size_t i) {
  if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    const size_t end = HexEnd(s, i + 2);
    return end > i + 2 && WordEnds(s, end) ? end - i : 0;
  }
  const size_t end = HexEnd(s, i);
  if (end - i < 8 || !WordEnds(s, end)) return 0;
  bool digit = false, letter = false;
  for (size_t k = i; k < end; ++k) (IsDigit(s[k]) ? digit : letter) = true;
  return digit && letter ? end - i : 0;
}

// The size of a quoted string at `i` (s[i] is its quote), or 0 if it is
// not closed.
size_t Quoted(std::string_view s, size_t i) {
  const char quote = s[i];
  for (size_t k = i + 1; k < s.size(); ++k) {
    if (s[k] == '\\') {
      ++k;
    } else if (s[k] == quote) {
      return k + 1 - i;
    }
  }
  return 0;
}

// Writes the template of `s` through `out(std::string_view)`.
template <typename Out>
void Mask(std::string_view s, Out out) {
  size_t i = 0;
  size_t copied = 0;  // s[copied, i) is still to write.
  auto replace = [&](size_t size, std::string_view mask) {
    out(s.substr(copied, i - copied));
    out(mask);
    i += size;
    copied = i;
  };
  while (i < s.size()) {
    const char c = s[i];
    const bool word_start =
        i == 0 || !(IsWordChar(s[i - 1]) || s[i - 1] == '.');
    if (c == '"' || c == '\'') {
      if (const size_t n = Quoted(s, i)) {
        replace(n, "<str>");
        continue;
      }
    } else {
      size_t n = 0;
      if (word_start && IsHex(c)) {
        if ((n = Uuid(s, i)) != 0) {
          replace(n, "<uuid>");
          continue;
        }
        if ((n = Ipv4(s, i)) != 0) {
          replace(n, "<ip>");
          continue;
        }
        if ((n = HexId(s, i)) != 0) {
          replace(n, "<hex>");
          continue;
        }
      }
      if (IsDigit(c)) {
        // Digits and any '.digits' after them (3.14, 1.2.3).
        size_t end = i;
        while (end < s.size() && IsDigit(s[end])) ++end;
        while (end + 1 < s.size() && s[end] == '.' && IsDigit(s[end + 1])) {
          end += 2;
          while (end < s.size() && IsDigit(s[end])) ++end;
        }
        replace(end - i, "<num>");
        continue;
      }
    }
    ++i;
  }
  out(s.substr(copied));
}

void Apply(const plan::FunctionBinding*, std::span<std::string_view> values,
           uint8_t*, FunctionContext& ctx) {
  MapPresent(values, [&](std::string_view v) {
    size_t size = 0;
    Mask(v, [&](std::string_view part) { size += part.size(); });
    char* out = ctx.arena.Allocate(size == 0 ? 1 : size);
    char* at = out;
    Mask(v, [&](std::string_view part) {
      if (!part.empty()) std::memcpy(at, part.data(), part.size());
      at += part.size();
    });
    return std::string_view(out, size);
  });
}

}  // namespace

extern const ScalarFunction kTemplateFunction = {kInfo, Apply};

}  // namespace mapr::runtime
