// A function that `set` and `where` expressions call, as the engine runs
// it: its catalog entry (parser/function_catalog.h: name, usage, the bind
// hook the planner calls) and a batch apply. Each function is one file in
// runtime/functions/ plus one line in runtime/functions/registry.cc; the
// contract test (runtime/functions/function_test.cc) checks every entry.
//
// Example (a function of no arguments, runtime/functions/lower.cc):
//   void Apply(const plan::FunctionBinding*, std::span<std::string_view> v,
//              uint8_t*, FunctionContext& ctx) {
//     for (std::string_view& s : v) if (s.data() != nullptr) s = ...;
//   }
//   extern const ScalarFunction kLowerFunction = {kInfo, Apply};
#ifndef MAPR_RUNTIME_FUNCTION_H_
#define MAPR_RUNTIME_FUNCTION_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "parser/function_catalog.h"
#include "runtime/time_functions.h"
#include "util/arena.h"

namespace mapr::runtime {

// What an apply may use: the batch's arena (results live until the next
// batch) and the worker's TimeReader.
struct FunctionContext {
  util::Arena& arena;
  TimeReader& time_reader;
};

struct ScalarFunction {
  const plan::FunctionInfo& info;
  // Replaces every value of `values` that is not missing (data() != null)
  // by the call's result on it (a missing view where it has none), and sets
  // unreadable[i] for a value it could not read (a time, a number, a
  // duration or a size: counted in LineCounters::values_unparsed).
  // `binding` is what info.bind made (null without one). Allocates only
  // from ctx.arena. Null for FunctionInfo::expression_only entries.
  void (*apply)(const plan::FunctionBinding* binding,
                std::span<std::string_view> values, uint8_t* unreadable,
                FunctionContext& ctx);
};

// Every function, in the order `mapr --help` lists them.
std::span<const ScalarFunction* const> ScalarFunctions();
// The function of catalog entry `info` (one of ScalarFunctions()'s).
const ScalarFunction& FunctionOf(const plan::FunctionInfo& info);

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_FUNCTION_H_
