"""Consumer variants by name: ``CONSUMERS.get("correct")``.

User variants are ``ConsumerVariant`` instances in a ``.py`` file (see
docs/authoring-consumers.md), loaded by ``checker.loading``.
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, ResumeRequest, Truncation
from spec.registry import Registry

__all__ = [
    "CONSUMERS",
    "ConsumerVariant",
    "ConsumerView",
    "LogView",
    "ResumeRequest",
    "Truncation",
]


def _builtins() -> None:
    from spec.consumers import collapse_snapshot, correct

    for module in (correct, collapse_snapshot):
        CONSUMERS.register(module.VARIANT.name, module.VARIANT)


CONSUMERS: Registry[ConsumerVariant] = Registry("consumer", _builtins)
