#!/usr/bin/env bash
# Whole-process benchmark of the issue-16 aggregates (median/pN, dcount) and
# time buckets against the plain queries of tests/bench/run.sh, on the same
# generated STATS log.
#
#   tests/bench/sketches.sh [SIZE_MB] [RUNS]     (defaults: 500 MB, 3 runs)
#
# Prints, per query, the best wall and user+sys CPU seconds of RUNS runs
# after a warm-up (1 thread), peak RSS, and the throughput ratio to its
# plain query: Q1 + p99(latency_ms) + dcount(session) against Q1 (target
# >= 0.6), Q3 grouped by bucket($time, 1m) against Q3 (target >= 0.8), the
# bucket as a second key against another field as a second key, and
# a 1M-group query (group by session) with p99 and dcount against the same
# with count and sum (peak RSS).
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb="${1:-500}"
runs="${2:-3}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
bench_release_mapr
data=$(bench_stats_log "$size_mb")
mapr=build/release/bindings/cli/mapr
bytes=$(stat -c %s "$data")

names=(Q1 Q1-sketch Q3 Q3-bucket Q3-path-status Q3-path-bucket Qs-plain Qs-sketch)
declare -A Q BASE
Q[Q1]='from STATS select hostname,count($line),avg(currentConnections),min(currentConnections),max(currentConnections),avg(latency_ms),min(latency_ms),max(latency_ms) group by hostname'
Q[Q1-sketch]="${Q[Q1]/ group by/,p99(latency_ms),dcount(session) group by}"
BASE[Q1-sketch]=Q1
Q[Q3]='from STATS select path,count($line) group by path order by count($line) limit 10'
Q[Q3-bucket]='from STATS select $minute,count($line) set $minute = bucket($time, 1m) group by $minute order by count($line) limit 10'
BASE[Q3-bucket]=Q3
# A second group key costs by itself: the bucket next to path, and a control
# with another field in its place.
Q[Q3-path-status]='from STATS select path,status,count($line) group by path,status order by count($line) limit 10'
BASE[Q3-path-status]=Q3
Q[Q3-path-bucket]='from STATS select path,$minute,count($line) set $minute = bucket($time, 1m) group by path,$minute order by count($line) limit 10'
BASE[Q3-path-bucket]=Q3-path-status
Q[Qs-plain]='from STATS select session,count($line),sum(latency_ms) group by session limit 1'
Q[Qs-sketch]='from STATS select session,p99(latency_ms),dcount(path) group by session limit 1'
BASE[Qs-sketch]=Qs-plain

echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; data: $data ($((bytes / 1000000)) MB); best of $runs runs, 1 thread"
echo
echo "| query | best wall s | best CPU s | MB/s (CPU) | peak RSS MB | vs base (CPU) |"
echo "|---|---:|---:|---:|---:|---:|"
declare -A CPU
for name in "${names[@]}"; do
  q="${Q[$name]}"
  if ! "$mapr" -q -t 1 -o csv "$q" "$data" > "build/bench/sketch_$name.csv" 2>/dev/null; then
    echo "| $name | (query failed) | | | | |"; continue
  fi
  best_wall=1e9; best_cpu=1e9; rss=0
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' "$mapr" -q -t 1 -o csv "$q" "$data" >/dev/null; } 2>&1 | tail -1)
    read -r wall user sys kb <<< "$out"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')
    best_wall=$(awk -v a="$best_wall" -v b="$wall" 'BEGIN{print (b<a)?b:a}')
    best_cpu=$(awk -v a="$best_cpu" -v b="$cpu" 'BEGIN{print (b<a)?b:a}')
    rss=$(( kb / 1024 > rss ? kb / 1024 : rss ))
  done
  CPU[$name]=$best_cpu
  ratio=""
  if [ -n "${BASE[$name]:-}" ] && [ -n "${CPU[${BASE[$name]}]:-}" ]; then
    ratio=$(awk -v b="${CPU[${BASE[$name]}]}" -v c="$best_cpu" 'BEGIN{printf "%.2f", b/c}')
  fi
  mbs=$(awk -v b="$bytes" -v c="$best_cpu" 'BEGIN{printf "%.0f", b/1e6/c}')
  echo "| $name | $best_wall | $best_cpu | $mbs | $rss | $ratio |"
done
