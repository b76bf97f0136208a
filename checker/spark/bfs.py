"""Distributed breadth-first search of the cluster model, level by level, on Spark.

Each state is owned by partition ``fp mod P`` (``fp`` its 64-bit fingerprint,
``spec.cluster.encode``), in every level; partition ``q`` keeps its part of each
level and the fingerprints it has visited in files (``checker.spark.owned``).
A level is two Spark jobs of a task per partition, and no Spark shuffle:

1. partition ``q``'s task reads ``q``'s part of the frontier, sorted by ``order``,
   and expands it with the model's own ``actions`` and ``next_state``;
2. it writes each successor to a file for the partition that owns it
   (``owned.send``: ``_sent/to-r/from-q`` in the level being written). Through
   Spark's shuffle the JVM only moved these bytes, on the cores the tasks need
   (the whole mb-34150-wide preset on local[2]: 1.60x as fast as local[1] that
   way, 1.75x through files; benchmarks/RESULTS.md, 2026-11-29);
3. in the second job the owner reads what was sent to it (``owned.received``),
   keeps the least ``order`` per state, drops the states it visited
   before (a merge against its sorted fingerprints), writes its part of the new
   level and its new visited file, and returns its new states per model;
4. the driver adds the summaries up (``_level.json``) and publishes the level by
   renaming ``incoming/level=<d+1>`` into ``levels/``.

A level whose frontier has fewer than ``driver_below`` states is searched in
the driver's own process, partition by partition, with the same functions and
files: no Spark job, so a small model costs about what one process costs.

The watched properties are evaluated on each state as it is expanded (step 1;
an accumulator brings the first deciding order per partition to the driver),
so what level ``d`` decides is in level ``d+1``'s summary: a model stops one
level after the one that decides its checks, whose states it then ignores. A
search stopped by its state limit evaluates its last level without expanding
it.

A level's rows are ``(model, fp, parent, action, order, state)``:
walking ``parent`` back gives a counterexample, and because ``order`` is the
place an in-process FIFO search would discover the state, the first
deciding state of a level is the one the in-process search stops at. So
each check gets the verdict, unique-state count, depth and counterexample
``checker.engines.explore`` finds, in the same ``Exploration``. Only level
summaries and counterexample rows reach the driver; states stay in files.

``checkpoint``: keep the level files there; a search killed mid-level
resumes from its last published level (``search.json`` says whose levels
they are and into how many partitions they are cut; another search's directory
is refused). On a cluster of several
hosts it must be a path every executor and the driver share (HDFS, S3,
NFS). Without it the files go to a temporary directory, removed at the end.
"""

from __future__ import annotations

import gc
import hashlib
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

from checker.engines.explore import (
    Exploration,
    PropertyOutcome,
    Transition,
    concrete,
    verdict_of,
    without_cycle_collection,
)
from checker.engines.explore import Path as Run
from checker.spark.expand import ClusterSearch, Watched, build, models_of
from checker.spark.owned import (
    Decided,
    SettledPartition,
    Where,
    evaluate,
    least,
    nothing_decided,
    packed,
    received,
    send,
    sent_dir,
    settle,
    successors,
)
from checker.spark.storage import Storage
from spec.cluster import ClusterBounds
from spec.cluster.encode import FORMAT, decode, encode, fingerprint
from spec.cluster.symmetry import RENAMED
from spec.errors import HarnessBug, InvalidInput

__all__ = ["Level", "cluster_search", "search_on_spark"]

# 4: XXH3 fingerprints (an owner and a visited set differ from 3's); 3: properties decided
# on the frontier, no decides column; 2: no visited files
LAYOUT = 4
LEVELS = "levels"
INCOMING = "incoming"
SEARCH_FILE = "search.json"
SUMMARY_FILE = "_level.json"  # readers of a level skip names starting with "_"
DRIVER_BELOW = 20_000  # frontier states: fewer cost less in one process than a Spark job
DRIVER_BELOW_CONF = "spark.dcpcheck.bfs.driverBelow"


