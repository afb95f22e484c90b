#!/usr/bin/env bash
# Whole-process benchmark of the `mapr` command (issue: speed).
#
#   tests/bench/run.sh [SIZE_MB] [RUNS]     (defaults: 1000 MB, 5 runs)
#
# Builds the release preset, generates a deterministic STATS log of SIZE_MB
# (cached under build/bench/), then for each query Q1-Q5 runs mapr with 1
# thread and with all threads, all ten round-robin (so that a noisy spell on
# a shared machine does not skew the ratios between them): median wall time
# of RUNS runs after a warm-up, MB/s, lines/s and peak RSS (/usr/bin/time
# -v). The floors `cat FILE
# >/dev/null` and `wc -l FILE`, and mawk versions of Q1/Q5, run in the same
# session as reference rows. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb="${1:-1000}"
runs="${2:-5}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
bench_release_mapr
data=$(bench_stats_log "$size_mb")
mapr=build/release/bindings/cli/mapr
bytes=$(stat -c %s "$data")
lines=$(wc -l < "$data")
cores=$(nproc)

declare -A Q
Q[Q1]='from STATS select hostname,count($line),avg(currentConnections),min(currentConnections),max(currentConnections),avg(latency_ms),min(latency_ms),max(latency_ms) group by hostname'
Q[Q2]="${Q[Q1]} where latency_ms >= 100 and path contains \"orders\""
Q[Q3]='from STATS select path,count($line) group by path order by count($line) limit 10'
Q[Q4]='from STATS select session,count($line),sum(bytes) group by session'
Q[Q5]='from STATS select count($line) group by $empty'

# Median seconds per row name, for the ratios at the end.
declare -A T
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT

# run NAME CMD...: prints a table row.
# Times one run of a command into W[name] (wall seconds as /usr/bin/time
# -v gives them, to 10 ms) and R[name] (the largest peak RSS in KiB seen).
declare -A W R
time_once() {
  local name="$1"; shift
  local r
  /usr/bin/time -v -o "$timing" "$@" >/dev/null 2>&1 || true
  W[$name]="${W[$name]:-} $(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$timing")"
  r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$timing")
  [ "${r:-0}" -gt "${R[$name]:-0}" ] && R[$name]=$r
  return 0
}

# Prints the row of `name` from its runs: the median wall time into T[name].
report() {
  local name="$1" median
  median=$(printf '%s\n' ${W[$name]} | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  T["$name"]=$median
  awk -v n="$name" -v t="$median" -v b="$bytes" -v l="$lines" -v r="${R[$name]:-0}" 'BEGIN {
    if (t <= 0) t = 0.001;
    printf "| %s | %.3f | %.0f | %.2f | %.0f |\n", n, t, b/t/1e6, l/t/1e6, r/1024 }'
}

# One warm-up run (output discarded), then `runs` timed runs, median wall.
run() {
  local name="$1"; shift
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$runs"); do time_once "$name" "$@"; done
  report "$name"
}

echo "Data: $data, $((bytes / 1000000)) MB, $lines lines; $cores cores; $runs runs (median)"
echo
echo "| run | seconds | MB/s | M lines/s | peak RSS MiB |"
echo "|---|---|---|---|---|"
# The floors and mapr's ten runs (five queries, 1 and all threads) go
# round-robin: each round times every one of them once, so that a noisy
# spell on a shared machine slows them alike and the ratios between them
# (Q1 against `wc -l`, Q2 against Q1, 1 thread against all) stay fair.
thread_counts=(1); [ "$cores" -gt 1 ] && thread_counts+=("$cores")
label() { [ "$1" = 1 ] && echo "1 thread" || echo "$1 threads"; }
for q in Q1 Q2 Q3 Q4 Q5; do
  for t in "${thread_counts[@]}"; do
    "$mapr" --quiet --threads "$t" --output csv "${Q[$q]}" "$data" >/dev/null 2>&1 || true
  done
done
cat "$data" >/dev/null
for _ in $(seq "$runs"); do
  time_once "floor: cat > /dev/null" cat "$data"
  time_once "floor: wc -l" wc -l "$data"
  for q in Q1 Q2 Q3 Q4 Q5; do
    for t in "${thread_counts[@]}"; do
      time_once "mapr $q, $(label "$t")" \
        "$mapr" --quiet --threads "$t" --output csv "${Q[$q]}" "$data"
    done
  done
done
report "floor: cat > /dev/null"
report "floor: wc -l"
for q in Q1 Q2 Q3 Q4 Q5; do
  for t in "${thread_counts[@]}"; do report "mapr $q, $(label "$t")"; done
