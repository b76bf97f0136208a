"""Add confirmed counterexamples to the checked-in corpus.

    dcpcheck promote FILE.json ... [--to DIR]

``check``, ``durability`` and ``verify`` write counterexamples to a run
directory (``out/...``), never into the checked-in ``counterexamples/``.
``promote`` replays each file first — on the model and on the reference
implementation — and copies it into the corpus only if the replay confirms
it, with its ``.itf.json`` (written anew from the replayed run for the
single-node model, copied for the durability model): ``counterexamples/`` for the single-node model,
``counterexamples/durability/`` for the durability model (or ``--to DIR``).
The tests replay every file there before any search.
Exit: 0 all promoted, 2 a file is not a counterexample the replay confirms
(nothing of it is copied).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from checker.atomic import writable_dir, write_text_atomic
from checker.confirm import replay_stored
from checker.inputs import read_text
from checker.interrupt import uninterruptible
from checker.report.itf import to_itf
from spec.errors import EXIT_OK, InvalidInput

CORPUS = {"scenario": Path("counterexamples"), "cluster": Path("counterexamples/durability")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE.json", help="counterexample files")
    parser.add_argument(
        "--to",
        metavar="DIR",
        help="where to put them (default counterexamples/, or counterexamples/durability/)",
    )


def run(args: argparse.Namespace) -> int:
    writable_dir(args.to, "--to")
    checked = []
    for name in args.files:
        path = Path(name)
        if path.name.endswith(".itf.json"):
            raise InvalidInput(name, "is an ITF trace; promote the .json it came from")
        stored = replay_stored(path)
        if not stored.replayed.confirmed:
            raise InvalidInput(
                name, f"the replay does not confirm it ({stored.replayed.detail}); not promoted"
            )
        checked.append((path, stored, Path(args.to) if args.to else CORPUS[stored.model]))
    with uninterruptible():  # every file promoted, or (Ctrl-C during the replays) none
        for path, stored, target in checked:
            stem = path.name[: -len(".json")]
            trace = path.with_name(stem + ".itf.json")
            text = read_text(path)
            itf: str | None
            if stored.run is not None:
                meta = {
                    "source": path.name,
                    "description": stored.explanation,
                    "command": stored.command,
                }
                itf = json.dumps(to_itf(stored.run, meta), indent=1) + "\n"
            else:
                itf = read_text(trace) if trace.exists() else None
            write_text_atomic(target / path.name, text)
            if itf is not None:
                write_text_atomic(target / f"{stem}.itf.json", itf)
            print(f"promoted {path.name} -> {target}/ (confirmed on the reference)")
    return EXIT_OK
