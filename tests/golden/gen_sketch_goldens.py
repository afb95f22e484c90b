#!/usr/bin/env python3
# Writes percentiles_exact, dcount_exact, stddev_variance and
# having_percentile_dcount.test (run from anywhere: /usr/bin/python3 tests/golden/gen_sketch_goldens.py).
# Generates golden tests for the issue-16 aggregates; the expected results
# are computed here, independently of mapr (exact ranks, sets, Fractions).
import random, statistics
from fractions import Fraction

import golden_file
P = "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
def fmt(v): return "%.6f" % v
def rank(vals, num, den):
    v = sorted(vals); return v[num * (len(v) - 1) // den]

def write(name, desc, query, lines, header, rows):
    golden_file.write(name, desc, query, lines, header.split(","), rows)

random.seed(16)
# 1. percentiles, exact (few values per group), with non-numeric and missing x.
lines, vals, counts = [], {}, {}
for i in range(60):
    y = "abc"[i % 3]
    if i % 11 == 0:
        lines.append(P + f"y={y}|x=n/a"); counts[y] = counts.get(y, 0) + 1; continue
    if i % 13 == 0:
        lines.append(P + f"y={y}"); continue
    x = round(random.lognormvariate(2, 1), 3)
    if i % 7 == 0: x = -x
    vals.setdefault(y, []).append(x)
    counts[y] = counts.get(y, 0) + 1
    lines.append(P + f"y={y}|x={x}")
rows = []
for y in sorted(vals):
    v = vals[y]
    rows.append([y, fmt(rank(v,1,2)), fmt(rank(v,9,10)), fmt(rank(v,999,1000)),
                 fmt(rank(v,0,1)), fmt(rank(v,1,1)), fmt(rank(v,1,4)), str(counts[y])])
write("percentiles_exact",
      "median, pN and pN.N: the value at rank floor(q*(n-1)) of the sorted numeric values, no interpolation; non-numeric and missing values are skipped (count(x) still counts n/a); exact below 1024 values. DTail rejects these aggregates.",
      "from STATS select y,median(x),p90(x),p99.9(x),p0(x),p100(x),p25(x),count(x) group by y",
      lines, "y,median(x),p90(x),p99.9(x),p0(x),p100(x),p25(x),count(x)", rows)

# 2. dcount: byte-for-byte distinct values, empty values count, missing do not.
lines, sets = [], {}
words = ["GET", "get", "POST", "", "GET ", "12", "12.0", "x"]
for i in range(80):
    y = "pq"[i % 2]
    if i % 9 == 0:
        lines.append(P + f"y={y}"); continue
    w = random.choice(words)
    sets.setdefault(y, set()).add(w)
    lines.append(P + f"m={w}|y={y}")
rows = [[y, str(len(sets[y]))] for y in sorted(sets)]
write("dcount_exact",
      "dcount counts distinct values compared byte for byte (GET, get and 'GET ' (a space inside the line) differ; 12 and 12.0 differ; an empty value counts; a missing field does not); exact below 4096 distinct values. DTail rejects dcount.",
      "from STATS select y,dcount(m) group by y", lines, "y,dcount(m)", rows)

# 3. stddev / variance, sample and population; n < 2 renders 0.
lines, vals = [], {}
for i in range(50):
    y = "uvw"[i % 3]
    if y == "w" and vals.get("w"):
        continue  # w keeps a single value
    x = round(random.uniform(-50, 150), 2) + (1e6 if y == "v" else 0)
    vals.setdefault(y, []).append(x)
    lines.append(P + f"y={y}|x={x}")
def var(v, sample):
    n = len(v)
    if n < 2: return 0.0
    fv = [Fraction(x) for x in v]
    m = sum(fv) / n
    return float(sum((x - m) ** 2 for x in fv) / (n - 1 if sample else n))
rows = []
for y in sorted(vals):
    v = vals[y]
    rows.append([y, fmt(var(v, True) ** 0.5), fmt(var(v, True)), fmt(var(v, False) ** 0.5), fmt(var(v, False))])
write("stddev_variance",
      "stddev and variance divide by n-1, stddevp and variancep by n, from exact sums of x and x^2 (a large mean, group v, keeps its precision); a group of one value renders 0. DTail rejects these aggregates.",
      "from STATS select y,stddev(x),variance(x),stddevp(x),variancep(x) group by y",
      lines, "y,stddev(x),variance(x),stddevp(x),variancep(x)", rows)

# 4. having over hidden p50 and dcount, order by a new aggregate then a key.
lines, vals, sets = [], {}, {}
for i in range(90):
    y = "klmno"[i % 5]
    x = random.randint(1, 20) * (i % 5 + 1)
    s = f"s{random.randint(1, 3 + 3 * (i % 5))}"
    vals.setdefault(y, []).append(x); sets.setdefault(y, set()).add(s)
    lines.append(P + f"y={y}|x={x}|s={s}")
keep = [y for y in vals if rank(vals[y], 1, 2) >= 20 and len(sets[y]) >= 4]
keep.sort(key=lambda y: (-len(sets[y]), y))
rows = [[y, fmt(rank(vals[y], 99, 100)), str(len(sets[y])), str(len(vals[y]))] for y in keep]
write("having_percentile_dcount",
      "having over an aggregate that is not selected (p50, in a hidden slot) and an alias of a dcount; order by the dcount's alias, then the group key. DTail rejects having, median/pN and dcount.",
      "from STATS select y,p99(x),dcount(s) as sessions,count($line) group by y having p50(x) >= 20 and sessions >= 4 order by sessions desc, y asc",
      lines, "y,p99(x),sessions,count($line)", rows)
print("ok")
