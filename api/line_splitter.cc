#include "mapr/line_splitter.h"

#include <algorithm>
#include <cstring>

#include "mapr/log_format.h"
#include "util/scan.h"

namespace mapr {

namespace {

// The length of `line` without a trailing '\r'.
size_t ContentLength(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.size() - 1 : line.size();
}

// A completed line's buffer above this size is freed once the line has been
// handed out, so that one long line does not pin its memory.
constexpr size_t kKeepBufferBytes = size_t{1} << 20;

// Empties `s`; frees its buffer if that is larger than kKeepBufferBytes.
void Release(std::string& s) {
  if (s.capacity() > kKeepBufferBytes) {
    std::string().swap(s);
  } else {
    s.clear();
  }
}

// The UTF-8 byte-order mark some Windows tools write at a file's start.
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

void StripByteOrderMark(std::string_view& line) {
  if (line.starts_with(kByteOrderMark)) line.remove_prefix(3);
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
  // The views of the previous call are void now.
  Release(last_);
  // The first line may continue the carried one; it must be completed in a
  // buffer of its own before `carry_` is reused.
  bool first_from_carry = !carry_.empty() || skipping_;
  const char* line = chunk.data();
  auto take = [&](const char* nl) {
    std::string_view piece(line, static_cast<size_t>(nl - line));
    line = nl + 1;
    // The stream's first line, kept or dropped as too long, ends the
    // byte-order mark check (StripByteOrderMark on the first one kept).
    const bool stream_first = at_stream_start_;
    at_stream_start_ = false;
    if (first_from_carry) {
      first_from_carry = false;
      if (skipping_) {
        skipping_ = false;
        ++too_long_;
        return;
      }
      // (Checked before the copy: a too-long line is never buffered whole.
      // `carry_` is not empty here, as skipping_ is false.)
      const char last = piece.empty() ? carry_.back() : piece.back();
      if (carry_.size() + piece.size() - (last == '\r' ? 1 : 0) >
          max_line_bytes_) {
        ++too_long_;
        Release(carry_);
        return;
      }
      carry_.append(piece);
      const size_t size = carry_.size();
      carry_.append(kLinePadding, '\0');  // Readable bytes after the line.
      last_.swap(carry_);
      carry_.clear();
      lines_.push_back(std::string_view(last_.data(), size));
      if (stream_first) StripByteOrderMark(lines_.back());
      return;
    }
    if (ContentLength(piece) > max_line_bytes_) {
      ++too_long_;
      return;
    }
    lines_.push_back(piece);
    if (stream_first) StripByteOrderMark(lines_.back());
  };
  // Newlines found a piece at a time (offsets fit 32 bits, scratch stays
  // small).
  constexpr size_t kPiece = size_t{1} << 16;
  const util::FindNewlinesFn find = util::NewlineFinder();
  for (size_t at = 0; at < chunk.size(); at += kPiece) {
    const size_t len = std::min(kPiece, chunk.size() - at);
    if (newlines_.size() < len) newlines_.resize(len);
    const size_t found = find(chunk.data() + at, len, newlines_.data());
    for (size_t k = 0; k < found; ++k) take(chunk.data() + at + newlines_[k]);
  }
  const char* end = chunk.data() + chunk.size();
  if (line < end)
    Carry(std::string_view(line, static_cast<size_t>(end - line)));
  return lines_;
}

std::optional<std::string_view> LineSplitter::Finish() {
  lines_.clear();
  Release(last_);
  const bool stream_first = at_stream_start_;
  at_stream_start_ = true;  // The next bytes start a new stream.
  if (skipping_) {
    skipping_ = false;
    ++too_long_;
    return std::nullopt;
  }
  if (carry_.empty()) return std::nullopt;
  const size_t size = carry_.size();
  carry_.append(kLinePadding, '\0');  // Readable bytes after the line.
  last_.swap(carry_);
  carry_.clear();
  std::string_view line(last_.data(), size);
  if (stream_first) StripByteOrderMark(line);
  return line;
}

void LineSplitter::DiscardPartialLine() {
  lines_.clear();
  Release(last_);
  Release(carry_);
  skipping_ = false;
  at_stream_start_ = true;
}

}  // namespace mapr
