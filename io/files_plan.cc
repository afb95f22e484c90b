#include "io/files_plan.h"

#include <fcntl.h>
#include <glob.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "api/query_internal.h"
#include "io/input_internal.h"
#include "mapr/input.h"
#include "mapr/log_format.h"
#include "mapr/options.h"
#include "parser/event_start.h"
#include "util/strings.h"

namespace mapr::files_internal {

using ::mapr::input_internal::ErrnoError;
using ::mapr::util::ToAbsl;

uint64_t NextLineStart(int fd, uint64_t pos, uint64_t size) {
  char buf[64 << 10];
  uint64_t at = pos - 1;
  while (at < size) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(sizeof(buf), size - at));
    ssize_t r;
    do {
      r = pread(fd, buf, want, static_cast<off_t>(at));
    } while (r < 0 && errno == EINTR);
    if (r <= 0) return size;  // The reader reports any error.
    const void* nl = std::memchr(buf, '\n', static_cast<size_t>(r));
    if (nl != nullptr) {
      return at + static_cast<uint64_t>(static_cast<const char*>(nl) - buf) + 1;
    }
    at += static_cast<uint64_t>(r);
  }
  return size;
}

const parser::EventStart* EventRule(const Query& query) {
  return QueryInternal::GetPlan(query).event_start.get();
}

namespace {

// Opens `path` if it is a plain (uncompressed) file; -1 otherwise or on
// error (the reader reports errors later).
int OpenIfPlain(const std::string& path) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  char head[kCompressionMagicBytes];
  ssize_t r;
  do {
    r = pread(fd, head, sizeof(head), 0);
  } while (r < 0 && errno == EINTR);
  if (r <= 0 || DetectCompression(std::string_view(
                    head, static_cast<size_t>(r))) != Compression::kNone) {
    close(fd);
    return -1;
  }
  return fd;
}

// The bytes at [offset, offset + n) of `fd` (fewer at its end).
std::string ReadAt(int fd, uint64_t offset, size_t n) {
  std::string buf(n, '\0');
  ssize_t r;
  do {
    r = pread(fd, buf.data(), n, static_cast<off_t>(offset));
  } while (r < 0 && errno == EINTR);
  buf.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return buf;
}

// Little-endian unsigned integer of `n` bytes at `p`.
uint64_t LoadLe(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

// The decoded size a zstd frame header announces (`head` starts at the
// frame's magic), or 0 if it announces none.
uint64_t ZstdContentSize(std::string_view head) {
  if (head.size() < 5) return 0;
  const auto fhd = static_cast<unsigned char>(head[4]);
  const unsigned fcs_flag = fhd >> 6;
  const bool single_segment = (fhd >> 5) & 1;
  static constexpr size_t kDictIdBytes[] = {0, 1, 2, 4};
  static constexpr size_t kFcsBytes[] = {0, 2, 4, 8};
  const size_t fcs_bytes =
      fcs_flag == 0 ? (single_segment ? 1 : 0) : kFcsBytes[fcs_flag];
  if (fcs_bytes == 0) return 0;
  const size_t at = 5 + (single_segment ? 0 : 1) + kDictIdBytes[fhd & 3];
  if (head.size() < at + fcs_bytes) return 0;
  const uint64_t v = LoadLe(head.data() + at, fcs_bytes);
  return fcs_bytes == 2 ? v + 256 : v;
}

// What reading a regular file of `size` bytes costs, in the units of a
// plain file's bytes (parsing one byte costs 1): for compressed input, the
// decoded bytes (announced by the file where it can: gzip's trailer, a zstd
// frame header; else `size` times a typical log's ratio) times parsing plus
// decoding them. Without it a .gz file would weigh its compressed size, a
// fifth of its work, and groups of mixed input would be far from even.
struct FileWork {
  uint64_t work = 0;
  bool compressed = false;
};
FileWork WorkOfFile(const std::string& path, uint64_t size) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return {size, false};  // The reader reports the error.
  const std::string head = ReadAt(fd, 0, 32);
  const Compression c = DetectCompression(head);
  // Decoding cost per decoded byte in tenths of the cost of parsing it
  // (Q1 on the STATS log: ISA-L decodes twice as fast as the engine
  // parses, libzstd about as fast; liblzma and libbz2 are several times
  // slower).
  uint64_t decode_cost = 0;
  uint64_t decoded = 0;
  switch (c) {
    case Compression::kGzip: {
      decode_cost = 5;
      // ISIZE: the last member's length mod 2^32; one member is usual.
      const std::string tail =
          size >= 18 ? ReadAt(fd, size - 4, 4) : std::string();
      if (tail.size() == 4) {
        decoded = LoadLe(tail.data(), 4);
        while (decoded < size) decoded += uint64_t{1} << 32;
      }
      break;
    }
    case Compression::kZstd:
      decode_cost = 10;
      decoded = ZstdContentSize(head);
      break;
    case Compression::kXz:
      decode_cost = 40;
      break;
    case Compression::kBzip2:
      decode_cost = 100;
      break;
    default:
      break;
  }
  close(fd);
  if (decode_cost == 0) return {size, false};
  if (decoded < size) decoded = size * 5;
  return {decoded / 10 * (10 + decode_cost), true};
}

