#include "parser/function_catalog.h"

namespace mapr::plan {
namespace {

constexpr FunctionInfo kFunctions[] = {
    {"md5sum", FunctionKind::kMd5Sum,
     "the lowercase hex MD5 digest of the value (32 characters)",
     "md5sum(x)", 0},
    {"maskdigits", FunctionKind::kMaskDigits,
     "the value with every digit 0-9 replaced by '.'", "maskdigits(x)", 0},
    {"regex", FunctionKind::kRegex,
     "capture group 1 of the RE2 pattern's first match (the whole match "
     "without groups); missing if none",
     "regex(x, 're')", 1},
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
