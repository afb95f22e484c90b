// bindings/cli/omprog.h: `mapr map --omprog DIR`, a program for rsyslog's
// omprog action with confirmMessages="on" (docs/cli.md, "Confirmed
// delivery").
//
// It reads messages on standard input and answers each on standard output
// as omprog expects: "OK" once ready, "OK" for a transaction mark or a
// message outside a transaction, "DEFER_COMMIT" for a message inside one.
// A message is confirmed only once the delta partial that counts it is on
// disk: at COMMIT TRANSACTION (or per message without transactions) the
// lines are aggregated, their delta partial appended to DIR/SOURCE.parts
// and synced, and only then "OK" is written. So rsyslog never drops a
// message mapr has not counted (at-least-once), and `mapr reduce
// DIR/*.parts` adds every copy up.
//
// Exactly once: with --message-id each line starts with an id (rsyslog's
// %uuid%) and a space. Before a transaction's partial is appended, its ids
// are saved in DIR/SOURCE.ids (replaced atomically) with the split number
// the partial will have. A copy killed after the partial is on disk but
// before its "OK" gets its messages sent again, to a new copy: on start,
// each copy adopts the copies whose process has ended (their parts file cut
// back to its last whole frame, then ended with an empty final frame) and
// skips the ids of each one's last transaction if that transaction's
// partial is on disk. A transaction never confirmed is dropped, as rsyslog
// sends it again. Any write error ends the copy with exit status 1 before
// it confirms: rsyslog starts a new one, which adopts it.
#ifndef MAPR_BINDINGS_CLI_OMPROG_H_
#define MAPR_BINDINGS_CLI_OMPROG_H_

#include "bindings/cli/flags.h"
#include "mapr/query.h"

namespace mapr::cli {

// Runs `mapr map --omprog DIR`; returns the exit status.
int RunOmprog(const Flags& flags, const Query& query);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_OMPROG_H_
