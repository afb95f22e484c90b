# Set-up shared by the whole-process bench scripts (run.sh, compressed.sh,
# sketches.sh, distributed.sh, functions.sh, partitioned.sh and the
# formats scripts); sourced from the repository's root.

# Builds the release preset's `mapr` command (build/release/bindings/cli/mapr).
bench_release_mapr() {
  cmake --preset release >/dev/null
  cmake --build --preset release --target mapr_cli >/dev/null
}

# Prints the path of data generator $1 (gen_stats_log or gen_format_logs,
# sharing tests/bench/rng.h), compiled under build/bench/ when missing or
# older than its source.
bench_generator() {
  local gen="build/bench/$1"
  mkdir -p build/bench
  if [ ! -x "$gen" ] || [ "tests/bench/$1.cc" -nt "$gen" ] ||
     [ tests/bench/rng.h -nt "$gen" ]; then
    g++ -O2 -std=c++20 -I. "tests/bench/$1.cc" -o "$gen"
  fi
  echo "$gen"
}

# Prints the path of a deterministic STATS log of about $1 MB from
# tests/bench/gen_stats_log.cc, generated once and cached under build/bench/.
bench_stats_log() {
  local size_mb="$1"
  local gen
  gen=$(bench_generator gen_stats_log)
  local data="build/bench/stats_${size_mb}mb.log"
  [ -f "$data" ] || "$gen" $((size_mb * 1000 * 1000)) > "$data"
  echo "$data"
}
