// Byte-scanning kernels for the hot path: 64-byte bitmasks of the bytes a
// log format splits on (SSE2 on x86-64, a portable loop elsewhere), and a
// substring search for the `|MAPREDUCE:TABLE|` marker.
#ifndef MAPR_RUNTIME_SCAN_H_
#define MAPR_RUNTIME_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mapr::runtime {

// Bit i of *a (*b) is set if p[i] == ca (cb), for i < 64. Reads exactly
// 64 bytes.
inline void MaskFull64(const char* p, char ca, char cb, uint64_t* a,
                       uint64_t* b) {
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(ca);
  const __m128i vb = _mm_set1_epi8(cb);
  uint64_t ma = 0, mb = 0;
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    ma |= static_cast<uint64_t>(
              static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, va))))
          << (16 * k);
    mb |= static_cast<uint64_t>(
              static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb))))
          << (16 * k);
  }
#else
  uint64_t ma = 0, mb = 0;
  for (int i = 0; i < 64; ++i) {
    ma |= static_cast<uint64_t>(p[i] == ca) << i;
    mb |= static_cast<uint64_t>(p[i] == cb) << i;
  }
#endif
  *a = ma;
  *b = mb;
}

// Bit i of *a (*b) is set if p[i] == ca (cb), for i < n <= 64. Never reads
// past p + n.
inline void Mask64(const char* p, size_t n, char ca, char cb, uint64_t* a,
                   uint64_t* b) {
  alignas(16) char tail[64];
  if (n < 64) {
    std::memset(tail, 0, sizeof(tail));
    std::memcpy(tail, p, n);
    p = tail;
  }
  MaskFull64(p, ca, cb, a, b);
  if (n < 64) {
    uint64_t keep = n == 0 ? 0 : (~uint64_t{0} >> (64 - n));
    *a &= keep;
    *b &= keep;
  }
}

// Like Mask64 for the bytes [begin, min(end, begin + 64)) when the 64 bytes
// before `end` are readable (REQUIRES: the scanned range holds at least 64
// bytes): a short final block is read as the last 64 bytes of the range and
// shifted, so nothing is copied.
inline void MaskBlock64(const char* begin, const char* end, char ca, char cb,
                        uint64_t* a, uint64_t* b) {
  const size_t n = static_cast<size_t>(end - begin);
  if (n >= 64) return MaskFull64(begin, ca, cb, a, b);
  MaskFull64(end - 64, ca, cb, a, b);
  *a >>= 64 - n;
  *b >>= 64 - n;
}

// Finds `marker` (which starts with "|MAPREDUCE:") in `hay`. Candidates are
// positions where both the 'M' and the ':' of the marker match, 16 at a
// time; each is confirmed with memcmp.
inline bool ContainsTableMarker(std::string_view hay, std::string_view marker) {
  constexpr size_t kM = 1, kColon = 10;  // Offsets of 'M' and ':'.
  const size_t n = hay.size(), m = marker.size();
  if (m > n) return false;
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i vm = _mm_set1_epi8('M');
  const __m128i vc = _mm_set1_epi8(':');
  for (; i + kColon + 16 <= n; i += 16) {
    __m128i a =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(hay.data() + i + kM));
    __m128i b = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(hay.data() + i + kColon));
    uint32_t bits = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpeq_epi8(a, vm), _mm_cmpeq_epi8(b, vc))));
    while (bits != 0) {
      size_t pos = i + static_cast<size_t>(__builtin_ctz(bits));
      bits &= bits - 1;
      if (pos + m <= n &&
          std::memcmp(hay.data() + pos, marker.data(), m) == 0) {
        return true;
      }
    }
  }
#endif
  return hay.substr(i).find(marker) != std::string_view::npos;
}

}  // namespace mapr::runtime

#endif  // MAPR_RUNTIME_SCAN_H_
