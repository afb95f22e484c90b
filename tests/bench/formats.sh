#!/usr/bin/env bash
# Log format benchmark (issue 15): mapr against DuckDB and mawk, per format.
#
#   tests/bench/formats.sh [FORMAT...]
#
# FORMATs: stats json combined clf logfmt fields syslog regex (default: all).
# `stats` is a reference: DTail's default format (tests/bench/run.sh's log
# and Q1 shape), mapr only.
# `regex` is `logformat regex '...'` on the combined access log, with a
# pattern that names the same fields as `combined`.
# Environment:
#   BENCH_BYTES    size of each generated log (default 1000000000, 1 GB)
#   BENCH_RUNS     timed runs per command after one warm-up (default 3)
#   BENCH_THREADS  thread counts to time (default "1 2")
#   BENCH_CHECK_THREADS  more thread counts whose mapr CSV must be the same,
#                  untimed (default "3 4")
#   MAPR_BENCH_DUCKDB=0  no DuckDB rows;  MAPR_BENCH_MAWK=0  no mawk rows
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
[ ${#formats[@]} -gt 0 ] || formats=(stats json combined clf logfmt fields syslog regex)

mapr="${MAPR_BENCH_BIN:-build/release/bindings/cli/mapr}"
if [ -z "${MAPR_BENCH_BIN:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target mapr_cli >/dev/null
fi
mkdir -p build/bench
gen=build/bench/gen_format_logs
if [ ! -x "$gen" ] || [ tests/bench/gen_format_logs.cc -nt "$gen" ]; then
  g++ -O2 -std=c++20 tests/bench/gen_format_logs.cc -o "$gen"
fi
stats_gen=build/bench/gen_stats_log
if [ ! -x "$stats_gen" ] || [ tests/bench/gen_stats_log.cc -nt "$stats_gen" ]; then
  g++ -O2 -std=c++20 tests/bench/gen_stats_log.cc -o "$stats_gen"
fi

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

# ---- Queries ----------------------------------------------------------------

# One line per row of a log file, for DuckDB's string functions.
lines_src="read_csv('FILE', columns={'line':'VARCHAR'}, delim=E'\\x01', quote='', escape='', header=false, auto_detect=false, strict_mode=false, max_line_size=1048576)"
num() { echo "TRY_CAST($1 AS DOUBLE)"; }
# q1sql KEY A B FROM: SELECT KEY, count, avg(A), max(A), avg(B), max(B).
q1sql() {
  echo "SELECT $1 k, count(*), avg($(num "$2")), max($(num "$2")), avg($(num "$3")), max($(num "$3")) FROM $4 GROUP BY k"
}

# Access logs: one RE2 pattern for DuckDB's regexp_extract and (with group
# names) for mapr's `logformat regex`.
access_names="['ip','ident','user','time','method','path','protocol','status','bytes','referer','agent']"
clf_names="['ip','ident','user','time','method','path','protocol','status','bytes']"
clf_re='^(\S+) (\S+) (\S+) \[([^\]]*)\] "(\S+) (\S+) ([^"]*)" (\d{3}) (\S+)'
combined_re="$clf_re"' "([^"]*)" "([^"]*)"'
combined_named_re='^(?P<ip>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>[^\]]*)\] "(?P<method>\S+) (?P<path>\S+) (?P<protocol>[^"]*)" (?P<status>\d{3}) (?P<bytes>\S+) "(?P<referer>[^"]*)" "(?P<agent>[^"]*)"'
syslog_re='^\S+ +\d+ \S+ (\S+) ([^\[: ]+)(?:\[(\d+)\])?: '

# Per format: the generator's format, mapr's logformat clause, mapr's Q1
# fields (KEY A B), DuckDB's SQL (one "label|SQL" line per variant) and a
# mawk program. Every Q1 prints key,count,avg(A),max(A),avg(B),max(B).
declare -A GEN CLAUSE MQ1
declare -A DUCK  # "FORMAT query" -> newline-separated "label|SQL"
declare -A MAWK  # "FORMAT query" -> mawk program

# The reference: DTail's default format, the STATS log and a Q1 of
# tests/bench/run.sh's shape (docs/benchmarks.md has its history), to tell
# how busy the machine is. mapr only.
GEN[stats]=stats
CLAUSE[stats]='from STATS'
MQ1[stats]='hostname currentConnections latency_ms'

GEN[json]=json
CLAUSE[json]='logformat json'
MQ1[json]='service latency_ms http.bytes'
json_typed="read_json('FILE', format='newline_delimited', columns={service:'VARCHAR', latency_ms:'DOUBLE', http:'STRUCT(bytes BIGINT)'})"
DUCK[json Q1]="read_json (typed columns)|$(q1sql service latency_ms http.bytes "$json_typed")
read_json_auto|$(q1sql service latency_ms http.bytes "read_json_auto('FILE')")"
DUCK[json count]="read_json (typed columns)|SELECT count(*) FROM $json_typed
read_json_auto|SELECT count(*) FROM read_json_auto('FILE')"

for f in combined clf; do
  GEN[$f]=$f
  CLAUSE[$f]="logformat $f"
  MQ1[$f]='method status bytes'
done
access_q1() {  # RE NAMES
  echo "SELECT r.method k, count(*), avg($(num r.status)), max($(num r.status)), avg($(num r.bytes)), max($(num r.bytes)) FROM (SELECT regexp_extract(line, '$1', $2) r FROM $lines_src) WHERE r.method <> '' GROUP BY k"
}
DUCK[combined Q1]="regexp_extract|$(access_q1 "$combined_re" "$access_names")"
DUCK[combined count]="regexp_matches|SELECT count(*) FROM $lines_src WHERE regexp_matches(line, '$combined_re')"
DUCK[clf Q1]="regexp_extract|$(access_q1 "$clf_re" "$clf_names")"
DUCK[clf count]="regexp_matches|SELECT count(*) FROM $lines_src WHERE regexp_matches(line, '$clf_re')"
# Method is $6 without its '"', status $9, bytes $10 ("-" in clf: no value).
access_awk='{ k = substr($6, 2); c[k]++
  if (!(k in ms) || $9 + 0 > ms[k]) ms[k] = $9 + 0; ss[k] += $9
  if ($10 != "-") { nb[k]++; sb[k] += $10; if (!(k in mb) || $10 + 0 > mb[k]) mb[k] = $10 + 0 } }
  END { for (k in c) printf "%s,%d,%.6f,%.6f,%.6f,%.6f\n", k, c[k], ss[k] / c[k], ms[k], nb[k] ? sb[k] / nb[k] : 0, mb[k] }'
MAWK[combined Q1]="$access_awk"
MAWK[clf Q1]="$access_awk"
MAWK[combined count]='{ n++ } END { print n + 0 }'
MAWK[clf count]="${MAWK[combined count]}"

GEN[regex]=combined
CLAUSE[regex]="logformat regex '$combined_named_re'"
MQ1[regex]='method status bytes'
DUCK[regex Q1]="${DUCK[combined Q1]}"
DUCK[regex count]="${DUCK[combined count]}"

GEN[logfmt]=logfmt
CLAUSE[logfmt]='logformat logfmt'
MQ1[logfmt]='service latency_ms bytes'
kv() { echo "regexp_extract(line, ' $1=([^ ]*)', 1)"; }
DUCK[logfmt Q1]="regexp_extract|$(q1sql "$(kv service)" "$(kv latency_ms)" "$(kv bytes)" "$lines_src")"
DUCK[logfmt count]="count(*) of lines|SELECT count(*) FROM $lines_src"
# The keys by name, in any order (no value before them holds " key=").
MAWK[logfmt Q1]='{ k = ""; a = ""; b = ""
  for (i = 1; i <= NF; i++) {
    if (index($i, "service=") == 1) k = substr($i, 9)
    else if (index($i, "latency_ms=") == 1) a = substr($i, 12)
    else if (index($i, "bytes=") == 1) b = substr($i, 7) }
  c[k]++; sa[k] += a; sb[k] += b
  if (!(k in ma) || a + 0 > ma[k]) ma[k] = a + 0
  if (!(k in mb) || b + 0 > mb[k]) mb[k] = b + 0 }
  END { for (k in c) printf "%s,%d,%.6f,%.6f,%.6f,%.6f\n", k, c[k], sa[k] / c[k], ma[k], sb[k] / c[k], mb[k] }'
MAWK[logfmt count]='{ n++ } END { print n + 0 }'

GEN[fields]=fields
CLAUSE[fields]='logformat fields'
MQ1[fields]='f4 f5 f6'
sp() { echo "split_part(line, ' ', $1)"; }
DUCK[fields Q1]="split_part|$(q1sql "$(sp 4)" "$(sp 5)" "$(sp 6)" "$lines_src")"
DUCK[fields count]="count(*) of lines|SELECT count(*) FROM $lines_src"
MAWK[fields Q1]='{ k = $4; c[k]++; s5[k] += $5; s6[k] += $6
  if (!(k in m5) || $5 + 0 > m5[k]) m5[k] = $5 + 0
  if (!(k in m6) || $6 + 0 > m6[k]) m6[k] = $6 + 0 }
  END { for (k in c) printf "%s,%d,%.6f,%.6f,%.6f,%.6f\n", k, c[k], s5[k] / c[k], m5[k], s6[k] / c[k], m6[k] }'
