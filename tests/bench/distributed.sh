#!/usr/bin/env bash
# The cost of going distributed (issue 14), whole processes, release build:
#
#   tests/bench/distributed.sh [SIZE_MB] [RUNS]     (defaults: 1000 MB, 3 runs)
#
#  1. Q1 and Q4 as one pass (`mapr -t 4 Q FILE`) against `mapr map` over 4
#     byte ranges (--range, 4 processes at once, 1 thread each) plus
#     `mapr reduce` of the 4 partials: median wall times and their ratio.
#  2. Q4 (a group per session: the largest partials) reduced from 8
#     partials: the reducer's peak RSS (/usr/bin/time -f %M) and time, and
#     the partials' size.
# Uses the log of tests/bench/run.sh (build/bench/stats_<SIZE_MB>mb.log).
# Not part of ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb="${1:-1000}"
runs="${2:-3}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
bench_release_mapr
data=$(bench_stats_log "$size_mb")
mapr=build/release/bindings/cli/mapr
bytes=$(stat -c %s "$data")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A Q
Q[Q1]='from STATS select hostname,count($line),avg(currentConnections),min(currentConnections),max(currentConnections),avg(latency_ms),min(latency_ms),max(latency_ms) group by hostname'
Q[Q4]='from STATS select session,count($line),sum(bytes) group by session'

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Maps `$1` over N ranges of the log, N processes at once, into $work/p*.
map_ranges() {
  local q=$1 n=$2 i
  for ((i = 0; i < n; i++)); do
    "$mapr" map -t 1 --split "$i" \
      --range "$((bytes * i / n)):$((bytes * (i + 1) / n))" "$q" "$data" \
      > "$work/p$i.part" &
  done
  wait
}

echo "| query | one pass -t 4 (s) | map x4 + reduce (s) | ratio |"
echo "|---|---:|---:|---:|"
for q in Q1 Q4; do
  one=() dist=()
  "$mapr" -t 4 -o csv "${Q[$q]} limit 1" "$data" >/dev/null  # warm-up
  for ((r = 0; r < runs; r++)); do
    t0=$(now); "$mapr" -t 4 -o csv "${Q[$q]}" "$data" > "$work/one.csv"; t1=$(now)
    one+=("$(echo "$t1 - $t0" | bc)")
    rm -f "$work"/p*.part
    t0=$(now); map_ranges "${Q[$q]}" 4
    "$mapr" reduce -o csv --expect-splits 4 "$work"/p*.part > "$work/dist.csv"; t1=$(now)
    dist+=("$(echo "$t1 - $t0" | bc)")
    cmp -s "$work/one.csv" "$work/dist.csv" || { echo "$q: results differ" >&2; exit 1; }
  done
  o=$(printf '%s\n' "${one[@]}" | median)
  d=$(printf '%s\n' "${dist[@]}" | median)
  printf '| %s | %.2f | %.2f | %.2f |\n' "$q" "$o" "$d" "$(echo "$d / $o" | bc -l)"
done

echo
rm -f "$work"/p*.part
map_ranges "${Q[Q4]}" 8
part_bytes=$(cat "$work"/p*.part | wc -c)
groups=$("$mapr" inspect "$work/p0.part" | awk '/^groups:/ {print $2}')
/usr/bin/time -f '%M %e' -o "$work/time" \
  "$mapr" reduce -o csv --expect-splits 8 "$work"/p*.part > "$work/q4.csv"
read -r rss_kb secs < "$work/time"
echo "| Q4 reduced from 8 partials | |"
echo "|---|---:|"
echo "| partials, total | $((part_bytes / 1024 / 1024)) MiB ($groups groups in split 0) |"
echo "| reducer peak RSS | $((rss_kb / 1024)) MiB |"
echo "| reducer wall time | ${secs} s |"
echo
lscpu | grep 'Model name' | sed 's/^/    /'
echo "    $(nproc) CPUs, ${size_mb} MB log ($bytes bytes)"
