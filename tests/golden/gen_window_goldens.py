#!/usr/bin/env python3
# Writes window_across_midnight.test and window_layouts.test (run from
# anywhere: /usr/bin/python3 tests/golden/gen_window_goldens.py). The
# expected results are computed here, independently of mapr, from the
# definition of window(t, w, h): a line whose time is t is in every window
# [s, s + w) with s a multiple of h (from midnight in t's written offset, or
# from the epoch), labelled by s written in t's own layout; first() and
# last() of a window are those of its earliest and latest hop holding a
# value (hops in time order, lines in input order within one); rate() is
# count / w. A line whose time cannot be read keeps an empty window.
import collections, datetime as dt, random

from golden_file import write

MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


# A layout: how a local civil time (a naive datetime, in the written
# offset) or an epoch is written, and read back.
class Rfc3339:
    def __init__(self, offset):
        self.offset = offset  # "+01:00"

    def write(self, local):
        return local.strftime("%Y-%m-%dT%H:%M:%S") + self.offset


class DtailShort:  # MMDD-HHMMSS, read in the year 2000
    def write(self, local):
        return local.strftime("%m%d-%H%M%S")


class DtailLong:
    def write(self, local):
        return local.strftime("%Y%m%d-%H%M%S")


class Clf:  # [dd/Mon/yyyy:HH:MM:SS -0700]
    def write(self, local):
        return (f"[{local.day:02d}/{MONTHS[local.month - 1]}/{local.year}:"
                f"{local:%H:%M:%S} -0700]")


class Syslog:  # Mmm dd HH:MM:SS, the day padded with a space (RFC 3164)
    def write(self, local):
        return f"{MONTHS[local.month - 1]} {local.day:2d} {local:%H:%M:%S}"


class EpochMs:  # 13 digits, the clock of the epoch (UTC)
    def write(self, local):
        ms = int((local - dt.datetime(1970, 1, 1)).total_seconds()) * 1000
        return f"{ms:013d}"


def windows(local, width, hop):
    """The starts of the windows that hold the local time `local`."""
    midnight = local.replace(hour=0, minute=0, second=0)
    second = (local - midnight).seconds
    first_hop = midnight + dt.timedelta(seconds=second - second % hop)
    return [first_hop - dt.timedelta(seconds=k * hop)
            for k in range(width // hop)]


class Window:
    def __init__(self):
        self.hops = collections.defaultdict(list)  # hop start -> [ms]

    def cells(self, width):
        lines = [v for h in sorted(self.hops) for v in self.hops[h]]
        return [str(len(lines)), f"{sum(lines):.6f}", str(lines[0]),
                str(lines[-1]), f"{len(lines) / width:.6f}"]


random.seed(41)
# 1. Across midnight in an offset: the date of the label changes.
WIDTH, HOP = 15 * 60, 5 * 60
layout = Rfc3339("+01:00")
start = dt.datetime(2024, 12, 31, 23, 38, 0)
lines, groups = [], collections.defaultdict(Window)
for i in range(70):
    local = start + dt.timedelta(seconds=random.randint(0, 55 * 60))
    h = random.choice("ab")
    ms = random.randint(1, 900)
    lines.append(f"t={layout.write(local)} h={h} ms={ms}")
    hop = windows(local, HOP, HOP)[0]
    for s in windows(local, WIDTH, HOP):
        groups[(s, h)].hops[hop].append(ms)
rows = [[layout.write(s), h] + groups[(s, h)].cells(WIDTH)
        for s, h in sorted(groups)]
write("window_across_midnight",
      "window(t, 15m, 5m): a line counts in the three windows of 15 minutes "
      "starting at its 5-minute hop and the two before, labelled by their "
      "start in the line's layout and offset (the date moves back across "
      "midnight); first/last are the earliest/latest hop's; rate() divides "
      "by the window's 900 s; rows in time order. DTail has no windows.",
      "select $w,h,count($line),sum(ms),first(ms),last(ms),rate($line) "
      "set $w = window(t, 15m, 5m) group by $w,h logformat logfmt",
      lines, ["$w", "h", "count($line)", "sum(ms)", "first(ms)", "last(ms)",
              "rate($line)"], rows)

# 2. Every fixed layout, each crossing a day, month or year: the labels
# keep the layout (yearless ones count back within 2000: 0101 -> 1231,
# Mar 1 -> Feb 29), and lines without a readable time keep an empty one.
WIDTH, HOP = 3 * 60, 60
cases = [
    ("clf", Clf(), dt.datetime(2024, 2, 29, 23, 58, 30)),
    ("epoch_ms", EpochMs(), dt.datetime(2024, 5, 1, 0, 0, 10)),
    ("long", DtailLong(), dt.datetime(2025, 12, 31, 23, 59, 0)),
    ("rfc_z", Rfc3339("Z"), dt.datetime(2024, 6, 30, 23, 59, 59)),
    ("short", DtailShort(), dt.datetime(2000, 1, 1, 0, 0, 5)),
    ("syslog", Syslog(), dt.datetime(2000, 3, 1, 0, 1, 30)),
]
lines, groups = [], collections.defaultdict(Window)
for name, layout, at in cases:
    for i in range(6):
        local = at + dt.timedelta(seconds=random.randint(0, 150))
        ms = random.randint(1, 900)
        lines.append(f't="{layout.write(local)}" h={name} ms={ms}')
        hop = windows(local, HOP, HOP)[0]
        for s in windows(local, WIDTH, HOP):
            groups[(name, layout.write(s))].hops[hop].append(ms)
for name, bad in [("clf", "31/Feb/2024:10:00:00 +0000"), ("short", "yesterday")]:
    ms = random.randint(1, 900)
    lines.append(f't="{bad}" h={name} ms={ms}')
    groups[(name, "")].hops[""].append(ms)
rows = [[h, w] + groups[(h, w)].cells(WIDTH)[:4]
        for h, w in sorted(groups, key=lambda k: (k[0].encode(), k[1].encode()))]
write("window_layouts",
      "window(t, 3m, 1m) in every fixed layout, each crossing a day, month or "
      "year: labels keep the layout, its padding and offset (MMDD-HHMMSS and "
      "syslog count back within the year 2000: 0101 to 1231, Mar 1 to Feb "
      "29; an epoch keeps its unit and digits); a time that cannot be read "
      "leaves the window empty and counts as unparsed, once.",
      "select h,$w,count($line),sum(ms),first(ms),last(ms) "
      "set $w = window(t, 3m, 1m) group by h,$w logformat logfmt",
      lines, ["h", "$w", "count($line)", "sum(ms)", "first(ms)", "last(ms)"],
      rows, stats="lines_read=38 values_unparsed=2")