MAWK[fields count]='{ n++ } END { print n + 0 }'

GEN[syslog]=syslog
CLAUSE[syslog]='logformat syslog'
# Syslog lines have one number, the pid (missing for kernel, sudo,
# rsyslogd): Q1 is avg and max of pid, twice over, so every format has the
# same shape.
MQ1[syslog]='app pid pid'
DUCK[syslog Q1]="regexp_extract|SELECT r.app k, count(*), avg($(num "NULLIF(r.pid, '')")), max($(num "NULLIF(r.pid, '')")), avg($(num "NULLIF(r.pid, '')")), max($(num "NULLIF(r.pid, '')")) FROM (SELECT regexp_extract(line, '$syslog_re', ['host','app','pid']) r FROM $lines_src) GROUP BY k"
DUCK[syslog count]="count(*) of lines|SELECT count(*) FROM $lines_src"
# "Dec  1 14:00:00 host app[pid]: msg": the tag is $5.
MAWK[syslog Q1]='{ t = $5; sub(/:$/, "", t); p = ""
  if (match(t, /\[[0-9]+\]$/)) { p = substr(t, RSTART + 1, RLENGTH - 2); t = substr(t, 1, RSTART - 1) }
  c[t]++; if (p != "") { n[t]++; s[t] += p; if (!(t in m) || p + 0 > m[t]) m[t] = p + 0 } }
  END { for (t in c) printf "%s,%d,%.6f,%.6f,%.6f,%.6f\n", t, c[t], n[t] ? s[t] / n[t] : 0, m[t], n[t] ? s[t] / n[t] : 0, m[t] }'
