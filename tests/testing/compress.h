// Compressed test fixtures, made with the compression libraries themselves
// (link ZLIB::ZLIB and PkgConfig::ZSTD).
#ifndef MAPR_TESTS_TESTING_COMPRESS_H_
#define MAPR_TESTS_TESTING_COMPRESS_H_

#include <zlib.h>
#include <zstd.h>

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace mapr::testing {

// `data` deflated by zlib at level 6: `window_bits` 15 + 16 gives a gzip
// member, -15 raw deflate data (no header, no trailer).
inline std::string Deflate(std::string_view data, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(
      deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One gzip member holding `data` (the largest window).
inline std::string Gzip(std::string_view data) {
  return Deflate(data, 15 + 16);
}

// One zstd frame holding `data`.
inline std::string Zstd(std::string_view data) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  // With a checksum, so that damaged data is detected.
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n =
      ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  EXPECT_FALSE(ZSTD_isError(n));
  ZSTD_freeCCtx(cctx);
  out.resize(n);
  return out;
}

}  // namespace mapr::testing

#endif  // MAPR_TESTS_TESTING_COMPRESS_H_
