#!/usr/bin/env bash
# The hash-partitioned reduce (issue 29), whole processes:
#
#   tests/bench/partitioned.sh [MILLION_GROUPS] [R]     (defaults: 8, 8)
#
# A log of MILLION_GROUPS million lines, each its own session (disjoint
# groups: the worst case for a reducer), is mapped by 8 maps over byte
# ranges. Then, for a top list (`order by sum(bytes) desc limit 10`) and
# for the whole table (`group by session`, every group printed):
#  1. unpartitioned: one `reduce` of the 8 partials;
#  2. partitioned: the maps write R partitions each; one `combine
#     --partition P` per partition, then the final `reduce` of the R
#     combined partitions.
# Prints each step's peak RSS (/usr/bin/time -f %M) and wall time, and
# checks that both ways print the same bytes. MAPR=path picks the binary
# (default: the release preset's, built here). Not part of ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
million="${1:-8}"
r="${2:-8}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
if [ -z "${MAPR:-}" ]; then
  bench_release_mapr
  MAPR=build/release/bindings/cli/mapr
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

data="$work/sessions.log"
seq 1 $((million * 1000000)) |
  awk '{ printf "session=s%d|bytes=%d\n", $1, ($1 * 7919) % 100003 }' > "$data"
bytes=$(stat -c %s "$data")
base='select session,count($line),sum(bytes) group by session'
top="$base order by sum(bytes) desc limit 10 logformat generickv"
all="$base logformat generickv"

# Runs "$@" under /usr/bin/time; appends "MiB seconds" to $work/times.
measure() {
  /usr/bin/time -f '%M %e' -o "$work/t" "$@"
  read -r kb secs < "$work/t"
  echo "$((kb / 1024)) $secs" >> "$work/times"
}

# Maps query $1 over 8 byte ranges, 2 at a time, into $work/$2.<i>
# (extra flags after $2).
map8() {
  local q=$1 out=$2 i
  shift 2
  for ((i = 0; i < 8; i++)); do
    "$MAPR" map -t 1 --split "$i" "$@" \
      --range "$((bytes * i / 8)):$((bytes * (i + 1) / 8))" "$q" "$data" \
      > "$work/$out.$i" &
    if ((i % 2 == 1)); then wait; fi
  done
  wait
}

# The largest and the sum of the last N measurements: "maxMiB sumSeconds".
summary() {
  tail -n "$1" "$work/times" | awk '{ if ($1 > m) m = $1; s += $2 }
    END { printf "%d %.2f", m, s }'
}

echo "| query | step | peak RSS (MiB) | wall (s) |"
echo "|---|---|---:|---:|"
for name in top all; do
  q=${!name}
  : > "$work/times"
  map8 "$q" plain
  measure "$MAPR" reduce -o csv "$work"/plain.[0-9] > "$work/plain.csv"
  read -r rss secs <<< "$(summary 1)"
  echo "| $name | reduce of 8 unpartitioned partials | $rss | $secs |"
  rm -f "$work"/plain.[0-9]
  map8 "$q" parts --partitions "$r"
  for ((p = 0; p < r; p++)); do
    measure "$MAPR" combine --partition "$p" "$work"/parts.[0-9] \
      > "$work/folded.$p"
  done
  read -r rss secs <<< "$(summary "$r")"
  echo "| $name | each of $r \`combine --partition P\` (largest; total time) | $rss | $secs |"
  rm -f "$work"/parts.[0-9]
  measure "$MAPR" reduce -o csv "$work"/folded.[0-9]* > "$work/parted.csv"
  read -r rss secs <<< "$(summary 1)"
  echo "| $name | final \`reduce\` of the $r partitions | $rss | $secs |"
  rm -f "$work"/folded.[0-9]*
  cmp -s "$work/plain.csv" "$work/parted.csv" ||
    { echo "$name: the results differ" >&2; exit 1; }
done
echo
lscpu | grep 'Model name' | sed 's/^/    /'
echo "    $(nproc) CPUs; $million million groups, R = $r, $MAPR"
