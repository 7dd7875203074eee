"""COMPAS repeated R times as Parquet partitions, audited at 1% by the
command line through dask, beside the original table's audit.

The audit works on distinct feature patterns, so its cost does not grow
with rows; what grows is the scan of the data, which dask does partition by
partition (no process holds the rows). Each audit runs in its own process
(``sklearn-multiplicity audit``); the resident memory of it and of every
process it starts (a ``LocalCluster``'s workers) is sampled twice a second,
and the table gives the largest peak of any one of them.

Usage: python benchmarks/bench_parquet.py [--repeat 100] [--data compas.csv]
       (``--repeat 10000``: 61.7 million rows; ``--scheduler local``: also
       audit on a LocalCluster of one worker per core; ``--scheduler
       ADDRESS``: also on that dask scheduler)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import load, machine, parser, table

#: Copies of COMPAS in one Parquet partition (about 617,000 rows).
COPIES_PER_PARTITION = 100


def compas_frame(path):
    """COMPAS's 21 binary features, its target and race, as one table."""
    X, y, groups = load(path)
    from sklearn_multiplicity.datasets import load_compas

    names = load_compas(path if path.exists() else None).feature_names
    frame = pd.DataFrame(np.asarray(X, dtype=np.int8), columns=names)
    frame["two_year_recid"] = np.asarray(y, dtype=np.int8)
    frame["race"] = np.asarray(groups["race"])
    return frame


def write_repeated(frame, repeat, folder):
    """``frame`` repeated ``repeat`` times as Parquet files in ``folder``:
    one partition is written, the others are copies of it."""
    folder.mkdir(parents=True)
    per = min(COPIES_PER_PARTITION, repeat)
    first = folder / "part-00000.parquet"
    pd.concat([frame] * per, ignore_index=True).to_parquet(first, index=False)
    copies, last = divmod(repeat, per)
    for i in range(1, copies):
        shutil.copyfile(first, folder / f"part-{i:05d}.parquet")
    if last:
        tail = pd.concat([frame] * last, ignore_index=True)
        tail.to_parquet(folder / f"part-{copies:05d}.parquet", index=False)
    return repeat * len(frame)


def peak_of_tree(pid, stop, peaks):
    """Sample the resident memory of process ``pid`` and its descendants
    until ``stop`` is set; ``peaks[pid]`` is each one's largest (bytes)."""
    import psutil

    root = psutil.Process(pid)
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for process in processes:
            try:
                rss = process.memory_info().rss
            except psutil.Error:
                continue
            peaks[process.pid] = max(peaks.get(process.pid, 0), rss)
        stop.wait(0.5)


def audit(data, out, extra=()):
    """The command line's audit of ``data`` at 1%: its report, its seconds
    and the largest peak memory of its process or of any process it started
    (MB)."""
    command = [
        sys.executable,
        "-m",
        "sklearn_multiplicity",
        "audit",
        str(data),
        "--target",
        "two_year_recid",
        "--groups",
        "race",
        "--epsilon",
        "0.01",
        "--total-time-limit",
        "none",
        "--quiet",
        "--out",
        str(out),
        *extra,
    ]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    stop, peaks = threading.Event(), {}
    sampler = threading.Thread(target=peak_of_tree, args=(child.pid, stop, peaks))
    sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    stop.set()
    sampler.join()
    peaks[child.pid] = max(peaks.get(child.pid, 0), usage.ru_maxrss * 1024)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the audit of {data} failed: {' '.join(command)}")
    report = json.loads((Path(out) / "report.json").read_text())
    return report, seconds, max(peaks.values()) / 2**20, len(peaks)


def row(name, report, seconds, peak, n_processes):
    read = report["dataset"].get("read_seconds", 0.0)
    return {
        "data": name,
        "rows": report["dataset"]["n_rows"],
        "scan s": read,
        "audit s": report["timings"]["total"],
        "process s": seconds,
        "status": "certified" if report["certified"] else "bounds",
        "ambiguity": report["ambiguity"]["lower"],
        "discrepancy": report["discrepancy"]["lower"],
        "processes": n_processes,
        "peak MB": round(peak),
    }


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=100, help="copies of COMPAS")
    p.add_argument("--scheduler", default=None, help="a dask scheduler address")
    p.add_argument("--keep", type=Path, default=None, help="folder kept for the data")
    args = p.parse_args()
    frame = compas_frame(args.data)
    work = Path(tempfile.mkdtemp(prefix="bench-parquet-"))
    try:
        folder = (args.keep or work) / f"compas-x{args.repeat}"
        original = work / "compas.csv"
        frame.to_csv(original, index=False)
        start = time.perf_counter()
        n = write_repeated(frame, args.repeat, folder)
        print(f"wrote {n} rows as Parquet in {time.perf_counter() - start:.1f} s")
        rows = [row("original (CSV)", *audit(original, work / "out-original"))]
        runs = [("threads", ("--scheduler", "threads"))]
        if args.scheduler is not None:
            runs.append((args.scheduler, ("--scheduler", args.scheduler)))
        for name, extra in runs:
            out = work / f"out-{name.replace('/', '_').replace(':', '_')}"
            repeated = audit(folder, out, extra)
            rows.append(row(f"x{args.repeat} (Parquet, {name})", *repeated))
            people = out / "people"
            print(f"people: {len(list(people.glob('*.parquet')))} Parquet partitions")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(machine())
    table(rows, list(rows[0]))


if __name__ == "__main__":
    main()
