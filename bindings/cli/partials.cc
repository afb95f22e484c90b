#include "bindings/cli/partials.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "util/strings.h"

namespace mapr::cli {
namespace {

using ::mapr::util::ToAbsl;
using ::mapr::util::ToStd;

absl::Status Prefixed(std::string_view name, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(ToAbsl(name), ": ", s.message()));
}

// "split 4" or "splits 4–5" for [begin, end).
std::string SplitsText(uint64_t begin, uint64_t end) {
  if (end - begin == 1) return absl::StrCat("split ", begin);
  return absl::StrCat("splits ", begin, "-", end - 1);
}

}  // namespace

absl::StatusOr<AutoSplit> SplitFromEnvironment(
    const std::function<const char*(const char*)>& getenv) {
  for (const char* variable : kSplitVariables) {
    const char* value = getenv(variable);
    if (value == nullptr || *value == '\0') continue;
    const std::string_view v(value);
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    const bool one_based = std::string_view(variable) == "PARALLEL_SEQ";
    if (ec != std::errc() || end != v.data() + v.size() ||
        (one_based && n == 0) || n == UINT64_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat("--split auto: ", variable, "='", ToAbsl(v),
                       "' is not a split number"));
    }
    AutoSplit split;
    split.index = one_based ? n - 1 : n;
    split.variable = variable;
    return split;
  }
  return absl::InvalidArgumentError(
      "--split auto: none of PARALLEL_SEQ, OMPI_COMM_WORLD_RANK, "
      "SLURM_ARRAY_TASK_ID, SLURM_PROCID, JOB_COMPLETION_INDEX, "
      "mapreduce_task_partition is set; use --split I");
}

std::string B64Line(uint64_t split, std::string_view frame) {
  std::string line = absl::StrCat(split, "\t");
  std::string encoded;
  absl::Base64Escape(ToAbsl(frame), &encoded);
  absl::StrAppend(&line, encoded, "\n");
  return line;
}

PartialStreamDecoder::PartialStreamDecoder(std::string_view name,
                                           uint64_t max_frame_bytes)
    : name_(name),
      max_frame_bytes_(max_frame_bytes),
      // The base64 of such a frame, its split number (20 digits at most), a
      // tab and a carriage return.
      max_line_bytes_((max_frame_bytes + 2) / 3 * 4 + 22),
      reader_(max_frame_bytes) {}

absl::Status PartialStreamDecoder::Add(std::string_view frame, uint64_t offset,
                                       std::string_view where) {
  absl::StatusOr<PartialInfo> info = InspectPartial(frame);
  if (!info.ok()) {
    if (frames_.empty()) return Prefixed(name_, info.status());
    return Prefixed(name_, absl::Status(info.status().code(),
                                        absl::StrCat(ToAbsl(where), ": ",
                                                     info.status().message())));
  }
  NamedFrame f;
  f.name = name_;
  f.bytes = std::string(frame);
  f.info = *std::move(info);
  f.offset = offset;
  frames_.push_back(std::move(f));
  return absl::OkStatus();
}

absl::Status PartialStreamDecoder::TakeLine(std::string_view line) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return absl::OkStatus();
  const size_t tab = line.find('\t');
  std::string frame;
  if (tab == std::string_view::npos ||
      !absl::Base64Unescape(ToAbsl(line.substr(tab + 1)), &frame)) {
    return Prefixed(
        name_, absl::InvalidArgumentError(absl::StrCat(
                   "line ", line_no_, " is not <split><TAB><base64 partial>")));
  }
  return Add(frame, line_at_, absl::StrCat("line ", line_no_));
}

absl::Status PartialStreamDecoder::Append(std::string_view bytes) {
  if (!status_.ok() || bytes.empty()) return status_;
  seen_bytes_ = true;
  if (mode_ == Mode::kUnknown) {
    mode_ = bytes.front() >= '0' && bytes.front() <= '9' ? Mode::kBase64
                                                         : Mode::kBinary;
  }
  if (mode_ == Mode::kBinary) {
    reader_.Append(bytes);
    std::string_view frame;
    while (status_.ok() && reader_.Next(&frame)) {
      const uint64_t at = reader_.offset() - frame.size();
      status_ =
          Add(frame, at,
              absl::StrCat("frame ", reader_.frames(), " (at byte ", at, ")"));
    }
    if (status_.ok() && !reader_.status().ok()) {
      status_ = Prefixed(name_, reader_.status());
    }
    return status_;
  }
  while (status_.ok() && !bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (line_.size() + piece.size() > max_line_bytes_) {
      status_ = Prefixed(
          name_, absl::ResourceExhaustedError(absl::StrCat(
                     "line ", line_no_ + 1, " is longer than ", max_line_bytes_,
                     " bytes: its frame would be over the limit of ",
                     max_frame_bytes_, " bytes (max_frame_bytes)")));
      break;
    }
    if (nl == std::string_view::npos) {
      line_.append(piece.data(), piece.size());
      consumed_ += piece.size();
      break;
    }
    if (line_.empty()) {
      status_ = TakeLine(piece);
    } else {
      line_.append(piece.data(), piece.size());
      status_ = TakeLine(line_);
      line_.clear();
    }
    consumed_ += nl + 1;
    line_at_ = consumed_;
    bytes.remove_prefix(nl + 1);
  }
  return status_;
}

