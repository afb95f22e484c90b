// Little-endian fields for serialized state: explicit bytes, never a memory
// dump, so the encoding is the same on every machine.
//
//   std::string out;
//   util::AppendU64(&out, count);
//   std::string_view in = out;
//   uint64_t back;
//   if (!util::ReadU64(&in, &back)) return false;  // truncated
#ifndef MAPR_UTIL_BYTES_H_
#define MAPR_UTIL_BYTES_H_

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace mapr::util {

inline void AppendU8(std::string* out, uint8_t v) {
  out->push_back(static_cast<char>(v));
}

inline void AppendU32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 4);
}

inline void AppendU64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}

// A double as its IEEE 754 bits (NaN payloads and -0.0 survive).
inline void AppendF64(std::string* out, double v) {
  AppendU64(out, std::bit_cast<uint64_t>(v));
}

// A length-prefixed byte string.
inline void AppendBytes(std::string* out, std::string_view bytes) {
  AppendU32(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes.data(), bytes.size());
}

// An unsigned LEB128 varint: 7 bits a byte, low first (1 byte below 128).
inline void AppendVarU64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The readers consume from the front of `*in`; false if it is too short.
inline bool ReadU8(std::string_view* in, uint8_t* v) {
  if (in->empty()) return false;
  *v = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

inline bool ReadU32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    r |= uint32_t{static_cast<uint8_t>((*in)[i])} << (8 * i);
  }
  *v = r;
  in->remove_prefix(4);
  return true;
}

inline bool ReadU64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r |= uint64_t{static_cast<uint8_t>((*in)[i])} << (8 * i);
  }
  *v = r;
  in->remove_prefix(8);
  return true;
}

inline bool ReadF64(std::string_view* in, double* v) {
  uint64_t bits;
  if (!ReadU64(in, &bits)) return false;
  *v = std::bit_cast<double>(bits);
  return true;
}

// A varint written by AppendVarU64; false if it is cut, longer than 10
// bytes, past 64 bits, or not in its shortest form (a trailing 0 byte).
inline bool ReadVarU64(std::string_view* in, uint64_t* v) {
  uint64_t r = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    const uint64_t b = static_cast<uint8_t>((*in)[i]);
    if (i == 9 && b > 1) return false;
    r |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if (i > 0 && b == 0) return false;
      *v = r;
      in->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

// A byte string written by AppendBytes; `*bytes` views into the input.
inline bool ReadBytes(std::string_view* in, std::string_view* bytes) {
  uint32_t n;
  if (!ReadU32(in, &n) || in->size() < n) return false;
  *bytes = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

}  // namespace mapr::util

#endif  // MAPR_UTIL_BYTES_H_
