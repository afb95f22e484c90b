#!/usr/bin/env python3
# Writes topk_exact.test, topk_sketch.test and histogram_bins.test (run
# from anywhere: /usr/bin/python3 tests/golden/gen_frequency_goldens.py;
# needs python3-xxhash). The expected results are computed here,
# independently of mapr: for topk exact counts, most frequent first, ties by
# value bytes, the empty value shown as "" and a missing field skipped; past
# 4096 distinct values the Count-Min sketch that docs/partial-format.md
# specifies, and the values whose estimate passes 2n / 1025 (each checked to
# occur more than n / 1025 times, so that every split holds it); for
# histogram exact decimal bins floor(x / w) * w (Python's Decimal), written
# with the width's decimals, in value order.
import collections, random
from decimal import Decimal, ROUND_FLOOR

import xxhash

from golden_file import write

P = "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"


def topk(counter, k, rare=False):
    sign = 1 if rare else -1
    ranked = sorted(counter.items(), key=lambda e: (sign * e[1], e[0].encode()))
    return ", ".join(f"{v if v else chr(34) * 2} ({c})" for v, c in ranked[:k])


random.seed(31)
methods = ["GET"] * 9 + ["POST"] * 4 + ["get", "HEAD", "PUT", "", "GET "] * 2
lines, counts, present = [], collections.defaultdict(collections.Counter), collections.Counter()
for i in range(90):
    y = "pq"[i % 2] if i % 9 else "r"
    if i % 17 == 0:
        lines.append(P + f"y={y}")  # m missing
        counts[y]  # the group exists
        continue
    m = random.choice(methods)
    lines.append(P + f"m={m}|y={y}")
    counts[y][m] += 1
    present[y] += 1
rows = [[y, topk(counts[y], 3), topk(counts[y], 100),
         topk(counts[y], 2, rare=True), str(present[y])]
        for y in sorted(counts)]
write("topk_exact",
      "topk(x, k) lists the k most frequent values with their exact counts, "
      "ties by byte order (GET, 'GET ' and get differ); an empty value shows "
      "as \"\", a missing one is skipped; k above the distinct values lists "
      "them all; topk(m,3) and topk(m,100) share one state; rare(m, 2) lists "
      "the least frequent, ties alike. DTail has neither.",
      "from STATS select y,topk(m,3),topk(m, 100),rare(m,2),count(m) group by y",
      lines, ["y", "topk(m,3)", "topk(m,100)", "rare(m,2)", "count(m)"], rows)


M64 = (1 << 64) - 1


def mix(x):
    """SplitMix64's finalizer."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def columns(h):
    """The sketch columns, rows 0 to 5, of a value with XXH3 hash h."""
    g = 0x9E3779B97F4A7C15
    a, b = mix((h + g) & M64), mix((h + 2 * g) & M64)
    return [(a >> (13 * r)) & 8191 for r in range(4)] + \
        [(b >> (13 * r)) & 8191 for r in range(2)]


def topk_sketch(counter, k):
    n = sum(counter.values())
    rows = [collections.Counter() for _ in range(6)]
    cols = {v: columns(xxhash.xxh3_64_intdigest(v.encode())) for v in counter}
    for v, c in counter.items():
        for r in range(6):
            rows[r][cols[v][r]] += c
    listed = []
    for v, c in counter.items():
        est = min(rows[r][cols[v][r]] for r in range(6))
        if est * 1025 > 2 * n:
            # Held by every split's Misra-Gries summary.
            assert c * 1025 > n, (v, c, est, n)
            listed.append((v, est))
    listed.sort(key=lambda e: (-e[1], e[0].encode()))
    return ", ".join(f"{v} (<={e})" for v, e in listed[:k])


# Group a: 6000 values once, 3000 twice and 12 frequent ones (one group is
# a sketch); group b: 30 values (exact), in random order.
random.seed(43)
counts = collections.defaultdict(collections.Counter)
for i in range(6000):
    counts["a"][f"u{i}"] += 1
for i in range(3000):
    counts["a"][f"t{i}"] += 2
for i, c in enumerate([900, 500, 300, 300, 200, 120, 80, 60, 40, 30, 25, 20]):
    counts["a"][f"h{i}"] += c
for i in range(300):
    counts["b"][f"v{i % 30}"] += 1
lines = [f"y={y}|m={v}" for y in counts for v, c in counts[y].items()
         for _ in range(c)]
random.shuffle(lines)
rows = [["a", topk_sketch(counts["a"], 3), topk_sketch(counts["a"], 100),
         "more than 4096 distinct values: rare() counts up to 4096",
         str(sum(counts["a"].values()))],
        ["b", topk(counts["b"], 3), topk(counts["b"], 100),
         topk(counts["b"], 2, rare=True), str(sum(counts["b"].values()))]]
write("topk_sketch",
      "Past 4096 distinct values a group's topk is a Count-Min sketch (6 "
      "rows of 8192 counters, columns by XXH3 and SplitMix64) with "
      "Misra-Gries candidates: it lists the values whose estimate (the "
      "smallest of their 6 counters, an upper bound shown as <=N) passes "
      "2n/1025, by estimate, the same for any split; rare() says it has no "
      "exact counts. Group b stays exact. DTail has neither.",
      "select y,topk(m,3),topk(m, 100),rare(m,2),count(m) group by y "
      "logformat generickv",
      lines, ["y", "topk(m,3)", "topk(m,100)", "rare(m,2)", "count(m)"], rows)


def bin_label(x, w):
    q = (x / w).to_integral_value(rounding=ROUND_FLOOR)
    b = q * w
    scale = max(0, -w.normalize().as_tuple().exponent)
    text = f"{b:.{scale}f}"
    return text[1:] if text.startswith("-") and Decimal(text) == 0 else text


def histogram(values, w):
    bins = collections.Counter(bin_label(x, w) for x in values)
    return ", ".join(f"{b}: {bins[b]}"
                     for b in sorted(bins, key=lambda t: (Decimal(t), t)))


random.seed(7)
lines, xs = [], collections.defaultdict(list)
numeric = collections.Counter()  # present values, for count(x)
for i in range(80):
    y = "ab"[i % 2] if i % 7 else "c"
    if i % 13 == 0:
        lines.append(P + f"y={y}|x=n/a")  # not a number: skipped
        xs[y]
        numeric[y] += 1  # count() counts it
        continue
    if i % 11 == 0:
        lines.append(P + f"y={y}")  # missing
        xs[y]
        continue
    v = random.choice([f"{random.randint(-40, 120)}",
                       f"{random.randint(-400, 1200) / 10:.1f}",
                       f"{random.randint(0, 30) / 100:.2f}", "0.3", "-0.0"])
    lines.append(P + f"y={y}|x={v}")
    xs[y].append(Decimal(v))
    numeric[y] += 1
rows = [[y, histogram(xs[y], Decimal("25")), histogram(xs[y], Decimal("0.1")),
         str(numeric[y])] for y in sorted(xs)]
write("histogram_bins",
      "histogram(x, w) counts the numeric values in bins floor(x/w)*w, named "
      "as bucket(x, w) names them and binned exactly for decimals (0.3 is in "
      "the 0.3 bin at width 0.1; -0.0 in 0.0), in value order; non-numbers "
      "and missing values are skipped. DTail has no histogram.",
      "from STATS select y,histogram(x,25),histogram(x, 0.1),count(x) group by y",
      lines, ["y", "histogram(x,25)", "histogram(x,0.1)", "count(x)"], rows)
