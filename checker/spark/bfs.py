"""Distributed breadth-first search of the cluster model, level by level, on Spark.

The frontier and the visited set are Spark DataFrames keyed by ``(model, fp)``,
``fp`` a state's 64-bit fingerprint (``spec.cluster.encode``). One level:

1. the frontier (level ``d``'s files, one partition each) is sorted by
   ``order`` within its partitions;
2. ``mapInArrow`` expands it on the executors (``checker.spark.expand``: the
   model's own ``actions`` and ``next_state``), a row per new successor;
3. successors are grouped by fingerprint, keeping the one first in queue
   order (the least ``order``), and anti-joined with every level so far;
4. what is left is level ``d + 1``: written as Parquet to ``incoming/``,
   summarised while it is written (new states, and the first state deciding
   each watched property, per model: ``_level.json``) and published by a
   rename into ``levels/level=<d+1>``.

A level's rows are ``(model, fp, parent, action, order, state, decides)``:
walking ``parent`` back gives a counterexample, and because ``order`` is the
place an in-process FIFO search would discover the state, the first
deciding state of a level is the one the in-process search stops at. So
each check gets the verdict, unique-state count, depth and counterexample
``checker.engines.explore`` finds, in the same ``Exploration``. Only level
summaries and counterexample rows reach the driver; states stay in files.

``checkpoint``: keep the level files there; a search killed mid-level
resumes from its last published level (``search.json`` says whose levels
they are; another search's directory is refused). On a cluster of several
hosts it must be a path every executor and the driver share (HDFS, S3,
NFS). Without it the files go to a temporary directory, removed at the end.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

from checker.engines.explore import Exploration, PropertyVerdict, Step
from checker.engines.explore import Path as Run
from checker.result import Verdict
from checker.spark.expand import CANDIDATE_COLUMNS, ClusterSearch, Watched, build, expand
from checker.spark.storage import Storage
from spec.cluster import ClusterBounds
from spec.cluster.encode import FORMAT, decode, encode, fingerprint
from spec.cluster.protocol import Expectation
from spec.errors import HarnessBug, InvalidInput

__all__ = ["Level", "cluster_search", "search_on_spark"]

LEVELS = "levels"
INCOMING = "incoming"
SEARCH_FILE = "search.json"
SUMMARY_FILE = "_level.json"  # Spark skips names starting with "_" when it reads a level


@dataclass
class Level:
    """What one level added, per model: new states, and for each watched property the
    order of the first state deciding it (None if none does)."""

    index: int
    states: dict[int, int]
    first: dict[int, list[bytes | None]]
    transitions: dict[int, int]  # made expanding the level before
    seconds: float = 0.0
    partitions: int = 0
    retried: int = 0  # tasks that failed and ran again

    def to_json(self) -> dict[str, object]:
        out = asdict(self)
        out["first"] = {m: [o and o.hex() for o in orders] for m, orders in self.first.items()}
        return out

    @classmethod
    def from_json(cls, record: dict[str, object]) -> Level:
        level = cls(**record)  # type: ignore[arg-type]
        level.states = {int(m): n for m, n in level.states.items()}
        level.transitions = {int(m): n for m, n in level.transitions.items()}
        level.first = {
            int(m): [o and bytes.fromhex(o) for o in orders]  # type: ignore[misc]
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
) -> ClusterSearch:
    """The search of ``checked`` (and ``watched`` alongside) in every model, named by a
    digest of its definition, user files' contents included."""
    properties = (*checked, *(p for p in watched if p not in checked))
    names = [*(n for pair in models for n in pair), rules, *properties]
    definition = {
        "format": FORMAT,
        "models": [list(pair) for pair in models],
        "rules": rules,
        "bounds": bounds.to_json(),
        "properties": list(properties),
        "checked": len(checked),
        "files": {n: _file_digest(n) for n in names if _file_digest(n)},
    }
    ident = hashlib.sha1(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]
    return ClusterSearch(ident, tuple(models), rules, bounds, properties, len(checked))


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

    def first(self, m: int, j: int) -> tuple[int, bytes] | None:
        for level in self.levels:
            order = level.first.get(m, [None] * len(self.search.properties))[j]
            if order is not None:
                return level.index, order
        return None

    def states(self, m: int | None = None) -> int:
        return sum(n for lv in self.levels for k, n in lv.states.items() if m in (None, k))

    def running(self, m: int) -> bool:
        """Model ``m`` has a check undecided, a frontier, and no limit reached."""
        if m in self.stopped or not self.levels[-1].states.get(m):
            return False
        return any(self.first(m, j) is None for j in range(self.search.checked))


