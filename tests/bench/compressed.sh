#!/usr/bin/env bash
# Compressed input against the decompressors alone (issue 17).
#
#   tests/bench/compressed.sh [SIZE_MB] [RUNS]    (defaults: 300 MB, 3 runs)
#
# The same release build and STATS log as tests/bench/run.sh (cached under
# build/bench/, shared with it), compressed as logrotate would: one .gz
# (gzip -6), one .zst (zstd -3), and the log cut into four line-aligned
# parts, each gzip'ed. Runs Q1 over each, on 1 thread and on all cores, and
# the decompressors alone (`igzip -dc`, `zcat`, `zstdcat`, to /dev/null).
# Prints a Markdown table: median wall time of RUNS runs after a warm-up,
# decoded MB/s, peak RSS (/usr/bin/time -v), and each mapr row as a ratio:
# its throughput over the decompressor's (1.00 = as fast as decompressing
# alone), and for the four files the speed-up of all cores over 1 thread.
# Then the CPU seconds of each run's busiest thread and of all its threads,
# which show what two free cores would give where other work shares them.
# Needs isal (igzip), zstd and time: scripts/install-deps.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb="${1:-300}"
runs="${2:-3}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
bench_release_mapr
data=$(bench_stats_log "$size_mb")
[ -f "$data.gz" ] || gzip -6 -c "$data" > "$data.gz"
[ -f "$data.zst" ] || zstd -q -3 -c "$data" > "$data.zst"
parts=()
for i in 0 1 2 3; do parts+=("$data.part$i.gz"); done
if [ ! -f "${parts[3]}" ]; then
  tmp=$(mktemp -d)
  split -n l/4 -d -a 1 "$data" "$tmp/part"
  for i in 0 1 2 3; do gzip -6 -c "$tmp/part$i" > "${parts[$i]}"; done
  rm -rf "$tmp"
fi
mapr=build/release/bindings/cli/mapr
bytes=$(stat -c %s "$data")
cores=$(nproc)
q1='from STATS select hostname,count($line),avg(currentConnections),min(currentConnections),max(currentConnections),avg(latency_ms),min(latency_ms),max(latency_ms) group by hostname'

timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
declare -A T  # Median seconds by row name.

# run NAME CMD...: times CMD (stdout to /dev/null) and records T[NAME] and
# R[NAME] (peak RSS, KiB).
declare -A R
run() {
  local name="$1"; shift
  "$@" >/dev/null 2>&1 || true  # warm-up
  local times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -v -o "$timing" "$@" >/dev/null 2>/dev/null || true
    times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$timing")")
    local r
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$timing")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  T[$name]=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  R[$name]=$rss
}

# row NAME [REFERENCE [LABEL]]: prints NAME's row; the ratio is
# T[REFERENCE] / T[NAME] (throughput of NAME over REFERENCE's).
row() {
  local name="$1" ref="${2:-}" label="${3:-}"
  awk -v n="$name" -v t="${T[$name]}" -v b="$bytes" -v r="${R[$name]}" \
      -v rt="${ref:+${T[$ref]}}" -v l="$label" 'BEGIN {
    if (t <= 0) t = 0.001;
    ratio = rt == "" ? "" : sprintf("%.2f%s", rt / t, l == "" ? "" : " " l);
    printf "| %s | %.3f | %.0f | %.0f | %s |\n", n, t, b/t/1e6, r/1024, ratio }'
}

