"""The client catalogue as checks and as a table: what ``clients`` and ``verify`` share.

``client_tasks``: one task per rule set x client (the catalogue and its fixes
by default, a user's own files beside them), its properties proved together;
``print_clients``: the catalogue's table, which setting is the default, each
violation's counterexample and reproduce line, and what the verdicts mean.
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.arguments.common import chosen
from checker.engines.options import Options
from checker.loading import looks_like_path
from checker.probe import probe_consumers
from checker.report.files import counterexample_path
from checker.report.text import summary_table
from checker.result import Result, Verdict
from checker.symbolic.budget import CHECK_BUDGET
from checker.tasks import ScenarioGroupTask
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant, catalogue_names
from spec.expected_clients import COSTS
from spec.properties import PROPERTIES, Property
from spec.rules import RULE_SETS, RuleSet

__all__ = ["client_tasks", "print_clients", "settings_legend"]


def client_tasks(
    rules: list[str] | None,
    consumers: list[str] | None,
    props: list[str] | None,
    bounds: Bounds,
    timeout_s: float | None,
    budget: int | None = CHECK_BUDGET,
) -> list[ScenarioGroupTask]:
    """One task per rule set x client (its properties proved together, searched apart:
    ``checker.together``): the clients named, or the whole catalogue in its order when
    none is, and beside them the user's own files; with no ``props``, every safety
    property and the cost verdicts pinned for the client (spec/expected_clients.py's
    ``COSTS``)."""
    files = [c for c in consumers or () if looks_like_path(c) and c not in CONSUMERS]
    names = [c for c in consumers or () if c not in files]
    chosen_rules = chosen(RULE_SETS, RuleSet, rules)
    chosen_clients = chosen(CONSUMERS, ConsumerVariant, [*(names or catalogue_names()), *files])
    probe_consumers(c.item for c in chosen_clients)
    safety = [p.id for p in PROPERTIES if p.kind == "safety"]
    chosen_props = chosen(PROPERTIES, Property, props or safety)
    ids = tuple(p.spec for p in chosen_props)

    def pinned_costs(client: str) -> tuple[str, ...]:
        # With no --property: the cost verdicts pinned for this client too (COSTS).
        return () if props else tuple(p for c, p in COSTS if c == client and p not in ids)

    return [
        ScenarioGroupTask(
            r.spec,
            c.spec,
            ids + pinned_costs(c.spec),
            bounds,
            Options(budget=budget, timeout_s=timeout_s),
        )
        for r in chosen_rules
        for c in chosen_clients
    ]


def settings_legend(results: Sequence[Result]) -> str:
    """One line per client judged under a setting: the value of each of its settings,
    and which is the client as it ships (its bare name, every setting at its default)."""
    lines = []
    for name in dict.fromkeys(r.subject.get("consumer", "") for r in results):
        variant = CONSUMERS.get(name) if name in CONSUMERS else None
        if variant is None or not variant.settings:
            continue
        values = ", ".join(f"{k}={v}" for k, v in variant.setting_values().items())
        shipped = "default (as it ships)" if variant.is_default() else "not the default"
        lines.append(f"  {name:<{_width(results)}}  {values}: {shipped}")
    if not lines:
        return ""
    return "settings (a bare name is the client with every setting at its default):\n" + (
        "\n".join(lines)
    )


def _width(results: Sequence[Result]) -> int:
    return max(len(r.subject.get("consumer", "")) for r in results)


def print_clients(results: Sequence[Result], bounds: Bounds, out: str) -> None:
    """The catalogue's table (the shared summary table, one row group per client and
    setting), which setting is the default, each violation's counterexample file and
    reproduce line, and what the verdicts mean (the stories in docs/clients.md are the
    catalogue's: a client of the user's own has none)."""
    print(summary_table(results, expected=True))
    legend = settings_legend(results)
    if legend:
        print("\n" + legend)
    violations = [r for r in results if r.verdict is Verdict.VIOLATED]
    if violations:
        print("\ncounterexamples:")
    for r in violations:
        path = counterexample_path(r, out)
        print(f"  {r.label}: {r.property}: {path or 'not written (not replayed)'}")
        print(f"    reproduce: {r.command}")
    pinned = [r for r in results if r.expected is not None]
    others = list(dict.fromkeys(r.consumer for r in results if r.expected is None))
    text = f"\nholds = no violation within {bounds.describe()}"
    if pinned:
        text += "; each pinned violation's story is in docs/clients.md"
    if others:
        text += (
            f"; {', '.join(others)}: no pinned verdict (a violation is exit 1) and no story "
            "there: read the counterexamples above"
        )
    print(text)
