"""Work cut into numbered parts, a Spark task each, reduced on the driver as tasks finish.

``until_decided(spark, count, work, decided)`` runs ``work(n)`` for every
part on the executors (the parts are only numbers: each task makes its own
work from its number) in one job, in the ``order`` given. Each task's
result comes back through an accumulator as the task finishes (a retried
task reports the same part again, which changes nothing); once
``decided(results)`` the tasks still queued or running are cancelled (the
job's tag). Ctrl-C, or any error on the driver, cancels the job too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Generic, TypeVar, cast

if TYPE_CHECKING:
    from pyspark.accumulators import Accumulator, AccumulatorParam
    from pyspark.sql import SparkSession

__all__ = ["until_decided"]

R = TypeVar("R")
POLL_SECONDS = 0.1


class _ByPart(Generic[R]):
    """An accumulator of part number -> result."""

    def zero(self, value: dict[int, R]) -> dict[int, R]:
        return {}

    def addInPlace(self, a: dict[int, R], b: dict[int, R]) -> dict[int, R]:
        a.update(b)
        return a


def until_decided(
    spark: SparkSession,
    count: int,
    work: Callable[[int], R],
    decided: Callable[[Mapping[int, R]], bool],
    *,
    order: Sequence[int] | None = None,
    on_progress: Callable[[Mapping[int, R]], None] | None = None,
) -> dict[int, R]:
    """The results by part number: every part's, or those finished when ``decided``
    first held. ``on_progress`` sees the results so far whenever more have arrived. A job
    that failed before it was decided raises its error."""
    from pyspark.util import InheritableThread

    sc = spark.sparkContext
    parts = list(order) if order is not None else list(range(count))
    by_part = cast("AccumulatorParam[dict[int, R]]", _ByPart())  # the protocol it implements
    results: Accumulator[dict[int, R]] = sc.accumulator({}, by_part)
    tag = f"dcpcheck-parts-{id(results)}"
    failure: list[BaseException] = []

    def run(n: int) -> None:
        results.add({n: work(n)})

    def job() -> None:
        sc.addJobTag(tag)
        sc.setInterruptOnCancel(True)
        try:
            sc.parallelize(parts, max(1, len(parts))).foreach(run)
        except Exception as exc:  # a cancelled job ends here too
            failure.append(exc)
        finally:
            # After Ctrl-C the driver does not wait for this thread: the session may be
            # stopped already (no JVM context), and the tag went with it.
            with suppress(Exception):
                sc.removeJobTag(tag)

    worker = InheritableThread(target=job, daemon=True)
    worker.start()
    seen = 0
    try:
        while True:
            # Whether the job runs is read before its results, so the look after it
            # ended (however quickly) sees and reports every part.
            running = worker.is_alive()
            done = dict(results.value)  # a copy: tasks ending now add to the original
            if on_progress is not None and len(done) > seen:
                seen = len(done)
                on_progress(done)
            if decided(done):
                sc.cancelJobsWithTag(tag)
                break
            if not running:
                break
            time.sleep(POLL_SECONDS)
        worker.join()
    except BaseException:
        sc.cancelJobsWithTag(tag)
        raise
    done = dict(results.value)
    if not decided(done) and len(done) < count:
        raise failure[0] if failure else RuntimeError("the Spark job ended early")
    return done
