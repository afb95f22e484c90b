#!/usr/bin/env bash
# Where mapr's time goes, per log format: instruction counts from callgrind,
# which, unlike wall times, do not depend on how busy the machine is.
#
#   tests/bench/formats_profile.sh [FORMAT...]
#
# FORMATs as in tests/bench/formats.sh (default: all). Runs the release
# mapr with -t 1 under callgrind on a PROFILE_BYTES log (default 20000000)
# for the formats.sh queries Q1 and count, and splits the instructions
# (self cost per function) into:
#   parse    the log format's parser (its ParseBatch and helpers, simdjson,
#            RE2, memchr)
#   numbers  turning field text into numbers (BatchColumns::EnsureNumeric)
#   agg      the aggregates' updates (exact sums, min/max, count)
#   group    the group lookup
#   lines    reading, newline search, line views, selecting and batching
#   other    the rest: start-up (dynamic linking), the result, the kernel
#            is not counted
# and prints instructions per line and per byte, and each part per line.
# Not part of ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
bytes_target="${PROFILE_BYTES:-20000000}"
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(stats json combined clf logfmt fields syslog regex)
mapr="${MAPR_BENCH_BIN:-build/release/bindings/cli/mapr}"
# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
[ -n "${MAPR_BENCH_BIN:-}" ] || bench_release_mapr
# shellcheck source=tests/bench/formats_queries.sh
source tests/bench/formats_queries.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| format | query | instr/byte | instr/line | parse | numbers | agg | group | lines | other |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in "${formats[@]}"; do
  data=$(format_data "$f" "$bytes_target")
  bytes=$(stat -c %s "$data")
  lines=$(wc -l < "$data")
  for q in Q1 count; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" -q \
      "$mapr" --quiet --threads 1 --output csv "$(mapr_query "$f" "$q")" "$data" \
      > /dev/null
    callgrind_annotate --threshold=100 "$work/cg" 2>/dev/null |
      awk -v f="$f" -v q="$q" -v b="$bytes" -v l="$lines" '
        /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
        total && $2 ~ /^\(/ {
          n = $1; gsub(",", "", n); $1 = ""; $2 = ""; name = $0
          if (name ~ /EnsureNumeric|ParseNumber|from_chars|strtod/) c = "numbers"
          else if (name ~ /ParseBatch|Parser|log_format|simdjson|re2::|libre2|memchr|Unescape|KeyTable|SplitRequest|Logfmt|Syslog|Json|Access|Fields|Regex/) c = "parse"
          else if (name ~ /AddRows|ExtremeState|CountState|SumState|AvgState|aggregates|BatchAggregator::Aggregate/) c = "agg"
          else if (name ~ /GroupLookup|GroupTable|AssignSingleKey|AssignKeys/) c = "group"
          else if (name ~ /LineSplitter|FindNewlines|SelectLines|ParseLines|FillCommonVariables|PushChunk|ReadLines|PushFile|Push\(|memcpy|memmove/) c = "lines"
          else c = "other"
          part[c] += n }
        END {
          printf "| %s | %s | %.2f | %.0f", f, q, total / b, total / l
          split("parse numbers agg group lines other", order, " ")
          for (i = 1; i <= 6; i++) printf " | %.0f", part[order[i]] / l
          printf " |\n" }'
  done
done
echo
echo "callgrind, mapr -t 1, ${bytes_target}-byte logs; parts are instructions per line."
