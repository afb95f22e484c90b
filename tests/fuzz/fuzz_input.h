// What the format fuzzers do with their input: the first byte picks the
// case (format, fields), the rest is cut into lines at each '\n', at most
// one batch of them.
#ifndef MAPR_TESTS_FUZZ_FUZZ_INPUT_H_
#define MAPR_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "mapr/log_format.h"

namespace mapr::fuzz {

// data[1, size) cut at each '\n' (a last line without one included, an
// empty input one empty line), at most mapr::kMaxBatchRows lines. size >= 1.
inline std::vector<std::string_view> LinesAfterFirstByte(const uint8_t* data,
                                                         size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= bytes.size() && lines.size() < mapr::kMaxBatchRows) {
    size_t nl = bytes.find('\n', start);
    if (nl == std::string_view::npos) nl = bytes.size();
    lines.push_back(bytes.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace mapr::fuzz

#endif  // MAPR_TESTS_FUZZ_FUZZ_INPUT_H_
