// SQLite-style allocation fault injection: this binary replaces the global
// operator new/delete (every variant: plain, array, nothrow, aligned, sized)
// with counting versions that, when armed, fail the Nth allocation of the
// calling thread. Each test runs an operation with N = 1, 2, ... until a run
// completes without reaching the fault (K = N - 1 allocations), and checks
// every failing run:
//
//   * the outfile writer (runtime::WriteOutfile with the CSV ready, and
//     mapr::WriteOutfile, which renders it; replace and append; over a
//     previous complete version or none) returns ResourceExhausted "out of
//     memory (std::bad_alloc) writing outfile '<path>'", leaves the outfile
//     and its sidecar absent or byte-identical to the previous version, and
//     leaves no temporary file behind -- also when a write() (open, fsync,
//     rename) fault hits first and the allocation fails on the error path;
//   * the C API returns MAPR_RESOURCE_EXHAUSTED "out of memory ..." from the
//     call whose allocation failed, and never lets the exception out (its
//     functions are noexcept: an escape would terminate this binary).
//
// Every run must leak nothing: the live heap blocks of the thread are the
// same before and after it (and the asan preset's LeakSanitizer checks the
// whole binary at exit).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapr/aggregator.h"
#include "mapr/c_api.h"
#include "mapr/outfile.h"
#include "mapr/query.h"
#include "mapr/result.h"
#include "parser/parse.h"
#include "runtime/outfile.h"
#include "tests/testing/files.h"
#include "tests/testing/stats_lines.h"
#include "tests/testing/status_matchers.h"

// ---------------------------------------------------------------------------
// The allocation hook. Per thread, so that no other thread's allocations
// move the count. Constant-initialized: usable before main().

namespace {

struct AllocState {
  int64_t live = 0;     // Blocks allocated and not yet freed.
  int64_t count = 0;    // Allocations since Arm().
  int64_t fail_at = 0;  // 0: disarmed.
  bool fired = false;   // The armed allocation was failed.
};
constinit thread_local AllocState t_alloc;

// True if this allocation is the one to fail.
bool ShouldFail() {
  if (t_alloc.fail_at <= 0) return false;
  if (++t_alloc.count != t_alloc.fail_at) return false;
  t_alloc.fired = true;
  return true;
}

void* Allocate(std::size_t size, std::size_t alignment, bool nothrow) {
  if (ShouldFail()) {
    if (nothrow) return nullptr;
    throw std::bad_alloc();
  }
  if (size == 0) size = 1;
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else if (::posix_memalign(&p, alignment, size) != 0) {
    p = nullptr;
  }
  if (p == nullptr) {
    if (nothrow) return nullptr;
    throw std::bad_alloc();
  }
  ++t_alloc.live;
  return p;
}

void Deallocate(void* p) noexcept {
  if (p == nullptr) return;
  --t_alloc.live;
  std::free(p);
}

constexpr std::size_t kDefaultAlign = alignof(std::max_align_t);

}  // namespace

