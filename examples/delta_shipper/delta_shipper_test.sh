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

# Idle input: deltas keep coming on the timer (empty ones), and the last
# one, at the end of the input, is marked final. Two shippers with their own
# sources reduce together.
mkdir "$dir/idle" "$dir/two"
{ head -n 5 "$log"; sleep 1; tail -n 3 "$log"; } |
  "$shipper" "$q" "$dir/idle" 100 web-1 2>/dev/null
idle=$(ls "$dir/idle" | wc -l)
[ "$idle" -ge 5 ] || { echo "only $idle deltas over an idle second"; exit 1; }
"$mapr" inspect "$dir/idle/$((idle - 1)).part" | grep -qx 'final: yes' ||
  { echo "the last delta is not final"; exit 1; }
"$mapr" inspect "$dir/idle/0.part" | grep -qx 'source: web-1'
head -n 100 "$log" | "$shipper" "$q" "$dir/two" 0 web-a 2>/dev/null
for f in "$dir"/two/*.part; do mv "$f" "$dir/two/a-$(basename "$f")"; done
tail -n 50 "$log" | "$shipper" "$q" "$dir/two" 0 web-b 2>/dev/null
"$mapr" reduce "$dir"/two/*.part >"$dir/got2"
{ head -n 100 "$log"; tail -n 50 "$log"; } | "$mapr" "$q" - >"$dir/want2"
cmp "$dir/got2" "$dir/want2"
echo "delta_shipper_test: idle deltas, a final mark, and two sources"
