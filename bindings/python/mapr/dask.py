"""mapr.dask: run a mapr query on a Dask cluster, MapReduce style.

    import mapr.dask
    from distributed import Client
    client = Client("scheduler:8786")
    r = mapr.dask.run("from STATS select count($line) group by $hostname",
                      ["/logs/app.log", "/logs/app.log.1.gz"], client,
                      blocksize="64MiB", hostname="web1")
    print(r.to_table())

How it runs (docs/distributed.md, "Dask"):

  * Map tasks. Each input file is cut into byte blocks of about `blocksize`;
    a block owns the lines that start in it (Hadoop's TextInputFormat rule:
    it skips the line it starts inside of and finishes the line crossing its
    end), so blocks that tile a file read every line once. Compressed files
    and formats with per-file state (csv) are one block per file. A map task
    reads its block on the worker and aggregates it with the C++ engine (the
    GIL released) into a partial: bytes of one MAPRPART frame covering split
    i, the block's number in input order. Lines never travel through Dask;
    only partials do. A dask.bag of lines works too: each partition is a
    split.
  * Combine tasks merge at most `split_every` partials of adjacent splits,
    level by level: an order-preserving tree, so last() and first() are
    those of one pass, and the result is byte-identical to one pass.
  * Keys are "mapr-<map|combine>-<job uuid>-...": unique per job, so two
    jobs never share a result (Dask silently returns an earlier result for a
    reused key), and stable across retries (a task re-run after a worker
    died has the same key).
  * `workers` pins map tasks: a worker address (or list of them) for all, or
    a dict {path: worker or list} for the hosts that hold each file.
  * Errors (a missing file, a bad query) are raised at the client, as the
    task's exception: mapr.MaprError, mapr.QueryError or mapr.PartialError.

The file paths must be readable on the workers that run their map tasks, and
their sizes known to the client (a shared file system, or the same paths on
every host); with `workers` pinning, a file only the pinned hosts hold needs
an entry in `sizes`.
"""

from __future__ import annotations

import os
import uuid
from typing import (Any, Dict, Iterable, List, Optional, Sequence, Tuple,
                    Union)

import mapr

__all__ = ["run", "partial", "blocks"]

_READ = 1 << 20
_COMPRESSED_MAGIC = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd", b"\xfd7zXZ\x00", b"BZh")

Block = Tuple[str, Optional[int], Optional[int]]  # path, lo, hi (None: whole)


def _parse_bytes(size: Union[int, str]) -> int:
    if isinstance(size, int):
        return size
    from dask.utils import parse_bytes

    return int(parse_bytes(size))


