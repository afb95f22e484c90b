#!/usr/bin/env bash
# Log format benchmark (issue 15): mapr against DuckDB and mawk, per format.
#
#   tests/bench/formats.sh [FORMAT...]
#
# FORMATs: stats json combined clf logfmt fields syslog regex pattern
# (default: all).
# `stats` is a reference: DTail's default format (tests/bench/run.sh's log
# and Q1 shape), mapr only.
# `regex` is `logformat regex '...'` on the combined access log, with a
# pattern that names the same fields as `combined`; `pattern` is `logformat
# pattern '...'` on the same log, naming them too.
# Environment:
#   BENCH_BYTES    size of each generated log (default 1000000000, 1 GB)
#   BENCH_RUNS     timed runs per command after one warm-up (default 3)
#   BENCH_THREADS  thread counts to time (default "1 2")
#   BENCH_CHECK_THREADS  more thread counts whose mapr CSV must be the same,
#                  untimed (default "3 4")
#   MAPR_BENCH_DUCKDB=0  no DuckDB rows;  MAPR_BENCH_MAWK=0  no mawk rows
#   MAPR_BENCH_SIMDJSON=0  no simdjson reference row (json count: simdjson's
#                  DOM document stream alone, tests/bench/simdjson_count.cc,
#                  timed without the file's load, as DuckDB is)
#   MAPR_BENCH_BIN the mapr binary to time (default: build the release preset)
#
# Builds the release preset, generates each log with
# tests/bench/gen_format_logs.cc (deterministic; cached under build/bench/),
# and runs two queries per format: Q1 (group by one field: count, avg and
# max of two numbers) and a count-only query. Each command runs once to
# warm up (its output is kept) and BENCH_RUNS times more; the best wall time
# gives MB/s, and the best user+sys time gives MB per CPU-second. Checks:
#  - mapr's CSV is byte-identical for every thread count, timed or checked
#    (exit 1 if not);
#  - DuckDB's and mawk's answers agree with mapr's: the same groups with the
#    same counts, averages and maxima within 1e-6 (exit 1 if not).
# DuckDB runs through its npm package @duckdb/node-api (installed under
# build/bench/duckdb, as tests/bench/run.sh does) and
# tests/bench/duckdb_csv.mjs, which times the query itself (wall and CPU),
# leaving out the start-up of node and DuckDB; mapr and mawk are timed as
# whole processes.
# Prints a Markdown table; not part of ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
bytes_target="${BENCH_BYTES:-1000000000}"
runs="${BENCH_RUNS:-3}"
threads_list="${BENCH_THREADS:-1 2}"
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(stats json combined clf logfmt fields syslog regex pattern)

mapr="${MAPR_BENCH_BIN:-build/release/bindings/cli/mapr}"
# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
[ -n "${MAPR_BENCH_BIN:-}" ] || bench_release_mapr
mkdir -p build/bench

duck_dir=build/bench/duckdb
duckdb=0
if [ "${MAPR_BENCH_DUCKDB:-1}" != 0 ] && command -v node >/dev/null &&
   command -v npm >/dev/null; then
  if [ ! -d "$duck_dir/node_modules/@duckdb/node-api" ]; then
    mkdir -p "$duck_dir"
    (cd "$duck_dir" && npm install --silent @duckdb/node-api >/dev/null 2>&1) ||
      echo "(npm install @duckdb/node-api failed; no DuckDB rows)" >&2
  fi
  if [ -d "$duck_dir/node_modules/@duckdb/node-api" ]; then
    cp tests/bench/duckdb_csv.mjs "$duck_dir/"
    duckdb=1
  fi
fi
mawk=0
if [ "${MAPR_BENCH_MAWK:-1}" != 0 ] && command -v mawk >/dev/null; then mawk=1; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=tests/bench/formats_queries.sh
source tests/bench/formats_queries.sh

# ---- Running and checking -------------------------------------------------

