# Writes a golden test file (tests/golden/golden_test.cc's format) for the
# generators beside it (gen_*_goldens.py), from expected rows they compute
# themselves. Into this folder, or into DIR when the generator is run with
# `--out DIR` (parsed here, when a generator imports this module, so every
# generator has the option; generators_test.py uses it).
import argparse, csv, io, os

HERE = os.path.dirname(os.path.abspath(__file__))


def _out_dir():
    parser = argparse.ArgumentParser(
        description="Writes golden test files (<name>.test) whose expected "
                    "results are computed independently of mapr.")
    parser.add_argument(
        "--out", metavar="DIR", default=HERE,
        help="the folder to write them into (default: %(default)s)")
    return parser.parse_args().out


OUT = _out_dir()


def write(name, desc, query, lines, header, rows, stats=None):
    """Writes OUT/<name>.test: the comments, the query, one input of
    `lines`, and after `----` the CSV of `header` and `rows`."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, f"{name}.test"), "w") as f:
        f.write(f"# name: {name}\n# description: {desc}\n")
        if stats:
            f.write(f"# stats: {stats}\n")
        f.write(f"query {query}\ninput\n")
        for line in lines:
            f.write(line + "\n")
        f.write("----\n" + out.getvalue())
