"""A JSON-lines target for the replay tests (protocol: docs/targets.md).

    python jsonl_target.py [--bug NAME] [--variant NAME] [--crash-on-start N] [--hang] [--garbage]
                           [--oldest-decides]

Reads one request object per line, answers one object per line, flushing
after each. The switches are those of humpty_target.py, and ``--error-on-start N``
answers a request with start N with an ``error`` object; ``--oldest-decides`` answers the
opposite whenever the table's oldest entry (of two or more) has seqno 1: an answer no rule
set can give, since rule sets do not read that entry.
"""

from __future__ import annotations

import json
import sys
import time

from hand_written import VARIANTS, target_parser
from producer_logic import stream_request


def main() -> int:
    parser = target_parser()
    parser.add_argument("--error-on-start", type=int)
    parser.add_argument("--oldest-decides", action="store_true")
    args = parser.parse_args()
    for line in sys.stdin:
        message = json.loads(line)
        req, producer = message["request"], message["producer"]
        if req["start"] == args.crash_on_start:
            return 3
        if req["start"] == args.error_on_start:
            print(json.dumps({"id": message["id"], "error": "cannot decide this"}), flush=True)
            continue
        if args.hang:
            time.sleep(3600)
        if args.garbage:
            print("not json", flush=True)
            continue
        table = [(e["id"], e["seq"]) for e in producer["table"]]
        decision, seqno = stream_request(
            req,
            table,
            producer["high_seqno"],
            producer["purge_seqno"],
            set(args.bug),
            VARIANTS.get(args.variant or ""),
        )
        if args.oldest_decides and len(table) > 1 and table[-1][1] == 1:
            decision, seqno = ("ok", None) if decision == "rollback" else ("rollback", 0)
        answer = {"id": message["id"], "decision": decision, "rollback_seqno": seqno}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
