#!/usr/bin/env bash
# Follows the README literally on a clean clone of the committed tree: the
# quick start's sample run, the build-tree Python line and the Python
# example (its printed result), then the install section's build and
# `cmake --install build/release --prefix ~/opt/mapr` (HOME is a folder of
# the test's own), and runs the installed command and Python package. Each
# command is read from README.md, not copied here, so the test fails when
# the README names a line that does not work.
#
# Slow (a release build of the whole tree): labelled `slow` and `readme`,
# run it with `ctest --test-dir build/dev -L readme` (README, "Tests").
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
out=$(eval "$sample")
# The output the README shows under `$ scripts/run-sample`, exactly.
shown=$(awk '$0 == "$ scripts/run-sample" {on = 1; next} on && /^```/ {exit} on' README.md)
[ -n "$shown" ] || fail "README.md shows no output of scripts/run-sample"
[ "$out" = "$shown" ] || fail "scripts/run-sample printed
$out
and the README shows
$shown"

# `PYTHONPATH=build/release/bindings/python python3 -c 'import mapr'`,
# as the README writes it inside backticks.
pyline=$(grep -o -m 1 "PYTHONPATH=build/release/bindings/python python3 -c 'import mapr'" README.md) ||
  fail "README.md no longer names the build-tree Python line"
step "$pyline"
eval "$pyline" || fail "the build-tree Python line fails"

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
init=$(find "$prefix" -path '*/mapr/__init__.py' | head -n 1)
[ -n "$init" ] || fail "no Python package installed under $prefix"
got=$(cd / && PYTHONPATH=$(dirname "$(dirname "$init")") python3 -c "$example")
[ "$got" = "$want" ] || fail "the installed package printed '$got', not '$want'"
echo "readme_test: OK"
