// libFuzzer target: the query compiler must return a Status for any bytes,
// never crash, hang or leak; a successful compile must round-trip through
// ToString().
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mapr/query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<mapr::Query> q = mapr::Query::Compile(text);
  if (!q.ok()) return 0;
  absl::StatusOr<mapr::Query> again = mapr::Query::Compile(q->ToString());
  if (!again.ok() || again->ToString() != q->ToString()) __builtin_trap();
  (void)q->Explain();
  return 0;
}
