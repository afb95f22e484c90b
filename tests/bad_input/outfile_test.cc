// Bad-input catalogue: an `outfile` that cannot be written (README.md,
// "Outfile"), through mapr::WriteOutfile (mapr/outfile.h). Each failure must
// name the file and the OS reason, leave the previous complete files
// byte-for-byte intact and leave no temporary file behind.
//
// The read-only directory case drops root's privileges in a forked child
// (root ignores directory permissions); disk full is injected with
// runtime::testing::SetOutfileFaultForTesting (tests/bad_input/
// files_test.py fills a real tmpfs where the machine allows it).
#include "mapr/outfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "runtime/outfile.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/unprivileged.h"

namespace mapr {
namespace {

namespace fs = std::filesystem;
using ::mapr::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::IsEmpty;

constexpr std::string_view kOldCsv = "count($line)\n1\n";
constexpr std::string_view kNewCsv = "count($line)\n2\n";
constexpr std::string_view kOldQuery = "the previous query";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const fs::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

std::vector<std::string> DirEntries(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  return {names.begin(), names.end()};
}

ResultTable NewResult() {
  absl::StatusOr<ResultTable> r =
      RunQuery("select count($line) group by * logformat generic", {"a", "b"});
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToCsv(), kNewCsv);
  return *r;
}

class OutfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "mapr_bad_outfile_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    runtime::testing::ClearOutfileFaultForTesting();
  }
  void TearDown() override {
    runtime::testing::ClearOutfileFaultForTesting();
    // Undo any read-only mode so the tree can be removed.
    for (const fs::directory_entry& e :
         fs::recursive_directory_iterator(dir_)) {
      if (e.is_directory()) fs::permissions(e.path(), fs::perms::owner_all);
    }
    fs::remove_all(dir_);
  }

  // `dir` holds a complete previous outfile r.csv and its sidecar.
  fs::path PreviousOutfile(const fs::path& dir) {
    fs::create_directories(dir);
    fs::path path = dir / "r.csv";
    WriteFile(path, kOldCsv);
    WriteFile(dir / "r.csv.query", kOldQuery);
    return path;
  }

  void ExpectPreviousIntact(const fs::path& path) {
    EXPECT_EQ(Slurp(path), kOldCsv);
    EXPECT_EQ(Slurp(path.string() + ".query"), kOldQuery);
    EXPECT_THAT(DirEntries(path.parent_path()),
                ElementsAre("r.csv", "r.csv.query"));
  }

  fs::path dir_;
};

// ---------------------------------------------------------------- missing

TEST_F(OutfileTest, MissingDirectory) {
  const std::string path = (dir_ / "no" / "such" / "r.csv").string();
  ASSERT_OK_AND_ASSIGN(
      Query q,
      Query::Compile(absl::StrCat(
          "select count($line) group by * logformat generic outfile \"", path,
          "\"")));
  EXPECT_THAT(WriteOutfile(q, NewResult()),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("cannot create outfile '", path,
                                       ".tmp': No such file or directory"))));
  // Append mode starts with the sidecar's temporary; without a sidecar it
  // opens the outfile itself.
  EXPECT_THAT(
      WriteOutfile(path, /*append=*/true, NewResult(), "q"),
      StatusIs(absl::StatusCode::kNotFound,
               Eq(absl::StrCat("cannot create outfile '", path,
                               ".query.tmp': No such file or directory"))));
  EXPECT_THAT(WriteOutfile(path, /*append=*/true, NewResult(), ""),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("cannot open outfile '", path,
                                       "': No such file or directory"))));
  EXPECT_THAT(DirEntries(dir_), IsEmpty());
}

// ---------------------------------------------------------------- read-only

using ::mapr::testing::RunUnprivileged;

TEST_F(OutfileTest, ReadOnlyDirectory) {
  // Everybody may enter the test directory; only `ro` is read-only.
  fs::permissions(dir_, fs::perms::all);
  const fs::path ro = dir_ / "ro";
  const fs::path path = PreviousOutfile(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec |
                          fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  const ResultTable result = NewResult();

  // The unprivileged child can write where it is allowed to: the failures
  // below come from the directory's mode.
  const fs::path rw = dir_ / "rw";
  fs::create_directory(rw);
  fs::permissions(rw, fs::perms::all);
  EXPECT_OK(RunUnprivileged([&] {
    return WriteOutfile((rw / "r.csv").string(), false, result, "q");
  }));
  EXPECT_EQ(Slurp(rw / "r.csv"), kNewCsv);

  EXPECT_THAT(RunUnprivileged([&] {
                return WriteOutfile(path.string(), false, result, "new query");
              }),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       Eq(absl::StrCat("cannot create outfile '", path.string(),
                                       ".tmp': Permission denied"))));
  ExpectPreviousIntact(path);
  // Append mode: the sidecar's temporary cannot be created either.
  EXPECT_THAT(RunUnprivileged([&] {
                return WriteOutfile(path.string(), true, result, "new query");
              }),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       Eq(absl::StrCat("cannot create outfile '", path.string(),
                                       ".query.tmp': Permission denied"))));
  ExpectPreviousIntact(path);
}

