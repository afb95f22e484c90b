#!/usr/bin/python3
"""Checks that every `#include "..."` of the project points down the layers.

    tests/layering/check_includes.py [--root DIR]   # check the tree
    tests/layering/check_includes.py --self-test    # check this checker

The folders are layered (docs/architecture.md, "Layers"):

    util/ <- mapr/ (vocabulary) <- parser/ <- runtime/ <- api/ <- io/
          <- bindings/ (c, cli, python)

and a file may include only files of its own layer and of the layers below
it. Besides:

  * mapr/ holds the installed headers. The vocabulary ones (VOCABULARY
    below: status, options, log_format, result, and export and version
    which they need) and mapr/*.cc are the mapr/ layer; they include only
    each other (and util/ for the .cc files). Every other installed header
    belongs to the layer that implements it (HEADER_LAYER: aggregator.h to
    api/, files.h to io/, ...); a mapr/ header missing from both lists is an
    error, so a new one gets a layer when it is added.
  * An installed header includes only installed headers (else an installed
    tree breaks).
  * bindings/ uses the public API only: besides its own folder it includes
    installed headers and util/, never parser/, runtime/, api/ or io/.
  * examples/ stand for code outside the project: an example may include the
    installed headers (the mapr/ headers that cmake/mapr_install.cmake
    installs) and the files of its own folder, nothing else.
  * Test files (*_test.*, *_test_helper.*, *_benchmark.*, *_fuzzer.*) sit
    beside the code they test but are not part of the library: like tests/,
    they may include every layer (a parser test plans with the runtime's
    catalog; an aggregate test drives the public facade) and tests/testing/.
    Nothing else includes tests/.

Scanned: every .h, .cc, .inc and .c under the layers and examples/. Includes of other roots (absl/, gtest/, pybind11/...)
are not the project's and are not checked. Each violation is printed as

    FILE:LINE: "FILE" may not include "TARGET" (layer order ...)

and makes the exit status 1. ALLOWED lists known violations that are
tolerated for now; an entry that no longer matches is an error too, so the
list only shrinks.
"""

import argparse
import glob
import os
import re
import sys
import tempfile

LAYERS = ["util", "mapr", "parser", "runtime", "api", "io", "bindings"]
SCANNED = LAYERS + ["examples"]
EXTENSIONS = (".h", ".cc", ".inc", ".c")
# Roots of project paths: an include starting with one of these is checked.
PROJECT_ROOTS = set(SCANNED) | {"tests"}

# The installed headers of the shared vocabulary (statuses, options, log
# formats, results, and the two they need): the mapr/ layer.
VOCABULARY = {
    "mapr/status.h",
    "mapr/options.h",
    "mapr/log_format.h",
    "mapr/result.h",
    "mapr/export.h",
    "mapr/version.h",
}

# Every other installed header, with the layer that implements it.
HEADER_LAYER = {
    "mapr/aggregator.h": "api",
    "mapr/alert.h": "api",
    "mapr/catalog.h": "api",
    "mapr/format_guess.h": "runtime",
    "mapr/line_splitter.h": "api",
    "mapr/outfile.h": "api",
    "mapr/partial.h": "api",
    "mapr/partial_reducer.h": "api",
    "mapr/prometheus.h": "api",
    "mapr/query.h": "api",
    "mapr/time.h": "api",
    "mapr/turbo_aggregate.h": "api",
    "mapr/files.h": "io",
    "mapr/input.h": "io",
    "mapr/journal.h": "io",
    "mapr/mapr.h": "io",
    "mapr/c_api.h": "bindings",
}

# Folders whose files bindings/ may not include (the public API only).
PRIVATE_TO_BINDINGS = {"parser", "runtime", "api", "io"}

# Known violations, tolerated until they are fixed: (including file,
# included file), each with the reason. Fix the include, then delete the
# entry (a stale entry fails the check). Owners: parser/ and runtime/.
ALLOWED = frozenset({
    # Known violations tolerated for now, as (file, included file). Empty:
    # keep it so.
})

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
TEST_FILE_RE = re.compile(r"_(test|test_helper|benchmark|fuzzer)\.[a-z]+$")
EXCLUDE_RE = re.compile(
    r'list\s*\(\s*FILTER\s+_mapr_public_headers\s+EXCLUDE\s+REGEX\s+"([^"]+)"')
