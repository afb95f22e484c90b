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
# The number of deltas in outbox $1 (N.part; a delta being written is
# N.part.tmp).
parts() {
  set -- "$1"/*.part
  if [ -e "$1" ]; then echo $#; else echo 0; fi
}
# The first 5 lines, then nothing until the shipper has shipped 4 deltas
# (the input still open), then 3 more lines. The wait polls for at most 60 s
# (a slow build on a loaded machine); past it, the input goes on and the
# test fails below.
{
  head -n 5 "$log"
  tries=0
  while [ "$(parts "$dir/idle")" -lt 4 ]; do
    if [ "$tries" -ge 600 ]; then : >"$dir/idle-timeout"; break; fi
    sleep 0.1
    tries=$((tries + 1))
  done
  tail -n 3 "$log"
} | "$shipper" "$q" "$dir/idle" 100 web-1 2>/dev/null
idle=$(parts "$dir/idle")
if [ -e "$dir/idle-timeout" ] || [ "$idle" -lt 5 ]; then
  echo "no 4 deltas within 60 s of idle input; $idle in all:"
  ls -l "$dir/idle"
  exit 1
fi
# The 4 deltas shipped while the input was idle: the 5 lines' and empty
# ones.
nl='
'
info=$("$mapr" inspect "$dir/idle/0.part" "$dir/idle/1.part" \
  "$dir/idle/2.part" "$dir/idle/3.part")
case "$nl$info$nl" in
  *"${nl}lines_read: 0$nl"*) ;;
  *) echo "no empty delta while the input was idle:"; echo "$info"; exit 1 ;;
esac
last=$("$mapr" inspect "$dir/idle/$((idle - 1)).part")
case "$nl$last$nl" in
  *"${nl}final: yes$nl"*) ;;
  *) echo "the last delta is not final:"; echo "$last"; exit 1 ;;
esac
first=$("$mapr" inspect "$dir/idle/0.part")
case "$nl$first$nl" in
  *"${nl}source: web-1$nl"*) ;;
  *) echo "the first delta's source is not web-1:"; echo "$first"; exit 1 ;;
esac
# Every line, once: 5 then 3.
"$mapr" reduce --expect-splits "$idle" "$dir"/idle/*.part >"$dir/got1"
{ head -n 5 "$log"; tail -n 3 "$log"; } | "$mapr" "$q" - >"$dir/want1"
cmp "$dir/got1" "$dir/want1"
head -n 100 "$log" | "$shipper" "$q" "$dir/two" 0 web-a 2>/dev/null
for f in "$dir"/two/*.part; do mv "$f" "$dir/two/a-$(basename "$f")"; done
tail -n 50 "$log" | "$shipper" "$q" "$dir/two" 0 web-b 2>/dev/null
"$mapr" reduce "$dir"/two/*.part >"$dir/got2"
{ head -n 100 "$log"; tail -n 50 "$log"; } | "$mapr" "$q" - >"$dir/want2"
cmp "$dir/got2" "$dir/want2"
echo "delta_shipper_test: idle deltas, a final mark, and two sources"