# measure OUT CMD...: runs CMD once into OUT (warm-up), then $runs times;
# sets best_wall and best_cpu (seconds): from /usr/bin/time, or from the
# `duckdb_time: WALL CPU` line a DuckDB run (or `query_time: WALL CPU` line
# the simdjson reference) prints on standard error.
measure() {
  local out=$1 i wall cpu user sys
  shift
  "$@" >"$out" 2>"$out.err" || {
    echo "command failed: $*" >&2
    cat "$out.err" >&2
    exit 1
  }
  best_wall="" best_cpu=""
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f 'time: %e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/stderr"
    if grep -q '^\(duckdb\|query\)_time:' "$work/stderr"; then
      read -r _ wall cpu < <(grep '^\(duckdb\|query\)_time:' "$work/stderr")
    else
      read -r _ wall user sys < <(grep '^time:' "$work/time")
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    fi
    best_wall=$(awk -v a="$wall" -v b="$best_wall" 'BEGIN { print (b == "" || a < b) ? a : b }')
    best_cpu=$(awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
}

# Rows of a result as "key,count,n1,n2,..." sorted; mapr's CSV loses its
# header line.
rows() {  # FILE SKIP_HEADER
  if [ "$2" = 1 ]; then tail -n +2 "$1"; else cat "$1"; fi | LC_ALL=C sort
}

# agree A B: the same rows, the first two columns exactly (key and count;
# for count-only the count), the others within 1e-6 relative.
agree() {
  awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
    { m = FNR; if (split(a[FNR], x, ",") != NF || x[1] != $1) exit 1
      if (NF > 1 && x[2] + 0 != $2 + 0) exit 1
      if (NF == 1 && x[1] + 0 != $1 + 0) exit 1
      for (i = 3; i <= NF; i++) {
        d = x[i] - $i; if (d < 0) d = -d; s = $i < 0 ? -$i : $i
        if (d > 1e-6 * (s > 1 ? s : 1)) exit 1 } }
    END { if (n != m) exit 1 }' "$1" "$2"
}

# row FORMAT QUERY ENGINE THREADS: a table row from best_wall and best_cpu.
row() {
  awk -v f="$1" -v q="$2" -v e="$3" -v n="$4" -v b="$bytes" -v t="$best_wall" \
      -v c="$best_cpu" -v r="${mapr_mbs[$2 $4]}" 'BEGIN {
    if (t <= 0.01) t = 0.01; if (c <= 0.01) c = 0.01; m = b / t / 1e6
    printf "| %s | %s | %s | %d | %.2f | %.0f | %.0f | %.0f | %.2f |\n",
      f, q, e, n, t, m, m / n, b / c / 1e6, m / r }'
}


echo "# mapr log formats vs DuckDB and mawk"
echo
echo "$(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) CPUs; $(date -u +%Y-%m-%d);" \
  "$("$mapr" --version 2>&1 | sed -n 1p) at $(git rev-parse --short HEAD); best of $runs runs after a warm-up"
if [ "$duckdb" = 1 ]; then
  echo "DuckDB $(node "$duck_dir/duckdb_csv.mjs" x 'SELECT version()' 1 2>/dev/null)" \
    "(npm @duckdb/node-api $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$duck_dir/node_modules/@duckdb/node-api/package.json"));" \
    "its times leave out the start-up of node and DuckDB"