MAWK[syslog count]='{ n++ } END { print n + 0 }'

mapr_query() {  # FORMAT QUERY
  local f=$1 k a b
  if [ "$2" = count ]; then
    echo "select count(*) ${CLAUSE[$f]}"
  else
    read -r k a b <<<"${MQ1[$f]}"
    echo "select $k, count(\$line), avg($a), max($a), avg($b), max($b) group by $k ${CLAUSE[$f]}"
  fi
}

# ---- Running and checking -------------------------------------------------

# measure OUT CMD...: runs CMD once into OUT (warm-up), then $runs times;
# sets best_wall and best_cpu (seconds): from /usr/bin/time, or from the
# `duckdb_time: WALL CPU` line a DuckDB run prints on standard error.
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
    if grep -q '^duckdb_time:' "$work/stderr"; then
      read -r _ wall cpu < <(grep '^duckdb_time:' "$work/stderr")
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
  "mapr $("$mapr" --version 2>&1 | head -1) at $(git rev-parse --short HEAD); best of $runs runs after a warm-up"
if [ "$duckdb" = 1 ]; then
  echo "DuckDB $(node "$duck_dir/duckdb_csv.mjs" x 'SELECT version()' 1 2>/dev/null)" \
    "(npm @duckdb/node-api $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$duck_dir/node_modules/@duckdb/node-api/package.json"));" \
    "its times leave out the start-up of node and DuckDB"
fi
[ "$mawk" = 1 ] && echo "$(mawk -W version 2>&1 | head -1)"
echo
echo "| format | query | engine | threads | best s | MB/s | MB/s per thread | MB per CPU-s | vs mapr |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
failed=0
for f in "${formats[@]}"; do
  [ -n "${GEN[$f]:-}" ] || { echo "unknown format '$f'" >&2; exit 2; }
  data="build/bench/fmt_${GEN[$f]}_${bytes_target}.log"
  if [ ! -f "$data" ] || [ "$gen" -nt "$data" ]; then
    if [ "$f" = stats ]; then
      "$stats_gen" "$bytes_target" > "$data.tmp"
    else
      "$gen" "${GEN[$f]}" "$bytes_target" > "$data.tmp"
    fi
    mv "$data.tmp" "$data"
  fi
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
        diff "$first" "$out" | head -20 >&2
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
        diff "$first" "$work/check" | head -20 >&2
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
            diff "$work/expect" "$work/got" | head -20 >&2
            failed=1
          fi
        done
      done <<<"${DUCK[$f $q]}"
    fi
    if [ "$mawk" = 1 ] && [ -n "${MAWK[$f $q]:-}" ]; then
      out="$work/$f.$q.mawk"
      measure "$out" mawk "${MAWK[$f $q]}" "$data"
      row "$f" "$q" mawk 1
      rows "$out" 0 > "$work/got"
      if ! agree "$work/expect" "$work/got"; then
        echo "FAIL: $f $q: mawk disagrees with mapr:" >&2
        diff "$work/expect" "$work/got" | head -20 >&2
        failed=1
      fi
    fi
  done
done
echo
echo "Sizes: $(for f in "${formats[@]}"; do printf '%s %s B; ' "$f" "$(stat -c %s "build/bench/fmt_${GEN[$f]}_${bytes_target}.log")"; done)"
echo "MB/s = bytes / best wall time; MB/s per thread = MB/s / threads;" \
  "MB per CPU-s = bytes / best (user + sys); vs mapr = MB/s / mapr's MB/s" \
  "for the same format, query and thread count."
exit "$failed"
