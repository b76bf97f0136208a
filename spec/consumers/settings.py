"""Variants with settings: ``NAME:KEY=VALUE[,KEY=VALUE]`` wherever a consumer name goes.

A catalogued client is judged as it ships (its bare name: every setting at
its default); a setting that changes a verdict is a named option of the
variant (``ConsumerVariant.settings``), so ``go-dcp:mitigation=off`` is go-dcp
with rollback mitigation disabled. ``ConsumerRegistry`` resolves such a name
to the configured variant (one object per canonical name: ``go-dcp:
mitigation=on`` is ``go-dcp``), and an unknown setting or value is bad input
(exit 2) naming the settings the client has.
"""

from __future__ import annotations

from collections.abc import Callable

from spec.consumers.api import ConsumerVariant, Setting
from spec.errors import InvalidInput, UnknownName
from spec.registry import Registry

__all__ = ["ConsumerRegistry", "configurations", "mitigation", "split_name"]


def mitigation(default: str, means: str, option: str = "", option_default: str = "") -> Setting:
    """Rollback mitigation ``on``/``off``: whether the client is only sent items every
    replica has persisted (``ConsumerVariant.rollback_mitigation``); ``option`` and
    ``option_default`` are the client's own name and default (``Setting``)."""
    return Setting(
        "mitigation",
        default,
        {"on": {"rollback_mitigation": True}, "off": {"rollback_mitigation": False}},
        means,
        option,
        option_default,
    )


def split_name(text: str) -> tuple[str, dict[str, str]]:
    """``go-dcp:mitigation=off`` -> ("go-dcp", {"mitigation": "off"}); a malformed
    setting is a ``ValueError``."""
    base, sep, rest = text.partition(":")
    if not sep:
        return base, {}
    values: dict[str, str] = {}
    for part in rest.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key or not value:
            raise ValueError(f"'{part}' is not KEY=VALUE (e.g. {base}:mitigation=off)")
        if key in values:
            raise ValueError(f"setting '{key}' is given twice")
        values[key] = value
    return base, values


def configurations(variant: ConsumerVariant) -> list[ConsumerVariant]:
    """The variant as it ships, then once per non-default value of each setting."""
    out = [variant]
    for setting in variant.settings:
        others = [v for v in setting.values if v != setting.default]
        out += [variant.configured({setting.name: v}) for v in others]
    return out


class ConsumerRegistry(Registry[ConsumerVariant]):
    """The consumer registry; a name may carry settings (``go-dcp:mitigation=off``)."""

    def __init__(self, loader: Callable[[], None] | None = None) -> None:
        super().__init__("consumer", loader)
        self._configured: dict[str, ConsumerVariant] = {}

    def get(self, name: str) -> ConsumerVariant:
        base, values = self._split(name)
        variant = super().get(base)
        if not values:
            return variant
        try:
            configured = variant.configured(values)
        except ValueError as exc:
            raise InvalidInput("--consumer", f"'{name}': {exc}") from None
        if configured.name == variant.name:
            return variant
        return self._configured.setdefault(configured.name, configured)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or ":" not in name:
            return super().__contains__(name)
        try:
            self.get(name)
        except (InvalidInput, UnknownName):
            return False
        return True

    def _split(self, name: str) -> tuple[str, dict[str, str]]:
        try:
            return split_name(name)
        except ValueError as exc:
            raise InvalidInput("--consumer", f"'{name}': {exc}") from None