# cpu NAME CMD...: the CPU seconds of CMD's threads (utime + stime from
# /proc, sampled every 10 ms; the last few ms of a thread may be missed):
# "busiest / all". On a machine shared with other work, wall times of
# threads that could run side by side say little; all / busiest is the
# speed-up two free cores would give.
cpu() {
  local name="$1"; shift
  "$@" >/dev/null 2>&1 &
  local pid=$! f a
  declare -A ticks=()
  while kill -0 "$pid" 2>/dev/null; do
    for f in /proc/"$pid"/task/*/stat; do
      read -ra a < "$f" 2>/dev/null || continue
      # Fields 14 and 15 (utime, stime); the name (field 2) has no spaces.
      ticks[${a[0]}]=$(( a[13] + a[14] ))
    done
    sleep 0.01
  done
  wait "$pid" || true
  local hz sum=0 max=0 t
  hz=$(getconf CLK_TCK)
  for t in "${ticks[@]}"; do
    sum=$((sum + t)); [ "$t" -gt "$max" ] && max=$t
  done
  awk -v n="$name" -v s="$sum" -v m="$max" -v hz="$hz" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.2f |\n", n, m/hz, s/hz, (m > 0 ? s/m : 0) }'
}

run "igzip -dc one .gz" igzip -dc "$data.gz"
run "zcat one .gz" zcat "$data.gz"
run "zstdcat one .zst" zstdcat "$data.zst"
run "igzip -dc four .gz" igzip -dc "${parts[@]}"
run "mapr Q1 plain, 1 thread" "$mapr" --quiet -t 1 -o csv "$q1" "$data"
run "mapr Q1 one .gz, 1 thread" "$mapr" --quiet -t 1 -o csv "$q1" "$data.gz"
run "mapr Q1 one .gz, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "$data.gz"
run "mapr Q1 one .zst, 1 thread" "$mapr" --quiet -t 1 -o csv "$q1" "$data.zst"
run "mapr Q1 one .zst, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "$data.zst"
run "mapr Q1 four .gz, 1 thread" "$mapr" --quiet -t 1 -o csv "$q1" "${parts[@]}"
run "mapr Q1 four .gz, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "${parts[@]}"

echo "Data: $data, $((bytes / 1000000)) MB decoded ($(( $(stat -c %s "$data.gz") / 1000000 )) MB .gz, $(( $(stat -c %s "$data.zst") / 1000000 )) MB .zst); $(lscpu | sed -n 's/^Model name: *//p'); $cores cores; $runs runs (median)"
echo
echo "| run | seconds | decoded MB/s | peak RSS MiB | ratio |"
echo "|---|---|---|---|---|"
row "igzip -dc one .gz"
row "zcat one .gz"
row "zstdcat one .zst"
row "igzip -dc four .gz"
row "mapr Q1 plain, 1 thread"
row "mapr Q1 one .gz, 1 thread" "igzip -dc one .gz" "× igzip -dc"
row "mapr Q1 one .gz, $cores threads" "igzip -dc one .gz" "× igzip -dc"
row "mapr Q1 one .gz, $cores threads" "zcat one .gz" "× zcat"
row "mapr Q1 one .zst, 1 thread" "zstdcat one .zst" "× zstdcat"
row "mapr Q1 one .zst, $cores threads" "zstdcat one .zst" "× zstdcat"
row "mapr Q1 four .gz, 1 thread" "igzip -dc four .gz" "× igzip -dc"
row "mapr Q1 four .gz, $cores threads" "igzip -dc four .gz" "× igzip -dc"
row "mapr Q1 four .gz, $cores threads" "mapr Q1 four .gz, 1 thread" "× 1 thread"

echo
echo "CPU seconds per thread (one run each; see cpu() above):"
echo
echo "| run | busiest thread | all threads | all / busiest |"
echo "|---|---|---|---|"
cpu "mapr Q1 one .gz, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "$data.gz"
cpu "mapr Q1 one .zst, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "$data.zst"
cpu "mapr Q1 four .gz, 1 thread" "$mapr" --quiet -t 1 -o csv "$q1" "${parts[@]}"
cpu "mapr Q1 four .gz, $cores threads" "$mapr" --quiet -t "$cores" -o csv "$q1" "${parts[@]}"
cpu "igzip -dc one .gz" igzip -dc "$data.gz"
cpu "zstdcat one .zst" zstdcat "$data.zst"
