#include "parser/function_catalog.h"

namespace mapr::plan {
namespace {

constexpr FunctionInfo kFunctions[] = {
    {"md5sum", FunctionKind::kMd5Sum,
     "the lowercase hex MD5 digest of the value (32 characters)"},
    {"maskdigits", FunctionKind::kMaskDigits,
     "the value with every digit 0-9 replaced by '.'"},
};

}  // namespace

std::span<const FunctionInfo> Functions() noexcept { return kFunctions; }

std::optional<FunctionKind> LookupFunction(std::string_view name) noexcept {
  for (const FunctionInfo& f : kFunctions) {
    if (f.name == name) return f.kind;
  }
  return std::nullopt;
}

std::string_view FunctionName(FunctionKind kind) noexcept {
  for (const FunctionInfo& f : kFunctions) {
    if (f.kind == kind) return f.name;
  }
  return "";
}

}  // namespace mapr::plan
