"""A consumer variant as an adapter process: ``python -m checker.adapter.variant NAME|FILE``.

It reads the protocol's messages on stdin and answers its questions on stdout
(docs/client-targets.md), running the variant through the reference consumer
(``checker.adapter.client.VariantClient``). ``dcpcheck clients --target
"jsonl:python -m checker.adapter.variant go-dcp"`` then judges, as a black
box, the client the catalogue models symbolically: the two must agree.
"""

from __future__ import annotations

import json
import sys

from checker.adapter.client import VariantClient
from checker.loading import resolve
from spec.consumers import CONSUMERS, ConsumerVariant


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m checker.adapter.variant NAME|FILE", file=sys.stderr)
        return 2
    client = VariantClient(resolve(CONSUMERS, ConsumerVariant, argv[0]))
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = client.answer(json.loads(line))
        if answer is not None:
            sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
