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
