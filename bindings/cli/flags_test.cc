#include "bindings/cli/flags.h"

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mapr::cli {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Flags> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mapr");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseFlags(static_cast<int>(argv.size()), argv.data());
}

// A value each option with an argument accepts.
std::string GoodValue(const FlagSpec& f) {
  if (f.name == "--output") return "csv";
  if (f.name == "--max-line-bytes") return "4K";
  if (f.name == "--files") return "a.log,b.log";
  if (f.name == "--hostname" || f.name == "--query") return "x";
  if (f.name == "--range") return "0:100";
  if (f.name == "--split") return "auto";
  if (f.name == "--hosts-file") return "/dev/null";
  if (f.name == "--listen") return "127.0.0.1:9100";
  if (f.name == "--alert-format") return "json";
  return "7";  // --threads, --max-groups, --interval-ms
}

TEST(FlagsTest, NumbersOutsideTheirRangeAndEmptyIdsAreRefused) {
  for (const auto& [args, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--partitions", "0"},
            "invalid --partitions '0' (use a count from 1 to 65536)"},
           {{"--partitions", "65537"},
            "invalid --partitions '65537' (use a count from 1 to 65536)"},
           {{"--partition", "65536"},
            "invalid --partition '65536' (use a partition number from 0)"},
           {{"--expect-splits", "0"},
            "invalid --expect-splits '0' (use a number of splits from 1)"},
           {{"--expect-splits", "x"},
            "invalid --expect-splits 'x' (use a number of splits from 1)"},
           {{"--source", ""}, "--source needs a non-empty ID"},
           {{"--hostname", ""},
            "--hostname needs a non-empty NAME (leave it out for the "
            "machine's host name)"},
           {{"--run-id", ""}, "--run-id needs a non-empty ID"},
           {{"--alert", ""}, "--alert needs a condition"},
           {{"--alert-format", "xml"},
            "invalid --alert-format 'xml' (use text or json)"},
       }) {
    absl::StatusOr<Flags> flags = Parse(args);
    EXPECT_EQ(std::string(flags.status().message()), message) << args[0];
  }
  absl::StatusOr<Flags> ok =
      Parse({"--partitions", "65536", "--partition", "65535", "--source", "s"});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->partitions, 65536u);
  EXPECT_EQ(ok->partition, 65535u);
  EXPECT_EQ(ok->source, "s");
}

TEST(FlagsTest, ListenTakesAnIpv4AddressAndAPort) {
  absl::StatusOr<Flags> ok = Parse({"--listen", "127.0.0.2:0"});
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_TRUE(ok->listen.has_value());
  EXPECT_EQ(ok->listen->address, "127.0.0.2");
  EXPECT_EQ(ok->listen->port, 0);
  for (const auto& [arg, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"9100",
            "invalid --listen '9100' (use ADDR:PORT, e.g. "
            "127.0.0.1:9100)"},
           {"127.0.0.1:65536",
            "invalid --listen '127.0.0.1:65536': the port must be 0 to 65535"},
           {"localhost:9100",
            "invalid --listen 'localhost:9100': the address must be an IPv4 "
            "address such as 127.0.0.1"}}) {
    absl::StatusOr<Flags> bad = Parse({"--listen", arg});
    EXPECT_EQ(bad.status().message(), message) << arg;
  }
}

TEST(FlagsTest, EveryFlagIsInTheHelpWithItsShortNameAndArgument) {
  const std::string help = HelpText(4);
  for (const FlagSpec& f : FlagSpecs()) {
    std::string synopsis = f.short_name != 0
                               ? "\n  -" + std::string(1, f.short_name) + ", "
                               : std::string("\n      ");
    synopsis += f.name;
    if (!f.argument.empty()) synopsis += " " + std::string(f.argument);
    EXPECT_THAT(help, HasSubstr(synopsis)) << f.name;
    // The first line of its text follows.
    const std::string_view first = f.help.substr(0, f.help.find('\n'));
    if (first.find("{cpus}") == std::string_view::npos) {
      EXPECT_THAT(help, HasSubstr(std::string(first))) << f.name;
    }
  }
  EXPECT_THAT(help, HasSubstr("(default: the number of CPUs, 4)"));
}

