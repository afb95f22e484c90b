# The queries of tests/bench/formats.sh and tests/bench/formats_profile.sh
# (sourced by both): per format, the generator's format (GEN), mapr's
# logformat clause (CLAUSE) and Q1 fields (MQ1), DuckDB's SQL (DUCK) and a
# mawk program (MAWK); mapr_query FORMAT Q1|count gives mapr's query.
# shellcheck shell=bash disable=SC2016  # awk programs in single quotes

# shellcheck source=tests/bench/lib.sh
source tests/bench/lib.sh

# format_data FORMAT BYTES: prints the path of FORMAT's generated log of
# about BYTES bytes under build/bench/, generating it (and compiling the
# generators) when missing or older than its generator.
format_data() {
  local gen stats_gen
  gen=$(bench_generator gen_format_logs)
  stats_gen=$(bench_generator gen_stats_log)
  local data="build/bench/fmt_${GEN[$1]}_$2.log"
  if [ "$1" = stats ]; then gen=$stats_gen; fi
  if [ ! -f "$data" ] || [ "$gen" -nt "$data" ]; then
    if [ "$1" = stats ]; then
      "$gen" "$2" > "$data.tmp"
    else
      "$gen" "${GEN[$1]}" "$2" > "$data.tmp"
    fi
    mv "$data.tmp" "$data"
  fi
  echo "$data"
}

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

# `logformat pattern` over the same lines, the same fields without a regex.
GEN[pattern]=combined
CLAUSE[pattern]="logformat pattern '<ip> <ident> <user> [<time>] \"<method> <path> <protocol>\" <status> <bytes> \"<referer>\" \"<agent>\"'"
MQ1[pattern]='method status bytes'
DUCK[pattern Q1]="${DUCK[combined Q1]}"
DUCK[pattern count]="${DUCK[combined count]}"
MAWK[pattern Q1]="${MAWK[combined Q1]}"
MAWK[pattern count]="${MAWK[combined count]}"

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