@dataclass
class Level:
    """What one level added, per model: new states; and what the level before (its
    frontier) decided: for each watched property the order of its first state deciding
    it (None if none does)."""

    index: int
    states: dict[int, int]
    first: dict[int, list[bytes | None]]  # in level index - 1; empty for level 0
    transitions: dict[int, int]  # made expanding the level before
    seconds: float = 0.0
    partitions: int = 0
    retried: int = 0  # tasks that failed and ran again
    on_driver: bool = False  # a small level, searched in the driver's process

    def to_json(self) -> dict[str, object]:
        out = asdict(self)
        out["first"] = {m: [o and o.hex() for o in orders] for m, orders in self.first.items()}
        return out

    @classmethod
    def from_json(cls, record: dict[str, object]) -> Level:
        level = cls(**record)  # type: ignore[arg-type]  # JSON values, converted below
        level.states = {int(m): n for m, n in level.states.items()}
        level.transitions = {int(m): n for m, n in level.transitions.items()}
        level.first = {
            int(m): [None if o is None else bytes.fromhex(cast(str, o)) for o in orders]
            for m, orders in level.first.items()
        }
        return level


LevelProgress = Callable[[Level, int], None]  # (the level, states in all so far)


def cluster_search(
    models: Sequence[tuple[str, str]],
    rules: str,
    bounds: ClusterBounds,
    checked: Sequence[str],
    watched: Sequence[str] = (),
    symmetry: bool = True,
) -> ClusterSearch:
    """The search of ``checked`` (and ``watched`` alongside) in every model, named by a
    digest of its definition, user files' contents included."""
    properties = (*checked, *(p for p in watched if p not in checked))
    names = [*(n for pair in models for n in pair), rules, *properties]
    definition = {
        "format": FORMAT,
        "layout": LAYOUT,
        "models": [list(pair) for pair in models],
        "rules": rules,
        "bounds": bounds.to_json(),
        "properties": list(properties),
        "checked": len(checked),
        "symmetry": list(RENAMED) if symmetry else False,
        "files": {n: _file_digest(n) for n in names if _file_digest(n)},
    }
    ident = hashlib.sha1(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]
    return ClusterSearch(ident, tuple(models), rules, bounds, properties, len(checked), symmetry)


def _file_digest(name: str) -> str:
    path = Path(name.split(".py:")[0] + ".py" if ".py:" in name else name)
    if path.suffix != ".py" or not path.is_file():
        return ""
    return hashlib.sha1(path.read_bytes()).hexdigest()


@dataclass
class _Run:
    """The driver's view of a search: level summaries, and why a model stopped early."""

    search: ClusterSearch
    watched: list[Watched]
    levels: list[Level] = field(default_factory=list)
    stopped: dict[int, str] = field(default_factory=dict)
    cpu_elsewhere: float = 0.0  # CPU seconds the Spark tasks of this run reported
    last: dict[int, list[bytes | None]] = field(default_factory=dict)  # the last level's
    # decisions, for models stopped by the state limit (evaluated without expanding it)

    def first(self, m: int, j: int) -> tuple[int, bytes] | None:
        """(level, order) of the first state known to decide property ``j`` in model ``m``."""
        none = [None] * len(self.search.properties)
        for level in self.levels[1:]:
            order = level.first.get(m, none)[j]
            if order is not None:
                return level.index - 1, order
        order = self.last.get(m, none)[j]
        return None if order is None else (self.levels[-1].index, order)

    def undecided(self, m: int) -> bool:
        return any(self.first(m, j) is None for j in range(self.search.checked))

    def states(self, m: int | None = None) -> int:
        return sum(n for lv in self.levels for k, n in lv.states.items() if m in (None, k))

    def running(self, m: int) -> bool:
        """Model ``m`` has a check undecided, a frontier, and no limit reached."""
        if m in self.stopped or not self.levels[-1].states.get(m):
            return False
        return self.undecided(m)


