// Rewrites the golden partials that api/partial_test.cc reads, and the fuzz
// seeds made from them. Run by hand, only when the partial format's version
// changes (docs/partial-format.md); the test itself never writes a golden
// file, so it always compares with what is committed.
//
//   build/dev/tests/mapr_write_partial_goldens --partial     # v1.1.mpart
//   build/dev/tests/mapr_write_partial_goldens --partitions  # v1.5-*
//
// --partial writes tests/golden/partial/v1.1.mpart (kQuery over
// SmallLines(), splits [0, 1)) and the partial fuzzer's seeds (mode byte 1,
// then a frame: the golden and a partial of each benchmark case);
// --partitions writes v1.5-partition-P-of-3.mpart (that state cut into 3
// partitions) and a seed of each. v1.mpart (format 1.0) and v1.csv (the
// answer both must give) are never rewritten.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "mapr/aggregator.h"
#include "mapr/query.h"
#include "tests/testing/partial_cases.h"

namespace mapr {
namespace {

namespace fs = std::filesystem;
using ::mapr::testing::Case;

absl::Status WriteFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  if (!out)
    return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
  return absl::OkStatus();
}

absl::Status WritePartial(const fs::path& golden, const fs::path& seeds) {
  absl::StatusOr<std::string> p = testing::SmallPartial({0, 1});
  if (!p.ok()) return p.status();
  absl::Status s = WriteFile(golden / "partial" / "v1.1.mpart", *p);
  if (s.ok()) s = WriteFile(seeds / "golden_v1", absl::StrCat("\x01", *p));
  const std::vector<std::string> stats = testing::StatsLines(60);
  int i = 0;
  for (const Case& c : testing::Cases()) {
    if (!s.ok()) break;
    if (c.name[0] != 'Q' && c.name != "dmap1d" && c.name != "dmap2") continue;
    absl::StatusOr<Query> q = testing::CompileCase(c.query);
    if (!q.ok()) return q.status();
    const std::vector<std::string>& lines = c.name[0] == 'Q' ? stats : c.lines;
    absl::StatusOr<std::string> f = testing::Partial(
        *q, lines, 0, std::min<size_t>(lines.size(), 60), {0, 1});
    if (!f.ok()) return f.status();
    s = WriteFile(seeds / absl::StrCat("seed_", i++, "_", c.name),
                  absl::StrCat("\x01", *f));
  }
  return s;
}

absl::Status WritePartitions(const fs::path& golden, const fs::path& seeds) {
  absl::StatusOr<std::string> p = testing::SmallPartial({0, 1});
  if (!p.ok()) return p.status();
  absl::StatusOr<Aggregator> whole =
      Aggregator::FromPartial(*p, testing::Options());
  if (!whole.ok()) return whole.status();
  absl::Status s = whole->FinishInput();
  if (!s.ok()) return s;
  absl::StatusOr<std::vector<std::string>> cut = whole->SerializePartitions(3);
  if (!cut.ok()) return cut.status();
  for (uint32_t i = 0; i < 3 && s.ok(); ++i) {
    s = WriteFile(
        golden / "partial" / absl::StrCat("v1.5-partition-", i, "-of-3.mpart"),
        (*cut)[i]);
    if (s.ok()) {
      s = WriteFile(seeds / absl::StrCat("golden_v1.5_partition_", i),
                    absl::StrCat("\x01", (*cut)[i]));
    }
  }
  return s;
}

int Main(int argc, char** argv) {
  const std::string_view what = argc == 2 ? argv[1] : "";
  if (what != "--partial" && what != "--partitions") {
    std::fprintf(stderr,
                 "usage: mapr_write_partial_goldens --partial|--partitions\n");
    return 2;
  }
  const fs::path golden(MAPR_GOLDEN_DIR);
  const fs::path seeds = golden / ".." / "fuzz" / "corpus" / "partial";
  std::error_code ec;
  fs::create_directories(seeds, ec);
  const absl::Status s = what == "--partial" ? WritePartial(golden, seeds)
                                             : WritePartitions(golden, seeds);
  if (!s.ok()) {
    std::fprintf(stderr, "mapr_write_partial_goldens: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace mapr

int main(int argc, char** argv) { return mapr::Main(argc, argv); }
