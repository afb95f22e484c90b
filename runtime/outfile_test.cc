#include "runtime/outfile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/files.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/unprivileged.h"

namespace mapr::runtime {
namespace {

namespace fs = std::filesystem;

using ::mapr::runtime::testing::ClearOutfileFaultForTesting;
using ::mapr::runtime::testing::OutfileOperationCountForTesting;
using ::mapr::runtime::testing::SetOutfileFaultForTesting;
using ::mapr::runtime::testing::SetOutfileMaxWriteSizeForTesting;
using ::mapr::testing::IsOk;
using ::mapr::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHeader[] = "count($line),$hostname\n";
constexpr char kBody[] = "3,alpha\n2,beta\n";
constexpr char kQuery[] =
    "from STATS select count($line),$hostname group by $hostname "
    "outfile out.csv";

using ::mapr::testing::ReadFile;
using ::mapr::testing::WriteFile;

// Sorted names of the entries of `dir`.
std::vector<std::string> ListDir(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  return std::vector<std::string>(names.begin(), names.end());
}

// A snapshot of every regular file in a directory, for "nothing changed".
std::vector<std::pair<std::string, std::string>> Snapshot(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& name : ListDir(dir)) {
    const std::optional<std::string> content = ReadFile(dir / name);
    files.emplace_back(name, content.value_or("<unreadable>"));
  }
  return files;
}

class OutfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearOutfileFaultForTesting();
    std::string pattern =
        (fs::path(::testing::TempDir()) / "outfile_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
  }

  void TearDown() override {
    ClearOutfileFaultForTesting();
    if (dir_.empty()) return;
    // Undo any chmod so that the tree can be removed.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory())
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add,
                        ec);
    }
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }

  std::string PathOf(const std::string& name) const {
    return (dir_ / name).string();
  }

  OutfileRequest Request(const std::string& name, bool append,
                         std::string_view body = kBody) const {
    OutfileRequest request;
    request.path = PathOf(name);
    request.append = append;
    request.header = kHeader;
    request.body = body;
    request.query = kQuery;
    return request;
  }

  fs::path dir_;
};

TEST_F(OutfileTest, WritesFileAndSidecarExactly) {
  ASSERT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  EXPECT_EQ(ReadFile(dir_ / "r.csv"), std::string(kHeader) + kBody);
  // The raw query, with no trailing newline.
  EXPECT_EQ(ReadFile(dir_ / "r.csv.query"), std::string(kQuery));
  EXPECT_THAT(ListDir(dir_), ElementsAre("r.csv", "r.csv.query"));
}

TEST_F(OutfileTest, FileModeIs0644SubjectToUmask) {
  const mode_t old_umask = ::umask(022);
  ASSERT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  ::umask(old_umask);
  for (const char* name : {"r.csv", "r.csv.query", "a.csv", "a.csv.query"}) {
    struct stat st;
    ASSERT_EQ(::stat(PathOf(name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0644u) << name;
  }
}

TEST_F(OutfileTest, EmptyQueryWritesNoSidecar) {
  OutfileRequest request = Request("r.csv", /*append=*/false);
  request.query = "";
  ASSERT_OK(WriteOutfile(request));
  request.append = true;
  ASSERT_OK(WriteOutfile(request));
  EXPECT_THAT(ListDir(dir_), ElementsAre("r.csv"));
}

TEST_F(OutfileTest, RewriteReplacesContent) {
  ASSERT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  OutfileRequest second = Request("r.csv", /*append=*/false, "9,gamma\n");
  second.query = "select 2";
  ASSERT_OK(WriteOutfile(second));
  EXPECT_EQ(ReadFile(dir_ / "r.csv"), std::string(kHeader) + "9,gamma\n");
  EXPECT_EQ(ReadFile(dir_ / "r.csv.query"), "select 2");
  EXPECT_THAT(ListDir(dir_), ElementsAre("r.csv", "r.csv.query"));
}

TEST_F(OutfileTest, AppendWritesHeaderOnlyIntoMissingFile) {
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  EXPECT_EQ(ReadFile(dir_ / "a.csv"), std::string(kHeader) + kBody);
  EXPECT_EQ(ReadFile(dir_ / "a.csv.query"), std::string(kQuery));

  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true, "1,delta\n")));
  EXPECT_EQ(ReadFile(dir_ / "a.csv"),
            std::string(kHeader) + kBody + "1,delta\n");
  EXPECT_EQ(ReadFile(dir_ / "a.csv.query"), std::string(kQuery));
  EXPECT_THAT(ListDir(dir_), ElementsAre("a.csv", "a.csv.query"));
}