def search_on_spark(
    spark: Any,
    search: ClusterSearch,
    *,
    shipped: ClusterSearch | None = None,
    checkpoint: str | None = None,
    max_states: int | None = None,
    timeout_s: float | None = None,
    progress: LevelProgress | None = None,
    driver_below: int | None = None,
) -> list[tuple[Watched, dict[str, Exploration[Any, Any]]]]:
    """Search every model of ``search``: each model with an ``Exploration`` per checked
    property, as ``checker.engines.explore.explore`` returns for it alone.

    ``shipped``: the same search named as the executors resolve it (user files sent
    with the job: ``checker.spark.shipping``); ``max_states``: per model;
    ``timeout_s``: for the whole search; ``driver_below``: a level whose frontier has
    fewer states is searched in the driver's process (default: the Spark setting
    ``spark.dcpcheck.bfs.driverBelow``, else ``DRIVER_BELOW``)."""
    started = time.perf_counter()
    root = checkpoint or tempfile.mkdtemp(prefix="dcpcheck-bfs-")
    temp = None if checkpoint else root
    storage = Storage(spark, root)
    if driver_below is None:
        driver_below = int(spark.conf.get(DRIVER_BELOW_CONF, str(DRIVER_BELOW)))
    try:
        run = _Run(search, build(search))
        where = _open(storage, run, _partitions(spark.sparkContext.defaultParallelism))
        _search(
            spark,
            storage,
            run,
            shipped or search,
            where,
            driver_below,
            max_states,
            timeout_s,
            started,
            progress,
        )
        seconds = time.perf_counter() - started
        return [
            (
                w,
                {
                    w.properties[j].name: _exploration(where, run, m, j, seconds)
                    for j in range(search.checked)
                },
            )
            for m, w in enumerate(run.watched)
        ]
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


def _partitions(cores: int) -> int:
    """One partition per executor core: a successor made in two partitions is encoded,
    evaluated, shipped and settled twice, and with more partitions more are (on
    mb-34150-wider, level 11: 78,351 successors sent with 4 partitions, 63,418 with 2,
    for 38,784 new states)."""
    return max(1, cores)


# -- the level files ---------------------------------------------------------------------------


def _level(index: int) -> tuple[str, str]:
    return LEVELS, f"level={index}"


def _open(storage: Storage, run: _Run, partitions: int) -> Where:
    """Start the search in ``storage``, or resume the one there (with its number of
    partitions: a state's owner must not change)."""
    if storage.exists(SEARCH_FILE):
        there = json.loads(storage.read_text(SEARCH_FILE))
        layout = there.get("layout", 2)  # the records of layouts 1 and 2 did not say
        states = there.get("format")  # spec.cluster.encode's format of the states held
        if layout != LAYOUT or states != FORMAT:
            held = f"layout {layout}, states in format {states}"
            raise InvalidInput(
                storage.root,
                f"holds levels in an earlier {held} that this dcpcheck does not read "
                f"(it reads layout {LAYOUT}, format {FORMAT}); remove this directory (the "
                "search starts again) or give another --checkpoint directory",
            )
        if there.get("ident") != run.search.ident:
            raise InvalidInput(
                storage.root,
                "holds the levels of another search (other rules, bounds, properties or "
                "files); give another --checkpoint directory or remove this one",
            )
        partitions = int(there["partitions"])
    else:
        search = asdict(run.search) | {"bounds": run.search.bounds.to_json()}
        record = {
            "format": FORMAT,
            "layout": LAYOUT,
            "ident": run.search.ident,
            "partitions": partitions,
            "search": search,
        }
        storage.mkdirs(LEVELS)
        storage.write_text(json.dumps(record, indent=2), SEARCH_FILE)
    where = Where(storage.root, partitions)
    storage.delete(INCOMING)  # a level being written when the last run was killed
    published = sorted(
        int(name.split("=")[1]) for name in storage.children(LEVELS) if name.startswith("level=")
    )
    if published != list(range(len(published))):
        raise InvalidInput(storage.root, f"levels {published} are not 0..n; remove the directory")
    for index in published:
        summary = storage.read_text(*_level(index), SUMMARY_FILE)
        run.levels.append(Level.from_json(json.loads(summary)))
    if not run.levels:
        _write_initial(storage, run, where)
    return where