absl::StatusOr<std::vector<NamedFrame>> PartialStreamDecoder::Finish() {
  if (!status_.ok()) return status_;
  if (!seen_bytes_) {
    return Prefixed(name_,
                    absl::InvalidArgumentError("empty input is not a partial"));
  }
  if (mode_ == Mode::kBinary) {
    if (absl::Status s = reader_.Finish(); !s.ok()) return Prefixed(name_, s);
  } else {
    // A last line without its newline.
    if (!line_.empty()) {
      std::string last;
      last.swap(line_);
      if (absl::Status s = TakeLine(last); !s.ok()) return s;
    }
    if (frames_.empty()) {
      return Prefixed(
          name_, absl::InvalidArgumentError("empty input is not a partial"));
    }
  }
  return std::move(frames_);
}

absl::StatusOr<std::vector<NamedFrame>> ReadPartialStream(
    std::string_view name, ByteStream& in, uint64_t max_frame_bytes,
    bool empty_holds_none) {
  PartialStreamDecoder decoder(name, max_frame_bytes);
  char buf[1 << 16];
  while (true) {
    absl::StatusOr<size_t> n = in.Read(buf, sizeof(buf));
    if (!n.ok()) return Prefixed(name, n.status());
    if (*n == 0) {
      if (decoder.empty() && empty_holds_none) {
        return std::vector<NamedFrame>();
      }
      return decoder.Finish();
    }
    if (absl::Status s = decoder.Append(std::string_view(buf, *n)); !s.ok()) {
      return s;
    }
  }
}

absl::StatusOr<std::vector<NamedFrame>> DecodePartials(
    std::string_view name, std::string_view bytes, uint64_t max_frame_bytes) {
  PartialStreamDecoder decoder(name, max_frame_bytes);
  if (absl::Status s = decoder.Append(bytes); !s.ok()) return s;
  return decoder.Finish();
}

absl::StatusOr<std::vector<NamedFrame>> ScanPartialFile(
    std::string_view name, const std::string& path, uint64_t max_frame_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  struct stat st {};
  if (file == nullptr || fstat(fileno(file.get()), &st) != 0) {
    return Prefixed(name, absl::Status(absl::ErrnoToStatusCode(errno),
                                       std::strerror(errno)));
  }
  const uint64_t file_bytes = static_cast<uint64_t>(st.st_size);
  std::vector<NamedFrame> out;
  std::string frame;
  // Reads frame[from, size()) from the file.
  auto read = [&](size_t from) {
    return std::fread(frame.data() + from, 1, frame.size() - from,
                      file.get()) == frame.size() - from;
  };
  const absl::Status changed = Prefixed(
      name, absl::DataLossError("cannot read the partial (file changed?)"));
  uint64_t offset = 0;
  do {
    // The header first: it gives the frame's size, checked against what
    // the file holds before the frame is read.
    const uint64_t left = file_bytes - offset;
    frame.resize(static_cast<size_t>(
        std::min<uint64_t>(left, kPartialFrameHeaderBytes)));
    if (!read(0)) return changed;
    // Past the first frame, a problem names the frame and where it starts
    // (as SplitPartialFrames does for standard input).
    auto framed = [&](const absl::Status& s) {
      if (out.empty()) return Prefixed(name, s);
      return Prefixed(
          name, absl::Status(s.code(), absl::StrCat("frame ", out.size() + 1,
                                                    " (at byte ", offset,
                                                    "): ", s.message())));
    };
    absl::StatusOr<uint64_t> size = PartialFrameSize(frame);
    if (!size.ok()) return framed(size.status());
    if (*size > max_frame_bytes) {
      return framed(absl::ResourceExhaustedError(
          absl::StrCat("a frame of ", *size, " bytes is over the limit of ",
                       max_frame_bytes, " bytes (max_frame_bytes)")));
    }
    if (left < *size) {
      return framed(absl::DataLossError(
          absl::StrCat("truncated partial: ", left,
                       " bytes of a frame that needs ", *size)));
    }
    const size_t head = frame.size();
    frame.resize(static_cast<size_t>(*size));
    if (!read(head)) return changed;
    absl::StatusOr<PartialInfo> info = InspectPartial(frame);
    if (!info.ok()) return framed(info.status());
    NamedFrame f;
    f.name = std::string(name);
    f.info = *std::move(info);
    f.offset = offset;
    f.reload_path = path;
    out.push_back(std::move(f));
    offset += *size;
  } while (offset < file_bytes);
  return out;
}