TEST_F(OutfileTest, AppendWritesHeaderIntoEmptyFile) {
  WriteFile(dir_ / "a.csv", "");
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  EXPECT_EQ(ReadFile(dir_ / "a.csv"), std::string(kHeader) + kBody);
}

TEST_F(OutfileTest, AppendToNonEmptyFileAddsOnlyBody) {
  WriteFile(dir_ / "a.csv", "old,header\n1,x\n");
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  EXPECT_EQ(ReadFile(dir_ / "a.csv"), std::string("old,header\n1,x\n") + kBody);
}

TEST_F(OutfileTest, MissingDirectoryIsNotFound) {
  for (const bool append : {false, true}) {
    SCOPED_TRACE(append ? "append" : "replace");
    const std::string path = PathOf("no/such/dir/r.csv");
    OutfileRequest request = Request("no/such/dir/r.csv", append);
    EXPECT_THAT(WriteOutfile(request),
                StatusIs(absl::StatusCode::kNotFound,
                         AllOf(HasSubstr(path),
                               HasSubstr("No such file or directory"))));
    EXPECT_THAT(ListDir(dir_), ElementsAre());
  }
}

TEST_F(OutfileTest, ReplaceMessageNamesTheTemporary) {
  EXPECT_THAT(WriteOutfile(Request("missing/r.csv", /*append=*/false)),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot create outfile '" + PathOf("missing/r.csv") +
                           ".tmp': No such file or directory"));
}

// Root bypasses directory permissions: as root (as CI runs), the writes run
// as "nobody", who owns the folder and its files.
TEST_F(OutfileTest, ReadOnlyDirectoryIsPermissionDenied) {
  ASSERT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  ASSERT_OK(::mapr::testing::GiveToNobody(dir_));
  for (const std::string& name : ListDir(dir_)) {
    ASSERT_OK(::mapr::testing::GiveToNobody(dir_ / name));
  }
  const auto before = Snapshot(dir_);
  ASSERT_EQ(::chmod(dir_.c_str(), 0555), 0);
  for (const bool append : {false, true}) {
    SCOPED_TRACE(append ? "append" : "replace");
    // In append mode the (writable) data file is left alone because the
    // sidecar temporary cannot be created.
    const OutfileRequest request =
        Request(append ? "a.csv" : "r.csv", append, "7,new\n");
    EXPECT_THAT(
        ::mapr::testing::RunUnprivileged([&] { return WriteOutfile(request); }),
        StatusIs(
            absl::StatusCode::kPermissionDenied,
            AllOf(HasSubstr(dir_.string()), HasSubstr("Permission denied"))));
    EXPECT_EQ(Snapshot(dir_), before);
  }
}

TEST_F(OutfileTest, DirectoryAsPathIsRejectedAndNothingClobbered) {
  ASSERT_TRUE(fs::create_directory(dir_ / "r.csv"));
  WriteFile(dir_ / "r.csv" / "keep", "inside");
  WriteFile(dir_ / "r.csv.query", "old query");
  const auto before = Snapshot(dir_);
  for (const bool append : {false, true}) {
    SCOPED_TRACE(append ? "append" : "replace");
    EXPECT_THAT(WriteOutfile(Request("r.csv", append)),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(PathOf("r.csv")),
                               HasSubstr("Is a directory"))));
    EXPECT_EQ(Snapshot(dir_), before);
    EXPECT_EQ(ReadFile(dir_ / "r.csv" / "keep"), "inside");
    EXPECT_EQ(ReadFile(dir_ / "r.csv.query"), "old query");
  }
}