def _write_initial(storage: Storage, run: _Run, where: Where) -> None:
    """Level 0: each model's initial states, in its order."""
    started = time.perf_counter()
    owned: list[list[tuple[Any, ...]]] = [[] for _ in range(where.partitions)]
    for m, w in enumerate(run.watched):
        for i, state in enumerate(w.model.init_states()):
            blob = encode(w.kept(state))
            fp = fingerprint(blob)
            # order: the one byte i (no parent's order; settle writes no parent, no action)
            owned[fp % where.partitions].append((m, b"", i, fp, 0, blob))
    buckets: list[list[bytes]] = [[] for _ in range(where.partitions)]
    for q, record in packed([owned]):
        buckets[q].append(record)
    target = f"{INCOMING}/level=0"
    parts = [
        settle(where, None, target, q, records, len(run.watched))
        for q, records in enumerate(buckets)
    ]
    models = len(run.watched)
    _publish(storage, run, 0, parts, [0] * models, [], started, where, 0, True)


def _publish(
    storage: Storage,
    run: _Run,
    index: int,
    parts: Sequence[SettledPartition],
    transitions: Sequence[int],
    decided: Decided,
    started: float,
    where: Where,
    retried: int,
    on_driver: bool,
) -> None:
    """Summarise level ``index`` from its partitions' reports and what its frontier
    decided (``decided``: empty for level 0, made from no frontier), then publish it by
    renaming ``incoming/level=index``; the level before keeps its rows, not its visited
    files."""
    models = range(len(run.watched))
    level = Level(
        index=index,
        states={m: sum(p.states[m] for p in parts) for m in models},
        first=dict(enumerate(decided)),
        transitions=dict(enumerate(transitions)),
        seconds=time.perf_counter() - started,
        partitions=where.partitions,
        retried=retried,
        on_driver=on_driver,
    )
    storage.write_text(json.dumps(level.to_json()), INCOMING, f"level={index}", SUMMARY_FILE)
    storage.rename(f"{INCOMING}/level={index}", f"{LEVELS}/level={index}")
    run.levels.append(level)
    if index:
        for name in storage.children(*_level(index - 1)):
            if name.startswith("_visited-"):
                storage.delete(*_level(index - 1), name)


# -- the levels --------------------------------------------------------------------------------


def _search(
    spark: Any,
    storage: Storage,
    run: _Run,
    shipped: ClusterSearch,
    where: Where,
    driver_below: int,
    max_states: int | None,
    timeout_s: float | None,
    started: float,
    progress: LevelProgress | None,
) -> None:
    sc = spark.sparkContext
    tag = f"dcpcheck-bfs-{run.search.ident}"  # cancels a level: the time limit, or anyone else
    while True:
        limited = [
            m
            for m in range(len(run.watched))
            if max_states is not None and m not in run.stopped and run.states(m) >= max_states
        ]
        for m in limited:
            run.stopped[m] = f"state limit ({max_states}) reached"
        _evaluate_last(
            sc, run, shipped, where, [m for m in limited if run.undecided(m)], driver_below
        )
        models = [m for m in range(len(run.watched)) if run.running(m)]
        if not models:
            return
        remaining = None if timeout_s is None else timeout_s - (time.perf_counter() - started)
        if remaining is not None and remaining <= 0:
            run.stopped |= {m: f"time limit ({timeout_s:g}s) reached" for m in models}
            return
        frontier = sum(run.levels[-1].states.get(m, 0) for m in models)
        if frontier < driver_below:
            _next_level_here(storage, run, where, models)
        else:
            timer = None
            if remaining is not None:
                timer = threading.Timer(remaining, sc.cancelJobsWithTag, [tag])
                timer.daemon = True
                timer.start()
            sc.addJobTag(tag)
            sc.setInterruptOnCancel(True)
            try:
                _next_level(sc, storage, run, shipped, where, models, tag)
            except Exception:
                if timeout_s is not None and time.perf_counter() - started >= timeout_s:
                    run.stopped |= {m: f"time limit ({timeout_s:g}s) reached" for m in models}
                    return
                raise
            finally:
                if timer is not None:
                    timer.cancel()
                sc.removeJobTag(tag)
        if progress is not None:
            progress(run.levels[-1], run.states())


