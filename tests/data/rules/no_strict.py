"""kv-current without STRICT_VBUUID: start 0 is accepted whatever the uuid."""

from spec.rules import Clause, F, RuleSet, accept
from spec.rules.kv_current import RULES as KV

RULES = RuleSet(
    name="no-strict",
    summary="kv-current without STRICT_VBUUID",
    steps=tuple(
        Clause("start-zero", when=F.start == 0, then=accept()) if s.name == "start-zero" else s
        for s in KV.steps
    ),
)