TEST_F(OutfileTest, InvalidPaths) {
  OutfileRequest request = Request("r.csv", /*append=*/false);
  request.path = "";
  EXPECT_THAT(WriteOutfile(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  request.path = PathOf("r.csv") + std::string(1, '\0') + "x";
  EXPECT_THAT(WriteOutfile(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
  EXPECT_THAT(ListDir(dir_), ElementsAre());
}

TEST_F(OutfileTest, PartialWritesAreCompleted) {
  SetOutfileMaxWriteSizeForTesting(1);
  ASSERT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true)));
  ASSERT_OK(WriteOutfile(Request("a.csv", /*append=*/true, "1,delta\n")));
  EXPECT_EQ(ReadFile(dir_ / "r.csv"), std::string(kHeader) + kBody);
  EXPECT_EQ(ReadFile(dir_ / "r.csv.query"), std::string(kQuery));
  EXPECT_EQ(ReadFile(dir_ / "a.csv"),
            std::string(kHeader) + kBody + "1,delta\n");
}

// Returns K, the number of operations one successful write of `request`
// makes from the current directory state.
int CountOperations(const OutfileRequest& request) {
  ClearOutfileFaultForTesting();
  const absl::Status status = WriteOutfile(request);
  EXPECT_THAT(status, IsOk());
  return OutfileOperationCountForTesting();
}

// The fault loop: for N = 1..K, prepare the previous state, fail the Nth
// operation, and check that the call fails and nothing changed.
class OutfileFaultTest : public OutfileTest,
                         public ::testing::WithParamInterface<bool> {
 protected:
  // The state before each faulty call: either a previous complete outfile
  // plus sidecar, or (`fresh`) an empty directory.
  void Prepare(bool fresh) {
    ClearOutfileFaultForTesting();
    for (const std::string& name : ListDir(dir_)) fs::remove(dir_ / name);
    if (fresh) return;
    WriteFile(dir_ / "r.csv", "old,header\n1,old\n");
    WriteFile(dir_ / "r.csv.query", "old query");
  }

  void RunFaultLoop(bool fresh, int error_number, absl::StatusCode code,
                    const std::string& reason) {
    const bool append = GetParam();
    const OutfileRequest request = Request("r.csv", append);
    Prepare(fresh);
    const int k = CountOperations(request);
    // Replace: the data temporary (open, 2 writes, fsync), the open that
    // saves the old sidecar, the sidecar temporary (open, write, fsync) and 2
    // renames. Append: the sidecar temporary (3), open(s) of the data file
    // (a second, creating open if it is missing), the header write (only
    // into a missing file), the body write, fsync and the sidecar rename.
    ASSERT_EQ(k, append ? (fresh ? 9 : 7) : 10);
    for (int n = 1; n <= k; ++n) {
      SCOPED_TRACE(::testing::Message()
                   << "failing operation " << n << " of " << k);
      Prepare(fresh);
      const auto before = Snapshot(dir_);
      SetOutfileFaultForTesting(n, error_number);
      EXPECT_THAT(
          WriteOutfile(request),
          StatusIs(code, AllOf(HasSubstr(PathOf("r.csv")), HasSubstr(reason),
                               Not(HasSubstr("rollback failed")))));
      EXPECT_GE(OutfileOperationCountForTesting(), n);
      EXPECT_EQ(Snapshot(dir_), before);
    }
  }
};

TEST_P(OutfileFaultTest, EveryFailedOperationLeavesPreviousFileIntact) {
  RunFaultLoop(/*fresh=*/false, EIO, absl::StatusCode::kUnknown,
               "Input/output error");
}

TEST_P(OutfileFaultTest, EveryFailedOperationLeavesNoFileBehind) {
  RunFaultLoop(/*fresh=*/true, EIO, absl::StatusCode::kUnknown,
               "Input/output error");
}

TEST_P(OutfileFaultTest, NoSpaceIsResourceExhausted) {
  RunFaultLoop(/*fresh=*/false, ENOSPC, absl::StatusCode::kResourceExhausted,
               "No space left on device");
}

TEST_P(OutfileFaultTest, PartialWriteThenNoSpaceRollsBack) {
  // Byte-sized writes: failing a write in the middle of the body leaves
  // bytes on disk that the rollback must take back.
  const bool append = GetParam();
  const OutfileRequest request = Request("r.csv", append);
  Prepare(/*fresh=*/false);
  SetOutfileMaxWriteSizeForTesting(1);
  const int k = CountOperations(request);
  for (int n = 1; n <= k; n += 7) {
    SCOPED_TRACE(::testing::Message() << "failing operation " << n);
    Prepare(/*fresh=*/false);
    SetOutfileMaxWriteSizeForTesting(1);
    const auto before = Snapshot(dir_);
    SetOutfileFaultForTesting(n, ENOSPC);
    EXPECT_THAT(WriteOutfile(request),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         HasSubstr("No space left on device")));
    EXPECT_EQ(Snapshot(dir_), before);
  }
}

