#!/usr/bin/env bash
# What each per-line operator, function and aggregate of issue 31 costs on Q1 (the
# benchmark's first query), on one thread: Q1 alone, then Q1 with the
# operator or function, all run round-robin (so a noisy spell slows them
# alike), median wall time of RUNS runs, and the ratio to Q1.
#
#   tests/bench/functions.sh [SIZE_MB] [RUNS]     (defaults: 200 MB, 5 runs)
#
# Uses the release build and the STATS log of tests/bench/run.sh. The log
# has no IP addresses: cidr() reads its statuses (none is an address),
# which measures the read and the refusal, not the mask; lookup() looks the
# statuses up in a table of 50 rows (none matches).
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb="${1:-200}"
runs="${2:-5}"

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh
bench_release_mapr
data=$(bench_stats_log "$size_mb")
mapr=build/release/bindings/cli/mapr
table=$(mktemp --suffix=.csv)
timing=$(mktemp)
trap 'rm -f "$table" "$timing"' EXIT
{
  echo "hostname,owner"
  for h in $(seq 0 49); do printf 'server%02d,team%d\n' "$h" $((h % 4)); done
} > "$table"

q1_items='hostname,count($line),avg(currentConnections),min(currentConnections),max(currentConnections),avg(latency_ms),min(latency_ms),max(latency_ms)'
q1="from STATS select $q1_items group by hostname"
# Each new operator or function beside the nearest older query of the same
# shape (same fields read, same rows kept, same keys): contains for
# icontains, an `or` of eq for in, a set of the plain field for the
# functions, dcount (a set of each group's values) for topk, p99 (the
# values of a numeric field) for histogram, bucket() (the same hops) for
# window().
names=("Q1" "Q1 where path contains" "Q1 where path icontains"
       "Q1 where status eq, 3 or" "Q1 where status in (3)"
       "Q1 where status eq, 8 or" "Q1 where status in (8)"
       "Q1 group by \$h = status" "Q1 group by lower()" "Q1 group by lookup()"
       "Q1 group by cidr()" "Q1 group by isnull()" "Q1 + cumsum(count)"
       "Q1 + dcount(path)" "Q1 + topk(path, 10)" "Q1 + p99(latency_ms)"
       "Q1 + histogram(latency_ms, 100)"
       "Q1 group by bucket(\$time, 1m)" "Q1 group by window(\$time, 15m, 1m)")
queries=(
  "$q1"
  "$q1 where path contains \"orders\""
  "$q1 where path icontains \"ORDERS\""
  "$q1 where status eq \"500\" or status eq \"503\" or status eq \"404\""
  "$q1 where status in (500, 503, 404)"
  "$q1 where status eq \"500\" or status eq \"503\" or status eq \"404\" or status eq \"400\" or status eq \"403\" or status eq \"201\" or status eq \"204\" or status eq \"301\""
  "$q1 where status in (500, 503, 404, 400, 403, 201, 204, 301)"
  "from STATS select $q1_items,\$h set \$h = status group by hostname, \$h"
  "from STATS select $q1_items,\$l set \$l = lower(status) group by hostname, \$l"
  "from STATS select $q1_items,\$o set \$o = lookup(status, '$table', 'owner') group by hostname, \$o"
  "from STATS select $q1_items,\$n set \$n = cidr(status, 24) group by hostname, \$n"
  "from STATS select $q1_items,\$n set \$n = isnull(status) group by hostname, \$n"
  "from STATS select $q1_items,cumsum(count(\$line)) group by hostname"
  "from STATS select $q1_items,dcount(path) group by hostname"
  "from STATS select $q1_items,topk(path, 10) group by hostname"
  "from STATS select $q1_items,p99(latency_ms) group by hostname"
  "from STATS select $q1_items,histogram(latency_ms, 100) group by hostname"
  "from STATS select $q1_items,\$m set \$m = bucket(\$time, 1m) group by hostname, \$m"
  "from STATS select $q1_items,\$w set \$w = window(\$time, 15m, 1m) group by hostname, \$w"
)

declare -A W
time_once() {
  local name="$1"; shift
  /usr/bin/time -f %e -o "$timing" "$@" >/dev/null 2>&1 || true
  W[$name]="${W[$name]:-} $(cat "$timing")"
}
median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for i in "${!queries[@]}"; do   # warm-up
  "$mapr" --quiet --threads 1 -o csv "${queries[$i]}" "$data" >/dev/null 2>&1 || true
done
for _ in $(seq "$runs"); do
  for i in "${!queries[@]}"; do
    time_once "${names[$i]}" "$mapr" --quiet --threads 1 -o csv "${queries[$i]}" "$data"
  done
done
base=$(median "${W[Q1]}")
echo "Data: $data, $size_mb MB; 1 thread; $runs runs (median); $(lscpu | sed -n 's/^Model name: *//p')"
echo
echo "| query | seconds | / Q1 |"
echo "|---|---:|---:|"
for i in "${!queries[@]}"; do
  m=$(median "${W[${names[$i]}]}")
  awk -v n="${names[$i]}" -v m="$m" -v b="$base" 'BEGIN { printf "| %s | %.2f | %.2f |\n", n, m, m / b }'
done
