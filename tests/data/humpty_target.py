"""A humpty_dumpty-speaking target for the replay tests: TABLE.json HIGH PURGE < requests.

    python humpty_target.py [--bug NAME] [--variant NAME] [--lie-above N]
                            [--crash-on-start N] [--hang] [--garbage] TABLE HIGH PURGE

Prints what kv_engine's humpty_dumpty prints. ``--bug`` switches on a
deliberate bug (producer_logic.BUGS); ``--variant`` answers as a hand-written
producer instead (hand_written.VARIANTS: past kv_engine releases, single-point
changes); ``--lie-above N`` answers the opposite (ok for a rollback, a rollback to 0
for ok) when the start seqno is above N; ``--crash-on-start N`` exits 3 on a request
with start N; ``--hang`` never answers; ``--garbage`` prints noise.
"""

from __future__ import annotations

import json
import sys
import time

from hand_written import VARIANTS, target_parser
from producer_logic import needs_rollback


def main() -> int:
    parser = target_parser()
    parser.add_argument("--lie-above", type=int)
    parser.add_argument("table")
    parser.add_argument("high", type=int)
    parser.add_argument("purge", type=int)
    args = parser.parse_args()
    with open(args.table) as f:
        table = [(e["id"], e["seq"]) for e in json.load(f)]
    print(
        f"Simulating behaviour of VBucket with highSeqno: {args.high}, "
        f"purgeSeqno:{args.purge}, failoverTable:"
    )
    print("[")
    for uuid, seq in table:
        print(f'    {{"id":{uuid},"seq":{seq}}}')
    print("]\n")
    if args.hang:
        sys.stdout.flush()
        time.sleep(3600)
    for line in sys.stdin:
        fields = line.split()
        if len(fields) != 4:
            continue
        uuid, snap_start, snap_end, start = (int(x) for x in fields)
        if start == args.crash_on_start:
            print("Segmentation fault (simulated)", file=sys.stderr)
            return 3
        if args.garbage:
            print("}{ not what humpty prints")
            continue
        req = {"uuid": uuid, "start": start, "snap_start": snap_start, "snap_end": snap_end}
        if args.variant:
            rolls_back, seqno = VARIANTS[args.variant](req, table, args.high, args.purge)
        else:
            rolls_back, seqno = needs_rollback(req, table, args.high, args.purge, set(args.bug))
        if args.lie_above is not None and start > args.lie_above:
            rolls_back, seqno = not rolls_back, 0
        print(f"Testing UUID:{uuid} snapshot:{{{snap_start},{snap_end}}} start:{start}")
        print(f"  Rollback:{'true' if rolls_back else 'false'}")
        if rolls_back:
            print(f"  Requested rollback seqno:{seqno}")
            print("  Reason: (not compared)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
