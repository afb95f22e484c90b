// bindings/cli/partials.h: the `mapr map|combine|reduce|inspect` plumbing
// that does not print: the split number from a launcher's environment, the
// text-safe --b64 framing, and merging partials in split order.
//
// Example:
//   absl::StatusOr<AutoSplit> s = SplitFromEnvironment(std::getenv);
//   std::string line = B64Line(7, frame);  // "7\t<base64>\n"
//   absl::StatusOr<std::vector<NamedFrame>> frames = DecodePartials("a",
//   bytes);
#ifndef MAPR_BINDINGS_CLI_PARTIALS_H_
#define MAPR_BINDINGS_CLI_PARTIALS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapr/aggregator.h"
#include "mapr/input.h"
#include "mapr/options.h"
#include "mapr/partial.h"
#include "mapr/partial_reducer.h"

namespace mapr::cli {

// The environment variables --split auto reads, in the order it tries them:
// the innermost launcher wins (GNU parallel run inside a Slurm job step,
// mpirun inside an allocation). Each gives a 0-based index except
// PARALLEL_SEQ, which counts from 1.
inline constexpr const char* kSplitVariables[] = {
    "PARALLEL_SEQ",          // GNU parallel: the job's sequence number, 1-based
    "OMPI_COMM_WORLD_RANK",  // Open MPI (mpirun): the process's rank
    "SLURM_ARRAY_TASK_ID",   // Slurm job arrays (--array=0-N)
    "SLURM_PROCID",          // Slurm (srun): the task's rank
    "JOB_COMPLETION_INDEX",  // Kubernetes indexed Job
    "mapreduce_task_partition",  // Hadoop Streaming: the map task's number
};

struct AutoSplit {
  uint64_t index = 0;
  std::string variable;  // The variable it came from.
};

// The split index from the first of kSplitVariables that `getenv` finds.
// InvalidArgument if none is set, or the first set one is not a number
// (PARALLEL_SEQ of 0 included).
absl::StatusOr<AutoSplit> SplitFromEnvironment(
    const std::function<const char*(const char*)>& getenv);

// One --b64 line: the partial's first split, a tab, the frame in base64
// (RFC 4648, with padding), a newline. Hadoop Streaming reads the part before
// the tab as the key.
std::string B64Line(uint64_t split, std::string_view frame);

// A partial frame and where it came from (a PART's name, for messages).
struct NamedFrame {
  std::string name;
  std::string bytes;
  PartialInfo info;
  // Where the frame starts in its PART.
  uint64_t offset = 0;
  // If not empty, `bytes` was dropped to save memory and MergePartials()
  // re-reads the frame from this plain file at `offset` (and validates it
  // again, so a file changed meanwhile is caught).
  std::string reload_path;
};

// Decodes the PART called `name` as its bytes arrive: binary frames,
// concatenated (first bytes "MAPRPART"), or --b64 lines (first byte a digit;
// empty lines are skipped). Every frame is validated with InspectPartial()
// and kept with its bytes (a stream cannot be read twice). A frame over
// `max_frame_bytes` is refused once its header is in (a --b64 line once it
// is longer than such a frame's encoding), so a stream that is not
// partials, or claims a huge frame, costs no more than that. Errors are
// prefixed "<name>: " and, past the first frame, name the frame ("frame 3
// (at byte 1200): ..."; "line 4: ..." for --b64); codes as InspectPartial's
// (InvalidArgument for empty input, text and bad base64; ResourceExhausted
// for a frame over the limit).
class PartialStreamDecoder {
 public:
  PartialStreamDecoder(std::string_view name, uint64_t max_frame_bytes);

  // The next bytes of the PART. Once an error is returned, it is returned
  // again and no more bytes are taken.
  absl::Status Append(std::string_view bytes);

  // At the end of the PART: its frames, or why they are not whole.
  absl::StatusOr<std::vector<NamedFrame>> Finish();

  // No byte came (yet).
  bool empty() const { return !seen_bytes_; }

 private:
  enum class Mode { kUnknown, kBinary, kBase64 };

  absl::Status Add(std::string_view frame, uint64_t offset,
                   std::string_view where);
  absl::Status TakeLine(std::string_view line);

  std::string name_;
  uint64_t max_frame_bytes_;
  uint64_t max_line_bytes_;
  Mode mode_ = Mode::kUnknown;
  PartialFrameReader reader_;
  std::string line_;       // --b64: the line in progress.
  uint64_t line_no_ = 0;   // --b64: lines ended so far.
  uint64_t line_at_ = 0;   // --b64: where the line in progress starts.
  uint64_t consumed_ = 0;  // --b64: bytes of the PART taken.
  bool seen_bytes_ = false;
  std::vector<NamedFrame> frames_;
  absl::Status status_;
};

// The frames of the PART called `name`, read from `in` to its end with a
// PartialStreamDecoder. With `empty_holds_none`, a PART without a byte
// holds no frames (a Hadoop reducer that got no key); else it is an error.
// Errors as PartialStreamDecoder's, or the stream's read error prefixed
// "<name>: ".
absl::StatusOr<std::vector<NamedFrame>> ReadPartialStream(
    std::string_view name, ByteStream& in, uint64_t max_frame_bytes,
    bool empty_holds_none = false);

// The frames in `bytes` (the whole content of the PART called `name`), as
// PartialStreamDecoder decodes them.
absl::StatusOr<std::vector<NamedFrame>> DecodePartials(
    std::string_view name, std::string_view bytes,
    uint64_t max_frame_bytes = kDefaultMaxFrameBytes);

// The binary frames of the plain file `path` (called `name` in messages),
// read and validated one at a time (PartialFrameSize, then InspectPartial):
// the frames come back without bytes, with `reload_path` and `offset` set,
// so reading a PART never holds more than one of its frames. Errors as
// DecodePartials'; DataLoss for a file that ends inside a frame, NotFound
// or PermissionDenied (errno's text) if it cannot be read.
absl::StatusOr<std::vector<NamedFrame>> ScanPartialFile(
    std::string_view name, const std::string& path,
    uint64_t max_frame_bytes = kDefaultMaxFrameBytes);

// Sorts `frames` by source name (bytewise) and split (stable) and adds them,
// in order, to a PartialReducer: each source's splits merge by the split
// rules, and the sources add up in name order, whatever order the PARTs
// were named in.
// Errors are prefixed with the name of the PART that brought the frame.
// `frames` are consumed.
//
// `join_partitions` (hash-partitioned frames, every partition wanted): the
// frames are added one partition at a time, ending each
// (PartialReducer::EndPartition), so the reducer holds one partition's
// groups and the result's rows at a time.
absl::StatusOr<PartialReducer> ReducePartials(std::vector<NamedFrame>& frames,
                                              const AggregatorOptions& options,
                                              bool join_partitions = false);

// Sorts `frames` by coverage (stable) and merges them, in order, into one
// open aggregator: Aggregator::FromPartial() of the first, then
// MergeSerialized() of each next. Every frame must come from one source
// (InvalidArgument naming two otherwise). Errors of the merge (another query,
// an overlap, missing splits, max_groups) are prefixed with the name of the
// PART that brought the frame. `frames` are consumed (each frame's bytes are
// freed once merged).
absl::StatusOr<Aggregator> MergePartials(std::vector<NamedFrame>& frames,
                                         const AggregatorOptions& options);

// "missing splits 4-5" / "missing split 4" if [have.begin, have.end) is not
// [0, expect); empty if it is. Splits past `expect` give "splits 5–6 are
// past --expect-splits 5".
std::string ExpectedSplitsProblem(const SplitRange& have, uint64_t expect);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_PARTIALS_H_