def _next_level_here(storage: Storage, run: _Run, where: Where, models: list[int]) -> None:
    """A small level, expanded and settled in the driver's process, partition by
    partition, with the functions a Spark task runs: no Spark job."""
    started = time.perf_counter()
    index = len(run.levels)
    frontier, target = "/".join(_level(index - 1)), f"{INCOMING}/level={index}"
    transitions = [0] * len(run.watched)
    decided = nothing_decided(run.watched)
    buckets: list[list[bytes]] = [[] for _ in range(where.partitions)]
    parts = []
    with without_cycle_collection():
        for q in range(where.partitions):
            # each partition's own first orders (its rows come in order), then the least
            # of all partitions, as a Spark job's accumulator keeps them (``_Least``)
            found = nothing_decided(run.watched)
            made = successors(run.watched, where, frontier, q, models, transitions, found)
            for owner, record in packed(made):
                buckets[owner].append(record)
            decided = least(decided, found)
        for q in range(where.partitions):
            parts.append(settle(where, frontier, target, q, buckets[q], len(run.watched)))
            buckets[q] = []
    _publish(storage, run, index, parts, transitions, decided, started, where, 0, True)


def _next_level(
    sc: Any,
    storage: Storage,
    run: _Run,
    shipped: ClusterSearch,
    where: Where,
    models: list[int],
    tag: str,
) -> None:
    """A level as two Spark jobs: partition ``q``'s task expands ``q``'s frontier and
    writes the successors to their owners' files; then each owner's task settles what
    was sent to it. The files sent are removed before the level is published."""
    started = time.perf_counter()
    index = len(run.levels)
    frontier, target = "/".join(_level(index - 1)), f"{INCOMING}/level={index}"
    counted = sc.accumulator([0] * len(run.watched), _PerModel())
    decided = sc.accumulator(nothing_decided(run.watched), _Least())
    cpu = sc.accumulator(0.0)  # the tasks' own CPU seconds (a retried attempt's too)
    level_tag = f"{tag}-level-{index}"  # this level's job, for the failed tasks it had
    sc.addJobTag(level_tag)
    try:
        p = where.partitions
        expand = partial(_expand_task, shipped, where, frontier, target, tuple(models))
        sc.parallelize(range(p), p).foreachPartition(partial(expand, counted, decided, cpu))
        parts = (
            sc.parallelize(range(p), p)
            .mapPartitionsWithIndex(
                partial(_settle_task, where, frontier, target, len(run.watched), cpu)
            )
            .collect()
        )
        retried = _failed_tasks(sc, level_tag)
    finally:
        sc.removeJobTag(level_tag)
    storage.delete(sent_dir(target))
    run.cpu_elsewhere += cpu.value
    _publish(
        storage, run, index, parts, counted.value, decided.value, started, where, retried, False
    )


def _evaluate_last(
    sc: Any,
    run: _Run,
    shipped: ClusterSearch,
    where: Where,
    models: list[int],
    driver_below: int,
) -> None:
    """What the last level decides in ``models``, stopped by the state limit (a level's
    properties are evaluated as it is expanded, and this one will not be): in the
    driver's process if the level is small, else a Spark job of a task per partition,
    without a shuffle."""
    if not models:
        return
    level = "/".join(_level(len(run.levels) - 1))
    p = where.partitions
    if sum(run.levels[-1].states.get(m, 0) for m in models) < driver_below:
        with without_cycle_collection():
            found = [evaluate(run.watched, where, level, q, models) for q in range(p)]
    else:
        cpu = sc.accumulator(0.0)
        found = (
            sc.parallelize(range(p), p)
            .map(partial(_evaluate_task, shipped, where, level, tuple(models), cpu))
            .collect()
        )
        run.cpu_elsewhere += cpu.value
    decided = nothing_decided(run.watched)
    for part in found:
        decided = least(decided, part)
    run.last |= {m: decided[m] for m in models}


