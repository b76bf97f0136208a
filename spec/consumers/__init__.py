"""Consumer variants by name: ``CONSUMERS.get("correct")``.

``TEXTBOOK`` are the two consumers kv_engine's documents describe (the
default of ``check`` and ``verify``); ``CATALOGUE`` pairs each real client
modelled from its source with its smallest fix (``dcpcheck clients``,
docs/clients.md). User variants are ``ConsumerVariant`` instances in a
``.py`` file (see docs/authoring-consumers.md), loaded by ``checker.loading``.
A name may carry settings, ``go-dcp:mitigation=off`` (``spec.consumers.settings``).
"""

import importlib
import pkgutil

from spec.consumers import api
from spec.consumers.api import *  # noqa: F403 (the interface a variant is written against)
from spec.consumers.settings import ConsumerRegistry

__all__ = ["CATALOGUE", "CONSUMERS", "TEXTBOOK", "catalogue_names", *api.__all__]

TEXTBOOK = ("correct", "collapse-snapshot")

# (client, its smallest fix), in the order docs/clients.md tells them; each pair is the
# VARIANTS of a module under spec/consumers/clients/ (registered from there).
CATALOGUE = (
    ("java-dcp-client", "java-dcp-client-fixed"),
    ("go-dcp", "go-dcp-fixed"),
    ("cbgt", "cbgt-fixed"),
    ("sg-dcp-client", "sg-dcp-client-fixed"),
    ("xdcr", "xdcr-fixed"),
    ("kv-replica", "kv-replica-fixed"),
)


def catalogue_names() -> list[str]:
    """Every catalogued client and its fix, each as it ships (its bare name) and then under
    each non-default value of its settings (``go-dcp:mitigation=off``)."""
    from spec.consumers.settings import configurations

    return [
        variant.name
        for pair in CATALOGUE
        for name in pair
        for variant in configurations(CONSUMERS.get(name))
    ]


def _builtins() -> None:
    from spec.consumers import clients, collapse_snapshot, correct

    found = [
        variant
        for module in pkgutil.iter_modules(clients.__path__, f"{clients.__name__}.")
        for variant in importlib.import_module(module.name).VARIANTS
    ]
    order = [name for pair in CATALOGUE for name in pair]
    catalogued = sorted(found, key=lambda v: order.index(v.name) if v.name in order else len(order))
    for variant in (correct.VARIANT, collapse_snapshot.VARIANT, *catalogued):
        CONSUMERS.register(variant.name, variant)


CONSUMERS = ConsumerRegistry(_builtins)
