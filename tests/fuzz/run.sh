#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined)
# in build/fuzz and runs each for SECONDS (default 60) on the checked-in
# corpus.  Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(compile_fuzzer pipeline_fuzzer format_fuzzer writer_fuzzer)
flags="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DMAPR_BUILD_TESTS=OFF -DMAPR_BUILD_BENCHMARKS=OFF -DMAPR_BUILD_EXAMPLES=OFF \
  -DMAPR_BUILD_CLI=OFF -DMAPR_BUILD_PYTHON=OFF -DMAPR_BUILD_FUZZERS=ON >/dev/null
cmake --build build/fuzz --target "${targets[@]}"
for t in "${targets[@]}"; do
  corpus="tests/fuzz/corpus/${t%_fuzzer}"
  work="build/fuzz/corpus-${t}"
  mkdir -p "$work"
  echo "== $t for ${seconds}s"
  "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "$work" "$corpus"
done