// ---------------------------------------------------------------- disk full

TEST_F(OutfileTest, DiskFullOnTheFirstWrite) {
  const fs::path path = PreviousOutfile(dir_ / "out");
  // Operation 1 creates r.csv.tmp, operation 2 is its first write.
  runtime::testing::SetOutfileFaultForTesting(2, ENOSPC);
  EXPECT_THAT(WriteOutfile(path.string(), false, NewResult(), "new query"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       Eq(absl::StrCat("cannot write outfile '", path.string(),
                                       ".tmp': No space left on device"))));
  ExpectPreviousIntact(path);
}

TEST_F(OutfileTest, DiskFullAtEveryStepKeepsThePreviousFiles) {
  const ResultTable result = NewResult();
  for (const bool append : {false, true}) {
    SCOPED_TRACE(append ? "append" : "replace");
    // K: the operations one successful write needs.
    const fs::path probe = PreviousOutfile(dir_ / "probe");
    runtime::testing::ClearOutfileFaultForTesting();
    ASSERT_OK(WriteOutfile(probe.string(), append, result, "new query"));
    const int operations = runtime::testing::OutfileOperationCountForTesting();
    ASSERT_GE(operations, 5);
    fs::remove_all(dir_ / "probe");

    const fs::path path = PreviousOutfile(dir_ / "out");
    const std::string p = path.string();
    std::set<std::string> messages;
    for (int n = 1; n <= operations; ++n) {
      SCOPED_TRACE(n);
      runtime::testing::SetOutfileFaultForTesting(n, ENOSPC);
      const absl::Status s = WriteOutfile(p, append, result, "new query");
      EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      messages.insert(std::string(s.message()));
      ExpectPreviousIntact(path);
    }
    runtime::testing::ClearOutfileFaultForTesting();
    // Every message names the file and the reason; the set covers creating,
    // writing, syncing and renaming. (The step order is the writer's
    // business: runtime/outfile.h.)
    const std::string reason = ": No space left on device";
    const std::set<std::string> replace_messages = {
        "cannot create outfile '" + p + ".tmp'" + reason,
        "cannot write outfile '" + p + ".tmp'" + reason,
        "cannot sync outfile '" + p + ".tmp'" + reason,
        "cannot read outfile '" + p + ".query'" + reason,
        "cannot create outfile '" + p + ".query.tmp'" + reason,
        "cannot write outfile '" + p + ".query.tmp'" + reason,
        "cannot sync outfile '" + p + ".query.tmp'" + reason,
        "cannot rename outfile '" + p + ".query.tmp' to '" + p + ".query'" +
            reason,
        "cannot rename outfile '" + p + ".tmp' to '" + p + "'" + reason,
    };
    const std::set<std::string> append_messages = {
        "cannot create outfile '" + p + ".query.tmp'" + reason,
        "cannot write outfile '" + p + ".query.tmp'" + reason,
        "cannot sync outfile '" + p + ".query.tmp'" + reason,
        "cannot open outfile '" + p + "'" + reason,
        "cannot write outfile '" + p + "'" + reason,
        "cannot sync outfile '" + p + "'" + reason,
        "cannot rename outfile '" + p + ".query.tmp' to '" + p + ".query'" +
            reason,
    };
    const std::set<std::string>& allowed =
        append ? append_messages : replace_messages;
    for (const std::string& m : messages) {
      EXPECT_TRUE(allowed.count(m)) << "unexpected message: " << m;
    }
    EXPECT_TRUE(messages.count("cannot write outfile '" + p +
                               (append ? "'" : ".tmp'") + reason));
    EXPECT_TRUE(messages.count("cannot sync outfile '" + p +
                               (append ? "'" : ".tmp'") + reason));
    fs::remove_all(dir_ / "out");
  }
}

// ---------------------------------------------------------------- directory

TEST_F(OutfileTest, OutfileIsADirectory) {
  // The previous sidecar is put back when the final rename fails.
  const fs::path path = dir_ / "r.csv";
  fs::create_directory(path);
  WriteFile(dir_ / "r.csv.query", kOldQuery);
  EXPECT_THAT(WriteOutfile(path.string(), false, NewResult(), "new query"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       Eq(absl::StrCat("cannot rename outfile '", path.string(),
                                       ".tmp' to '", path.string(),
                                       "': Is a directory"))));
  EXPECT_EQ(Slurp(dir_ / "r.csv.query"), kOldQuery);
  EXPECT_THAT(DirEntries(dir_), ElementsAre("r.csv", "r.csv.query"));
  EXPECT_TRUE(fs::is_directory(path));
}

}  // namespace
}  // namespace mapr