# The tasks' Spark accumulators (``Any``: pyspark is imported only where a session is made)
def _expand_task(
    search: ClusterSearch,
    where: Where,
    frontier: str,
    target: str,
    models: tuple[int, ...],
    counted: Any,
    decided: Any,
    cpu: Any,
    partitions: Iterable[int],
) -> None:
    with _task(cpu):
        transitions = [0] * len(search.models)
        watched = models_of(search)
        found = nothing_decided(watched)
        with without_cycle_collection():  # states make no cycles; a task makes many
            for q in partitions:
                made = successors(watched, where, frontier, q, models, transitions, found)
                send(where, target, q, packed(made))
        counted.add(transitions)
        decided.add(found)


def _settle_task(
    where: Where, visited: str, target: str, models: int, cpu: Any, q: int, _: Iterable[int]
) -> Iterator[SettledPartition]:
    with _task(cpu), without_cycle_collection():
        part = settle(where, visited, target, q, received(where, target, q), models)
    yield part


def _evaluate_task(
    search: ClusterSearch, where: Where, level: str, models: tuple[int, ...], cpu: Any, q: int
) -> Decided:
    with _task(cpu), without_cycle_collection():
        return evaluate(models_of(search), where, level, q, models)


@contextmanager
def _task(cpu: Any) -> Iterator[None]:
    """A Spark task's body: its CPU seconds added to ``cpu`` (an accumulator), then what
    it leaves alive in its Python worker (the model's and the codec's memories: many
    objects, no cycles) put out of the cycle collector's reach. PySpark's daemon runs
    a full collection after each task of a reused worker, which walked them all
    again: 4.5 CPU s in 1.35 million states of mb-34150-wider, measured. A task
    leaves no cyclic garbage to lose this way (a collection at the end of each task
    of that search found none); what it frees later is still freed, by its reference
    count."""
    started = time.process_time()
    yield
    cpu.add(time.process_time() - started)
    gc.freeze()


def _failed_tasks(sc: Any, tag: str) -> int:
    """Task attempts that failed in the jobs tagged ``tag`` (Spark ran them again)."""
    tracker = sc._jsc.sc().statusTracker()
    failed = 0
    for job in tracker.getJobIdsForTag(tag):
        info = tracker.getJobInfo(job)
        if info.isEmpty():
            continue
        for stage in info.get().stageIds():
            stage_info = tracker.getStageInfo(stage)
            if not stage_info.isEmpty():
                failed += stage_info.get().numFailedTasks()
    return failed


class _Least:
    """A Spark accumulator of the least deciding order per model and property (a task
    run again adds the same orders: the least is unchanged)."""

    def zero(self, value: Decided) -> Decided:
        return [[None] * len(p) for p in value]

    def addInPlace(self, a: Decided, b: Decided) -> Decided:
        return least(a, b)


class _PerModel:
    """A Spark accumulator of one count per model."""

    def zero(self, value: list[int]) -> list[int]:
        return [0] * len(value)

    def addInPlace(self, a: list[int], b: list[int]) -> list[int]:
        return [x + y for x, y in zip(a, b, strict=True)]


# -- an Exploration per check -------------------------------------------------------------------


