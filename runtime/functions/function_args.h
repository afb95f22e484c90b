// Checks of literal arguments that several functions' bind hooks share,
// and the loop of a function that maps each present value.
#ifndef MAPR_RUNTIME_FUNCTIONS_FUNCTION_ARGS_H_
#define MAPR_RUNTIME_FUNCTIONS_FUNCTION_ARGS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "parser/function_catalog.h"
#include "runtime/function.h"
#include "util/arena.h"

namespace mapr::runtime {

// A whole number (|v| <= 2^40) as an argument of `fn` ("substr"); not 0
// if `nonzero`. False after reporting the error.
bool IntegerArg(const ast::Token& t, std::string_view fn, bool nonzero,
                plan::BindContext& ctx, int64_t* out);

// The layout of time(x, 'layout') or (`writes`) format_time(t, 'layout'):
// a quoted strftime layout whose every conversion absl knows; time()'s
// must also read back its own output. False after reporting the error.
bool TimeLayoutArg(const ast::Token& t, bool writes, plan::BindContext& ctx,
                   std::string* layout);

// The seconds of a duration written as digits and a unit (`30s`, `5m`,
// `1h`, `1d`; at most six digits), or 0 if `text` is not one.
int64_t DurationSeconds(std::string_view text);

// Checks that `seconds`, the width written as token `t`, divides a day
// (time buckets start at midnight); else reports "<what> <t> does not
// divide a day" with the nearest widths of the same unit that do, and
// returns false.
bool DividesDay(const ast::Token& t, std::string_view what, int64_t seconds,
                plan::BindContext& ctx);

// Replaces `*v` by the start of its time bucket of `seconds` (BucketTime),
// written in its own layout into the batch's arena; false, leaving `*v`,
// if it is not a timestamp: bucket(x, 5m) and window()'s hops.
bool BucketTimeValue(std::string_view* v, int64_t seconds,
                     FunctionContext& ctx);

// The binding a function's apply receives, as the type its bind made.
template <typename Binding>
const Binding& BindingAs(const plan::FunctionBinding* b) {
  return *static_cast<const Binding*>(b);
}

// Replaces each present value v of `values` by f(v) (a missing result
// makes it missing).
template <typename F>
void MapPresent(std::span<std::string_view> values, F f) {
  for (std::string_view& v : values) {
    if (v.data() != nullptr) v = f(v);
  }
}

// Replaces each present value by a copy (in `arena`) with every byte b
// mapped to f(b): lower(), upper(), maskdigits().
template <typename F>
void MapBytes(std::span<std::string_view> values, util::Arena& arena, F f) {
  MapPresent(values, [&](std::string_view v) {
    char* out = arena.Allocate(v.empty() ? 1 : v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = f(v[i]);
    return std::string_view(out, v.size());
  });
}

// Replaces each present value v by the text read(v, buffer) writes into a
// buffer of kBufferSize bytes (its size returned), copied into `arena`; by
// a missing value marked in `unreadable` when read returns 0 (duration(),
// bytes()).
template <size_t kBufferSize, typename Read>
void ReadEach(std::span<std::string_view> values, uint8_t* unreadable,
              util::Arena& arena, Read read) {
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view& v = values[i];
    if (v.data() == nullptr) continue;
    char buffer[kBufferSize];
    const size_t size = read(v, buffer);
    if (size > 0) {
      v = arena.Copy(std::string_view(buffer, size));
    } else {
      v = std::string_view();
      unreadable[i] = 1;
    }
  }
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_FUNCTIONS_FUNCTION_ARGS_H_
