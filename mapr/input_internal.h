// mapr/input_internal.h: the decoders behind mapr/input.h. Not installed
// (cmake/mapr_install.cmake skips mapr/*_internal.h).
//
// Why the input layer lives in mapr/ rather than in runtime/ (as the outfile
// writer does, behind mapr/outfile.h): its public interface type, ByteStream,
// is what the decoders implement, and ReadLines() is built on
// mapr::LineSplitter; runtime/ may include neither (only the vocabulary
// headers), so a runtime/ copy would need a second stream interface and
// adapters for no gain. Nothing in runtime/ reads files. The code is split
// by job: mapr/input.cc (detection, opening, lines, PushFile) and
// mapr/input_decoders.cc (one ByteStream per compression library).
#ifndef MAPR_MAPR_INPUT_INTERNAL_H_
#define MAPR_MAPR_INPUT_INTERNAL_H_

#include <memory>

#include "mapr/input.h"

namespace mapr::input_internal {

// A stream of the decompressed bytes of `compressed`, which holds data in
// `compression`'s format. REQUIRES: `compression` is kGzip, kZstd, kXz or
// kBzip2. The decoders' error messages are listed in mapr/input_decoders.cc.
std::unique_ptr<ByteStream> NewDecoder(Compression compression,
                                       std::unique_ptr<ByteStream> compressed);

}  // namespace mapr::input_internal

#endif  // MAPR_MAPR_INPUT_INTERNAL_H_
