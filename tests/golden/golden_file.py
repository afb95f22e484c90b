# Writes a golden test file (tests/golden/golden_test.cc's format) for the
# generators beside it (gen_*_goldens.py), from expected rows they compute
# themselves.
import csv, io, os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, desc, query, lines, header, rows, stats=None):
    """Writes HERE/<name>.test: the comments, the query, one input of
    `lines`, and after `----` the CSV of `header` and `rows`."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    with open(os.path.join(HERE, f"{name}.test"), "w") as f:
        f.write(f"# name: {name}\n# description: {desc}\n")
        if stats:
            f.write(f"# stats: {stats}\n")
        f.write(f"query {query}\ninput\n")
        for line in lines:
            f.write(line + "\n")
        f.write("----\n" + out.getvalue())
