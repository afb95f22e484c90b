// Byte-scanning kernels for the hot path: 64-byte bitmasks of the bytes a
// log format splits on (SSE2 on x86-64, a portable loop elsewhere), and a
// substring search for the `|MAPREDUCE:TABLE|` marker.
#ifndef MAPR_UTIL_SCAN_H_
#define MAPR_UTIL_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
// Code may be built for AVX2 CPUs too (util/avx2_begin.inc) and pick that
// build at run time (CpuHasAvx2Bmi below).
#define MAPR_HAVE_AVX2_TARGET 1
#endif

namespace mapr::util {

// Bit i of *a (*b) is set if p[i] == ca (cb), for i < 64. Reads exactly
// 64 bytes.
inline void MaskFull64(const char* p, char ca, char cb, uint64_t* a,
                       uint64_t* b) {
#if defined(__SSE2__)
  // Unrolled by hand: GCC at -O2 keeps the loop.
  const __m128i va = _mm_set1_epi8(ca);
  const __m128i vb = _mm_set1_epi8(cb);
  const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
  const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48));
  auto bits = [](__m128i v, __m128i c) {
    return static_cast<uint64_t>(
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))));
  };
  const uint64_t ma = bits(v0, va) | (bits(v1, va) << 16) |
                      (bits(v2, va) << 32) | (bits(v3, va) << 48);
  const uint64_t mb = bits(v0, vb) | (bits(v1, vb) << 16) |
                      (bits(v2, vb) << 32) | (bits(v3, vb) << 48);
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

// a[0, n) == b[0, n), without a call for n <= 32; reads only those bytes.
inline bool BytesEqual(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    if (n > 32) return std::memcmp(a, b, n) == 0;
    // Two 8-byte words from each end (overlapping for n < 32).
    const size_t m = n > 16 ? 8 : 0;
    uint64_t a0, b0, a1, b1, a2, b2, a3, b3;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + m, 8);
    std::memcpy(&b1, b + m, 8);
    std::memcpy(&a2, a + n - 8 - m, 8);
    std::memcpy(&b2, b + n - 8 - m, 8);
    std::memcpy(&a3, a + n - 8, 8);
    std::memcpy(&b3, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3)) == 0;
  }
  if (n >= 4) {
    uint32_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 4);
    std::memcpy(&b0, b, 4);
    std::memcpy(&a1, a + n - 4, 4);
    std::memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Whether `needle` occurs in `hay` (as std::string_view::find). For a
// needle of 4 bytes or more, every position is tested with one 4-byte
// compare: log values are short, and this loop has no data-dependent branch
// but the rare hit, where find() calls memchr per candidate first byte.
inline bool Contains(std::string_view hay, std::string_view needle) {
  const size_t n = hay.size(), m = needle.size();
  if (m < 4 || n > 256) return hay.find(needle) != std::string_view::npos;
  if (m > n) return false;
  uint32_t head;
  std::memcpy(&head, needle.data(), 4);
  const char* p = hay.data();
  for (size_t i = 0; i + m <= n; ++i) {
    uint32_t w;
    std::memcpy(&w, p + i, 4);
    if (w == head && BytesEqual(p + i + 4, needle.data() + 4, m - 4)) {
      return true;
    }
  }
  return false;
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
      if (pos + m <= n && BytesEqual(hay.data() + pos, marker.data(), m)) {
        return true;
      }
    }
  }
#endif
  return hay.substr(i).find(marker) != std::string_view::npos;
}

// Offsets of the '\n' bytes in [p, p + n), into out[0, count); out has room
// for n entries. The line splitters' kernel (n < 2^32).
using FindNewlinesFn = size_t (*)(const char* p, size_t n, uint32_t* out);

inline size_t FindNewlinesMemchr(const char* p, size_t n, uint32_t* out) {
  size_t count = 0;
  for (size_t at = 0; at < n;) {
    const void* nl = std::memchr(p + at, '\n', n - at);
    if (nl == nullptr) break;
    const size_t i = static_cast<size_t>(static_cast<const char*>(nl) - p);
    out[count++] = static_cast<uint32_t>(i);
    at = i + 1;
  }
  return count;
}

#if defined(__x86_64__) && defined(__GNUC__)
// One 64-byte mask per block; its first hit is written whether or not there
// is one (and counted only if there is), so a block costs no branch unless
// it holds two lines' ends: log lines are longer than 64 bytes, and a
// branch per line end (as in a memchr call per line) mispredicts often.
__attribute__((target("avx2,bmi"))) inline size_t FindNewlinesAvx2(
    const char* p, size_t n, uint32_t* out) {
  const __m256i nl = _mm256_set1_epi8('\n');
  size_t count = 0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m256i a =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i b =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    uint64_t m =
        static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl))) |
        (static_cast<uint64_t>(static_cast<uint32_t>(
             _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, nl))))
         << 32);
    // Room: a block with a hit adds at least one entry, and the entry
    // written past the count for a block without one is overwritten (or
    // lies within the n entries, as i < n).
    out[count] = static_cast<uint32_t>(i + _tzcnt_u64(m));
    count += m != 0;
    m = _blsr_u64(m);
    while (m != 0) {
      out[count++] = static_cast<uint32_t>(i + _tzcnt_u64(m));
      m = _blsr_u64(m);
    }
  }
  const size_t tail = FindNewlinesMemchr(p + i, n - i, out + count);
  for (size_t k = count; k < count + tail; ++k) {
    out[k] += static_cast<uint32_t>(i);
  }
  return count + tail;
}

// Whether this CPU runs the AVX2 kernels: AVX2 with BMI1/BMI2 and POPCNT
// (the newline finder here, the default format's parser). Asked once.
inline bool CpuHasAvx2Bmi() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  return has;
}
#endif

// The fastest FindNewlines this CPU runs (AVX2, else memchr per line).
inline FindNewlinesFn NewlineFinder() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (CpuHasAvx2Bmi()) return FindNewlinesAvx2;
#endif
  return FindNewlinesMemchr;
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_SCAN_H_
