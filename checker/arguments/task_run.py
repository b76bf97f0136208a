"""The flags of a run of tasks (``clients``, ``verify``), added in one order.

What to check (``--rules``, ``--consumer``, ``--property``), what the run writes and
each check's budget, ``--no-spark``, ``--quiet``, the scenario bounds and where the
tasks go (``--master``, ``--conf``); ``checker.arguments.common.task_run_inputs`` and
``task_place`` read them back. A command adds its own flags after these.
"""

from __future__ import annotations

import argparse

from checker.arguments.common import (
    add_no_spark,
    add_progress_arguments,
    add_scenario_bounds,
    add_spark_arguments,
    add_task_run_arguments,
)
from checker.arguments.selection import SELECTION_HELP, add_selection_arguments

__all__ = ["add_task_run_command"]


def add_task_run_command(
    parser: argparse.ArgumentParser,
    out: str,
    selection_help: dict[str, str] = SELECTION_HELP,
    json_help: str = "",
) -> None:
    """Every flag a run of tasks shares; ``out``: its default ``--out DIR``."""
    add_selection_arguments(parser, selection_help)
    add_task_run_arguments(parser, out, json_help=json_help)
    add_no_spark(parser)
    add_progress_arguments(parser)
    add_scenario_bounds(parser)
    add_spark_arguments(parser)
