// bindings/cli/map_follow.h: `mapr map --follow`, the host side of a live
// distributed query (docs/distributed.md, "Live, over SSH").
//
// Follows FILEs (as `mapr --follow`: from their end, rotation and
// truncation handled; --from-start; --resume-from) or standard input, and
// writes one delta partial per interval to standard output: binary frames
// or --b64 lines, empty deltas included, so a reader tells a quiet log from
// a dead host. Each delta covers the next split of its source (--split
// gives the first) and records how far each input was read. At the end of
// the input (standard input's end, --until-eof at the files' end, SIGINT or
// SIGTERM) it writes a last delta marked final and exits 0. When the reader
// of its standard output goes away (the ssh session ended) it exits 1 at
// once, quiet log or not.
//
// One thread aggregates (Aggregator::PushBytes per input), so every delta
// ends at a line boundary of each input and its positions are exact.
#ifndef MAPR_BINDINGS_CLI_MAP_FOLLOW_H_
#define MAPR_BINDINGS_CLI_MAP_FOLLOW_H_

#include "bindings/cli/flags.h"
#include "mapr/query.h"

namespace mapr::cli {

// Runs `mapr map --follow`; returns the exit status.
int RunMapFollow(const Flags& flags, const Query& query);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_MAP_FOLLOW_H_
