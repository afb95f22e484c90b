// bindings/cli/atomic_file.h: replacing a file so that a crash leaves the
// old one or the new one, never a mix (the journal's cursor file, the
// omprog message-id file).
#ifndef MAPR_BINDINGS_CLI_ATOMIC_FILE_H_
#define MAPR_BINDINGS_CLI_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace mapr::cli {

// Replaces `path` with `bytes`: a new file beside it (PATH.tmp.XXXXXX,
// created exclusively under a random name, mode 0600, so that no file or
// symlink planted there is followed or overwritten), synced, renamed over
// it, and the folder synced. Errors carry errno's code and
// "cannot <op> <what> 'FILE'" (`what` names the file's role, e.g.
// "journal cursor file"); the temporary file is removed on error.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes, std::string_view what);

// Writes all of `bytes` to `fd` (retrying short writes and EINTR); false
// with errno set on an error.
bool WriteFully(int fd, std::string_view bytes);

// Syncs the folder that holds `path` (after creating or renaming a file in
// it). Errors as WriteFileAtomically's.
absl::Status SyncParentFolder(const std::string& path, std::string_view what);

}  // namespace mapr::cli

#endif  // MAPR_BINDINGS_CLI_ATOMIC_FILE_H_