TEST(FlagsTest, EveryOptionInTheHelpIsAFlag) {
  const std::string help = HelpText(4);
  std::istringstream lines(help);
  std::string line;
  int options = 0;
  while (std::getline(lines, line)) {
    // Option lines: "  -o, --output FORMAT ..." or "      --stats ...".
    const size_t dashes = line.find("--");
    if (dashes != 2 && dashes != 6) continue;
    if (line.compare(0, 2, "  ") != 0 || line[dashes - 1] != ' ') continue;
    const std::string name =
        line.substr(dashes, line.find(' ', dashes) - dashes);
    bool known = false;
    for (const FlagSpec& f : FlagSpecs()) known = known || f.name == name;
    EXPECT_TRUE(known) << name;
    ++options;
  }
  EXPECT_EQ(options, static_cast<int>(FlagSpecs().size()));
}

TEST(FlagsTest, HelpLinesOfOptionsFitEightyColumns) {
  std::istringstream lines(HelpText(1024));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("  mapr ")) continue;  // The examples.
    EXPECT_LE(line.size(), 79u) << line;
  }
}

TEST(FlagsTest, EveryFlagParsesInEachSpelling) {
  for (const FlagSpec& f : FlagSpecs()) {
    std::vector<std::vector<std::string>> spellings;
    if (f.argument.empty()) {
      spellings.push_back({std::string(f.name)});
      if (f.short_name != 0) spellings.push_back({{'-', f.short_name}});
    } else {
      const std::string v = GoodValue(f);
      spellings.push_back({std::string(f.name), v});
      spellings.push_back({std::string(f.name) + "=" + v});
      if (f.short_name != 0) {
        spellings.push_back({std::string{'-', f.short_name}, v});
        spellings.push_back({std::string{'-', f.short_name} + v});
      }
    }
    for (const std::vector<std::string>& args : spellings) {
      absl::StatusOr<Flags> flags = Parse(args);
      EXPECT_TRUE(flags.ok()) << args[0] << ": " << flags.status();
    }
    if (f.argument.empty()) {
      absl::StatusOr<Flags> flags = Parse({std::string(f.name) + "=1"});
      EXPECT_EQ(flags.status().message(),
                "option '" + std::string(f.name) + "' takes no value");
    } else {
      absl::StatusOr<Flags> flags = Parse({std::string(f.name)});
      EXPECT_EQ(flags.status().message(),
                "option '" + std::string(f.name) + "' needs a value");
    }
  }
}

