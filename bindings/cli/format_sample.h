// `logformat auto` in the mapr command: the format guessed for each input
// from its first lines (mapr/format_guess.h), for --explain and for the
// note on inputs whose lines mix formats.
#ifndef MAPR_BINDINGS_CLI_FORMAT_SAMPLE_H_
#define MAPR_BINDINGS_CLI_FORMAT_SAMPLE_H_

#include <cstddef>
#include <string>
#include <vector>

namespace mapr::cli {

// How many lines of each input are sampled.
inline constexpr size_t kFormatSampleLines = 1000;

// One line per input for --explain: "auto: app.log: json (980 of 1000
// sampled lines: JSON objects, one per line); runner-up logfmt (20 lines)".
// Standard input ("-") is not read.
std::vector<std::string> ExplainAutoFormat(
    const std::vector<std::string>& files);

// A warning for each of the first `max_files` files whose sampled lines mix
// formats (each line is still read in its own format).
std::vector<std::string> MixedFormatWarnings(
    const std::vector<std::string>& files, size_t max_files);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_FORMAT_SAMPLE_H_
