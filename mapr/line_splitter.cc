#include "mapr/line_splitter.h"

#include <cstring>

namespace mapr {

namespace {

// The length of `line` without a trailing '\r'.
size_t ContentLength(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.size() - 1 : line.size();
}

}  // namespace

void LineSplitter::Carry(std::string_view tail) {
  if (skipping_) return;
  if (ContentLength(carry_) + tail.size() > max_line_bytes_ + 1) {
    // Too long already (one extra byte allowed for a '\r' that the next
    // chunk's '\n' may follow); drop it as it arrives.
    carry_.clear();
    carry_.shrink_to_fit();
    skipping_ = true;
    return;
  }
  carry_.append(tail);
}

std::span<const std::string_view> LineSplitter::Split(std::string_view chunk) {
  lines_.clear();
  const char* p = chunk.data();
  const char* end = p + chunk.size();
  // The first line may continue the carried one; it must be completed in a
  // buffer of its own before `carry_` is reused.
  bool first_from_carry = !carry_.empty() || skipping_;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (nl == nullptr) {
      Carry(std::string_view(p, end - p));
      break;
    }
    std::string_view piece(p, nl - p);
    p = nl + 1;
    if (first_from_carry) {
      first_from_carry = false;
      if (skipping_) {
        skipping_ = false;
        ++too_long_;
        continue;
      }
      carry_.append(piece);
      if (ContentLength(carry_) > max_line_bytes_) {
        ++too_long_;
        carry_.clear();
        continue;
      }
      last_.swap(carry_);
      carry_.clear();
      lines_.push_back(last_);
      continue;
    }
    if (ContentLength(piece) > max_line_bytes_) {
      ++too_long_;
      continue;
    }
    lines_.push_back(piece);
  }
  return lines_;
}

std::optional<std::string_view> LineSplitter::Finish() {
  lines_.clear();
  if (skipping_) {
    skipping_ = false;
    ++too_long_;
    return std::nullopt;
  }
  if (carry_.empty()) return std::nullopt;
  last_.swap(carry_);
  carry_.clear();
  return std::string_view(last_);
}

}  // namespace mapr
