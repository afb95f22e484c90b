#include "bindings/cli/format_sample.h"

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapr/format_guess.h"
#include "mapr/input.h"
#include "mapr/line_splitter.h"

namespace mapr::cli {
namespace {

// The guess over the first kFormatSampleLines lines of `path`, or the
// reason it could not be read.
struct Sample {
  std::optional<FormatGuess> guess;
  std::string error;
};

Sample SampleFile(const std::string& path) {
  Sample out;
  InputSpec spec;
  spec.path = path;
  absl::StatusOr<std::unique_ptr<ByteStream>> stream = OpenInput(spec);
  if (!stream.ok()) {
    out.error = std::string(stream.status().message());
    return out;
  }
  std::vector<std::string> lines;
  LineSplitter splitter;
  const absl::Status read = ReadLines(
      **stream, splitter, [&](std::span<const std::string_view> batch) {
        for (std::string_view line : batch) {
          if (lines.size() == kFormatSampleLines) {
            return absl::CancelledError("sampled");
          }
          lines.emplace_back(line);
        }
        return absl::OkStatus();
      });
  if (!read.ok() && !absl::IsCancelled(read)) {
    out.error = std::string(read.message());
    return out;
  }
  const std::vector<std::string_view> views(lines.begin(), lines.end());
  out.guess = GuessLogFormat(views);
  return out;
}

}  // namespace

std::vector<std::string> ExplainAutoFormat(
    const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const std::string& file : files) {
    if (file == "-") {
      out.push_back(
          "auto: standard input: not sampled (--explain reads no input)");
      continue;
    }
    const Sample s = SampleFile(file);
    if (!s.guess) {
      out.push_back(absl::StrCat("auto: ", file, ": cannot read: ", s.error));
      continue;
    }
    const FormatGuess& g = *s.guess;
    if (g.sampled == 0) {
      out.push_back(absl::StrCat("auto: ", file, ": no lines to sample"));
      continue;
    }
    std::string line =
        absl::StrCat("auto: ", file, ": ", g.format, " (", g.lines, " of ",
                     g.sampled, " sampled lines: ", g.evidence, ")");
    if (g.runner_up.empty()) {
      absl::StrAppend(&line, "; no other format");
    } else {
      absl::StrAppend(&line, "; runner-up ", g.runner_up, " (",
                      g.runner_up_lines,
                      g.runner_up_lines == 1 ? " line" : " lines",
                      "): each line is read in its own format");
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> MixedFormatWarnings(
    const std::vector<std::string>& files, size_t max_files) {
  std::vector<std::string> out;
  size_t sampled = 0;
  for (const std::string& file : files) {
    if (file == "-") continue;
    if (sampled++ == max_files) break;
    const Sample s = SampleFile(file);
    if (!s.guess || s.guess->runner_up.empty()) continue;
    const FormatGuess& g = *s.guess;
    const uint64_t rest = g.sampled - g.lines - g.runner_up_lines;
    out.push_back(absl::StrCat(
        file, ": its first ", g.sampled, " lines mix log formats (", g.lines,
        " ", g.format, ", ", g.runner_up_lines, " ", g.runner_up,
        rest > 0 ? absl::StrCat(", ", rest, " other") : "",
        "); logformat auto reads each line in its own format (mapr "
        "--explain names them)"));
  }
  return out;
}

}  // namespace mapr::cli