INSTALL_GLOB_RE = re.compile(
    r"file\s*\(\s*GLOB\s+_mapr_public_headers\b(.*?)\)", re.S)
SOURCE_DIR_RE = re.compile(r'"\$\{PROJECT_SOURCE_DIR\}/([^"]+)"')

ORDER_TEXT = "layer order: " + " <- ".join(LAYERS)


def installed_headers(root):
    """The mapr/ headers installed by cmake/mapr_install.cmake, read from its
    `file(GLOB _mapr_public_headers ...)` patterns."""
    path = os.path.join(root, "cmake", "mapr_install.cmake")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = INSTALL_GLOB_RE.search(text)
    patterns = SOURCE_DIR_RE.findall(m.group(1)) if m else []
    if not patterns:
        raise RuntimeError(
            "%s: no file(GLOB _mapr_public_headers \"${PROJECT_SOURCE_DIR}/"
            "...\") found; update installed_headers() in %s" %
            (path, os.path.relpath(__file__, root)))
    # The list(FILTER ... EXCLUDE REGEX "...") that follows the glob, if any.
    exclude = EXCLUDE_RE.search(text)
    excluded = (re.compile(exclude.group(1).replace("\\\\", "\\"))
                if exclude else None)
    headers = set()
    for pattern in patterns:
        for h in glob.glob(os.path.join(root, pattern)):
            rel = os.path.relpath(h, root).replace(os.sep, "/")
            if excluded is None or not excluded.search(rel):
                headers.add(rel)
    # Generated into the build tree from mapr/version.h.in and installed.
    headers.add("mapr/version.h")
    return headers


def layer_of(path):
    """The layer of a file: its top folder, except for the installed headers
    of HEADER_LAYER; None for a mapr/ header in neither list."""
    top = path.split("/", 1)[0]
    if top == "mapr" and path.endswith(".h") and path not in VOCABULARY:
        return HEADER_LAYER.get(path)
    return top


def is_test_file(path):
    return path.startswith("tests/") or TEST_FILE_RE.search(path) is not None


def may_include(src, dst, installed):
    """None if `src` may include `dst` (paths from the root), else the rule
    that forbids it."""
    src_layer, dst_layer = layer_of(src), layer_of(dst)
    if dst_layer is None:
        return "%s has no layer: add it to VOCABULARY or HEADER_LAYER" % dst
    if dst.startswith("tests/"):
        if dst.startswith("tests/testing/") and is_test_file(src):
            return None
        return "only test files include tests/, and only tests/testing/"
    if src in VOCABULARY:
        if dst in VOCABULARY:
            return None
        return ("a vocabulary header includes only the vocabulary headers " +
                ", ".join(sorted(VOCABULARY)))
    if src in installed and dst not in installed:
        return "an installed header includes only installed mapr/ headers"
    if is_test_file(src) and src_layer != "examples":
        return None if dst_layer in LAYERS else "unknown folder"
    if src_layer == "examples":
        if dst in installed or os.path.dirname(dst) == os.path.dirname(src):
            return None
        return ("an example includes only installed mapr/ headers and the "
                "files of its own folder")
    if dst_layer == "examples":
        return "only an example includes examples/ files"
    if src_layer not in LAYERS or dst_layer not in LAYERS:
        return "unknown folder"
    if src_layer == "bindings" and dst.split("/", 1)[0] in PRIVATE_TO_BINDINGS:
        return ("bindings/ uses the public API only: installed mapr/ headers, "
                "util/ and bindings/")
    if LAYERS.index(dst_layer) <= LAYERS.index(src_layer):
        return None
    allowed = LAYERS[:LAYERS.index(src_layer) + 1]
    return "%s; %s may include %s" % (ORDER_TEXT, src_layer, ", ".join(allowed))