TEST_P(OutfileFaultTest, EintrIsRetried) {
  const bool append = GetParam();
  const OutfileRequest request = Request("r.csv", append);
  Prepare(/*fresh=*/false);
  const int k = CountOperations(request);
  for (int n = 1; n <= k; ++n) {
    SCOPED_TRACE(::testing::Message() << "interrupting operation " << n);
    Prepare(/*fresh=*/false);
    SetOutfileFaultForTesting(n, EINTR);
    ASSERT_OK(WriteOutfile(request));
    EXPECT_EQ(OutfileOperationCountForTesting(), k + 1);
    EXPECT_EQ(ReadFile(dir_ / "r.csv"),
              append ? std::string("old,header\n1,old\n") + kBody
                     : std::string(kHeader) + kBody);
    EXPECT_EQ(ReadFile(dir_ / "r.csv.query"), std::string(kQuery));
    EXPECT_THAT(ListDir(dir_), ElementsAre("r.csv", "r.csv.query"));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, OutfileFaultTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return param_info.param ? "Append" : "Replace";
                         });

TEST_F(OutfileTest, ErrnoMapsToCanonicalCodes) {
  const struct {
    int error_number;
    absl::StatusCode code;
  } kCases[] = {
      {ENOENT, absl::StatusCode::kNotFound},
      {ENOTDIR, absl::StatusCode::kNotFound},
      {EACCES, absl::StatusCode::kPermissionDenied},
      {EPERM, absl::StatusCode::kPermissionDenied},
      {EROFS, absl::StatusCode::kPermissionDenied},
      {ENOSPC, absl::StatusCode::kResourceExhausted},
      {EDQUOT, absl::StatusCode::kResourceExhausted},
      {EFBIG, absl::StatusCode::kResourceExhausted},
      {EISDIR, absl::StatusCode::kFailedPrecondition},
      {EIO, absl::StatusCode::kUnknown},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "errno " << c.error_number);
    // Operation 2 is the first write() of the data temporary.
    SetOutfileFaultForTesting(2, c.error_number);
    EXPECT_THAT(
        WriteOutfile(Request("r.csv", /*append=*/false)),
        StatusIs(c.code, AllOf(HasSubstr("cannot write outfile '" +
                                         PathOf("r.csv.tmp") + "': "),
                               HasSubstr(std::strerror(c.error_number)))));
    EXPECT_THAT(ListDir(dir_), ElementsAre());
  }
}

TEST_F(OutfileTest, FaultFiresOnceAndCounterResets) {
  SetOutfileFaultForTesting(1, EIO);
  EXPECT_THAT(WriteOutfile(Request("r.csv", /*append=*/false)), Not(IsOk()));
  // Operation 1 is behind us: the next call succeeds.
  EXPECT_OK(WriteOutfile(Request("r.csv", /*append=*/false)));
  ClearOutfileFaultForTesting();
  EXPECT_EQ(OutfileOperationCountForTesting(), 0);
}

}  // namespace
}  // namespace mapr::runtime
