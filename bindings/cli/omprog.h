// bindings/cli/omprog.h: `mapr map --omprog DIR`, a program for rsyslog's
// omprog action with confirmMessages="on" (docs/cli.md, "Confirmed
// delivery").
//
// It reads messages on standard input and answers each on standard output
// as omprog expects: "OK" once ready, then "OK" for each message and each
// transaction mark (each message is confirmed on its own: rsyslog 8.2302
// loses the messages a dying program answered "DEFER_COMMIT", so a
// transaction would not make delivery safer). A message is confirmed only
// once it is on disk: appended to DIR/SOURCE.wal and synced, then pushed,
// then answered. Every interval with messages, the delta partial of the
// messages since the last one is appended to DIR/SOURCE.parts and synced,
// and the log starts again, empty, for the next split. At the end of input
// the final partial is written and the log removed, so rsyslog never drops
// a message mapr has not counted, and `mapr reduce DIR/*.parts` adds every
// copy up.
//
// A copy killed in between leaves its log: the next copy to start adopts
// every copy whose process has ended and whose parts file has no final
// frame (under an flock). It cuts a torn frame off, and writes the dead
// copy's final partial, from its log's messages when the log's split is
// not on disk yet. With --message-id (each line starts with rsyslog's
// %uuid% and a space) it also skips the id of the log's last message when
// it comes again: that message may have died between its sync and its
// "OK", and rsyslog sends it again. Without ids delivery is at least once.
// Any write error ends the copy with exit status 1 before it confirms:
// rsyslog starts a new one, which adopts it. A copy run with standard input
// at its end (`< /dev/null`) only adopts: a sweep after rsyslog stops.
#ifndef MAPR_BINDINGS_CLI_OMPROG_H_
#define MAPR_BINDINGS_CLI_OMPROG_H_

#include "bindings/cli/flags.h"
#include "mapr/query.h"

namespace mapr::cli {

// Runs `mapr map --omprog DIR`; returns the exit status.
int RunOmprog(const Flags& flags, const Query& query);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_OMPROG_H_
