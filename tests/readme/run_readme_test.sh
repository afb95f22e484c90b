#!/usr/bin/env bash
# Follows the README literally on a clean clone of the committed tree: the
# quick start's sample run, the build-tree Python line and the Python
# example (its printed result), then the install section's build and
# `cmake --install build/release --prefix ~/opt/mapr` (HOME is a folder of
# the test's own), and runs the installed command and Python package. Each
# command is read from README.md, not copied here, so the test fails when
# the README names a line that does not work.
#
# A release build of the whole tree (about 6 minutes on 2 cores): labelled
# `slow` and `readme`, so the default test run leaves it out; .ci/run runs
# it (`ctest --test-dir build/release -L readme`).
# usage: run_readme_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2

step() { printf '\n=== %s\n' "$*"; }
fail() { echo "readme_test: FAILED: $*" >&2; exit 1; }
# The README line that contains `needle`, without a trailing `# comment`
# and surrounding blanks; fails if there is none.
readme_line() {
  local line
  line=$(grep -F -m 1 -- "$1" "$clone/README.md") ||
    fail "README.md no longer has a line with: $1"
  line=${line%%  #*}
  line=${line#"${line%%[! ]*}"}
  printf '%s\n' "${line%"${line##*[! ]}"}"
}

rm -rf "$work"
mkdir -p "$work/home"
clone=$work/mapr
step "git clone $src"
git clone -q --no-local "$src" "$clone"
cd "$clone"
export HOME=$work/home

sample=$(readme_line 'scripts/run-sample    #')
step "$sample"
out=$(eval "$sample" 2>"$work/sample.err") || { cat "$work/sample.err"; fail "$sample"; }
# It says on stderr that it built the Python module, and for which python3.
python=$(python3 -c 'import sys; print(sys.executable)')
grep -qxF "run-sample: the Python module is built for $python ($(python3 -c 'import platform; print("Python", platform.python_version())'))" "$work/sample.err" ||
  { cat "$work/sample.err"; fail "run-sample did not say that it built the Python module for $python"; }
# The output the README shows under `$ scripts/run-sample`, exactly.
shown=$(awk '$0 == "$ scripts/run-sample" {on = 1; next} on && /^```/ {exit} on' README.md)
[ -n "$shown" ] || fail "README.md shows no output of scripts/run-sample"
[ "$out" = "$shown" ] || fail "scripts/run-sample printed
$out
and the README shows
$shown"

# Its decisions do not change from run to run: again, five times, the same
# result and the same word on the module (an earlier version decided through
# a pipe whose reader could exit early, and 1 run in 6 built no module).
for i in 1 2 3 4 5; do
  again=$(eval "$sample" 2>"$work/sample.err") || { cat "$work/sample.err"; fail "$sample (run $i)"; }
  [ "$again" = "$out" ] || fail "run $i of $sample printed another result"
  grep -qF "run-sample: the Python module is built for $python" "$work/sample.err" ||
    { cat "$work/sample.err"; fail "run $i of $sample did not build the module"; }
done

# `PYTHONPATH=build/release/bindings/python python3 -c 'import mapr'`,
# as the README writes it inside backticks.
pyline=$(grep -o -m 1 "PYTHONPATH=build/release/bindings/python python3 -c 'import mapr'" README.md) ||
  fail "README.md no longer names the build-tree Python line"
step "$pyline"
eval "$pyline" || fail "the build-tree Python line fails"

# Where CMake finds no pybind11, the same line fails and names the cause
# (a configured tree without the module holds a stand-in package), rather
# than importing the sources' header folder mapr/ as an empty package.
step "the build-tree Python line without pybind11"
cmake -S . -B "$work/no-pybind11" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON \
  -DMAPR_BUILD_TESTS=OFF -DMAPR_BUILD_BENCHMARKS=OFF -DMAPR_BUILD_EXAMPLES=OFF >"$work/no-pybind11.log" 2>&1 ||
  { cat "$work/no-pybind11.log"; fail "configuring without pybind11"; }
if err=$(eval "${pyline//build\/release/$work/no-pybind11}" 2>&1); then
  fail "without the module, the build-tree Python line exits 0"
fi
case $err in
  *"ImportError: mapr's Python module was not built in $work/no-pybind11: CMake found no pybind11"*) ;;
  *) fail "without the module, the build-tree Python line said: $err" ;;
esac

# The README's Python example and the result its comment promises.
example=$(awk '/^  ```python$/ {on = 1; next} on && /^  ```$/ {exit} on {sub(/^  /, ""); print}' README.md)
[ -n "$example" ] || fail "README.md has no Python example"
want=$(grep -o '# \[.*\]$' <<<"$example" | sed 's/^# //')
step "the Python example (expects $want)"
got=$(PYTHONPATH=build/release/bindings/python python3 -c "$example")
[ "$got" = "$want" ] || fail "the Python example printed '$got', not '$want'"

build=$(readme_line 'cmake --preset release && cmake --build --preset release')
step "$build"
eval "$build" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "the release build"; }
install=$(readme_line 'cmake --install build/release --prefix ~/opt/mapr')
step "$install"
eval "$install" >"$work/install.log" || fail "the install line"

prefix=$HOME/opt/mapr
step "the installed command"
query='from STATS select count($line),max($goroutines) group by $hostname'
out=$(cd / && "$prefix/bin/mapr" -o csv "$query" "$clone/examples/data/sample.log")
[ "$out" = "$(build/release/bindings/cli/mapr -o csv "$query" examples/data/sample.log)" ] ||
  fail "installed mapr printed: $out"
test -f "$prefix/include/mapr/mapr.h" || fail "no installed headers"
test -f "$prefix/lib/pkgconfig/mapr.pc" || fail "no mapr.pc"

step "the installed Python package"
# Where the interpreter searches no folder under the prefix, the package
# is in <prefix>/lib/python3.X/site-packages, which PYTHONPATH must name.
# (`find -quit`: no pipe whose reader exits before the writer.)
init=$(find "$prefix" -path '*/mapr/__init__.py' -print -quit)
[ -n "$init" ] || fail "no Python package installed under $prefix"
got=$(cd / && PYTHONPATH=$(dirname "$(dirname "$init")") python3 -c "$example")
[ "$got" = "$want" ] || fail "the installed package printed '$got', not '$want'"
echo "readme_test: OK"