// Deals pieces into at most `max_groups` contiguous groups of about
// `target` bytes each, cutting plain files at line boundaries where a group
// is full. `slack` is the smallest piece worth cutting off.
class Grouper {
 public:
  // `rule`, `max_line_bytes`: where a cut may go (NextEventStart).
  Grouper(size_t max_groups, uint64_t target, uint64_t slack,
          const parser::EventStart* rule, size_t max_line_bytes)
      : max_groups_(max_groups),
        target_(target),
        slack_(slack),
        rule_(rule),
        max_line_bytes_(max_line_bytes) {
    groups_.emplace_back();
  }

  // Adds a piece that cannot be cut, of about `weight` bytes.
  void Add(Piece piece, uint64_t weight) {
    if (!groups_.back().empty() && filled_ + weight / 2 > target_ &&
        CanOpenGroup()) {
      NewGroup();
    }
    groups_.back().push_back(std::move(piece));
    filled_ += weight;
  }

  // Adds the plain file `path` (open as `fd`, `size` bytes) as input
  // `input`, cutting it where groups fill up.
  // Only its bytes [begin, size) are read (both line starts); `file_size`
  // is the whole file's.
  void AddPlainFile(size_t input, const std::string& path, int fd,
                    uint64_t begin, uint64_t size, uint64_t file_size) {
    uint64_t pos = begin;
    while (pos < size) {
      const uint64_t rest = size - pos;
      uint64_t cut = size;
      if (CanOpenGroup() && filled_ + rest > target_ + slack_) {
        uint64_t room = target_ > filled_ ? target_ - filled_ : 0;
        if (room < slack_) {
          if (!groups_.back().empty()) {
            NewGroup();
            continue;
          }
          room = slack_;
        }
        cut = NextEventStart(fd, pos + room, size, rule_, max_line_bytes_);
      }
      Piece piece;
      piece.input = input;
      piece.spec.path = path;
      if (pos > 0 || cut < file_size) {
        piece.spec.ranged = true;
        piece.spec.begin = pos;
        piece.spec.end = cut;
      }
      groups_.back().push_back(std::move(piece));
      filled_ += cut - pos;
      pos = cut;
      if (pos < size) NewGroup();
    }
  }

  std::vector<std::vector<Piece>> Take() { return std::move(groups_); }

 private:
  bool CanOpenGroup() const { return groups_.size() < max_groups_; }
  void NewGroup() {
    groups_.emplace_back();
    filled_ = 0;
  }

  const size_t max_groups_;
  const uint64_t target_;
  const uint64_t slack_;
  const parser::EventStart* const rule_;
  const size_t max_line_bytes_;
  std::vector<std::vector<Piece>> groups_;
  uint64_t filled_ = 0;
};

// What MakePlan learns of the inputs before dealing them out.
struct Survey {
  std::vector<uint64_t> sizes;  // Regular files: bytes (of --range's).
  std::vector<bool> regular;
  // Regular files: the estimated work (WorkOfFile), and whether they are
  // compressed.
  std::vector<uint64_t> weights;
  std::vector<bool> compressed;
  uint64_t total_weight = 0;
  bool sizes_known = true;
  // A pipe (or standard input that is not a regular file) named twice.
  bool shared_stream = false;
};

// Stats every input (marking in `failed` those that cannot be read) and
// weighs the work of each; an input of unknown size (a pipe) weighs
// `unknown_weight`.
Survey SurveyInputs(const std::vector<FileInput>& inputs,
                    const FilesOptions& options, uint64_t unknown_weight,
                    std::vector<bool>& failed, Problems& problems,
                    uint64_t* total_bytes) {
  Survey v;
  v.sizes.assign(inputs.size(), 0);
  v.regular.assign(inputs.size(), false);
  v.weights.assign(inputs.size(), 0);
  v.compressed.assign(inputs.size(), false);
  // Non-regular inputs (pipes, terminals, devices) seen, by device and inode.
  std::set<std::pair<dev_t, ino_t>> streams;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const FileInput& in = inputs[i];
    struct stat st;
    if (in.is_stdin) {
      v.sizes_known = false;
      v.total_weight += unknown_weight;
      if (fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode) &&
          !streams.insert({st.st_dev, st.st_ino}).second) {
        v.shared_stream = true;
      }
      continue;
    }
    if (stat(in.path.c_str(), &st) != 0) {
      problems.Add({in.path, ErrnoError(errno)});
      failed[i] = true;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      problems.Add({in.path, ErrnoError(EISDIR)});
      failed[i] = true;
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      v.regular[i] = true;
      v.sizes[i] = static_cast<uint64_t>(st.st_size);
      if (options.range.has_value() && i == 0) {
        v.sizes[i] = options.range->end - options.range->begin;
      }
      *total_bytes += v.sizes[i];
      // Weights only matter when there is more than one group.
      FileWork work{v.sizes[i], false};
      if (options.threads > 1 && !(options.range.has_value() && i == 0)) {
        work = WorkOfFile(in.path, v.sizes[i]);
      }
      v.weights[i] = std::max<uint64_t>(work.work, 1);
      v.compressed[i] = work.compressed;
      v.total_weight += v.weights[i];
    } else {
      v.sizes_known = false;
      v.total_weight += unknown_weight;
      if (!streams.insert({st.st_dev, st.st_ino}).second) {
        v.shared_stream = true;
      }
    }
  }
  return v;
}

