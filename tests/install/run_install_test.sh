#!/bin/sh
# Installs a built mapr tree into a temporary prefix and builds and runs
# consumers against it: find_package(mapr) with the shared and the static
# library, and pkg-config (shared and static); then imports the installed
# Python package if there is one.
#
# usage: run_install_test.sh BUILD_DIR CONSUMER_SRC WORK_DIR GENERATOR CC CXX [PYTHON]
set -eu
build=$1 consumer=$2 work=$3 generator=$4 cc=$5 cxx=$6 python=${7:-}

step() { printf '\n=== %s\n' "$*"; }
fail() { echo "install_test: FAILED: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

# Layout: public headers only, both libraries, a versioned SONAME.
test -f "$prefix/include/mapr/mapr.h" || fail "mapr/mapr.h not installed"
test -f "$prefix/include/mapr/c_api.h" || fail "mapr/c_api.h not installed"
test ! -e "$prefix/include/mapr/internal" || fail "mapr/internal installed"
if [ -n "$(find "$prefix/include" -name '*.cc' -print -quit)" ]; then
  fail "sources installed"
fi
libdir=$(dirname "$(find "$prefix" -name libmapr.a -print -quit)")
test -f "$libdir/libmapr.a" || fail "libmapr.a not installed"
test -L "$libdir/libmapr.so" || fail "libmapr.so link not installed"
soname=$(objdump -p "$libdir/libmapr.so" | awk '/SONAME/ {print $2}')
case $soname in
  libmapr.so.[0-9]*) ;;
  *) fail "unexpected SONAME '$soname'" ;;
esac
test -f "$libdir/$soname" || fail "$soname not installed"
test -f "$libdir/cmake/mapr/mapr-config.cmake" || fail "no mapr-config.cmake"
test -f "$libdir/cmake/mapr/mapr-config-version.cmake" || fail "no version file"
test -f "$libdir/pkgconfig/mapr.pc" || fail "no mapr.pc"
# Only the public API is exported from the shared library.
# (Outputs are captured, then matched: no pipe into `grep -q`, which may
# exit before its writer.)
exported=$(nm -D --defined-only "$libdir/libmapr.so" | c++filt)
if printf '%s\n' "$exported" |
    grep -E ' mapr::(runtime|parser|plan|ast)::[A-Za-z_]+\(' >/dev/null; then
  fail "libmapr.so exports internal functions"
fi
# mapr/*_internal.h and mapr/*_testing.h are private; version.h is generated.
if [ -n "$(find "$prefix/include" \( -name '*_internal.h' -o \
    -name '*_testing.h' \) -print -quit)" ]; then
  fail "private mapr/*_internal.h or *_testing.h headers installed"
fi
test -f "$prefix/include/mapr/version.h" || fail "mapr/version.h not installed"
# One version everywhere: the header, mapr.pc, the CMake version file and
# the shared library's file name.
version=$(sed -n 's/^#define MAPR_VERSION_STRING "\(.*\)"$/\1/p' \
  "$prefix/include/mapr/version.h")
test -n "$version" || fail "no MAPR_VERSION_STRING in mapr/version.h"
pc_version=$(sed -n 's/^Version: //p' "$libdir/pkgconfig/mapr.pc")
test "$pc_version" = "$version" ||
  fail "mapr.pc has version '$pc_version', mapr/version.h '$version'"
cmake_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
  "$libdir/cmake/mapr/mapr-config-version.cmake")
test "$cmake_version" = "$version" ||
  fail "mapr-config-version.cmake has '$cmake_version', mapr/version.h '$version'"
test -f "$libdir/libmapr.so.$version" || fail "no libmapr.so.$version"
echo "layout OK: $soname, version $version"

run_consumer() {  # name, extra cmake args...
  name=$1
  shift
  step "find_package consumer ($name)"
  cmake -S "$consumer" -B "$work/$name" -G "$generator" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    "$@" >"$work/$name.configure.log" || {
      cat "$work/$name.configure.log"; fail "configure ($name)"; }
  grep -q "mapr 0.* from $prefix/" "$work/$name.configure.log" ||
    fail "mapr was not found in $prefix"
  cmake --build "$work/$name" || fail "build ($name)"
  "$work/$name/consumer" || fail "run consumer ($name)"
  "$work/$name/c_consumer" || fail "run c_consumer ($name)"
}

