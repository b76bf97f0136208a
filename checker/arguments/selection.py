"""What to check, on the command line: ``--rules``, ``--consumer``, ``--property``.

``check`` and ``verify`` take them as here; ``clients`` with its own help
(its defaults are the client catalogue's). Each names a definition by its
registered name or a ``.py`` file (``checker.arguments.common.chosen``).
"""

from __future__ import annotations

import argparse

from checker.arguments.common import Chosen, add_repeatable, chosen
from checker.probe import probe_consumers
from spec.consumers import CONSUMERS, TEXTBOOK, ConsumerVariant
from spec.properties import PROPERTIES, Property
from spec.rules import RULE_SETS, RuleSet

__all__ = ["SELECTION_HELP", "add_selection_arguments", "selection"]

SELECTION_HELP = {
    "--rules": "rule set (repeatable; default all built-in)",
    "--consumer": "consumer variant (repeatable; default correct and collapse-snapshot; the "
    "client catalogue: dcpcheck clients)",
    "--property": "property id (repeatable; default all)",
}


def add_selection_arguments(
    parser: argparse.ArgumentParser, helps: dict[str, str] = SELECTION_HELP
) -> None:
    """``--rules``, ``--consumer``, ``--property``: what to check, each by name or file."""
    for flag, metavar in (
        ("--rules", "NAME|FILE"),
        ("--consumer", "NAME|FILE"),
        ("--property", "ID"),
    ):
        add_repeatable(parser, flag, metavar, helps[flag])


def selection(
    args: argparse.Namespace,
) -> tuple[list[Chosen[RuleSet]], list[Chosen[ConsumerVariant]], list[Chosen[Property]]]:
    """The rule sets, consumers (default: the textbook's two, each evaluated first:
    ``checker.probe``) and properties the arguments name."""
    consumers = chosen(CONSUMERS, ConsumerVariant, args.consumer or list(TEXTBOOK))
    probe_consumers(c.item for c in consumers)
    return (
        chosen(RULE_SETS, RuleSet, args.rules),
        consumers,
        chosen(PROPERTIES, Property, args.property),
    )