def includes_of(root, path):
    """Yields (line number, included path from the root) for the project
    includes of `path`."""
    with open(os.path.join(root, path), encoding="utf-8",
              errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            target = m.group(1)
            if "/" not in target:
                # A bare name is relative to the including file.
                local = os.path.join(os.path.dirname(path), target)
                if os.path.exists(os.path.join(root, local)):
                    yield number, local.replace(os.sep, "/")
                continue
            if target.split("/", 1)[0] in PROJECT_ROOTS:
                yield number, os.path.normpath(target).replace(os.sep, "/")


def scanned_files(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root).replace(os.sep, "/")


def check(root, allowed=frozenset()):
    """Returns (violations, tolerated, stale): the messages of the
    violations not in `allowed`, of those in it, and the entries of
    `allowed` that match nothing."""
    installed = installed_headers(root)
    violations, tolerated, used = [], [], set()
    for path in scanned_files(root):
        if layer_of(path) is None:
            violations.append(
                '%s:1: "%s" may not include anything (it has no layer: add '
                'it to VOCABULARY or HEADER_LAYER)' % (path, path))
        for number, target in includes_of(root, path):
            why = may_include(path, target, installed)
            if why is None:
                continue
            message = '%s:%d: "%s" may not include "%s" (%s)' % (
                path, number, path, target, why)
            if (path, target) in allowed:
                used.add((path, target))
                tolerated.append(message)
            else:
                violations.append(message)
    stale = sorted(set(allowed) - used)
    return violations, tolerated, stale


def run(root):
    violations, tolerated, stale = check(root, ALLOWED)
    for message in tolerated:
        print("allowed for now (ALLOWED in %s): %s" %
              (os.path.basename(__file__), message))
    for message in violations:
        print(message)
    for src, dst in stale:
        print('%s: stale ALLOWED entry ("%s", "%s"): the include is gone; '
              "delete the entry" % (os.path.basename(__file__), src, dst))
    if violations or stale:
        print("%d include(s) point the wrong way, %d stale allow-list "
              "entr(ies)" % (len(violations), len(stale)))
        return 1
    print("includes follow the layers (%d tolerated by ALLOWED)" %
          len(tolerated))
    return 0


def self_test():
    """The checker on a synthetic tree: every bad include is reported, no
    good one is."""
    files = {
        "cmake/mapr_install.cmake":
            'file(GLOB _mapr_public_headers CONFIGURE_DEPENDS\n'
            '  "${PROJECT_SOURCE_DIR}/mapr/*.h")\n',
        "util/a.h": '#include "util/b.h"\n#include "parser/p.h"\n',
        "util/b.h": '#include "mapr/status.h"\n#include "absl/x.h"\n',
        "mapr/aggregator.h": '#include "mapr/query.h"\n#include "mapr/files.h"\n',
        "mapr/files.h": '#include "mapr/aggregator.h"\n',
        "mapr/new.h": "",
        "io/files.cc": '#include "mapr/files.h"\n#include "api/a.h"\n'
                       '#include "runtime/r.h"\n',
        "api/a.h": '#include "io/i.h"\n#include "parser/p.h"\n',
        "io/i.h": "",
        "bindings/cli/g.cc": '#include "mapr/files.h"\n#include "api/a.h"\n'
                             '#include "io/i.h"\n#include "parser/p.h"\n',
        "parser/p.h": '#include "util/a.h"\n#include "runtime/r.h"\n',
        "parser/p_test.cc": '#include "tests/testing/m.h"\n'
                            '#include "tests/other/x.h"\n',
        "runtime/r.h": '#include "parser/p.h"\n#include "mapr/result.h"\n'
                       '#include "mapr/query.h"\n',
        "runtime/r.inc": '  #  include "bindings/cli/f.h"\n',
        "runtime/r.cc": '#include "r.h"\n#include "tests/testing/m.h"\n',
        "mapr/status.h": '#include "mapr/export.h"\n#include "mapr/query.h"\n',
        "mapr/export.h": "",
        "mapr/result.h": '#include "mapr/export.h"\n',
        "mapr/query.h": '#include "mapr/status.h"\n#include "util/a.h"\n',
        "api/query.cc": '#include "runtime/r.h"\n#include "mapr/query.h"\n',
        "mapr/private.inc": '#include "examples/e/e.h"\n',
        "bindings/cli/f.h": '#include "mapr/query.h"\n#include "util/a.h"\n'
                            '#include "bindings/c/c.h"\n',
        "bindings/c/c.h": "",
        "examples/e/e.h": '#include "mapr/query.h"\n#include "e2.h"\n',
        "examples/e/e2.h": '#include "examples/e/e.h"\n#include "util/a.h"\n'
                           '#include "examples/other/o.h"\n',
        "examples/other/o.h": "",
        "examples/e/e_test.cc": '#include "tests/testing/m.h"\n',
        "tests/testing/m.h": "",
        "tests/other/x.h": "",
    }
    bad = {
        ("util/a.h", "parser/p.h"),
        ("util/b.h", "mapr/status.h"),
        ("mapr/aggregator.h", "mapr/files.h"),
        ("mapr/new.h", None),
        ("api/a.h", "io/i.h"),
        ("bindings/cli/g.cc", "api/a.h"),
        ("bindings/cli/g.cc", "io/i.h"),
        ("bindings/cli/g.cc", "parser/p.h"),
        ("parser/p.h", "runtime/r.h"),
        ("parser/p_test.cc", "tests/other/x.h"),
        ("runtime/r.h", "mapr/query.h"),
        ("runtime/r.inc", "bindings/cli/f.h"),
        ("runtime/r.cc", "tests/testing/m.h"),
        ("mapr/status.h", "mapr/query.h"),
        ("mapr/query.h", "util/a.h"),
        ("mapr/private.inc", "examples/e/e.h"),
        ("examples/e/e2.h", "util/a.h"),
        ("examples/e/e2.h", "examples/other/o.h"),
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)),
                        exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        failures = []
        violations, _, _ = check(root)
        found = set()
        for message in violations:
            m = re.match(r'([^:]+):1: "([^"]+)" may not include anything',
                         message)
            if m and m.group(1) == m.group(2):
                found.add((m.group(1), None))
                continue
            m = re.match(r'([^:]+):\d+: "([^"]+)" may not include "([^"]+)"',
                         message)
            if not m or m.group(1) != m.group(2):
                failures.append("badly formed message: " + message)
                continue
            found.add((m.group(1), m.group(3)))
        for pair in sorted(bad - found):
            failures.append("not reported: %s includes %s" % pair)
        for pair in sorted(found - bad):
            failures.append("wrongly reported: %s includes %s" % pair)
        if "util/a.h:2: " not in "\n".join(violations):
            failures.append("wrong line number for util/a.h")
        # The allow-list: a listed violation is tolerated, a stale entry
        # reported.
        allowed = {("util/a.h", "parser/p.h"), ("util/a.h", "util/gone.h")}
        violations, tolerated, stale = check(root, allowed)
        if len(violations) != len(bad) - 1 or len(tolerated) != 1:
            failures.append("allow-list not applied: %d violations, %d "
                            "tolerated" % (len(violations), len(tolerated)))
        if stale != [("util/a.h", "util/gone.h")]:
            failures.append("stale entries: %r" % (stale,))
        # run() fails on the synthetic tree.
        global ALLOWED
        saved, ALLOWED = ALLOWED, frozenset()
        try:
            with open(os.devnull, "w", encoding="utf-8") as devnull:
                stdout, sys.stdout = sys.stdout, devnull
                try:
                    code = run(root)
                finally:
                    sys.stdout = stdout
        finally:
            ALLOWED = saved
        if code != 1:
            failures.append("run() returned %d on bad includes" % code)
    for failure in failures:
        print("self-test: " + failure)
    if failures:
        return 1
    print("self-test: %d bad includes reported, good ones accepted" %
          len(bad))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                        help="the repository (default: this script's)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on a synthetic tree")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    return run(os.path.abspath(args.root))


if __name__ == "__main__":
    sys.exit(main())