def search_on_spark(
    spark,  # type: ignore[no-untyped-def]
    search: ClusterSearch,
    *,
    shipped: ClusterSearch | None = None,
    checkpoint: str | None = None,
    max_states: int | None = None,
    timeout_s: float | None = None,
    progress: LevelProgress | None = None,
) -> list[tuple[Watched, dict[str, Exploration]]]:
    """Search every model of ``search``: each model with an ``Exploration`` per checked
    property, as ``checker.engines.explore.explore`` returns for it alone.

    ``shipped``: the same search named as the executors resolve it (user files sent
    with the job: ``checker.spark.shipping``); ``max_states``: per model;
    ``timeout_s``: for the whole search."""
    started = time.perf_counter()
    temp = None if checkpoint else tempfile.mkdtemp(prefix="dcpcheck-bfs-")
    storage = Storage(spark, checkpoint or temp)  # type: ignore[arg-type]
    try:
        run = _Run(search, build(search))
        _open(spark, storage, run)
        _search(spark, storage, run, shipped or search, max_states, timeout_s, started, progress)
        seconds = time.perf_counter() - started
        return [
            (
                w,
                {
                    w.properties[j].name: _exploration(spark, storage, run, m, j, seconds)
                    for j in range(search.checked)
                },
            )
            for m, w in enumerate(run.watched)
        ]
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


# -- the level files ---------------------------------------------------------------------------


def _level(index: int) -> tuple[str, str]:
    return LEVELS, f"level={index}"


def _schema():  # type: ignore[no-untyped-def]
    from pyspark.sql.types import BinaryType, IntegerType, LongType, StructField, StructType

    kinds = {"int32": IntegerType(), "int64": LongType(), "binary": BinaryType()}
    return StructType(
        [
            StructField(name, kinds[kind], nullable=name in ("parent", "action"))
            for name, kind in CANDIDATE_COLUMNS
        ]
    )


def _open(spark, storage: Storage, run: _Run) -> None:  # type: ignore[no-untyped-def]
    """Start the search in ``storage``, or resume the one there."""
    if storage.exists(SEARCH_FILE):
        there = json.loads(storage.read_text(SEARCH_FILE))
        if there.get("ident") != run.search.ident:
            raise InvalidInput(
                storage.root,
                "holds the levels of another search (other rules, bounds, properties or "
                "files); give another --checkpoint directory or remove this one",
            )
    else:
        search = asdict(run.search) | {"bounds": run.search.bounds.to_json()}
        record = {"format": FORMAT, "ident": run.search.ident, "search": search}
        storage.mkdirs(LEVELS)
        storage.write_text(json.dumps(record, indent=2), SEARCH_FILE)
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
        _write_initial(spark, storage, run)


def _write_initial(spark, storage: Storage, run: _Run) -> None:  # type: ignore[no-untyped-def]
    """Level 0: each model's initial states, in its order."""
    rows = []
    for m, w in enumerate(run.watched):
        seen: set[int] = set()
        for i, state in enumerate(w.model.init_states()):
            blob = encode(state)
            fp = fingerprint(blob)
            if fp not in seen:
                seen.add(fp)
                rows.append((m, fp, None, None, bytes((i,)), blob, w.decides(state)))
    frame = spark.createDataFrame(rows, _schema()).coalesce(1)
    _publish(storage, run, 0, frame, dict, time.perf_counter(), 1)