namespace {

// The frame's bytes, re-read from its file if they were dropped.
absl::StatusOr<std::string> FrameBytes(NamedFrame& f) {
  if (f.reload_path.empty()) return std::move(f.bytes);
  std::string bytes(static_cast<size_t>(f.info.frame_bytes), '\0');
  std::FILE* file = std::fopen(f.reload_path.c_str(), "rb");
  const bool ok =
      file != nullptr &&
      std::fseek(file, static_cast<long>(f.offset), SEEK_SET) == 0 &&
      std::fread(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (file != nullptr) std::fclose(file);
  if (!ok) {
    return absl::DataLossError(absl::StrCat(
        f.name, ": cannot read the partial again (file changed?)"));
  }
  return bytes;
}

}  // namespace

namespace {

// Sorts `frames` by source name (bytewise), then by split, keeping the
// order of equal ones: the result does not depend on the order in which
// PARTs are named or frames arrived.
void SortBySourceAndSplit(std::vector<NamedFrame>& frames) {
  std::stable_sort(frames.begin(), frames.end(),
                   [](const NamedFrame& a, const NamedFrame& b) {
                     if (a.info.source != b.info.source) {
                       return a.info.source < b.info.source;
                     }
                     return a.info.splits.begin < b.info.splits.begin;
                   });
}

// Frees a merged frame's bytes before the next is read.
void FreeFrame(std::string& bytes) { std::string().swap(bytes); }

}  // namespace

absl::StatusOr<PartialReducer> ReducePartials(std::vector<NamedFrame>& frames,
                                              const AggregatorOptions& options,
                                              bool join_partitions) {
  if (frames.empty()) return absl::InvalidArgumentError("no partials");
  SortBySourceAndSplit(frames);
  PartialReducer reducer(options);
  // Sources in name order, whichever partition comes first.
  for (const NamedFrame& f : frames) reducer.DeclareSource(f.info.source);
  join_partitions = join_partitions && frames.front().info.partitions > 0;
  if (join_partitions) {
    std::stable_sort(frames.begin(), frames.end(),
                     [](const NamedFrame& a, const NamedFrame& b) {
                       return a.info.partition < b.info.partition;
                     });
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    NamedFrame& f = frames[i];
    const bool partition_ends =
        join_partitions && (i + 1 == frames.size() ||
                            frames[i + 1].info.partition != f.info.partition);
    // One frame in memory at a time, freed once merged.
    absl::StatusOr<std::string> bytes = FrameBytes(f);
    if (!bytes.ok()) return bytes.status();
    // A partition's last frame ends it: streamed and cut down to the shown
    // groups as it is read when it is the partition's only frame.
    absl::Status s = partition_ends ? reducer.AddLastOfPartition(*bytes)
                                    : reducer.Add(*bytes);
    if (!s.ok()) return Prefixed(f.name, s);
    FreeFrame(*bytes);
  }
  return reducer;
}

absl::StatusOr<Aggregator> MergePartials(std::vector<NamedFrame>& frames,
                                         const AggregatorOptions& options) {
  if (frames.empty()) return absl::InvalidArgumentError("no partials");
  for (const NamedFrame& f : frames) {
    if (f.info.source != frames.front().info.source) {
      return absl::InvalidArgumentError(absl::StrCat(
          "partials of two sources ('", frames.front().info.source, "' in ",
          frames.front().name, ", '", f.info.source, "' in ", f.name,
          "): combine merges the splits of one source; reduce merges "
          "sources"));
    }
  }
  SortBySourceAndSplit(frames);
  absl::StatusOr<std::string> first = FrameBytes(frames.front());
  if (!first.ok()) return first.status();
  absl::StatusOr<Aggregator> agg = Aggregator::FromPartial(*first, options);
  if (!agg.ok()) return Prefixed(frames.front().name, agg.status());
  std::string().swap(*first);
  for (size_t i = 1; i < frames.size(); ++i) {
    // One frame in memory at a time, freed once merged.
    absl::StatusOr<std::string> bytes = FrameBytes(frames[i]);
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = agg->MergeSerialized(*bytes); !s.ok()) {
      return Prefixed(frames[i].name, s);
    }
    FreeFrame(*bytes);
  }
  return agg;
}

std::string ExpectedSplitsProblem(const SplitRange& have, uint64_t expect) {
  std::vector<std::string> missing;
  if (have.begin > 0)
    missing.push_back(SplitsText(0, std::min(have.begin, expect)));
  if (have.end < expect) missing.push_back(SplitsText(have.end, expect));
  std::string problem;
  if (!missing.empty()) {
    problem = absl::StrCat("missing ", missing[0]);
    // "missing splits 0–1 and splits 5–6".
    if (missing.size() > 1) absl::StrAppend(&problem, " and ", missing[1]);
  }
  if (have.end > expect) {
    const uint64_t from = std::max(have.begin, expect);
    if (!problem.empty()) problem += "; ";
    absl::StrAppend(&problem, SplitsText(from, have.end),
                    have.end - from == 1 ? " is" : " are",
                    " past --expect-splits ", expect);
  }
  return problem;
}

}  // namespace mapr::cli
