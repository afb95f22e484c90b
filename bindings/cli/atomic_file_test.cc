#include "bindings/cli/atomic_file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mapr::cli {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

class WriteFileAtomicallyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/mapr_atomic_file_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/cursor";
    victim_ = dir_ + "/victim";
    Write(victim_, "the victim's bytes\n");
  }
  void TearDown() override {
    for (const std::string& n : Names(dir_)) unlink((dir_ + "/" + n).c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_, path_, victim_;
};

TEST_F(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNoTemporary) {
  Write(path_, "old\n");
  ASSERT_TRUE(WriteFileAtomically(path_, "new\n", "cursor file").ok());
  EXPECT_EQ(Read(path_), "new\n");
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"cursor", "victim"}));
  struct stat st {};
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(WriteFileAtomicallyTest, FollowsNoPlantedTemporary) {
  // What the old fixed name PATH.tmp let anyone with write access to the
  // folder do: a symlink or a hard link there, and the write went to (or
  // truncated) its target.
  ASSERT_EQ(symlink(victim_.c_str(), (path_ + ".tmp").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path_, "state\n", "cursor file").ok());
  EXPECT_EQ(Read(victim_), "the victim's bytes\n");
  EXPECT_EQ(Read(path_), "state\n");
  struct stat st {};
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  unlink((path_ + ".tmp").c_str());
  ASSERT_EQ(link(victim_.c_str(), (path_ + ".tmp").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path_, "state 2\n", "cursor file").ok());
  EXPECT_EQ(Read(victim_), "the victim's bytes\n");
  EXPECT_EQ(Read(path_), "state 2\n");
}

TEST_F(WriteFileAtomicallyTest, AFolderThatIsNotThereIsAnError) {
  const absl::Status s =
      WriteFileAtomically(dir_ + "/no/cursor", "x", "cursor file");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(s.message()),
            "cannot create cursor file '" + dir_ +
                "/no/cursor.tmp.XXXXXX': No such file or "
                "directory");
}

}  // namespace
}  // namespace mapr::cli
