#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined)
# in build/fuzz and runs each on the checked-in corpus.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]    each target for SECONDS of wall
#                                              time (default 60; CI uses this)
#   FUZZ_CPU_SECONDS=1800 tests/fuzz/run.sh 0 [TARGET...]
#                                              each target until it has used
#                                              that much CPU time (long runs on
#                                              a shared machine; may be nice'd)
#
# A crash, leak, timeout or OOM makes the script exit non-zero; libFuzzer
# leaves the input as build/fuzz/artifacts/<target>/crash-* etc.  Turn each
# into a named regression test (tests/bad_input/) before fixing it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(compile_fuzzer pipeline_fuzzer format_fuzzer writer_fuzzer partial_fuzzer regex_fuzzer access_format_fuzzer logfmt_format_fuzzer syslog_format_fuzzer json_format_fuzzer journal_fuzzer http_request_fuzzer partial_stream_fuzzer)
cpu_seconds="${FUZZ_CPU_SECONDS:-0}"
cc="${CC_FUZZ:-clang}"; cxx="${CXX_FUZZ:-clang++}"
flags="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DMAPR_BUILD_TESTS=OFF -DMAPR_BUILD_BENCHMARKS=OFF -DMAPR_BUILD_EXAMPLES=OFF \
  -DMAPR_BUILD_CLI=OFF -DMAPR_BUILD_PYTHON=OFF -DMAPR_BUILD_FUZZERS=ON >/dev/null
cmake --build build/fuzz --target "${targets[@]}"

# CPU seconds (user + system) used so far by process $1.
cpu_of() {
  local stat; stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo -1; return; }
  stat="${stat##*) }"; set -- $stat
  echo $(( (${12} + ${13}) / $(getconf CLK_TCK) ))
}

# ASan returning freed memory to the OS (madvise) can stall a run for
# seconds on a loaded machine, which libFuzzer then reports as a timeout;
# keep the memory (the RSS limit still applies).
export ASAN_OPTIONS="allocator_release_to_os_interval_ms=-1:${ASAN_OPTIONS:-}"

status=0
for t in "${targets[@]}"; do
  corpus="tests/fuzz/corpus/${t%_fuzzer}"
  work="build/fuzz/corpus-${t}"
  artifacts="build/fuzz/artifacts/${t}/"
  mkdir -p "$work" "$artifacts"
  args=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$artifacts" "$work" "$corpus")
  if [ "$cpu_seconds" -gt 0 ]; then
    echo "== $t for ${cpu_seconds} CPU seconds"
    "build/fuzz/tests/fuzz/$t" "${args[@]}" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      used=$(cpu_of "$pid")
      if [ "$used" -ge "$cpu_seconds" ]; then kill -INT "$pid"; break; fi
      sleep 5
    done
    # libFuzzer exits 72 after SIGINT; anything else non-zero is a finding.
    rc=0; wait "$pid" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 72 ]; then status=1; fi
  else
    echo "== $t for ${seconds}s (log: build/fuzz/$t.log)"
    if "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" "${args[@]}" \
        > "build/fuzz/$t.log" 2>&1; then
      grep -E '^(stat::|Done )' "build/fuzz/$t.log" || tail -n 5 "build/fuzz/$t.log"
    else
      status=1
      echo "!! $t found a problem:"
      tail -n 80 "build/fuzz/$t.log"
    fi
  fi
done
exit "$status"