void* operator new(std::size_t n) { return Allocate(n, kDefaultAlign, false); }
void* operator new[](std::size_t n) {
  return Allocate(n, kDefaultAlign, false);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return Allocate(n, kDefaultAlign, true);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return Allocate(n, kDefaultAlign, true);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return Allocate(n, static_cast<std::size_t>(a), false);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return Allocate(n, static_cast<std::size_t>(a), false);
}
void* operator new(std::size_t n, std::align_val_t a,
                   const std::nothrow_t&) noexcept {
  return Allocate(n, static_cast<std::size_t>(a), true);
}
void* operator new[](std::size_t n, std::align_val_t a,
                     const std::nothrow_t&) noexcept {
  return Allocate(n, static_cast<std::size_t>(a), true);
}
void operator delete(void* p) noexcept { Deallocate(p); }
void operator delete[](void* p) noexcept { Deallocate(p); }
void operator delete(void* p, std::size_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::size_t) noexcept { Deallocate(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::align_val_t,
                       const std::nothrow_t&) noexcept {
  Deallocate(p);
}

namespace mapr {
namespace {

namespace fs = std::filesystem;

using ::mapr::testing::StatusIs;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Fails the `n`th allocation of this thread from now on (once).
void Arm(int64_t n) { t_alloc = {t_alloc.live, 0, n, false}; }
// Disarms; returns whether the armed allocation was failed.
bool Disarm() {
  const bool fired = t_alloc.fired;
  t_alloc.fail_at = 0;
  t_alloc.fired = false;
  return fired;
}
int64_t LiveBlocks() { return t_alloc.live; }

// The outcome of one call made with the fault armed. The status is copied
// into a string reserved beforehand and destroyed before the live blocks
// are counted again, so `leaked` is exactly what the call left behind.
struct Outcome {
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string message;
  bool fired = false;
  int64_t leaked = 0;

  absl::Status status() const { return absl::Status(code, message); }
};

// Runs `fn` (returning absl::Status) with the `n`th allocation failing
// (n = 0: none).
template <typename Fn>
Outcome RunArmed(int64_t n, Fn&& fn) {
  Outcome out;
  out.message.reserve(1024);
  const int64_t live = LiveBlocks();
  {
    if (n > 0) Arm(n);
    const absl::Status s = fn();
    out.fired = Disarm();
    out.code = s.code();
    const absl::string_view m = s.message();
    out.message.assign(m.data(), std::min(m.size(), out.message.capacity()));
  }
  out.leaked = LiveBlocks() - live;
  return out;
}

// Stops a fault loop that never ends (an operation that allocates without
// bound would otherwise run forever).
constexpr int64_t kMaxAllocations = 200000;

TEST(AllocHookTest, EveryVariantIsCountedAndFails) {
  const int64_t live = LiveBlocks();
  Arm(1);
  EXPECT_THROW((void)::operator new(8), std::bad_alloc);
  EXPECT_TRUE(Disarm());
  Arm(1);
  EXPECT_EQ(::operator new[](8, std::nothrow), nullptr);
  EXPECT_TRUE(Disarm());
  Arm(1);
  EXPECT_THROW((void)::operator new (64, std::align_val_t{64}), std::bad_alloc);
  EXPECT_TRUE(Disarm());
  Arm(1);
  EXPECT_EQ(::operator new[](64, std::align_val_t{64}, std::nothrow), nullptr);
  EXPECT_TRUE(Disarm());
  Arm(2);
  auto* first = new int(1);  // The first allocation passes.
  EXPECT_THROW((void)new std::string(100, 'x'), std::bad_alloc);
  EXPECT_TRUE(Disarm());
  delete first;
  void* aligned = ::operator new (64, std::align_val_t{64});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 64, 0u);
  ::operator delete (aligned, std::align_val_t{64});
  EXPECT_EQ(LiveBlocks(), live);
}

// ------------------------------------------------------------ the outfile

using ::mapr::testing::ReadFile;
using ::mapr::testing::WriteFile;

// Every file of `dir` with its content, sorted by name.
std::vector<std::pair<std::string, std::string>> DirState(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  std::vector<std::pair<std::string, std::string>> files;
  files.reserve(names.size());
  for (const std::string& name : names) {
    files.emplace_back(name, ReadFile(dir / name).value_or("<unreadable>"));
  }
  return files;
}

constexpr char kQueryText[] =
    "from STATS select h,count($line),sum(x),last(x) group by h";
constexpr char kOldCsv[] = "old,header\n1,old\n";
constexpr char kOldQuery[] = "old query";

struct FaultParam {
  bool append;
  bool fresh;     // No previous outfile (else a previous complete version).
  bool rendered;  // Through mapr::WriteOutfile (renders the CSV) rather than
                  // runtime::WriteOutfile with the CSV ready.
};

class OutfileAllocFaultTest : public ::testing::TestWithParam<FaultParam> {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::path(::testing::TempDir()) / "alloc_fault_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    path_ = (dir_ / "r.csv").string();
    std::vector<std::string> lines;
    lines.reserve(50);
    for (int i = 0; i < 50; ++i) {
      lines.push_back(
          ::mapr::testing::Stats(absl::StrCat("h=host", i % 7, "|x=", i)));
    }
    std::vector<std::string_view> views(lines.begin(), lines.end());
    absl::StatusOr<ResultTable> r = RunQuery(kQueryText, views);
    ASSERT_OK(r.status());
    result_ = *std::move(r);
    csv_ = result_.ToCsv();
    header_ = csv_.substr(0, csv_.find('\n') + 1);
    request_.path = path_;
    request_.append = GetParam().append;
    request_.header = header_;
    request_.body = std::string_view(csv_).substr(header_.size());
    request_.query = kQueryText;
  }

  void TearDown() override {
    runtime::testing::ClearOutfileFaultForTesting();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void Prepare() {
    for (const auto& [name, content] : DirState(dir_)) fs::remove(dir_ / name);
    if (GetParam().fresh) return;
    WriteFile(dir_ / "r.csv", kOldCsv);
    WriteFile(dir_ / "r.csv.query", kOldQuery);
  }

  // Writes the result with the allocation fault armed at `n` (0: none).
  Outcome Write(int64_t n) {
    if (GetParam().rendered) {
      return RunArmed(n, [&] {
        return WriteOutfile(path_, GetParam().append, result_, kQueryText);
      });
    }
    return RunArmed(n, [&] { return runtime::WriteOutfile(request_); });
  }

  // The outfile and sidecar after a successful write.
  std::vector<std::pair<std::string, std::string>> Expected() const {
    std::string data = csv_;
    if (GetParam().append && !GetParam().fresh) {
      data = kOldCsv + csv_.substr(header_.size());
    }
    return {{"r.csv", data}, {"r.csv.query", kQueryText}};
  }

  std::string OutOfMemory() const {
    return absl::StrCat("out of memory (std::bad_alloc) writing outfile '",
                        path_, "'");
  }

  fs::path dir_;
  std::string path_;
  ResultTable result_;
  std::string csv_;
  std::string header_;
  runtime::OutfileRequest request_;
};

TEST_P(OutfileAllocFaultTest, EveryFailedAllocationLeavesThePreviousVersion) {
  Prepare();
  ASSERT_OK(Write(0).status());  // Warms up lazily built statics.
  int64_t k = 0;
  for (int64_t n = 1; n <= kMaxAllocations; ++n) {
    Prepare();
    const auto before = DirState(dir_);
    Outcome out = Write(n);
    if (!out.fired) {
      // No fault was reached: the write needs n - 1 allocations.
      k = n - 1;
      EXPECT_OK(out.status());
      EXPECT_EQ(DirState(dir_), Expected());
      EXPECT_EQ(out.leaked, 0);
      break;
    }
    SCOPED_TRACE(absl::StrCat("failing allocation ", n));
    EXPECT_THAT(out.status(),
                StatusIs(absl::StatusCode::kResourceExhausted, OutOfMemory()));
    EXPECT_EQ(DirState(dir_), before);
    EXPECT_EQ(out.leaked, 0);
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GE(k, 3) << "the write should allocate";
  std::printf("K = %lld allocations\n", static_cast<long long>(k));
}

// A write() (or open, fsync, rename) fault first, then an allocation fault
// on the way: the error path allocates (messages, the old sidecar), and
// its rollback must hold when that fails too.
TEST_P(OutfileAllocFaultTest, AllocationFailuresOnTheErrorPathRollBack) {
  Prepare();
  runtime::testing::ClearOutfileFaultForTesting();
  ASSERT_OK(Write(0).status());
  const int operations = runtime::testing::OutfileOperationCountForTesting();
  ASSERT_GT(operations, 3);
  int64_t runs = 0;
  for (int op = 1; op <= operations; ++op) {
    for (int64_t n = 1; n <= kMaxAllocations; ++n) {
      Prepare();
      const auto before = DirState(dir_);
      runtime::testing::SetOutfileFaultForTesting(op, EIO);
      Outcome out = Write(n);
      runtime::testing::ClearOutfileFaultForTesting();
      ++runs;
      SCOPED_TRACE(absl::StrCat("failing operation ", op, " and allocation ", n,
                                out.fired ? "" : " (not reached)"));
      EXPECT_THAT(
          out.status(),
          AnyOf(StatusIs(absl::StatusCode::kResourceExhausted, OutOfMemory()),
                StatusIs(absl::StatusCode::kUnknown,
                         AllOf(StartsWith("cannot "),
                               HasSubstr("Input/output error"),
                               Not(HasSubstr("rollback failed"))))));
      EXPECT_EQ(DirState(dir_), before);
      EXPECT_EQ(out.leaked, 0);
      if (::testing::Test::HasFailure()) return;
      if (!out.fired) break;
    }
  }
  std::printf("%lld runs over %d operations\n", static_cast<long long>(runs),
              operations);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, OutfileAllocFaultTest,
    ::testing::Values(
        FaultParam{false, false, false}, FaultParam{false, true, false},
        FaultParam{true, false, false}, FaultParam{true, true, false},
        FaultParam{false, false, true}, FaultParam{true, true, true}),
    [](const ::testing::TestParamInfo<FaultParam>& param_info) {
      const FaultParam& p = param_info.param;
      return absl::StrCat(p.rendered ? "Rendered" : "Writer",
                          p.append ? "Append" : "Replace",
                          p.fresh ? "Fresh" : "OverPrevious");
    });

TEST(OutfileAllocFaultQueryTest, QueryOverloadReportsOutOfMemory) {
  absl::StatusOr<Query> query = Query::Compile(
      "select count($line) group by * outfile alloc_fault_query.csv");
  ASSERT_OK(query.status());
  absl::StatusOr<ResultTable> r = RunQuery("select count($line)", {"a"});
  ASSERT_OK(r.status());
  ::unlink("alloc_fault_query.csv");
  int64_t k = 0;
  for (int64_t n = 1; n <= kMaxAllocations; ++n) {
    Outcome out = RunArmed(n, [&] { return WriteOutfile(*query, *r); });
    EXPECT_EQ(out.leaked, 0) << "allocation " << n;
    if (!out.fired) {
      EXPECT_OK(out.status());
      k = n - 1;
      break;
    }
    EXPECT_THAT(out.status(),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         StartsWith("out of memory (std::bad_alloc) writing")))
        << "allocation " << n;
    EXPECT_FALSE(fs::exists("alloc_fault_query.csv")) << "allocation " << n;
    EXPECT_FALSE(fs::exists("alloc_fault_query.csv.tmp")) << n;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(ReadFile("alloc_fault_query.csv"), "count($line)\n1\n");
  ::unlink("alloc_fault_query.csv");
  ::unlink("alloc_fault_query.csv.query");
  std::printf("K = %lld allocations\n", static_cast<long long>(k));
}

// ------------------------------------------------------------------ C API
//
// Every extern "C" function is noexcept and runs its body in a catch-all
// (bindings/c/c_api.cc), so a std::bad_alloc becomes MAPR_RESOURCE_EXHAUSTED
// "out of memory ..." -- an escape would std::terminate this test. Swept
// here: query compilation through the parser, and the calls on a compiled
// query and a finished aggregator (snapshot, rendering, the outfile).
//
// Not swept: allocation failures while an absl::flat_hash_map/set grows
// (the planner's tables, the group table, the aggregator's per-source
// splitters). Debian's Abseil 20220623 leaves such a table with its new
// capacity but no slots when the allocation throws, and its destructor then
// frees a static (abseil/abseil-cpp#1581): the process aborts however the
// exception is caught.

// The first failing call of one pass and its message, recorded into strings
// reserved beforehand (assigned within their capacity: no allocation).
struct CApiRun {
  mapr_code_t code = MAPR_OK;
  std::string failed_call;
  std::string message;

  CApiRun() {
    failed_call.reserve(64);
    message.reserve(512);
  }
};

void Record(const char* call, mapr_code_t code, const mapr_error_t* err,
            CApiRun* run) {
  if (run->code != MAPR_OK) return;
  run->code = code;
  run->failed_call.assign(
      call, std::min(std::strlen(call), run->failed_call.capacity()));
  // Calls without an error object (a NULL from *_create, a code from
  // mapr_aggregator_options_set_hostname) have no message to check.
  const char* m = err != nullptr ? mapr_error_message(err)
                                 : "out of memory (std::bad_alloc)";
  run->message.assign(m, std::min(std::strlen(m), run->message.capacity()));
}

// Runs `pass` (which records into the CApiRun) with the `n`th allocation
// failing, until a pass reaches no fault. Checks every failing pass: one
// call failed with RESOURCE_EXHAUSTED "out of memory ...", nothing leaked,
// and `check` holds. Returns K, the allocations of a whole pass.
template <typename Pass, typename Check>
int64_t SweepCApi(Pass&& pass, Check&& check,
                  std::set<std::string>* failing_calls) {
  for (int64_t n = 1; n <= kMaxAllocations; ++n) {
    CApiRun run;
    const int64_t live = LiveBlocks();
    Arm(n);
    pass(&run);
    const bool fired = Disarm();
    const int64_t leaked = LiveBlocks() - live;
    if (!fired) {
      EXPECT_EQ(run.code, MAPR_OK) << run.failed_call << ": " << run.message;
      EXPECT_EQ(leaked, 0);
      check(/*failed=*/false);
      return n - 1;
    }
    SCOPED_TRACE(absl::StrCat("failing allocation ", n));
    EXPECT_EQ(run.code, MAPR_RESOURCE_EXHAUSTED)
        << run.failed_call << ": " << run.message;
    EXPECT_THAT(run.message, StartsWith("out of memory (std::bad_alloc)"))
        << run.failed_call;
    EXPECT_EQ(leaked, 0) << run.failed_call;
    check(/*failed=*/true);
    failing_calls->insert(run.failed_call);
    if (::testing::Test::HasFailure()) return -1;
  }
  ADD_FAILURE() << "no pass completed";
  return -1;
}

TEST(CApiAllocFaultTest, CompileFailsCleanlyWhileParsing) {
  const std::string text =
      "from STATS select h,count($line),avg(x),last(x) group by h "
      "where x > 1 and (h eq \"a\" or not h contains \"z\") order by "
      "count($line) limit 5";
  // Warm-up: lazily built statics (the log format registry, the error
  // path's payload lookups) are not leaks.
  for (const std::string& warmup : {text, std::string("select avgg(x)")}) {
    mapr_error_t* err = nullptr;
    mapr_query_free(
        mapr_query_compile(warmup.data(), warmup.size(), nullptr, &err));
    mapr_error_free(err);
  }
  // The allocations of the parser alone: every one of them is swept.
  Arm(kMaxAllocations);
  ASSERT_OK(parser::Parse(text, parser::ParseLimits()).status());
  const int64_t parse_allocations = t_alloc.count;
  Disarm();
  ASSERT_GT(parse_allocations, 10);
  for (int64_t n = 1; n <= parse_allocations; ++n) {
    CApiRun run;
    const int64_t live = LiveBlocks();
    Arm(n);
    mapr_error_t* err = nullptr;
    mapr_query_t* q =
        mapr_query_compile(text.data(), text.size(), nullptr, &err);
    if (q == nullptr)
      Record("mapr_query_compile", mapr_error_code(err), err, &run);
    mapr_query_free(q);
    mapr_error_free(err);
    const bool fired = Disarm();
    const int64_t leaked = LiveBlocks() - live;
    SCOPED_TRACE(absl::StrCat("failing allocation ", n));
    EXPECT_TRUE(fired);
    EXPECT_EQ(leaked, 0);
    EXPECT_EQ(run.code, MAPR_RESOURCE_EXHAUSTED) << run.message;
    // From the parser's catch ("... parsing the query"), or from the C
    // API's for the allocations after it (moving the syntax tree out).
    EXPECT_THAT(run.message, StartsWith("out of memory (std::bad_alloc)"));
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("K = %lld parser allocations\n",
              static_cast<long long>(parse_allocations));
}

TEST(CApiAllocFaultTest, CallsOnAFinishedAggregatorFailCleanly) {
  std::string pattern =
      (fs::path(::testing::TempDir()) / "alloc_fault_c.XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
  const std::string dir = pattern;
  const std::string outfile = dir + "/c.csv";
  const std::string text =
      "from STATS select h,count($line),avg(x),last(x) group by h outfile " +
      outfile;
  const std::string bytes = ::mapr::testing::Stats("h=a|x=1") + "\n" +
                            ::mapr::testing::Stats("h=b|x=2") + "\n" +
                            ::mapr::testing::Stats("h=a|x=3") + "\n";
  mapr_error_t* err = nullptr;
  mapr_query_t* q = mapr_query_compile(text.data(), text.size(), nullptr, &err);
  ASSERT_NE(q, nullptr) << mapr_error_message(err);
  mapr_aggregator_t* agg = mapr_aggregator_create(q, nullptr, &err);
  ASSERT_NE(agg, nullptr) << mapr_error_message(err);
  ASSERT_EQ(mapr_aggregator_push_bytes(agg, bytes.data(), bytes.size(), &err),
            MAPR_OK);

  // One pass; every handle and string it makes is freed before it returns.
  auto pass = [&](CApiRun* run) {
    mapr_error_t* e = nullptr;
    mapr_aggregator_options_t* options = nullptr;
    mapr_result_t* snapshot = nullptr;
    char* s = nullptr;
    do {
      if ((options = mapr_aggregator_options_create()) == nullptr) {
        Record("mapr_aggregator_options_create", MAPR_RESOURCE_EXHAUSTED,
               nullptr, run);
        break;
      }
      // Longer than the small-string buffer: the copy allocates.
      static constexpr char kHost[] = "a-rather-long-host-name.example.org";
      if (mapr_code_t c = mapr_aggregator_options_set_hostname(
              options, kHost, sizeof(kHost) - 1);
          c != MAPR_OK) {
        Record("mapr_aggregator_options_set_hostname", c, nullptr, run);
        break;
      }
      if ((s = mapr_query_to_string(q, &e)) == nullptr) {
        Record("mapr_query_to_string", mapr_error_code(e), e, run);
        break;
      }
      mapr_free(s);
      s = nullptr;
      if ((s = mapr_query_explain(q, &e)) == nullptr) {
        Record("mapr_query_explain", mapr_error_code(e), e, run);
        break;
      }
      mapr_free(s);
      s = nullptr;
      if ((snapshot = mapr_aggregator_snapshot(agg, &e)) == nullptr) {
        Record("mapr_aggregator_snapshot", mapr_error_code(e), e, run);
        break;
      }
      if ((s = mapr_result_to_csv(snapshot, nullptr, &e)) == nullptr) {
        Record("mapr_result_to_csv", mapr_error_code(e), e, run);
        break;
      }
      mapr_free(s);
      s = nullptr;
      if ((s = mapr_result_to_json(snapshot, nullptr, &e)) == nullptr) {
        Record("mapr_result_to_json", mapr_error_code(e), e, run);
        break;
      }
      mapr_free(s);
      s = nullptr;
      if ((s = mapr_result_to_table(snapshot, -1, nullptr, &e)) == nullptr) {
        Record("mapr_result_to_table", mapr_error_code(e), e, run);
        break;
      }
      mapr_free(s);
      s = nullptr;
      if (mapr_code_t c = mapr_result_write_outfile(snapshot, q, &e);
          c != MAPR_OK) {
        Record("mapr_result_write_outfile", c, e, run);
        break;
      }
    } while (false);
    mapr_free(s);
    mapr_result_free(snapshot);
    mapr_aggregator_options_free(options);
    mapr_error_free(e);
  };
  const std::string expected_csv =
      "h,count($line),avg(x),last(x)\na,2,2.000000,3\nb,1,2.000000,2\n";
  auto check = [&](bool failed) {
    // The outfile is complete or absent; no temporary is left.
    const std::optional<std::string> csv = ReadFile(outfile);
    if (failed) {
      EXPECT_THAT(csv, AnyOf(std::optional<std::string>(),
                             std::optional<std::string>(expected_csv)));
    } else {
      EXPECT_EQ(csv, expected_csv);
    }
    EXPECT_FALSE(fs::exists(outfile + ".tmp"));
    EXPECT_FALSE(fs::exists(outfile + ".query.tmp"));
    ::unlink(outfile.c_str());
    ::unlink((outfile + ".query").c_str());
  };
  {
    CApiRun warmup;
    pass(&warmup);
    ASSERT_EQ(warmup.code, MAPR_OK)
        << warmup.failed_call << ": " << warmup.message;
    check(false);
  }
  std::set<std::string> failing_calls;
  const int64_t k = SweepCApi(pass, check, &failing_calls);
  EXPECT_GT(k, 20);
  // Every call of the pass failed for some N.
  EXPECT_EQ(failing_calls.size(), 9u);
  std::printf("K = %lld allocations; failing calls:",
              static_cast<long long>(k));
  for (const std::string& call : failing_calls) {
    std::printf(" %s", call.c_str());
  }
  std::printf("\n");

  // The aggregator is still whole: a const call failed, nothing else.
  mapr_result_t* r = mapr_aggregator_finish(agg, &err);
  ASSERT_NE(r, nullptr) << mapr_error_message(err);
  char* csv = mapr_result_to_csv(r, nullptr, &err);
  EXPECT_STREQ(csv, expected_csv.c_str());
  mapr_free(csv);
  mapr_result_free(r);
  mapr_aggregator_free(agg);
  mapr_query_free(q);
  mapr_error_free(err);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace mapr