fi
[ "$mawk" = 1 ] && mawk -W version 2>&1 | sed -n 1p
echo
echo "| format | query | engine | threads | best s | MB/s | MB/s per thread | MB per CPU-s | vs mapr |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
failed=0
for f in "${formats[@]}"; do
  [ -n "${GEN[$f]:-}" ] || { echo "unknown format '$f'" >&2; exit 2; }
  data=$(format_data "$f" "$bytes_target")
  bytes=$(stat -c %s "$data")
  cat "$data" >/dev/null  # into the page cache
  for q in Q1 count; do
    declare -A mapr_mbs=()
    query=$(mapr_query "$f" "$q")
    first=""
    for t in $threads_list; do
      out="$work/$f.$q.mapr.$t"
      measure "$out" "$mapr" --quiet --threads "$t" --output csv "$query" "$data"
      if [ -z "$first" ]; then
        first=$out
      elif ! cmp -s "$first" "$out"; then
        echo "FAIL: $f $q: mapr -t $t differs from -t ${first##*.}:" >&2
        diff "$first" "$out" | sed -n 1,20p >&2
        exit 1
      fi
      mapr_mbs[$q $t]=$(awk -v b="$bytes" -v t="$best_wall" 'BEGIN { if (t <= 0.01) t = 0.01; print b / t / 1e6 }')
      row "$f" "$q" mapr "$t"
    done
    # More thread counts, untimed: the same CSV.
    for t in ${BENCH_CHECK_THREADS:-3 4}; do
      "$mapr" --quiet --threads "$t" --output csv "$query" "$data" > "$work/check"
      cmp -s "$first" "$work/check" || {
        echo "FAIL: $f $q: mapr -t $t differs from -t ${first##*.}:" >&2
        diff "$first" "$work/check" | sed -n 1,20p >&2
        exit 1
      }
    done
    rows "$first" 1 > "$work/expect"
    if [ "$duckdb" = 1 ] && [ -n "${DUCK[$f $q]:-}" ]; then
      while IFS='|' read -r label sql; do
        for t in $threads_list; do
          out="$work/$f.$q.duck.$t"
          measure "$out" node "$duck_dir/duckdb_csv.mjs" "$data" "$sql" "$t"
          row "$f" "$q" "duckdb $label" "$t"
          rows "$out" 0 > "$work/got"
          if ! agree "$work/expect" "$work/got"; then
            echo "FAIL: $f $q: duckdb $label (-t $t) disagrees with mapr:" >&2
            diff "$work/expect" "$work/got" | sed -n 1,20p >&2
            failed=1
          fi
        done
      done <<<"${DUCK[$f $q]}"
    fi
    if [ "$f $q" = "json count" ] && [ "${MAPR_BENCH_SIMDJSON:-1}" != 0 ]; then
      # The reference for validation alone (tests/bench/simdjson_count.cc).
      sj=build/bench/simdjson_count
      if [ ! -x "$sj" ] || [ tests/bench/simdjson_count.cc -nt "$sj" ]; then
        g++ -O2 -std=c++20 tests/bench/simdjson_count.cc -lsimdjson -o "$sj"
      fi
      out="$work/$f.$q.simdjson"
      measure "$out" "$sj" "$data"
      row "$f" "$q" "simdjson parse_many (reference)" 1
      rows "$out" 0 > "$work/got"
      if ! agree "$work/expect" "$work/got"; then
        echo "FAIL: $f $q: simdjson_count disagrees with mapr:" >&2
        diff "$work/expect" "$work/got" | sed -n 1,20p >&2
        failed=1
      fi
    fi
    if [ "$mawk" = 1 ] && [ -n "${MAWK[$f $q]:-}" ]; then
      out="$work/$f.$q.mawk"
      measure "$out" mawk "${MAWK[$f $q]}" "$data"
      row "$f" "$q" mawk 1
      rows "$out" 0 > "$work/got"
      if ! agree "$work/expect" "$work/got"; then
        echo "FAIL: $f $q: mawk disagrees with mapr:" >&2
        diff "$work/expect" "$work/got" | sed -n 1,20p >&2
        failed=1
      fi
    fi
  done
done
echo
echo "Sizes: $(for f in "${formats[@]}"; do printf '%s %s B; ' "$f" "$(stat -c %s "$(format_data "$f" "$bytes_target")")"; done)"
echo "MB/s = bytes / best wall time; MB/s per thread = MB/s / threads;" \
  "MB per CPU-s = bytes / best (user + sys); vs mapr = MB/s / mapr's MB/s" \
  "for the same format, query and thread count."
exit "$failed"
