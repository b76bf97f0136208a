"""kv-current without its purge clause: a consumer behind the purge seqno is not rolled back."""

from spec.rules import RuleSet
from spec.rules.kv_current import RULES as KV_CURRENT

RULES = RuleSet(
    name="no-purge",
    summary="kv-current without the purge clause",
    steps=tuple(step for step in KV_CURRENT.steps if step.name != "purge"),
)