run_consumer find_package_shared
case $(ldd "$work/find_package_shared/consumer") in
  *"$libdir/$soname"*) ;;
  *) fail "the shared consumer does not use $libdir/$soname" ;;
esac

run_consumer find_package_static -DMAPR_USE_STATIC_LIBS=ON
case $(ldd "$work/find_package_static/consumer") in
  *libmapr*) fail "the static consumer needs libmapr.so" ;;
esac

step "pkg-config consumer (shared)"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pkg-config --exists --print-errors mapr || fail "pkg-config cannot use mapr.pc"
test "$(pkg-config --variable=libdir mapr)" -ef "$libdir" ||
  fail "mapr.pc libdir is not $libdir"
# shellcheck disable=SC2046 # pkg-config output is meant to be split.
"$cxx" -std=c++20 -o "$work/pc_consumer" "$consumer/main.cc" \
  $(pkg-config --cflags --libs mapr) -Wl,-rpath,"$libdir" ||
  fail "pkg-config C++ build"
"$work/pc_consumer" || fail "run pkg-config consumer"
# shellcheck disable=SC2046
"$cc" -std=c11 -o "$work/pc_c_consumer" "$consumer/main.c" \
  $(pkg-config --cflags --libs mapr) -Wl,-rpath,"$libdir" ||
  fail "pkg-config C build"
"$work/pc_c_consumer" || fail "run pkg-config C consumer"

step "pkg-config consumer (static)"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -o "$work/pc_static_consumer" "$consumer/main.cc" \
  $(pkg-config --cflags mapr) "$libdir/libmapr.a" \
  $(pkg-config --static --libs mapr | sed 's/-lmapr\b//') ||
  fail "pkg-config static build"
case $(ldd "$work/pc_static_consumer") in
  *libmapr*) fail "the static pkg-config consumer needs libmapr.so" ;;
esac
"$work/pc_static_consumer" || fail "run static pkg-config consumer"
# A C program links the static library with the C compiler: the C++
# runtime must come from `pkg-config --static --libs` (Libs.private).
# shellcheck disable=SC2046
"$cc" -std=c11 -o "$work/pc_static_c_consumer" "$consumer/main.c" \
  $(pkg-config --cflags mapr) "$libdir/libmapr.a" \
  $(pkg-config --static --libs mapr | sed 's/-lmapr\b//') ||
  fail "pkg-config static C build (cc, libmapr.a)"
"$work/pc_static_c_consumer" || fail "run static pkg-config C consumer"

step "installed mapr command without LD_LIBRARY_PATH"
if [ -x "$prefix/bin/mapr" ]; then
  env -i PATH=/usr/bin:/bin "$prefix/bin/mapr" --version ||
    fail "installed bin/mapr does not run without an environment"
  count=$(printf 'a\nb\n' | env -i PATH=/usr/bin:/bin "$prefix/bin/mapr" \
    -o csv 'select count($line) group by *' -) ||
    fail "installed bin/mapr failed"
  [ "$count" = "count(\$line)
2" ] || fail "installed bin/mapr gives a wrong count: $count"
fi

if [ -n "$python" ]; then
  pkg=$(find "$prefix" -path '*/mapr/__init__.py' -print -quit)
  if [ -n "$pkg" ]; then
    step "installed Python package"
    PYTHONPATH=$(dirname "$(dirname "$pkg")") PYTHONDONTWRITEBYTECODE=1 \
      "$python" -c '
import mapr, sys
r = mapr.run("select count($line) group by *", ["a", "b"])
assert r.rows == [(2,)], r.rows
assert mapr.__file__.startswith(sys.argv[1]), mapr.__file__
print("python: mapr", mapr.__version__, "OK from", mapr.__file__)
' "$prefix" || fail "installed Python package"
  fi
fi

step "install_test: all OK"
