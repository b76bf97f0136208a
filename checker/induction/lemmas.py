"""The library of candidate lemmas an invariant over resumes is built from.

Each lemma is a formula over a boundary state (``spec.model.boundary``): the
consumer's data, markers, keep, filter and log, relative to the current
producer's history and table and to the producer it last streamed from (a
ghost). The library is the same for every rule set and consumer variant;
``checker.induction.houdini`` keeps the lemmas that are inductive for the
pair checked (Houdini), so nothing here is written for one variant. A lemma
that is false for some pair costs nothing but its check.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from spec.expr import Expr, all_of, any_of, const, implies, ite
from spec.model.boundary import Boundary, BoundaryVars
from spec.model.history import History
from spec.table_exprs import TableExprs

__all__ = ["Lemma", "library"]


@dataclass(frozen=True)
class Lemma:
    name: str  # short and stable: what --show-invariant lists
    words: str  # what it says, in words
    formula: Expr  # over the boundary variables


def _same(a: History, b: History, x: int) -> Expr:
    return (a.key[x] == b.key[x]) & (a.deleted[x] == b.deleted[x]) & (a.epoch[x] == b.epoch[x])


def _epoch_of(uuid: Expr) -> Expr:
    """The epoch a table uuid stands for: failover e's uuid is 100 + e, the first table's 0."""
    return ite(uuid > 100, uuid - 100, const(0))


def _truthful(table: TableExprs, history: History, x: int) -> Expr:
    """Each seqno of ``history`` in (entry seqno, next newer entry's seqno or the high seqno]
    was written by that entry's epoch."""
    parts = []
    for i in range(table.slots):
        upper = history.high if i == 0 else table.seq[i - 1]
        inside = table.live(i) & (table.seq[i] < x) & (const(x) <= upper) & history.present(x)
        parts.append(implies(inside, history.epoch[x] == _epoch_of(table.uuid[i])))
    return all_of(*parts)


def _ordered(table: TableExprs) -> Expr:
    parts = []
    for i in range(table.slots):
        for j in range(i + 1, table.slots):
            ui, uj = table.uuid[i], table.uuid[j]
            newer = any_of((ui > 100) & (uj < ui), (ui <= 100) & (uj <= 100) & (uj > ui))
            parts.append(implies(table.live(j), newer))
    return all_of(*parts)


def _below_every_entry(table: TableExprs, history: History, x: int) -> Expr:
    """A seqno at or below every entry of the table was written by the first producer."""
    under = all_of(*(implies(table.live(i), const(x) <= table.seq[i]) for i in range(table.slots)))
    return implies(under & history.present(x), history.epoch[x] == 0)


def _last_held(s: Boundary) -> Expr:
    """The consumer's last item: the highest seqno it holds at or below keep (0 if none)."""
    last: Expr = const(0)
    for x in s.data.seqnos:
        last = ite(s.data.held[x] & (const(x) <= s.keep), const(x), last)
    return last


def _held_version_at(s: Boundary, key: int, upto: Expr) -> tuple[Expr, Expr, Expr]:
    d = s.data
    live, seqno, epoch = const(False), const(0), const(0)
    for x in d.seqnos:
        here = d.held[x] & (const(x) <= s.keep) & (const(x) <= upto) & (d.key[x] == key)
        live = ite(here, ~d.deleted[x], live)
        seqno = ite(here, const(x), seqno)
        epoch = ite(here, d.epoch[x], epoch)
    return live, seqno, epoch


def _live_version_at(history: History, key: int, upto: Expr) -> tuple[Expr, Expr, Expr]:
    live, seqno, epoch = const(False), const(0), const(0)
    for x in history.seqnos:
        here = history.present(x) & (const(x) <= upto) & (history.key[x] == key)
        live = ite(here, ~history.deleted[x], live)
        seqno = ite(here, const(x), seqno)
        epoch = ite(here, history.epoch[x], epoch)
    return live, seqno, epoch


def _live_version(s: Boundary, history: History, key: int, upto: int) -> tuple[Expr, Expr, Expr]:
    """(live, seqno, epoch) of ``key``'s last mutation at or below ``upto`` in ``history``."""
    live, seqno, epoch = const(False), const(0), const(0)
    for x in range(1, upto + 1):
        here = history.present(x) & (history.key[x] == key)
        live = ite(here, ~history.deleted[x], live)
        seqno = ite(here, const(x), seqno)
        epoch = ite(here, history.epoch[x], epoch)
    return live, seqno, epoch


def _held_version(s: Boundary, key: int, upto: int) -> tuple[Expr, Expr, Expr]:
    """(live, seqno, epoch) of the consumer's highest item of ``key`` at or below ``upto``."""
    d = s.data
    live, seqno, epoch = const(False), const(0), const(0)
    for x in range(1, upto + 1):
        here = d.held[x] & (const(x) <= s.keep) & (d.key[x] == key)
        live = ite(here, ~d.deleted[x], live)
        seqno = ite(here, const(x), seqno)
        epoch = ite(here, d.epoch[x], epoch)
    return live, seqno, epoch


def _marker_at(s: Boundary, at: Expr) -> tuple[Expr, Expr]:
    """(start, end) of the marker the consumer knows for a symbolic seqno (end 0: none)."""
    d = s.data
    start, end = const(0), const(0)
    for x in d.seqnos:
        start = ite(at == x, d.start_of[x], start)
        end = ite(at == x, d.end_of[x], end)
    return start, end


def _changes(history: History, key: int, low: Expr, high: Expr) -> Expr:
    """``history`` has a mutation of ``key`` in (low, high]."""
    return any_of(
        *(
            (low < y) & (const(y) <= high) & history.present(y) & (history.key[y] == key)
            for y in history.seqnos
        )
    )


def _same_version(s: Boundary, key: int, at: Expr) -> Expr:
    """The consumer's version of ``key`` at or below ``at`` is the streamed history's there
    (both dead, or the same mutation)."""
    live_c, seq_c, epoch_c = _held_version_at(s, key, at)
    live_g, seq_g, epoch_g = _live_version_at(s.streamed, key, at)
    return (live_c == live_g) & implies(live_c, (seq_c == seq_g) & (epoch_c == epoch_g))


def _superseded_in_snapshot(s: Boundary, seqnos: Iterable[int], x: int) -> list[Expr]:
    """For each seqno above ``x``: the streamed history writes ``x``'s key again there,
    within the marker the consumer knows for ``x`` (so the stream could deduplicate ``x``)."""
    g, d = s.streamed, s.data
    return [
        g.present(y) & (g.key[y] == g.key[x]) & (const(y) <= d.end_of[x]) for y in seqnos if y > x
    ]


def _received_prefix(bv: BoundaryVars) -> list[Lemma]:
    """Lemmas over the received prefix (ghosts ``g.from``, ``g.upto``): the last stream
    started at ``from`` and the consumer got every item it sent up to ``upto``, so
    above ``from`` the markers are that stream's and the data is the streamed history's
    but for what the stream deduplicated; at or below ``from`` the data is what the
    stream's first snapshot completed."""
    s, b = bv.state, bv.bounds
    g, d = s.streamed, s.data
    f, u = s.received_from, s.received_upto
    last = _last_held(s)
    out: list[Lemma] = []

    def add(name: str, words: str, formula: Expr) -> None:
        out.append(Lemma(name, words, formula))

    add("from-upto", "the last stream's start is at most the received prefix", f <= u)
    add(
        "upto-streamed",
        "the received prefix is at most the streamed producer's high seqno",
        u <= g.high,
    )
    add("last-upto", "the consumer's last item is within the received prefix", last <= u)
    first_end = const(0)  # the end of the last stream's first marker (0: none)
    for x in bv.seqnos:
        first_end = ite(f + 1 == x, d.end_of[x], first_end)
    for x in bv.seqnos:
        fresh = (f < x) & d.inside(x)
        add(
            f"prefix-marker.{x}",
            f"seqno {x}, if in the received prefix, is inside a marker of the last stream",
            implies((f < x) & (const(x) <= u), d.inside(x)),
        )
        add(
            f"prefix-streamed.{x}",
            f"a marker of the last stream at {x} ends within the streamed history",
            implies(fresh, d.end_of[x] <= g.high),
        )
        for y in bv.seqnos:
            if y <= x:
                continue
            add(
                f"prefix-partition.{x}.{y}",
                f"the last stream's markers at {x} and {y} are the same or do not overlap",
                implies(
                    fresh & d.inside(y),
                    ite(
                        d.end_of[x] >= y,
                        (d.start_of[y] == d.start_of[x]) & (d.end_of[y] == d.end_of[x]),
                        d.start_of[y] > d.end_of[x],
                    ),
                ),
            )
        later = _superseded_in_snapshot(s, bv.seqnos, x)
        add(
            f"prefix-received.{x}",
            f"the streamed producer's mutation at {x}, if in the received prefix, is held, "
            "superseded in its snapshot, filtered, or a tombstone in the first snapshot",
            implies(
                (f < x) & (const(x) <= u) & g.present(x) & ~d.held[x],
                any_of(const(x) <= s.filter, g.deleted[x] & (const(x) <= first_end), *later),
            ),
        )
    start_of_last, end_of_last = _marker_at(s, last)
    _, end_of_upto = _marker_at(s, u)
    o_start, o_low, o_high = s.offset
    known = end_of_last != 0
    at_last = (o_start == last) & (o_low == ite(known, start_of_last, last))
    at_last = at_last & (o_high == ite(known, end_of_last, last))
    at_point = (o_low == o_start) & (o_high == o_start) & (o_start <= s.keep)
    above = [d.held[x] & (const(x) <= s.keep) & (const(x) > o_start) for x in bv.seqnos]
    at_point = at_point & ~any_of(*above)
    whole = any_of(o_start == 0, *((o_start == x) & d.boundary[x] for x in bv.seqnos))
    add(
        "offset",
        "the consumer's own offset is its last item with that item's marker, or a whole "
        "snapshot's end (or 0) {p,p} with nothing held above it",
        at_last | (at_point & whole),
    )
    for k in range(b.keys):
        add(
            f"prefix-upto.{k}",
            f"key {k} at the received prefix is the streamed history's, unless that history "
            "changes it in the rest of the prefix's snapshot",
            implies(f < u, _changes(g, k, u, end_of_upto) | _same_version(s, k, u)),
        )
        add(
            f"prefix-below.{k}",
            f"key {k} at the last stream's start is the streamed history's, unless that "
            "history changes it in the stream's first snapshot",
            implies(first_end != 0, _changes(g, k, f, first_end) | _same_version(s, k, f)),
        )
        add(
            f"last-first.{k}",
            f"key {k} at the consumer's last item is the streamed history's if that item "
            "opens the marker it knows for it",
            implies((last > 0) & (start_of_last == last), _same_version(s, k, last)),
        )
        add(
            f"last-marker.{k}",
            f"key {k} at the consumer's last item is the streamed history's, unless that "
            "history changes it in the rest of the marker it knows for it",
            implies(
                end_of_last != 0, _changes(g, k, last, end_of_last) | _same_version(s, k, last)
            ),
        )
    return out


def library(bv: BoundaryVars) -> list[Lemma]:
    s, b = bv.state, bv.bounds
    p, g, d, table, log = s.producer, s.streamed, s.data, s.table, s.log
    out: list[Lemma] = []

    def add(name: str, words: str, formula: Expr) -> None:
        out.append(Lemma(name, words, formula))

    last = _last_held(s)
    add("keep-streamed", "keep is at most the streamed producer's high seqno", s.keep <= g.high)
    add(
        "last-streamed",
        "the consumer's last item is at most the streamed producer's high seqno",
        last <= g.high,
    )
    add("filter-keep", "the catch-up filter is at most keep", s.filter <= s.keep)
    add("filter-zero", "the catch-up filter is 0", s.filter == 0)
    add(
        "agree-high",
        "the agreement point is at most both producers' high seqnos",
        (s.agree <= p.high) & (s.agree <= g.high),
    )
    tombstones = [(s.purge == x) & p.present(x) & p.deleted[x] for x in bv.seqnos]
    add(
        "purge-tombstone",
        "the purge seqno is 0 or a tombstone's",
        any_of(s.purge == 0, *tombstones),
    )
    add("purge-high", "the purge seqno is at most the producer's high seqno", s.purge <= p.high)
    add(
        "table-room",
        "the producer's table has at most entries - failovers + failovers so far entries",
        table.length <= b.entries - b.failovers + s.used,
    )
    add(
        "table", "the producer's table is well formed (distinct uuids, sorted)", table.well_formed()
    )
    add("log-table", "the consumer's log is a well-formed table", log.well_formed())
    fresh = 100 + s.used
    add(
        "uuids-used",
        "every uuid in the producer's table and the log is at most the last failover's",
        all_of(*(u <= fresh for u in (*table.uuid, *log.uuid))),
    )
    add(
        "first-uuids",
        "every uuid of the first table is at most its length",
        all_of(
            *(implies(u <= 100, u <= b.entries - b.failovers) for u in (*table.uuid, *log.uuid))
        ),
    )
    add(
        "table-latest",
        "the producer's newest table entry is at most its high seqno",
        table.seq[0] <= p.high,
    )
    add(
        "log-latest",
        "the log's newest entry is at most the streamed producer's high seqno",
        log.seq[0] <= g.high,
    )
    for name, t in (("table", table), ("log", log)):
        add(
            f"{name}-order",
            f"the {name}'s entries are newest first: later failovers' uuids before earlier "
            "ones, before the first table's in its order",
            _ordered(t),
        )
    found, upper = table.lookup(log.latest_uuid, p.high)
    add(
        "lookup-agree",
        "if the producer finds the log's newest uuid, the upper seqno it gives is the "
        "agreement point",
        implies(found, upper == s.agree),
    )
    for i in range(log.slots):
        in_table = any_of(
            *(table.live(j) & (table.uuid[j] == log.uuid[i]) for j in range(table.slots))
        )
        add(
            f"log-shared.{i}",
            f"log entry {i}, if at or below the agreement point, is in the producer's table",
            implies(log.live(i) & (log.seq[i] <= s.agree), in_table),
        )
        for j in range(table.slots):
            add(
                f"same-entry.{i}.{j}",
                f"log entry {i} and table entry {j} with the same uuid have the same seqno",
                implies(
                    log.live(i) & table.live(j) & (log.uuid[i] == table.uuid[j]),
                    log.seq[i] == table.seq[j],
                ),
            )
    for j in range(table.slots):
        in_log = any_of(*(log.live(i) & (log.uuid[i] == table.uuid[j]) for i in range(log.slots)))
        add(
            f"new-entry.{j}",
            f"table entry {j}, unless the log has it, is at or above the agreement point",
            implies(table.live(j) & ~in_log, table.seq[j] >= s.agree),
        )
    failed_over = any_of(
        *(
            table.live(j)
            & ~any_of(*(log.live(i) & (log.uuid[i] == table.uuid[j]) for i in range(log.slots)))
            for j in range(table.slots)
        )
    )
    add(
        "agree-failover",
        "the producers disagree below the streamed high seqno only after a failover since "
        "(a table entry the log lacks)",
        implies(s.agree < g.high, failed_over),
    )
    end_of_last = const(0)
    for x in bv.seqnos:
        end_of_last = ite(last == x, ite(d.inside(x), d.end_of[x], const(x)), end_of_last)
    for k in range(b.keys):
        live_c, seq_c, epoch_c = _held_version_at(s, k, last)
        live_g, seq_g, epoch_g = _live_version_at(g, k, last)
        same = (live_c == live_g) & implies(live_c, (seq_c == seq_g) & (epoch_c == epoch_g))
        for name, upto, where in (
            ("snapshot", end_of_last, "in the rest of its last item's snapshot"),
            ("history", g.high, "above it"),
        ):
            again = any_of(
                *(
                    (last < y) & (const(y) <= upto) & g.present(y) & (g.key[y] == k)
                    for y in bv.seqnos
                )
            )
            add(
                f"last-{name}.{k}",
                f"key {k} is live on the consumer at its last item as in the streamed history, "
                f"unless that history changes it {where}",
                any_of(again, same),
            )
    for x in bv.seqnos:
        held = d.held[x] & (const(x) <= s.keep)
        add(
            f"epochs.{x}",
            f"every epoch at seqno {x} is at most the failovers so far",
            (p.epoch[x] <= s.used) & (g.epoch[x] <= s.used) & (d.epoch[x] <= s.used),
        )
        add(
            f"agree.{x}",
            f"both producers have the same mutation at {x} if at or below the agreement point",
            implies(const(x) <= s.agree, _same(p, g, x)),
        )
        add(
            f"same-epoch.{x}",
            f"mutations at {x} of the same epoch are the same (producer, streamed, consumer)",
            all_of(
                implies(p.present(x) & g.present(x) & (p.epoch[x] == g.epoch[x]), _same(p, g, x)),
                implies(
                    held & p.present(x) & (p.epoch[x] == d.epoch[x]),
                    (p.key[x] == d.key[x]) & (p.deleted[x] == d.deleted[x]),
                ),
            ),
        )
        add(
            f"streamed.{x}",
            f"an item the consumer keeps at {x} is the streamed producer's mutation there",
            implies(
                held,
                g.present(x)
                & (g.key[x] == d.key[x])
                & (g.deleted[x] == d.deleted[x])
                & (g.epoch[x] == d.epoch[x]),
            ),
        )
        add(
            f"held-keep.{x}",
            f"the consumer holds nothing at {x} above keep",
            implies(d.held[x], const(x) <= s.keep),
        )
        add(
            f"boundary-keep.{x}",
            f"a whole snapshot ending at {x} is at or below keep",
            implies(d.boundary[x], const(x) <= s.keep),
        )
        add(
            f"boundary-marker.{x}",
            f"a whole snapshot ending at {x} is a marker ending at {x}",
            implies(d.boundary[x], d.end_of[x] == x),
        )
        add(
            f"marker.{x}",
            f"the marker the consumer knows for {x} contains {x}",
            implies(d.end_of[x] != 0, (d.start_of[x] <= x) & (const(x) <= d.end_of[x])),
        )
        add(
            f"first-epoch.{x}",
            f"a seqno {x} at or below every entry of the table or log was the first producer's",
            _below_every_entry(table, p, x) & _below_every_entry(log, g, x),
        )
        add(
            f"marker-keep.{x}",
            f"seqno {x}, if at or below the consumer's last item, is inside a marker it knows",
            implies(const(x) <= last, d.end_of[x] != 0),
        )
        for y in bv.seqnos:
            if y <= x:
                continue
            both = d.inside(x) & d.inside(y)
            # A marker that an item at x opens may reach past later streams' markers: a
            # request from x with snap_start x is accepted once the producer agrees up
            # to x (kv-current's no-item-received), and the next stream ends its first
            # snapshot where that producer's history ends.
            opens = d.held[x] & (d.start_of[x] == x)
            reaching = both & (d.end_of[x] >= y) & ~opens
            add(
                f"marker-nest.{x}.{y}",
                f"if the marker the consumer knows for {x} reaches {y} and no item at {x} "
                f"opens it, {y}'s starts there too",
                implies(reaching, d.start_of[y] == d.start_of[x]),
            )
            add(
                f"marker-order.{x}.{y}",
                f"the marker the consumer knows for {x} starts no later than {y}'s",
                implies(both, d.start_of[x] <= d.start_of[y]),
            )
            add(
                f"marker-reach.{x}.{y}",
                f"if the marker the consumer knows for {x} reaches {y} and no item at {x} "
                f"opens it, {y}'s reaches as far",
                implies(reaching, d.end_of[y] >= d.end_of[x]),
            )
        later = _superseded_in_snapshot(s, bv.seqnos, x)
        add(
            f"received.{x}",
            f"the streamed producer's mutation at {x} (at or below the consumer's last item) is "
            "held, a tombstone, or superseded in its snapshot",
            implies(
                (const(x) <= last) & g.present(x) & ~d.held[x],
                any_of(g.deleted[x], *later),
            ),
        )
        stale = [
            d.held[y] & (const(y) <= s.keep) & (d.key[y] == g.key[x]) & ~d.deleted[y]
            for y in bv.seqnos
            if y < x
        ]
        add(
            f"missed-tombstone.{x}",
            f"if the consumer lacks the streamed producer's tombstone at {x} (at or below its "
            "last item, not superseded in its snapshot), it holds no live item of that key "
            "below it",
            implies(
                (const(x) <= last) & g.present(x) & g.deleted[x] & ~d.held[x] & ~any_of(*later),
                ~any_of(*stale),
            ),
        )
        add(
            f"truthful.{x}",
            f"the producer's table says which epoch wrote {x}",
            _truthful(table, p, x),
        )
        add(
            f"log-truthful.{x}",
            f"the consumer's log says which epoch wrote {x} in the streamed history",
            _truthful(log, g, x),
        )
        parts = []
        for k in range(b.keys):
            live_c, seq_c, epoch_c = _held_version(s, k, x)
            live_g, seq_g, epoch_g = _live_version(s, g, k, x)
            parts.append(
                (live_c == live_g) & implies(live_c, (seq_c == seq_g) & (epoch_c == epoch_g))
            )
        add(
            f"consistent.{x}",
            f"at a whole snapshot's end {x} the consumer's live keys are the streamed producer's",
            implies(d.boundary[x] & (const(x) <= s.keep), all_of(*parts)),
        )
    return out + _received_prefix(bv)
