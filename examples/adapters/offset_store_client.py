#!/usr/bin/env python3
"""A DCP client's resume logic as a dcpcheck client adapter (docs/client-targets.md).

A complete adapter, standalone (standard library only): its application keeps
every mutation it received in a by-seqno log (as a couchstore file does), its
offset store keeps the failover log and, for the last mutation, the snapshot
marker it came in; on ROLLBACK(R) it truncates to the highest point at or below
R where its data is consistent (0, or the end of a snapshot it received whole)
and resumes there with the producer's failover log pruned at that point. This
is what kv_engine's documents ask of a consumer (dcpcheck's ``correct``).

    --forget-snapshot   the bug seed 001 warns about: mid-snapshot, it resumes
                        with the snapshot range {start, start}, as if the
                        snapshot its last mutation came in were complete.

Run it: dcpcheck clients --target "jsonl:python3 examples/adapters/offset_store_client.py"
"""

from __future__ import annotations

import json
import sys


class Client:
    def __init__(self, forget_snapshot: bool) -> None:
        self.forget_snapshot = forget_snapshot
        self.begin([])

    # -- state -------------------------------------------------------------------------
    def begin(self, log: list[list[int]]) -> None:
        self.log = [list(e) for e in log]  # [[uuid, seqno], ...] newest first
        self.items: dict[int, dict] = {}  # seqno -> {key, cas, deleted, snapshot}
        self.whole: set[int] = set()  # ends of snapshots received whole
        self.marker: tuple[int, int] | None = None
        self.stream_start = 0

    def last(self) -> int:
        return max(self.items, default=0)

    def data(self) -> dict:
        versions: dict[str, dict] = {}
        for seqno in sorted(self.items):
            item = self.items[seqno]
            versions[item["key"]] = {"seqno": seqno, "cas": item["cas"], "deleted": item["deleted"]}
        return versions

    def truncate(self, point: int) -> None:
        self.items = {s: i for s, i in self.items.items() if s <= point}
        self.whole = {e for e in self.whole if e <= point}

    # -- events ------------------------------------------------------------------------
    def receive(self, message: dict) -> None:
        kind = message["type"]
        if kind == "begin":
            self.begin(message["failover_log"])
        elif kind == "snapshot":
            self.marker = (message["start"], message["end"])
        elif kind in ("mutation", "deletion"):
            seqno = message["seqno"]
            for old in [
                s for s, i in self.items.items() if i["key"] == message["key"] and s > seqno
            ]:
                del self.items[old]  # a re-streamed key replaces what it had above
            self.items[seqno] = {
                "key": message["key"],
                "cas": message["cas"],
                "deleted": kind == "deletion",
                "snapshot": self.marker,
            }
            if self.marker is not None and seqno == self.marker[1]:
                self.whole.add(seqno)
        elif kind == "seqno_advanced":
            self.whole.add(message["seqno"])
        elif kind == "accepted":
            self.log = [list(e) for e in message["failover_log"]]
            self.whole = {e for e in self.whole if e <= self.stream_start}
        elif kind == "rollback":
            rollback = message["seqno"]
            point = max(e for e in ({0} | self.whole) if e <= min(rollback, self.last()))
            self.truncate(point)
            self.log = [e for e in message["failover_log"] if e[1] <= point]
        # disconnect, stream_end, erange: nothing to keep (it resumes from what it holds)

    # -- questions ---------------------------------------------------------------------
    def stream_request(self) -> dict:
        """From what it holds: the newest uuid of its log, its last mutation and that
        mutation's snapshot marker."""
        last = self.last()
        snap = self.items[last]["snapshot"] if last else (0, 0)
        if self.forget_snapshot and last < snap[1]:
            snap = (last, last)  # the bug: mid-snapshot, as if the snapshot were complete
        self.stream_start = last
        uuid = self.log[0][0] if self.log else 0
        return {"uuid": uuid, "start": last, "snap_start": snap[0], "snap_end": snap[1], "flags": 0}


def main(argv: list[str]) -> int:
    client = Client(forget_snapshot="--forget-snapshot" in argv)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            answer: dict | None = {"client": "offset-store-client", "rollback_mitigation": False}
        elif kind == "stream_request":
            answer = client.stream_request()
        elif kind == "data":
            answer = {"data": client.data()}
        else:
            client.receive(message)
            answer = None
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
