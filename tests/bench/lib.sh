# Set-up shared by the whole-process bench scripts (run.sh, compressed.sh,
# sketches.sh, distributed.sh); sourced from the repository's root.

# Builds the release preset's `mapr` command (build/release/bindings/cli/mapr).
bench_release_mapr() {
  cmake --preset release >/dev/null
  cmake --build --preset release --target mapr_cli >/dev/null
}

# Prints the path of a deterministic STATS log of about $1 MB from
# tests/bench/gen_stats_log.cc, generated once and cached under build/bench/.
bench_stats_log() {
  local size_mb="$1"
  mkdir -p build/bench
  local gen=build/bench/gen_stats_log
  if [ ! -x "$gen" ] || [ tests/bench/gen_stats_log.cc -nt "$gen" ]; then
    g++ -O2 -std=c++20 tests/bench/gen_stats_log.cc -o "$gen"
  fi
  local data="build/bench/stats_${size_mb}mb.log"
  [ -f "$data" ] || "$gen" $((size_mb * 1000 * 1000)) > "$data"
  echo "$data"
}
