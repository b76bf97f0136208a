"""Claims about real clients are checked: citations are machine-readable and used.

Every catalogued client's module lists ``CITATIONS`` (repo, path, function,
commit; ``spec.consumers.citations``) that its docstring names, and every
client story in docs/clients.md (a ``## `` section) is about a catalogued
client and names at least one of that client's citations.
"""

from __future__ import annotations

import re
import sys

import pytest
from conftest import ROOT

from spec.consumers import CATALOGUE, CONSUMERS

CLIENTS = [client for client, _ in CATALOGUE]
# Sections of docs/clients.md that tell no client's story.
GENERAL = {"Verdicts", "Re-running and extending", "Not in the catalogue"}


def module_of(client: str):
    return sys.modules[type(CONSUMERS.get(client)).__module__]


def squashed(text: str) -> str:
    """``text`` without whitespace (a name may be wrapped across lines)."""
    return re.sub(r"\s+", "", text)


def stories() -> dict[str, str]:
    """docs/clients.md's ``## `` sections: heading -> text."""
    text = (ROOT / "docs" / "clients.md").read_text()
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


@pytest.mark.parametrize("client", CLIENTS)
def test_every_client_model_lists_well_formed_citations_its_docstring_names(client) -> None:
    module = module_of(client)
    citations = getattr(module, "CITATIONS", ())
    assert citations, f"{module.__name__} lists no CITATIONS"
    doc = squashed(module.__doc__ or "")
    for citation in citations:
        assert not citation.problems(), (str(citation), citation.problems())
        assert squashed(citation.function) in doc, (
            f"{module.__name__}: docstring never names {citation}"
        )


def test_every_client_story_is_about_a_catalogued_client_and_cites_it() -> None:
    told = set()
    for heading, text in stories().items():
        if heading in GENERAL:
            continue
        client = heading.split()[0].strip("`")
        assert client in CLIENTS, f"docs/clients.md: '## {heading}' is not a catalogued client"
        flat = squashed(text)
        cited = [c for c in module_of(client).CITATIONS if squashed(c.function) in flat]
        assert cited, f"docs/clients.md: the {client} story names none of its citations"
        told.add(client)
    assert told == set(CLIENTS), f"clients without a story: {set(CLIENTS) - told}"


@pytest.mark.parametrize(
    ("page", "error"),
    [
        ("## my-client\n\nIt does something.\n", "not a catalogued client"),
        ("## java-dcp-client\n\nIt keeps its data.\n", "names none of its citations"),
    ],
)
def test_a_story_about_an_unknown_client_or_without_citation_fails(
    monkeypatch, page, error
) -> None:
    parts = re.split(r"^## (.+)$", page, flags=re.MULTILINE)
    fake = {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}
    monkeypatch.setattr(sys.modules[__name__], "stories", lambda: fake)
    with pytest.raises(AssertionError, match=error):
        test_every_client_story_is_about_a_catalogued_client_and_cites_it()


# What docs/clients.md says an option defaults to, right after naming it:
# "`X` defaults to false", "`X` (configuration.json, **default true**)", "`X`): off by default".
STATED_DEFAULT = re.compile(r"\bdefaults?(?:\s+to)?[\s*]*(\w+)|\b(\w+)\s+by\s+default")


def stated_defaults(text: str, option: str) -> list[str]:
    """Each default the text states for ``option``: the first statement within the
    sentence that follows each mention of it (one that names no default states none)."""
    out = []
    for mention in re.finditer(re.escape(option), text):
        rest = text[mention.end() : mention.end() + 120]
        sentence = re.split(r"\.\s", rest, maxsplit=1)[0]
        found = STATED_DEFAULT.search(sentence)
        if found:
            out.append(found.group(1) or found.group(2))
    return out


def options() -> list[tuple[str, object]]:
    return [(client, s) for client in CLIENTS for s in CONSUMERS.get(client).settings]


@pytest.mark.parametrize(("client", "setting"), options(), ids=lambda x: getattr(x, "name", x))
def test_the_docs_state_each_option_and_its_default_as_the_settings_table_does(
    client, setting
) -> None:
    """One source: a setting's option name and default (``Setting.option``,
    ``option_default``) are what its ``means`` line and docs/clients.md say, and its
    client's citations name the option."""
    if not setting.option:
        return  # a code path (xdcr's snapshot-marker), not an option the client has
    assert setting.option in setting.means and setting.option_default in setting.means
    cited = [c for c in module_of(client).CITATIONS if setting.option in c.function + c.behaviour]
    assert cited, f"{client}: no citation names the option {setting.option}"
    text = (ROOT / "docs" / "clients.md").read_text()
    assert setting.option in text, f"docs/clients.md never names {setting.option}"
    defaults = stated_defaults(squashed_spaces(text), setting.option)
    assert defaults, f"docs/clients.md never states {setting.option}'s default"
    wrong = [d for d in defaults if d != setting.option_default]
    assert not wrong, f"docs/clients.md: {setting.option} defaults to {wrong}, not " + (
        setting.option_default
    )


def squashed_spaces(text: str) -> str:
    """``text`` with every run of whitespace one space (a sentence may be wrapped)."""
    return re.sub(r"\s+", " ", text)


def test_every_client_setting_the_docs_name_is_one_the_client_has() -> None:
    text = (ROOT / "docs" / "clients.md").read_text()
    named = set(re.findall(r"`([a-z][a-z-]*:[a-z-]+=[a-z]+(?:,[a-z-]+=[a-z]+)*)`", text))
    assert named, "docs/clients.md names no client setting"
    unknown = sorted(n for n in named if n not in CONSUMERS)
    assert not unknown, f"docs/clients.md names settings no client has: {unknown}"


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("`flagX` defaults to false; more", ["false"]),
        ("`flagX` (file.json, **default true**)", ["true"]),
        ("opt-in (`flagX`): off by default.", ["off"]),
        ("`flagX` is set. The default is elsewhere", []),
    ],
)
def test_a_stated_default_is_read_from_the_sentence_after_the_option(text, stated) -> None:
    assert stated_defaults(text, "flagX") == stated


def test_every_client_module_is_one_catalogue_pair_and_every_pair_a_module() -> None:
    """Modules under spec/consumers/clients/ are registered; CATALOGUE only orders them."""
    import importlib
    import pkgutil

    from spec.consumers import clients

    found = pkgutil.iter_modules(clients.__path__, f"{clients.__name__}.")
    pairs = [tuple(v.name for v in importlib.import_module(m.name).VARIANTS) for m in found]
    assert sorted(pairs) == sorted(CATALOGUE)