// Threads the groups leave idle decompress: a group reading compressed
// input then decodes on a second thread, pipelined with its parsing. The
// decoder thread counts against --threads, so that N threads never keep
// more than N cores busy, and --threads 1 stays on one core. Groups are
// served in order; each uses at most one decoder thread at a time (its
// pieces are read one after another).
void GiveDecoderThreads(const Survey& v, uint64_t threads,
                        std::vector<std::vector<Piece>>& groups) {
  size_t spare = groups.size() < threads
                     ? static_cast<size_t>(threads) - groups.size()
                     : 0;
  for (std::vector<Piece>& group : groups) {
    if (spare == 0) break;
    bool uses = false;
    for (Piece& piece : group) {
      // Standard input and other streams may be compressed too: they get
      // the thread as well (it starts only for compressed input).
      if (piece.spec.ranged) continue;
      if (!piece.spec.is_stdin && v.regular[piece.input] &&
          !v.compressed[piece.input]) {
        continue;
      }
      piece.spec.decompress_on_thread = true;
      uses = true;
    }
    if (uses) --spare;
  }
}

}  // namespace

uint64_t NextEventStart(int fd, uint64_t pos, uint64_t size,
                        const parser::EventStart* rule, size_t max_line_bytes) {
  uint64_t at = NextLineStart(fd, pos, size);
  if (rule == nullptr) return at;
  // A line with its '\r' and '\n' longer than this is too long.
  const uint64_t longest = uint64_t{max_line_bytes} + 2;
  while (at < size) {
    const uint64_t next = NextLineStart(fd, at + 1, size);
    if (next - at <= longest) {
      const std::string line = ReadAt(fd, at, static_cast<size_t>(next - at));
      std::string_view bare = line;
      if (!bare.empty() && bare.back() == '\n') bare.remove_suffix(1);
      if (!bare.empty() && bare.back() == '\r') bare.remove_suffix(1);
      if (bare.size() <= max_line_bytes && rule->Starts(bare)) return at;
    }
    at = next;
  }
  return size;
}

Plan MakePlan(const Query& query, const std::vector<FileInput>& inputs,
              const FilesOptions& options, std::vector<bool>& failed,
              Problems& problems) {
  Plan plan;
  // An input of unknown size (a pipe) weighs as much as one chunk.
  const uint64_t unknown_weight = options.min_chunk_bytes;
  const Survey v = SurveyInputs(inputs, options, unknown_weight, failed,
                                problems, &plan.total_bytes);
  if (!v.sizes_known) plan.total_bytes = 0;

  // Two threads must not read one pipe at once: a pipe (or standard input
  // that is not a regular file) named twice makes the run single-threaded.
  const uint64_t threads =
      v.shared_stream ? 1 : static_cast<uint64_t>(std::max(1, options.threads));
  const bool can_cut =
      threads > 1 && LogFormatIsLineIndependent(query.log_format());
  Grouper grouper(static_cast<size_t>(threads),
                  (v.total_weight + threads - 1) / threads,
                  std::max<uint64_t>(options.min_chunk_bytes, 1),
                  EventRule(query), options.aggregator.max_line_bytes);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (failed[i]) continue;
    Piece piece;
    piece.input = i;
    if (inputs[i].is_stdin) {
      piece.spec.is_stdin = true;
      grouper.Add(std::move(piece), unknown_weight);
      continue;
    }
    piece.spec.path = inputs[i].path;
    if (!v.regular[i]) {
      grouper.Add(std::move(piece), unknown_weight);
      continue;
    }
    // A --range: only the line-aligned bytes [begin, end) (LineAlignedRange).
    const bool ranged = options.range.has_value() && i == 0;
    const uint64_t begin = ranged ? options.range->begin : 0;
    const uint64_t end = ranged ? options.range->end : v.sizes[i];
    const int fd = can_cut && end - begin >= 2 * options.min_chunk_bytes
                       ? OpenIfPlain(inputs[i].path)
                       : -1;
    if (fd < 0) {
      if (ranged) {
        piece.spec.ranged = true;
        piece.spec.begin = begin;
        piece.spec.end = end;
      }
      grouper.Add(std::move(piece),
                  ranged ? std::max<uint64_t>(end - begin, 1) : v.weights[i]);
      continue;
    }
    grouper.AddPlainFile(i, inputs[i].path, fd, begin, end, v.sizes[i]);
    close(fd);
  }
  plan.groups = grouper.Take();
  GiveDecoderThreads(v, threads, plan.groups);
  return plan;
}

}  // namespace mapr::files_internal
