#!/bin/sh
# delta_shipper_test.sh SHIPPER MAPR LOG: ship deltas of LOG (fed in small
# pieces, interval 0), reduce them, compare with one pass.
set -eu
shipper=$1 mapr=$2 log=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
q='from STATS select count($line),last($time),max(lifetimeConnections) group by $hostname'
mkdir "$dir/outbox"
# dd with a small block size makes many reads, hence many deltas.
dd if="$log" bs=4096 2>/dev/null | "$shipper" "$q" "$dir/outbox" 0
n=$(ls "$dir/outbox" | wc -l)
[ "$n" -gt 2 ] || { echo "only $n deltas"; exit 1; }
"$mapr" reduce --expect-splits "$n" "$dir"/outbox/*.part >"$dir/got"
"$mapr" "$q" - <"$log" >"$dir/want"
cmp "$dir/got" "$dir/want"
echo "delta_shipper_test: $n deltas reduce to the one-pass result"