TEST(FlagsTest, ValuesLandInTheirFields) {
  absl::StatusOr<Flags> flags = Parse(
      {"-ocsv", "--stats", "-q", "--hostname=h", "-t", "3", "--max-line-bytes",
       "2M", "--max-groups=9", "--files", "a,,b", "--follow", "--delta",
       "--from-start", "--interval-ms", "250", "c", "select x"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->output, OutputFormat::kCsv);
  EXPECT_TRUE(flags->stats && flags->quiet && flags->follow && flags->delta &&
              flags->from_start);
  EXPECT_FALSE(flags->explain || flags->help || flags->version);
  EXPECT_EQ(flags->hostname, "h");
  EXPECT_EQ(flags->threads, 3);
  EXPECT_EQ(flags->max_line_bytes, size_t{2} << 20);
  EXPECT_EQ(flags->max_groups, 9u);
  EXPECT_EQ(flags->interval_ms, 250);
  EXPECT_EQ(flags->query, "select x");
  EXPECT_EQ(flags->files, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(FlagsTest, SubcommandOnlyAsTheFirstArgument) {
  absl::StatusOr<Flags> flags = Parse({"map", "--split", "3", "--range",
                                       "10:20", "--b64", "select x", "a.log"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->command, Command::kMap);
  EXPECT_EQ(flags->split->index, 3u);
  EXPECT_EQ(flags->range, std::make_pair(uint64_t{10}, uint64_t{20}));
  EXPECT_TRUE(flags->b64);
  EXPECT_EQ(flags->query, "select x");
  EXPECT_EQ(flags->files, (std::vector<std::string>{"a.log"}));
  // Elsewhere "map" is a file (or the query).
  flags = Parse({"select x", "map"});
  EXPECT_EQ(flags->command, Command::kQuery);
  EXPECT_EQ(flags->files, (std::vector<std::string>{"map"}));
  flags = Parse({"--stats", "reduce", "select x"});
  EXPECT_EQ(flags->command, Command::kQuery);
  EXPECT_EQ(flags->files, (std::vector<std::string>{"reduce"}));
  // combine, reduce and inspect take partials only.
  flags = Parse({"reduce", "--expect-splits", "4", "select x.part", "b"});
  EXPECT_EQ(flags->command, Command::kReduce);
  EXPECT_EQ(flags->expect_splits, 4u);
  EXPECT_FALSE(flags->query.has_value());
  EXPECT_EQ(flags->files, (std::vector<std::string>{"select x.part", "b"}));
  EXPECT_EQ(Parse({"combine", "--query", "q"}).status().message(),
            "--query works only with a query, map and remote");
  EXPECT_EQ(Parse({"map", "--range", "9:3"}).status().message(),
            "invalid --range '9:3' (use LO:HI, byte offsets, LO <= HI)");
  EXPECT_EQ(Parse({"reduce", "--expect-splits", "0"}).status().message(),
            "invalid --expect-splits '0' (use a number of splits from 1)");
}

TEST(FlagsTest, RemoteAndMapFollowOptions) {
  const std::string hosts_file = ::testing::TempDir() + "/flags_test_hosts.txt";
  {
    std::ofstream out(hosts_file);
    out << "# the web tier\n  web-3  rack 2\n\nuser@web-4\r\n";
  }
  absl::StatusOr<Flags> flags =
      Parse({"remote", "--hosts", "web-1,,web-2", "--hosts-file", hosts_file,
             "--ssh", "ssh -p 2222", "--remote-mapr", "/opt/mapr/bin/mapr",
             "--allow-partial", "--follow", "select x", "/var/log/a.log"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->command, Command::kRemote);
  EXPECT_EQ(flags->hosts, (std::vector<std::string>{"web-1", "web-2", "web-3",
                                                    "user@web-4"}));
  EXPECT_EQ(flags->ssh, "ssh -p 2222");
  EXPECT_EQ(flags->remote_mapr, "/opt/mapr/bin/mapr");
  EXPECT_TRUE(flags->allow_partial && flags->follow);
  EXPECT_EQ(flags->query, "select x");
  EXPECT_EQ(flags->files, (std::vector<std::string>{"/var/log/a.log"}));
  EXPECT_EQ(Parse({"remote", "--hosts", ","}).status().message(),
            "--hosts needs a host");
  EXPECT_THAT(
      std::string(Parse({"remote", "--hosts-file", "/nonexistent/hosts"})
                      .status()
                      .message()),
      HasSubstr("--hosts-file /nonexistent/hosts: No such file"));

  flags = Parse({"map", "--follow", "--source", "web-1", "--until-eof",
                 "--resume-from", "1234", "--resume-from", "b=c.log=7",
                 "--stop-on-stdin-eof", "select x", "a.log"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->source, "web-1");
  EXPECT_TRUE(flags->until_eof && flags->stop_on_stdin_eof);
  EXPECT_EQ(flags->resume_from, (std::vector<std::pair<std::string, uint64_t>>{
                                    {"", 1234}, {"b=c.log", 7}}));
  EXPECT_EQ(Parse({"map", "--resume-from", "=7"}).status().message(),
            "invalid --resume-from '=7' (use OFFSET or FILE=OFFSET)");
  EXPECT_EQ(Parse({"map", "--source="}).status().message(),
            "--source needs a non-empty ID");
  EXPECT_EQ(Parse({"map", "--resume-from", "-1"}).status().message(),
            "invalid --resume-from '-1' (use OFFSET or FILE=OFFSET, a byte "
            "offset from 0)");
}

TEST(FlagsTest, UnknownOptions) {
  EXPECT_EQ(Parse({"--nope=3"}).status().message(), "unknown option '--nope'");
  EXPECT_EQ(Parse({"-x"}).status().message(), "unknown option '-x'");
  EXPECT_EQ(Parse({"-qq"}).status().message(), "unknown option '-qq'");
}

// docs/cli.md shows `mapr --help` on a 2-CPU machine: it is this text.
TEST(FlagsTest, TheManualShowsTheHelpText) {
  std::ifstream in(MAPR_CLI_DOC);
  ASSERT_TRUE(in) << MAPR_CLI_DOC;
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string block = "```\n$ mapr --help\n" + HelpText(2) + "```\n";
  EXPECT_THAT(doc.str(), HasSubstr(block));
}

}  // namespace
}  // namespace mapr::cli
