#include "mapr/journal.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/log_format.h"

namespace mapr {
namespace {

using ::testing::HasSubstr;

JournalSpec Files(std::string file, std::string after_cursor = "") {
  JournalSpec spec;
  spec.files = {std::move(file)};
  spec.after_cursor = std::move(after_cursor);
  return spec;
}

TEST(JournalValueIsTextTest, FollowsJournalctl) {
  // Text: UTF-8 with tabs and newlines.
  EXPECT_TRUE(JournalValueIsText(""));
  EXPECT_TRUE(JournalValueIsText("plain"));
  EXPECT_TRUE(JournalValueIsText("line1\nline2\tx"));
  EXPECT_TRUE(JournalValueIsText("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  // Bytes: other control characters, DEL, C1, invalid UTF-8.
  EXPECT_FALSE(JournalValueIsText("crlf\r\n"));
  EXPECT_FALSE(JournalValueIsText("\x1b[31mred"));
  EXPECT_FALSE(JournalValueIsText(std::string_view("nul\0", 4)));
  EXPECT_FALSE(JournalValueIsText("del\x7f"));
  EXPECT_FALSE(JournalValueIsText("c1 \xc2\x85"));
  EXPECT_FALSE(JournalValueIsText("bad \xff"));
  EXPECT_FALSE(JournalValueIsText("cut \xe2\x82"));
  EXPECT_FALSE(JournalValueIsText("overlong \xc0\xaf"));
  EXPECT_FALSE(JournalValueIsText("surrogate \xed\xa0\x80"));
  EXPECT_FALSE(JournalValueIsText("nonchar \xef\xb7\x90"));
  EXPECT_FALSE(JournalValueIsText("nonchar \xef\xbf\xbf"));
  EXPECT_FALSE(JournalValueIsText("past \xf4\x90\x80\x80"));
}

TEST(AppendJournalJsonTest, JournalctlShape) {
  const std::vector<std::string_view> fields = {"MESSAGE=say \"hi\"\n\tbye\\",
                                                "_BOOT_ID=ignored",
                                                "TAG=a",
                                                "BIN=\x01\xff",
                                                "TAG=b",
                                                "noequals",
                                                "=noname",
                                                "__CURSOR=forged",
                                                "EMPTY="};
  std::string out;
  AppendJournalJson("s=1;i=2", 1700000000000001, 77, "0123", fields, &out);
  EXPECT_EQ(out,
            "{\"__CURSOR\":\"s=1;i=2\",\"__REALTIME_TIMESTAMP\":"
            "\"1700000000000001\",\"__MONOTONIC_TIMESTAMP\":\"77\","
            "\"_BOOT_ID\":\"0123\",\"MESSAGE\":\"say \\\"hi\\\"\\n\\tbye\\\\\","
            "\"TAG\":[\"a\",\"b\"],\"BIN\":[1,255],\"EMPTY\":\"\"}");
  // The journal format reads it: fields, arrays as JSON, $time.
  absl::StatusOr<ResultTable> r = RunQuery(
      "select MESSAGE, TAG, BIN, $time, count($line) group by MESSAGE "
      "logformat journal",
      {std::string_view(out)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->num_rows(), 1u);
  EXPECT_EQ(r->cell(0, 0), "say \"hi\"\n\tbye\\");
  EXPECT_EQ(r->cell(0, 1), "[\"a\",\"b\"]");
  EXPECT_EQ(r->cell(0, 2), "[1,255]");
  EXPECT_EQ(r->cell(0, 3), "1700000000000001");
}

// A journal file written by systemd-journal-remote from export text, when
// the machine has it.
class JournalReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = "/lib/systemd/systemd-journal-remote";
    if (access(remote_.c_str(), X_OK) != 0) {
      remote_ = "/usr/lib/systemd/systemd-journal-remote";
    }
    if (access(remote_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << "no systemd-journal-remote";
    }
    if (!JournalSupported()) GTEST_SKIP() << "built without libsystemd";
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("mapr_journal_test_", getpid());
    std::filesystem::create_directories(dir_);
    const std::string text = (dir_ / "in.export").string();
    std::ofstream out(text, std::ios::binary);
    for (int i = 0; i < 5000; ++i) {
      out << "__REALTIME_TIMESTAMP=" << 1700000000000000 + i * 1000 << "\n"
          << "__MONOTONIC_TIMESTAMP=" << 1000 + i << "\n"
          << "_BOOT_ID=0123456789abcdef0123456789abcdef\n"
          << "MESSAGE=entry " << i << "\nN=" << i % 7 << "\n\n";
    }
    out.close();
    file_ = (dir_ / "t.journal").string();
    const std::string cmd =
        absl::StrCat(remote_, " -o ", file_, " ", text, " 2>/dev/null");
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string remote_;
  std::filesystem::path dir_;
  std::string file_;
};

TEST_F(JournalReaderTest, ReadsEveryEntryInBatches) {
  auto reader = JournalReader::Open(Files(file_));
  ASSERT_TRUE(reader.ok()) << reader.status();
  size_t batches = 0, lines = 0;
  std::string last;
  auto sink = [&](std::span<const std::string_view> batch) {
    ++batches;
    lines += batch.size();
    EXPECT_LE(batch.size(), kMaxBatchRows);
    last = std::string(batch.back());
    return absl::OkStatus();
  };
  absl::StatusOr<size_t> n = (*reader)->Read(3000, sink);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 3000u);
  EXPECT_THAT(last, HasSubstr("\"MESSAGE\":\"entry 2999\""));
  const std::string cursor = (*reader)->cursor();
  EXPECT_THAT(last, HasSubstr(absl::StrCat("\"__CURSOR\":\"", cursor, "\"")));
  n = (*reader)->Read(100000, sink);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2000u);
  EXPECT_EQ(lines, 5000u);
  EXPECT_EQ((*reader)->entries(), 5000u);
  EXPECT_GE(batches, 3u);
  n = (*reader)->Read(100000, sink);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);

  // Resumed after the cursor of entry 2999: entry 3000 comes first.
  auto resumed = JournalReader::Open(Files(file_, cursor));
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  std::string first;
  size_t count = 0;
  ASSERT_TRUE((*resumed)
                  ->ReadAll([&](std::span<const std::string_view> batch) {
                    if (count == 0) first = std::string(batch.front());
                    count += batch.size();
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(count, 2000u);
  EXPECT_THAT(first, HasSubstr("\"MESSAGE\":\"entry 3000\""));
}

TEST_F(JournalReaderTest, SinkErrorsAndBadInput) {
  auto reader = JournalReader::Open(Files(file_));
  ASSERT_TRUE(reader.ok());
  absl::Status s = (*reader)->ReadAll([](std::span<const std::string_view>) {
    return absl::ResourceExhaustedError("full");
  });
  EXPECT_EQ(s, absl::ResourceExhaustedError("full"));
  EXPECT_EQ((*reader)->entries(), 0u);
  EXPECT_EQ((*reader)->cursor(), "");

  auto missing = JournalReader::Open(Files((dir_ / "no.journal").string()));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no.journal"));

  auto bad = JournalReader::Open(Files(file_, "junk"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "malformed journal cursor 'junk'");

  JournalSpec spec = Files(file_);
  spec.directory = "x";
  auto both = JournalReader::Open(spec);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mapr