def _is_compressed(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError:
        return False  # The map task reports it.
    return any(head.startswith(m) for m in _COMPRESSED_MAGIC)


def blocks(query: Union[str, mapr.Query], paths: Sequence[str],
           blocksize: Union[int, str] = "64MiB",
           sizes: Optional[Dict[str, int]] = None) -> List[Block]:
    """The map tasks' blocks, in input order: (path, lo, hi) byte ranges, or
    (path, None, None) for a whole file (compressed, csv, or unknown size)."""
    q = query if isinstance(query, mapr.Query) else mapr.compile(query)
    bs = max(1, _parse_bytes(blocksize))
    out: List[Block] = []
    for path in paths:
        path = os.fspath(path)
        size = (sizes or {}).get(path)
        if size is None:
            try:
                size = os.path.getsize(path)
            except OSError:
                size = None
        # Only files of formats that parse every line on its own may be cut
        # (LogFormat::line_independent: every built-in format but csv).
        if (size is None or size <= bs or _is_compressed(path)
                or not mapr._mapr.log_format_line_independent(q.log_format)):
            out.append((path, None, None))
            continue
        for lo in range(0, size, bs):
            out.append((path, lo, min(size, lo + bs)))
    return out


def _next_line_start(f, pos: int, size: int) -> int:
    """The first line start at or after pos: pos if the byte before it is a
    newline, else the byte after the next newline; size if none."""
    if pos <= 0:
        return 0
    if pos >= size:
        return size
    f.seek(pos - 1)
    at = pos - 1
    while True:
        buf = f.read(1 << 16)
        if not buf:
            return size
        i = buf.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(buf)


def _finish(agg: "mapr.Aggregator", partitions: int) -> Any:
    """The map task's output: one partial, or a list of `partitions`."""
    if partitions > 0:
        return agg.serialize_partitions(partitions)
    return agg.serialize_partial()


def _map_block(query_text: str, block: Block, split: int,
               hostname: Optional[str], max_line_bytes: Optional[int],
               partitions: int = 0) -> Any:
    """A map task: the partial of one block, covering [split, split + 1)
    (a list of its partitions' partials with `partitions`)."""
    agg = mapr.Aggregator(query_text, hostname=hostname,
                          max_line_bytes=max_line_bytes,
                          splits=(split, split + 1))
    path, lo, hi = block
    if lo is None:
        agg.push_file(path)  # Decompressed in C++, without the GIL.
        return _finish(agg, partitions)
    agg.set_source_name(0, path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        begin = _next_line_start(f, lo, size)
        end = size if hi >= size else _next_line_start(f, hi, size)
        f.seek(begin)
        left = max(0, end - begin)
        while left > 0:
            chunk = f.read(min(_READ, left))
            if not chunk:
                break
            left -= len(chunk)
            agg.push_bytes(chunk)  # The GIL is released while aggregating.
    agg.end_source(0)
    return _finish(agg, partitions)


def _map_lines(lines: Any, query_text: str, split: int,
               hostname: Optional[str], max_line_bytes: Optional[int],
               partitions: int = 0) -> Any:
    """A map task over a dask.bag partition of lines."""
    agg = mapr.Aggregator(query_text, hostname=hostname,
                          max_line_bytes=max_line_bytes,
                          splits=(split, split + 1))
    agg.push(list(lines))
    return _finish(agg, partitions)


def _combine(*parts: bytes) -> bytes:
    """A combine task: partials of adjacent splits, in split order."""
    agg = mapr.Aggregator.from_partial(parts[0])
    for p in parts[1:]:
        agg.merge_serialized(p)
    return agg.serialize_partial()


def _combine_partition(index: int, *outputs: Any) -> bytes:
    """A first-level combine task of a partitioned job: partition `index` of
    map outputs of adjacent splits, in split order."""
    return _combine(*(o[index] for o in outputs))


def _pick(index: int, output: Any) -> bytes:
    return output[index]


def _empty(query_text: str, hostname: Optional[str],
           partitions: int = 0) -> Any:
    agg = mapr.Aggregator(query_text, hostname=hostname)
    return _finish(agg, partitions)


def join(partials: Iterable[bytes],
         hostname: Optional[str] = None) -> "mapr.Result":
    """The result of the partials of every partition of a partitioned job,
    grouped by partition (their groups are disjoint): what `mapr reduce`
    prints. Each partition is ended when the next one's first partial
    comes (mapr.PartialReducer.end_partition), so with `order by ... limit
    N` the join holds one partition plus N rows: pass an iterator that
    fetches each partial when asked, as run() does."""
    reducer = mapr.PartialReducer(hostname=hostname)
    current = None
    for data in partials:
        partition = mapr.inspect_partial(data).partition
        if current is not None and partition != current:
            reducer.end_partition(current)
        reducer.add(data)
        current = partition
    if current is not None:
        reducer.end_partition(current)
    return reducer.take_result()


def _workers_for(workers: Any, path: Optional[str]) -> Optional[List[str]]:
    if workers is None:
        return None
    if isinstance(workers, dict):
        w = workers.get(path)
        if w is None:
            return None
        return [w] if isinstance(w, str) else list(w)
    return [workers] if isinstance(workers, str) else list(workers)


def partial(query: Union[str, mapr.Query], paths_or_bag: Any, client: Any = None,
            *, blocksize: Union[int, str] = "64MiB", split_every: int = 8,
            hostname: Optional[str] = None, workers: Any = None,
            max_line_bytes: Optional[int] = None,
            sizes: Optional[Dict[str, int]] = None,
            partitions: int = 0) -> Any:
    """Submits the job and returns a Future of the whole input's partial
    (bytes), for mapr.Aggregator.from_partial() or further merging. With
    `partitions` = R, the map tasks cut their partials into R hash
    partitions of the group keys, each partition is combined by tasks of
    its own (holding about 1/R of the groups), and the return value is a
    list of R Futures, one per partition (join() makes the result)."""
    if split_every < 2:
        raise ValueError("split_every must be at least 2")
    if partitions < 0 or partitions > 65536:
        raise ValueError("partitions must be 0 (none) to 65536")
    if client is None:
        from distributed import get_client

        client = get_client()
    q = query if isinstance(query, mapr.Query) else mapr.compile(query)
    text = str(q)
    job = uuid.uuid4().hex
    futures: List[Any] = []
    if hasattr(paths_or_bag, "to_delayed"):  # A dask.bag of lines.
        import dask

        parts = paths_or_bag.to_delayed()
        for i, part in enumerate(parts):
            task = dask.delayed(_map_lines, pure=False)(
                part, text, i, hostname, max_line_bytes, partitions,
                dask_key_name=f"mapr-map-{job}-{i}")
            futures.append(client.compute(task))
    else:
        paths = [paths_or_bag] if isinstance(paths_or_bag, (str, os.PathLike)) \
            else list(paths_or_bag)
        for i, block in enumerate(blocks(q, paths, blocksize, sizes)):
            futures.append(client.submit(
                _map_block, text, block, i, hostname, max_line_bytes,
                partitions, key=f"mapr-map-{job}-{i}",
                workers=_workers_for(workers, block[0]),
                allow_other_workers=False))
    if not futures:
        empty = client.submit(_empty, text, hostname, partitions,
                              key=f"mapr-empty-{job}")
        if partitions == 0:
            return empty
        futures = [empty]
    if partitions == 0:
        return _combine_tree(client, futures, split_every, f"{job}")
    out = []
    for r in range(partitions):
        # The first level picks partition r of each map output.
        first = [
            client.submit(_combine_partition, r, *futures[k:k + split_every],
                          key=f"mapr-combine-{job}-p{r}-0-{k // split_every}")
            if len(futures[k:k + split_every]) > 1 else
            client.submit(_pick, r, futures[k],
                          key=f"mapr-pick-{job}-p{r}-{k}")
            for k in range(0, len(futures), split_every)
        ]
        out.append(_combine_tree(client, first, split_every, f"{job}-p{r}",
                                 first_level=1))
    return out


def _combine_tree(client: Any, futures: List[Any], split_every: int,
                  job: str, first_level: int = 0) -> Any:
    """Combines `futures` (partials of adjacent splits) level by level."""
    level = first_level
    while len(futures) > 1:
        futures = [
            client.submit(_combine, *futures[k:k + split_every],
                          key=f"mapr-combine-{job}-{level}-{k // split_every}")
            if len(futures[k:k + split_every]) > 1 else futures[k]
            for k in range(0, len(futures), split_every)
        ]
        level += 1
    return futures[0]


def run(query: Union[str, mapr.Query], paths_or_bag: Any, client: Any = None,
        *, blocksize: Union[int, str] = "64MiB", split_every: int = 8,
        hostname: Optional[str] = None, workers: Any = None,
        max_line_bytes: Optional[int] = None,
        sizes: Optional[Dict[str, int]] = None,
        partitions: int = 0) -> mapr.Result:
    """Runs `query` over files (paths, in order) or a dask.bag of lines on
    the cluster and returns the final result, as mapr.run_file would. Task
    errors are raised here. With `partitions` = R, the reduce is
    hash-partitioned (see partial()); the result is the same."""
    future = partial(query, paths_or_bag, client, blocksize=blocksize,
                     split_every=split_every, hostname=hostname,
                     workers=workers, max_line_bytes=max_line_bytes,
                     sizes=sizes, partitions=partitions)
    if partitions > 0:
        # One partition's partial fetched at a time, dropped once joined.
        return join((f.result() for f in future), hostname=hostname)
    data = future.result()
    return mapr.Aggregator.from_partial(data, hostname=hostname).finish()