def _exploration(where: Where, run: _Run, m: int, j: int, seconds: float) -> Exploration[Any, Any]:
    """What an in-process breadth-first search of model ``m`` for property ``j`` (and the
    properties watched alongside) finds."""
    props = run.watched[m].properties
    per_level = [level.states.get(m, 0) for level in run.levels]
    first = run.first(m, j)
    outcomes: dict[str, PropertyOutcome[Any, Any]] = {}
    if first is not None:
        level, order = first
        path = _path(where, run.watched[m], m, level, order)
        verdict = verdict_of(props[j].expectation, True, False)
        outcomes[props[j].name] = PropertyOutcome(
            props[j].name, props[j].expectation, verdict, path
        )
        states = sum(per_level[:level]) + _rank(where, m, level, order) + 1
        complete, stopped, depth = False, "all properties decided", max(0, level - 1)
        transitions = sum(lv.transitions.get(m, 0) for lv in run.levels[: level + 1])
    else:
        complete = m not in run.stopped
        verdict = verdict_of(props[j].expectation, False, complete)
        outcomes[props[j].name] = PropertyOutcome(props[j].name, props[j].expectation, verdict)
        states = sum(per_level)
        stopped = run.stopped.get(m, "")
        depth = max((i for i, n in enumerate(per_level) if n), default=0)
        transitions = sum(lv.transitions.get(m, 0) for lv in run.levels)
    for s in range(run.search.checked, len(props)):
        seen = run.first(m, s)
        decided = seen is not None and (first is None or seen <= first)
        found = verdict_of(props[s].expectation, decided, first is None and complete)
        outcomes[props[s].name] = PropertyOutcome(props[s].name, props[s].expectation, found)
    return Exploration(
        outcomes=outcomes,
        states=states,
        transitions=transitions,
        max_depth=depth,
        seconds=seconds,
        complete=complete and first is None,
        stopped=stopped,
        strategy="bfs",
        symmetry=run.search.symmetry,
        fingerprints=True,
        engine="bfs-spark",
        cpu_elsewhere=run.cpu_elsewhere,
    )


def _dataset(where: Where, folder: str) -> Any:  # a pyarrow Dataset (pyarrow has no types)
    import pyarrow.dataset as ds

    fs, root = where.filesystem()
    return ds.dataset(f"{root}/{folder}", filesystem=fs, format="parquet", partitioning="hive")


def _rank(where: Where, m: int, level: int, order: bytes) -> int:
    """States of model ``m`` in ``level`` an in-process search discovers before ``order``."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    earlier = (ds.field("model") == m) & (ds.field("order") < pa.scalar(order, pa.binary()))
    return int(_dataset(where, "/".join(_level(level))).count_rows(filter=earlier))


def _path(where: Where, w: Watched, m: int, level: int, order: bytes) -> Run[Any, Any]:
    """The run to the state at (``level``, ``order``): an ancestor's order is a prefix of
    its descendant's, so one scan of the levels finds them all; the run is then
    replayed on the model, which must reach the states stored."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    prefixes = pa.array([order[: n + 1] for n in range(level + 1)], pa.binary())
    table = _dataset(where, LEVELS).to_table(
        columns=["level", "fp", "parent", "action", "state"],
        filter=(ds.field("model") == m) & ds.field("order").isin(prefixes),
    )
    by_level = {r["level"]: r for r in table.to_pylist()}
    if sorted(by_level) != list(range(level + 1)):
        raise HarnessBug(f"the search's files lack the run to a state at level {level}")
    init = decode(bytes(by_level[0]["state"]))
    state, steps = init, []
    for n in range(1, level + 1):
        row = by_level[n]
        if row["parent"] != by_level[n - 1]["fp"]:
            raise HarnessBug(f"level {n}: a state's parent is not the state before it")
        action = w.model.actions(state)[row["action"]]
        after = w.model.next_state(state, action)
        if after is not None:
            after = w.kept(after)
        if after is None or encode(after) != bytes(row["state"]):
            raise HarnessBug(f"level {n}: {action} does not lead to the state the search stored")
        steps.append(Transition(action, after))
        state = after
    if not w.symmetry:
        return Run(init, tuple(steps))
    # a run of representatives: the run of named steps through their renamings
    return concrete(w.model, [init, *(s.state for s in steps)], w.kept)