def _publish(
    storage: Storage,
    run: _Run,
    index: int,
    frame,  # type: ignore[no-untyped-def]
    transitions: Callable[[], dict[int, int]],
    started: float,
    partitions: int,
    retried: Callable[[], int] = lambda: 0,
) -> None:
    """Write level ``index`` to ``incoming/``, summarised while it is written (a Spark
    ``Observation``: no second pass), then publish it by rename.

    ``transitions``, ``retried``: read once the level is written."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    models = range(len(run.watched))
    watched = range(len(run.search.properties))
    # one SQL expression a metric: a level costs few calls to the JVM
    metrics = [F.expr(f"count_if(model = {m})").alias(f"n{m}") for m in models] + [
        F.expr(f"min(CASE WHEN model = {m} AND decides & {1 << j} != 0 THEN order END)").alias(
            f"m{m}p{j}"
        )
        for m in models
        for j in watched
    ]
    observed = Observation(f"level {index}")
    frame.observe(observed, *metrics).write.mode("overwrite").parquet(
        storage.uri(INCOMING, f"level={index}")
    )
    values = observed.get
    level = Level(
        index=index,
        states={m: values[f"n{m}"] for m in models},
        first={
            m: [None if (o := values[f"m{m}p{j}"]) is None else bytes(o) for j in watched]
            for m in models
        },
        transitions=transitions(),
        seconds=time.perf_counter() - started,
        partitions=partitions,
        retried=retried(),
    )
    storage.write_text(json.dumps(level.to_json()), INCOMING, f"level={index}", SUMMARY_FILE)
    storage.rename(f"{INCOMING}/level={index}", f"{LEVELS}/level={index}")
    run.levels.append(level)


# -- the levels --------------------------------------------------------------------------------


def _search(
    spark,  # type: ignore[no-untyped-def]
    storage: Storage,
    run: _Run,
    shipped: ClusterSearch,
    max_states: int | None,
    timeout_s: float | None,
    started: float,
    progress: LevelProgress | None,
) -> None:
    sc = spark.sparkContext
    tag = f"dcpcheck-bfs-{run.search.ident}"  # cancels a level: the time limit, or anyone else
    while True:
        for m in range(len(run.watched)):
            if max_states is not None and m not in run.stopped and run.states(m) >= max_states:
                run.stopped[m] = f"state limit ({max_states}) reached"
        models = [m for m in range(len(run.watched)) if run.running(m)]
        if not models:
            return
        remaining = None if timeout_s is None else timeout_s - (time.perf_counter() - started)
        if remaining is not None and remaining <= 0:
            run.stopped |= {m: f"time limit ({timeout_s:g}s) reached" for m in models}
            return
        timer = None
        if remaining is not None:
            timer = threading.Timer(remaining, sc.cancelJobsWithTag, [tag])
            timer.daemon = True
            timer.start()
        sc.addJobTag(tag)
        sc.setInterruptOnCancel(True)
        try:
            _next_level(spark, storage, run, shipped, models, tag)
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


def _next_level(spark, storage, run, shipped, models, tag) -> None:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    started = time.perf_counter()
    sc = spark.sparkContext
    index = len(run.levels)
    counted = sc.accumulator([0] * len(run.watched), _PerModel())
    partitions = max(2, 2 * sc.defaultParallelism)
    level_tag = f"{tag}-level-{index}"  # this level's jobs, for the failed tasks they had
    sc.addJobTag(level_tag)
    # A level's files are its partitions (the hash partitions of the level before), so
    # the frontier is read as written; sorted by order for expand's first-seen rule.
    frontier = (
        spark.read.schema(_schema())
        .parquet(storage.uri(*_level(index - 1)))
        .where(F.col("model").isin(models))
        .select("model", "fp", "order", "state")
        .sortWithinPartitions("model", "order")
    )
    candidates = frontier.mapInArrow(partial(_expand, shipped, counted), _schema())
    best = (
        candidates.repartition(partitions, "model", "fp")
        .groupBy("model", "fp")
        .agg(F.min(F.struct("order", "parent", "action", "state", "decides")).alias("best"))
    )
    visited = spark.read.schema(_schema()).parquet(storage.uri(LEVELS)).select("model", "fp")
    new = best.join(visited, ["model", "fp"], "left_anti").select(
        "model", "fp", "best.parent", "best.action", "best.order", "best.state", "best.decides"
    )
    try:
        _publish(
            storage,
            run,
            index,
            new,
            lambda: dict(enumerate(counted.value)),
            started,
            partitions,
            lambda: _failed_tasks(sc, level_tag),
        )
    finally:
        sc.removeJobTag(level_tag)


def _expand(search: ClusterSearch, counted, batches):  # type: ignore[no-untyped-def]
    yield from expand(search, batches, counted)


def _failed_tasks(sc, tag: str) -> int:  # type: ignore[no-untyped-def]
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


class _PerModel:
    """A Spark accumulator of one count per model."""

    def zero(self, value: list[int]) -> list[int]:
        return [0] * len(value)

    def addInPlace(self, a: list[int], b: list[int]) -> list[int]:
        return [x + y for x, y in zip(a, b, strict=True)]


# -- an Exploration per check -------------------------------------------------------------------


def _exploration(spark, storage: Storage, run: _Run, m: int, j: int, seconds: float) -> Exploration:  # type: ignore[no-untyped-def]
    """What an in-process breadth-first search of model ``m`` for property ``j`` (and the
    properties watched alongside) finds."""
    props = run.watched[m].properties
    per_level = [level.states.get(m, 0) for level in run.levels]
    first = run.first(m, j)
    outcomes: dict[str, PropertyVerdict] = {}
    if first is not None:
        level, order = first
        path = _path(spark, storage, run.watched[m], m, level, order)
        verdict = Verdict.VIOLATED if props[j].expectation == Expectation.ALWAYS else Verdict.HOLDS
        outcomes[props[j].name] = PropertyVerdict(
            props[j].name, props[j].expectation, verdict, path
        )
        states = sum(per_level[:level]) + _rank(spark, storage, m, level, order) + 1
        complete, stopped, depth = False, "all properties decided", max(0, level - 1)
        transitions = sum(lv.transitions.get(m, 0) for lv in run.levels[: level + 1])
    else:
        complete = m not in run.stopped
        verdict = (
            Verdict.UNKNOWN
            if not complete
            else Verdict.HOLDS
            if props[j].expectation == Expectation.ALWAYS
            else Verdict.VIOLATED
        )
        outcomes[props[j].name] = PropertyVerdict(props[j].name, props[j].expectation, verdict)
        states = sum(per_level)
        stopped = run.stopped.get(m, "")
        depth = max((i for i, n in enumerate(per_level) if n), default=0)
        transitions = sum(lv.transitions.get(m, 0) for lv in run.levels)
    for s in range(run.search.checked, len(props)):
        seen = run.first(m, s)
        if seen is not None and (first is None or seen <= first):
            found = (
                Verdict.HOLDS if props[s].expectation == Expectation.SOMETIMES else Verdict.VIOLATED
            )
        elif first is None and complete:
            found = (
                Verdict.VIOLATED if props[s].expectation == Expectation.SOMETIMES else Verdict.HOLDS
            )
        else:
            found = Verdict.UNKNOWN
        outcomes[props[s].name] = PropertyVerdict(props[s].name, props[s].expectation, found)
    return Exploration(
        outcomes=outcomes,
        states=states,
        transitions=transitions,
        max_depth=depth,
        seconds=seconds,
        complete=complete and first is None,
        stopped=stopped,
        strategy="bfs",
        engine="spark",
    )


def _rank(spark, storage: Storage, m: int, level: int, order: bytes) -> int:  # type: ignore[no-untyped-def]
    """States of model ``m`` in ``level`` an in-process search discovers before ``order``."""
    from pyspark.sql import functions as F

    frame = spark.read.schema(_schema()).parquet(storage.uri(*_level(level)))
    return frame.where((F.col("model") == m) & (F.col("order") < F.lit(bytearray(order)))).count()


def _path(spark, storage: Storage, w: Watched, m: int, level: int, order: bytes) -> Run:  # type: ignore[no-untyped-def]
    """The run to the state at (``level``, ``order``): an ancestor's order is a prefix of
    its descendant's, so one scan of the levels finds them all; the run is then
    replayed on the model, which must reach the states stored."""
    from pyspark.sql import functions as F

    prefixes = [bytearray(order[: n + 1]) for n in range(level + 1)]
    rows = (
        spark.read.parquet(storage.uri(LEVELS))
        .where((F.col("model") == m) & F.col("order").isin(prefixes))
        .select("level", "fp", "parent", "action", "state")
        .collect()
    )
    by_level = {r["level"]: r for r in rows}
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
        if after is None or encode(after) != bytes(row["state"]):
            raise HarnessBug(f"level {n}: {action} does not lead to the state the search stored")
        steps.append(Step(action, after))
        state = after
    return Run(init, tuple(steps))
