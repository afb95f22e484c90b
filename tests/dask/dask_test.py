#!/usr/bin/python3
"""mapr.dask on a LocalCluster of 2 worker processes (docs/distributed.md).

Run with Debian's /usr/bin/python3 (python3-distributed); the mapr package
comes from PYTHONPATH (the build tree's bindings/python). Exit 77 (skipped)
without dask. Checks: split invariance (blocks and tree shapes) against one
pass, a dask.bag input, map tasks pinned to a worker, two jobs at once, a
worker killed while it runs tasks of a job (they run again elsewhere, the
result is exact), errors at the client.
"""

import os
import random
import signal
import sys
import tempfile
import time
import unittest

try:
    import dask.bag as db
    from distributed import Client, LocalCluster
except ImportError:
    print("SKIP: dask/distributed not installed (apt-get install "
          "python3-distributed)")
    sys.exit(77)

import mapr
import mapr.dask

Q = ("from STATS select count($line),last($time),avg($goroutines),"
     "min($goroutines),max(lifetimeConnections) group by $hostname")
Q_TIME = ("from STATS select $time,count($line),max($goroutines) "
          "group by $time order by count($line) limit 20")


def wait_until(what, predicate, seconds, diagnostics):
    """Polls predicate() until it returns a true value, which it returns;
    fails with diagnostics() after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("no %s after %d s\n%s" %
                                 (what, seconds, diagnostics()))
        time.sleep(0.005)


def only_held_by(worker, keys, dask_scheduler=None):
    """On the scheduler: the inputs of the tasks `keys` whose results only
    `worker` holds."""
    lost = set()
    for key in keys:
        task = dask_scheduler.tasks.get(key)
        for dep in task.dependencies if task is not None else ():
            if {ws.address for ws in dep.who_has} == {worker}:
                lost.add(dep.key)
    return sorted(lost)


def make_log(path, lines, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for i in range(lines):
            f.write(
                "INFO|1002-07%02d%02d%02d|1|stats.go:56|8|%d|7|0.21|471h0m21s|"
                "MAPREDUCE:STATS|host=h%d|goroutines=%d|lifetimeConnections=%d\n"
                % (i // 3600 % 24, i // 60 % 60, i % 60, rnd.randint(1, 9),
                   rnd.randint(0, 4), rnd.randint(1, 500), i))


class DaskTest(unittest.TestCase):
    client = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.logs = []
        for k in range(2):
            p = os.path.join(cls.tmp.name, "app%d.log" % k)
            make_log(p, 20000 + 7 * k, k)
            cls.logs.append(p)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def one_pass(self, query):
        agg = mapr.Aggregator(query, hostname="hx")
        for i, p in enumerate(self.logs):
            agg.push_file(p, source=i)
        return agg.finish()

    def test_split_invariance(self):
        for query in (Q, Q_TIME):
            want = self.one_pass(query)
            for blocksize, split_every in ((1 << 30, 8), (300 << 10, 2),
                                           (97 << 10, 3), (50 << 10, 8)):
                got = mapr.dask.run(query, self.logs, self.client,
                                    blocksize=blocksize,
                                    split_every=split_every, hostname="hx")
                self.assertEqual(got.to_csv(), want.to_csv(),
                                 (query, blocksize, split_every))
                self.assertEqual(got.stats, want.stats)

    def test_partitions(self):
        for query in (Q, Q_TIME):
            want = self.one_pass(query)
            for partitions, blocksize in ((1, 300 << 10), (3, 97 << 10),
                                          (7, 1 << 30)):
                got = mapr.dask.run(query, self.logs, self.client,
                                    blocksize=blocksize, split_every=3,
                                    hostname="hx", partitions=partitions)
                self.assertEqual(got.to_csv(), want.to_csv(),
                                 (query, partitions, blocksize))
                self.assertEqual(got.stats, want.stats)
        futures = mapr.dask.partial(Q, self.logs, self.client,
                                    blocksize="100KiB", hostname="hx",
                                    partitions=4)
        infos = [mapr.inspect_partial(f.result()) for f in futures]
        self.assertEqual([(i.partitions, i.partition) for i in infos],
                         [(4, 0), (4, 1), (4, 2), (4, 3)])
        self.assertEqual([i.stats.lines_read for i in infos],
                         [40007, 0, 0, 0])

    def test_partial_future_is_bytes(self):
        fut = mapr.dask.partial(Q, self.logs, self.client, blocksize="100KiB",
                                hostname="hx")
        info = mapr.inspect_partial(fut.result())
        self.assertEqual(info.splits[0], 0)
        self.assertEqual(info.splits[1],
                         len(mapr.dask.blocks(Q, self.logs, "100KiB")))
        self.assertEqual(info.stats.lines_read, 40007)

    def test_map_tasks_pinned_to_a_worker(self):
        from distributed import get_task_stream

        addresses = sorted(self.client.scheduler_info()["workers"])
        self.assertEqual(len(addresses), 2)
        for pinned, workers in ((addresses[0], addresses[0]),
                                (addresses[1],
                                 {p: [addresses[1]] for p in self.logs})):
            with get_task_stream(self.client) as ts:
                got = mapr.dask.run(Q, self.logs, self.client,
                                    blocksize="100KiB", hostname="hx",
                                    workers=workers)
            self.assertEqual(got.to_csv(), self.one_pass(Q).to_csv())
            maps = [t for t in ts.data if "mapr-map-" in str(t["key"])]
            self.assertEqual(
                len(maps), len(mapr.dask.blocks(Q, self.logs, "100KiB")))
            self.assertEqual({t["worker"] for t in maps}, {pinned})

    def test_bag_of_lines(self):
        with open(self.logs[0]) as f:
            lines = f.read().splitlines()
        bag = db.from_sequence(lines, npartitions=5)
        got = mapr.dask.run(Q, bag, self.client, hostname="hx")
        want = mapr.run(Q, lines=lines, hostname="hx")
        self.assertEqual(got.to_csv(), want.to_csv())

    def test_two_jobs_at_once(self):
        f1 = mapr.dask.partial(Q, self.logs, self.client, blocksize="64KiB",
                               hostname="hx")
        f2 = mapr.dask.partial(Q_TIME, self.logs, self.client,
                               blocksize="64KiB", hostname="hx")
        self.assertNotEqual(f1.key, f2.key)
        r1 = mapr.Aggregator.from_partial(f1.result()).finish()
        r2 = mapr.Aggregator.from_partial(f2.result()).finish()
        self.assertEqual(r1.to_csv(), self.one_pass(Q).to_csv())
        self.assertEqual(r2.to_csv(), self.one_pass(Q_TIME).to_csv())
        # The same query twice: distinct keys, both right.
        f3 = mapr.dask.partial(Q, self.logs, self.client, blocksize="64KiB",
                               hostname="hx")
        self.assertNotEqual(f1.key, f3.key)
        self.assertEqual(f3.result(), f1.result())

    def test_worker_killed_mid_job(self):
        from distributed import get_task_stream

        want = self.one_pass(Q)
        pids = self.client.run(os.getpid)  # {address: pid}
        with get_task_stream(self.client) as ts:
            fut = mapr.dask.partial(Q, self.logs, self.client,
                                    blocksize="16KiB", split_every=2,
                                    hostname="hx")
            job = "-%s-" % fut.key.split("-")[2]  # In each key of the job.

            def running_on(worker):
                return sorted(k for k in
                              self.client.processing().get(worker, ())
                              if job in str(k))

            def stop_a_busy_worker():
                """SIGSTOPs a worker that runs (or has queued) tasks of the
                job: (its address, those tasks), or None (then it goes on:
                it had finished them when it stopped)."""
                busy = [w for w in pids if running_on(w)]
                if not busy:
                    return None
                os.kill(pids[busy[0]], signal.SIGSTOP)
                running = running_on(busy[0])
                if running:
                    return busy[0], running
                os.kill(pids[busy[0]], signal.SIGCONT)
                return None

            # Stopped, so that what it holds stays what it held when it
            # dies; then killed. The nanny restarts it and the scheduler
            # re-runs the lost tasks under the same keys.
            victim, running = wait_until(
                "a worker with tasks of the job", stop_a_busy_worker, 60,
                lambda: "processing: %s" % self.client.processing())
            try:
                # The inputs of those tasks that only the victim holds:
                # lost with it, so computed again.
                lost = self.client.run_on_scheduler(
                    only_held_by, victim, running)
                self.assertFalse(fut.done())
            finally:
                os.kill(pids[victim], signal.SIGKILL)
            got = mapr.Aggregator.from_partial(
                fut.result(timeout=120)).finish()
        self.assertEqual(got.to_csv(), want.to_csv())
        # Every lost task ran (again) on another worker: the task stream
        # records each finished execution and where it ran (a result the
        # victim sent just before it stopped may be there too).
        ran = {}
        for t in ts.data:
            ran.setdefault(t["key"], []).append(t["worker"])
        info = "killed %s running %s; inputs only it held: %s" % (
            victim, running, lost)
        for key in running + lost:
            self.assertTrue(
                [w for w in ran.get(key, ()) if w != victim],
                "%s: %s ran only on %s" % (info, key, ran.get(key)))
        self.client.wait_for_workers(2, timeout=60)

    def test_errors_raise_at_the_client(self):
        with self.assertRaises(FileNotFoundError):
            mapr.dask.run(Q, [os.path.join(self.tmp.name, "nope.log")],
                          self.client, sizes={})
        with self.assertRaises(mapr.QueryError):
            mapr.dask.run("select nope(", self.logs, self.client)


if __name__ == "__main__":
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    DaskTest.client = Client(cluster)
    try:
        prog = unittest.main(exit=False, verbosity=2)
    finally:
        DaskTest.client.close()
        cluster.close()
    sys.exit(0 if prog.result.wasSuccessful() else 1)
