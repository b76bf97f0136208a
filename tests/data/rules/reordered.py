"""kv-current with the uuid check moved first: start 0 with an unknown uuid now rolls back."""

from spec.rules import RuleSet
from spec.rules.kv_current import RULES as KV_CURRENT

steps = {step.name: step for step in KV_CURRENT.steps}
order = ["uuid-not-found", "start-zero", "purge", "no-item-received", "lagging"]
order += ["snapshot-complete", "ahead-of-upper", "snapshot-mismatch"]

RULES = RuleSet(
    name="uuid-first",
    summary="kv-current, but the uuid-not-found clause comes before start-zero",
    steps=tuple(steps[name] for name in order),
)