done
# DuckDB reference rows: the same data read as '|'-separated CSV, values cut
# out of the key=value columns by position (which mapr does not assume), for
# every query. The npm package is installed under build/bench/duckdb when
# npm is available (MAPR_BENCH_DUCKDB=0 skips it).
duck_dir=build/bench/duckdb
if [ "${MAPR_BENCH_DUCKDB:-1}" != 0 ] && command -v node >/dev/null &&
   command -v npm >/dev/null; then
  if [ ! -d "$duck_dir/node_modules/@duckdb/node-api" ]; then
    mkdir -p "$duck_dir"
    (cd "$duck_dir" && npm install --silent @duckdb/node-api >/dev/null 2>&1) ||
      echo "(npm install @duckdb/node-api failed; no DuckDB rows)" >&2
  fi
fi
if [ "${MAPR_BENCH_DUCKDB:-1}" != 0 ] &&
   [ -d "$duck_dir/node_modules/@duckdb/node-api" ]; then
  cp tests/bench/duckdb_query.mjs "$duck_dir/"
  cols=$(for i in $(seq 0 17); do printf "'c%d':'VARCHAR'," "$i"; done)
  src="read_csv('FILE', delim='|', header=false, columns={${cols%,}}, null_padding=true, ignore_errors=true, quote='', escape='', auto_detect=false)"
  stats="FROM $src WHERE c0='INFO' AND c9='MAPREDUCE:STATS'"
  num() { echo "TRY_CAST(split_part($1,'=',2) AS DOUBLE)"; }
  declare -A D
  D[Q1]="SELECT split_part(c10,'=',2) h, count(*), avg($(num c11)), min($(num c11)), max($(num c11)), avg($(num c14)), min($(num c14)), max($(num c14)) $stats GROUP BY h"
  D[Q2]="SELECT split_part(c10,'=',2) h, count(*), avg($(num c11)), min($(num c11)), max($(num c11)), avg($(num c14)), min($(num c14)), max($(num c14)) $stats AND $(num c14) >= 100 AND contains(split_part(c16,'=',2), 'orders') GROUP BY h"
  D[Q3]="SELECT split_part(c16,'=',2) p, count(*) n $stats GROUP BY p ORDER BY n DESC LIMIT 10"
  D[Q4]="SELECT split_part(c17,'=',2) s, count(*), sum($(num c13)) $stats GROUP BY s"
  D[Q5]="SELECT count(*) $stats"
  for q in Q1 Q2 Q3 Q4 Q5; do
    run "duckdb $q, 1 thread" node "$duck_dir/duckdb_query.mjs" "$data" "${D[$q]}" 1
    if [ "$cores" -gt 1 ]; then
      run "duckdb $q, $cores threads" node "$duck_dir/duckdb_query.mjs" "$data" "${D[$q]}" "$cores"
    fi
  done
fi
if command -v mawk >/dev/null; then
  run "mawk Q1" mawk -F'|' '$1 ~ /^INFO/ && index($0, "|MAPREDUCE:STATS|") {
      h=""; c=-1; l=-1
      for (i = 11; i <= NF; i++) { split($i, kv, "=");
        if (kv[1] == "hostname") h = kv[2];
        else if (kv[1] == "currentConnections") c = kv[2] + 0;
        else if (kv[1] == "latency_ms") l = kv[2] + 0 }
      n[h]++; cs[h] += c; ls[h] += l
      if (!(h in cmin) || c < cmin[h]) cmin[h] = c; if (c > cmax[h]) cmax[h] = c
      if (!(h in lmin) || l < lmin[h]) lmin[h] = l; if (l > lmax[h]) lmax[h] = l }
    END { for (h in n) print h, n[h], cs[h]/n[h], cmin[h], cmax[h], ls[h]/n[h], lmin[h], lmax[h] }' "$data"
  run "mawk Q5" mawk '$0 ~ /^INFO/ && index($0, "|MAPREDUCE:STATS|") { n++ } END { print n }' "$data"
fi

# Every figure also as a ratio, from the medians above: how many times
# faster mapr is than DuckDB (DuckDB's time / mapr's), mapr's time in units
# of `wc -l`'s on the same file, and the speed-up from 1 to all threads.
ratio() {
  awk -v a="${T[$1]:-}" -v b="${T[$2]:-}" 'BEGIN {
    if (a == "" || b == "" || b <= 0) print "-"; else printf "%.2f", a / b }'
}
echo
echo "| query | threads | DuckDB / mapr | mapr / wc -l | mapr 1 thread / mapr $cores threads |"
echo "|---|---|---:|---:|---:|"
for q in Q1 Q2 Q3 Q4 Q5; do
  for t in "${thread_counts[@]}"; do
    label=$(label "$t")
    scale="-"
    [ "$t" = 1 ] || scale=$(ratio "mapr $q, 1 thread" "mapr $q, $label")
    echo "| $q | $t | $(ratio "duckdb $q, $label" "mapr $q, $label") |" \
      "$(ratio "mapr $q, $label" "floor: wc -l") | $scale |"
  done
done
