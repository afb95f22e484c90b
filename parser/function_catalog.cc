#include "parser/function_catalog.h"

namespace mapr::plan {
namespace {

constexpr FunctionInfo kFunctions[] = {
    {"md5sum", FunctionKind::kMd5Sum,
     "the lowercase hex MD5 digest of the value (32 characters)", "md5sum(x)",
     0},
    {"maskdigits", FunctionKind::kMaskDigits,
     "the value with every digit 0-9 replaced by '.'", "maskdigits(x)", 0},
    {"regex", FunctionKind::kRegex,
     "capture group 1 of the RE2 pattern's first match (the whole match "
     "without groups); missing if none",
     "regex(x, 're')", 1},
    {"time", FunctionKind::kTime,
     "epoch seconds of a timestamp (DTail, RFC 3339, CLF, syslog, epoch "
     "s/ms/us/ns; or a strftime layout); missing and counted if unreadable",
     "time(x) or time(x, '%d.%m.%Y %H:%M:%S')", 0, 1},
    {"bucket", FunctionKind::kBucket,
     "the start of the value's time bucket in its own layout (width 30s, 5m, "
     "1h, 1d dividing a day, or 1w from Monday), or its numeric bin "
     "floor(x/w)*w",
     "bucket(x, 5m) or bucket(x, 100)", 1},
    {"duration", FunctionKind::kDuration,
     "seconds of a duration (1.5s, 18ms, 250us, 1h2m; exact); missing and "
     "counted if unreadable",
     "duration(x)", 0},
    {"bytes", FunctionKind::kBytes,
     "bytes of a size (512, 10KB, 1.5MiB; K=1000, Ki=1024; exact); missing "
     "and counted if unreadable",
     "bytes(x)", 0},
    {"lower", FunctionKind::kLower,
     "the value with ASCII letters in lower case", "lower(x)", 0},
    {"upper", FunctionKind::kUpper,
     "the value with ASCII letters in upper case", "upper(x)", 0},
    {"len", FunctionKind::kLen, "the length of the value in bytes", "len(x)",
     0},
    {"substr", FunctionKind::kSubstr,
     "the bytes of the value from start (1-based; negative: from the end), "
     "len of them or to the end",
     "substr(x, start) or substr(x, start, len)", 1, 1},
    {"split", FunctionKind::kSplit,
     "piece i (1-based; negative: from the end) of the value split at "
     "'sep'; missing if there is none",
     "split(x, 'sep', i)", 2},
    {"format_time", FunctionKind::kFormatTime,
     "a time (epoch seconds as time() gives, or a fixed layout) written in "
     "a strftime layout, in UTC; missing and counted if unreadable",
     "format_time(t, '%Y-%m-%d %H:%M')", 1},
    {"coalesce", FunctionKind::kCoalesce,
     "the first of its values that is not missing", "coalesce(a, b, ...)", 0},
};

}  // namespace

std::span<const FunctionInfo> Functions() noexcept { return kFunctions; }

std::optional<FunctionKind> LookupFunction(std::string_view name) noexcept {
  for (const FunctionInfo& f : kFunctions) {
    if (f.name == name) return f.kind;
  }
  return std::nullopt;
}

const FunctionInfo& GetFunctionInfo(FunctionKind kind) noexcept {
  for (const FunctionInfo& f : kFunctions) {
    if (f.kind == kind) return f;
  }
  return kFunctions[0];  // Unreachable: every kind is listed.
}

std::string_view FunctionName(FunctionKind kind) noexcept {
  for (const FunctionInfo& f : kFunctions) {
    if (f.kind == kind) return f.name;
  }
  return "";
}

}  // namespace mapr::plan
