// libFuzzer target: arbitrary bytes as a PART read as a stream (standard
// input, a pipe, a host's output): bindings/cli/partials.h's
// PartialStreamDecoder over mapr::PartialFrameReader, binary frames or
// --b64 lines. The first byte seeds the sizes of the reads, the second picks
// the frame limit. Checks: the result does not depend on how the bytes are
// cut into reads (the same frames, offsets and bytes, or the same error),
// no frame is over the limit, and every frame is a valid partial.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "bindings/cli/partials.h"
#include "mapr/partial.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  uint32_t seed = data[0] | 1u;
  const uint64_t limit = uint64_t{64} << (data[1] % 20);
  const std::string_view bytes(reinterpret_cast<const char*>(data + 2),
                               size - 2);
  using mapr::cli::NamedFrame;
  const absl::StatusOr<std::vector<NamedFrame>> whole =
      mapr::cli::DecodePartials("f", bytes, limit);

  mapr::cli::PartialStreamDecoder decoder("f", limit);
  std::string_view rest = bytes;
  absl::Status appended;
  while (!rest.empty() && appended.ok()) {
    seed = seed * 1103515245u + 12345u;
    const size_t n = std::min<size_t>(rest.size(), 1 + (seed >> 16) % 97);
    appended = decoder.Append(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  const absl::StatusOr<std::vector<NamedFrame>> cut =
      appended.ok() ? decoder.Finish()
                    : absl::StatusOr<std::vector<NamedFrame>>(appended);

  Check(whole.ok() == cut.ok());
  if (!whole.ok()) {
    Check(whole.status() == cut.status());
    return 0;
  }
  Check(whole->size() == cut->size() && !whole->empty());
  for (size_t i = 0; i < whole->size(); ++i) {
    const NamedFrame& a = (*whole)[i];
    const NamedFrame& b = (*cut)[i];
    Check(a.bytes == b.bytes && a.offset == b.offset);
    Check(a.bytes.size() <= limit);
    Check(a.info.frame_bytes == a.bytes.size());
    Check(mapr::InspectPartial(a.bytes).ok());
  }
  return 0;
}
