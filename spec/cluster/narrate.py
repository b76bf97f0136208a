"""Steps and states of the cluster model in words, for counterexamples.

``describe_step`` compares the state before and after an action and says
what happened (``N2 asks uuid AAAA start 3 snapshot {3,3}: rollback to 2``);
``describe_state`` draws each node's history with its snapshot brackets;
``run_of`` turns a path of the model into a ``spec.run.Run`` (numbered
named steps between the start and end states, each node's history as a
picture).
"""

from __future__ import annotations

from collections.abc import Sequence

from spec.cluster import actions as act
from spec.cluster.actions import Action
from spec.cluster.active import acked_by
from spec.cluster.disk import changes_count, newest_header_at_or_below
from spec.cluster.replica import reconnect_decision, rollback_landing, stream_request
from spec.cluster.setup import Setup
from spec.cluster.state import ClusterState, NodeState, node_name, uuid_name
from spec.failover_table import FailoverTable
from spec.run import Cell, Lane, Mark, Picture, Run, Span, Step
from spec.types import Outcome

__all__ = ["describe_state", "describe_step", "history", "run_of", "table_text"]


def table_text(table: FailoverTable) -> str:
    return "[" + ", ".join(f"{uuid_name(e.uuid)}@{e.seqno}" for e in table) + "]"


def _labels(node: NodeState, first: int, last: int) -> str:
    return " ".join(node.items[x - 1].label(x) for x in range(first, last + 1))


def history(node: NodeState) -> str:
    """``[1:SET(B) 2:SET(C)] [3:PREPARE(A) ..4]`` (a partial snapshot shows its end);
    items after the last snapshot (the active's open one) follow unbracketed."""
    high = node.high_seqno
    parts = []
    covered = 0
    for start, end in node.snapshots:
        if start > high:
            parts.append(f"[marker {start}-{end}]")
            continue
        text = _labels(node, max(start, covered + 1), min(end, high))
        parts.append(f"[{text}{f' ..{end}' if end > high else ''}]")
        covered = min(end, high)
    if covered < high:
        parts.append(_labels(node, covered + 1, high))
    return " ".join(parts) if parts else "(empty)"


def describe_state(state: ClusterState) -> list[str]:
    lines = []
    for i, node in enumerate(state.nodes):
        if not node.alive:
            lines.append(f"{node_name(i)}  failed over")
            continue
        role = "active " if i == state.active else "replica"
        extra = (
            f"table {table_text(node.table)}"
            if i == state.active
            else f"persisted {node.persisted_seqno}{_headers(node)}, "
            f"HPS {node.high_prepared_seqno}, "
            f"table {table_text(node.table)}"
        )
        lines.append(f"{node_name(i)}  {role}  {history(node)}   {extra}")
    return lines


def _headers(node: NodeState) -> str:
    """The disk headers a rollback can land on, when there are more than the newest."""
    if len(node.headers) < 2:
        return ""
    return f" (headers at {', '.join(str(h) for h in node.headers)})"


def _lost_items(before: NodeState, after: NodeState) -> str:
    lost = [
        before.items[x - 1].label(x) for x in range(after.high_seqno + 1, before.high_seqno + 1)
    ]
    return ", ".join(lost) if lost else "nothing"


def describe_step(setup: Setup, before: ClusterState, action: Action, after: ClusterState) -> str:
    if isinstance(action, act.ClientPrepare | act.ClientSet):
        assert after.active is not None
        node = after.nodes[after.active]
        x = node.high_seqno
        return f"{node_name(after.active)} appends {node.items[x - 1].label(x)}"
    if isinstance(action, act.CloseSnapshot):
        assert after.active is not None
        start, end = after.nodes[after.active].snapshots[-1]
        return f"{node_name(after.active)} closes snapshot [{start},{end}]"
    if isinstance(action, act.Commit):
        return _commit(setup, before, after)
    if isinstance(action, act.ReplicateItem):
        return _replicate(before, after, action.node)
    if isinstance(action, act.BackfillReplica):
        start, end = after.nodes[action.node].snapshots[-1]
        return f"{node_name(action.node)} receives disk snapshot marker [{start},{end}] (backfill)"
    if isinstance(action, act.PersistReplica | act.PersistNextItem):
        old, node = before.nodes[action.node], after.nodes[action.node]
        text = (
            f"{node_name(action.node)} persists up to seqno {node.persisted_seqno} "
            f"(HPS {node.persisted_hps})"
        )
        if node.high_prepared_seqno != old.high_prepared_seqno:
            text += f"; HPS {old.high_prepared_seqno} -> {node.high_prepared_seqno}"
        return text + _fence(node)
    if isinstance(action, act.PersistActive):
        assert after.active is not None
        node = after.nodes[after.active]
        return (
            f"{node_name(after.active)} (active) persists up to seqno {node.persisted_seqno}, "
            "moving its durability fence"
        )
    if isinstance(action, act.AckPrepare):
        assert after.active is not None
        return (
            f"{node_name(action.node)} acks HPS {after.acks[action.node]} "
            f"to {node_name(after.active)}"
        )
    if isinstance(action, act.CrashActive):
        assert before.active is not None
        return f"{node_name(before.active)} crashes and is failed over"
    if isinstance(action, act.PromoteReplica):
        return _promote(setup, before, after, action.node)
    if isinstance(action, act.ReconnectReplica):
        return _reconnect(setup, before, after, action.node)
    if isinstance(action, act.RestartReplica):
        old, new = before.nodes[action.node], after.nodes[action.node]
        lost = [f"loses {_lost_items(old, new)}"] if new.high_seqno < old.high_seqno else []
        if old.snapshot_has_prepare:
            lost.append("loses its cur_snapshot_prepare flag")
        return (
            f"{node_name(action.node)} restarts with what it persisted: seqno "
            f"{new.high_seqno}, HPS {new.high_prepared_seqno}"
            + "".join(f"; {text}" for text in lost)
        )
    return str(action)


def _commit(setup: Setup, before: ClusterState, after: ClusterState) -> str:
    assert after.active is not None
    node = after.nodes[after.active]
    x = node.high_seqno
    commit = node.items[x - 1]
    prepare = node.items[commit.prepare_seqno - 1]
    voters = ", ".join(node_name(n) for n in acked_by(before, commit.prepare_seqno))
    text = (
        f"{node_name(after.active)} writes {commit.label(x)} for "
        f"{prepare.label(commit.prepare_seqno)}, acked by {voters} "
        f"(majority {setup.bounds.majority})"
    )
    if len(after.acknowledged) > len(before.acknowledged):
        return text + "; the client is acknowledged"
    return text + "; no client to acknowledge (an earlier active took the write)"


def _replicate(before: ClusterState, after: ClusterState, index: int) -> str:
    old, new = before.nodes[index], after.nodes[index]
    name = node_name(index)
    if new.high_seqno == old.high_seqno:
        start, end = new.snapshots[-1]
        return f"{name} receives snapshot marker [{start},{end}]"
    x = new.high_seqno
    text = f"{name} receives {new.items[x - 1].label(x)}"
    if new.marker_due:
        start, end = new.snapshots[-1]
        text += f", the end of snapshot [{start},{end}]"
    if new.high_prepared_seqno != old.high_prepared_seqno:
        text += f"; HPS {old.high_prepared_seqno} -> {new.high_prepared_seqno}"
    return text + _fence(new)


def _fence(node: NodeState) -> str:
    """Where a replica's durability fence holds its HPS, if it does."""
    if not node.snapshot_ends:
        return ""
    ends = ", ".join(str(end) for end in node.snapshot_ends)
    if node.disk_ends and node.disk_ends[0][0] == node.snapshot_ends[0]:
        return f"; HPS held until its disk snapshot is persisted whole (snapshot ends {ends})"
    return f"; durability fence: HPS held below a persistToMajority PREPARE (snapshot ends {ends})"


def _promote(setup: Setup, before: ClusterState, after: ClusterState, index: int) -> str:
    old, new = before.nodes[index], after.nodes[index]
    branch = new.table.latest.seqno
    above = [old.items[x - 1].label(x) for x in range(branch + 1, old.high_seqno + 1)]
    text = (
        f"ns_server promotes {node_name(index)} (high seqno {old.high_seqno}); "
        f"branch point {branch} ({setup.branch_rule.id}), new entry "
        f"{uuid_name(new.table.latest.uuid)}@{branch}, table {table_text(new.table)}"
    )
    if above:
        text += f"; it keeps {', '.join(above)} above the branch point"
    return text


def _reconnect(setup: Setup, before: ClusterState, after: ClusterState, index: int) -> str:
    old, new = before.nodes[index], after.nodes[index]
    request = stream_request(old)
    decision = reconnect_decision(setup, before, index)
    asked = (
        f"{node_name(index)} asks uuid {uuid_name(request.uuid)} start {request.start} "
        f"snapshot {{{request.snap_start},{request.snap_end}}}"
    )
    if decision.outcome is Outcome.ACCEPT:
        return f"{asked}: ok ({decision.case}); takes table {table_text(new.table)}"
    rollback = decision.rollback_seqno or 0
    landing = rollback_landing(setup, old, rollback)
    text = f"{asked}: rollback to {rollback} ({decision.case}); "
    if landing == 0:
        why = _why_reset(old, rollback)
        return text + f"its vbucket is reset{why}, discarding {_lost_items(old, new)}"
    where = f"keeps up to {landing}" + (
        f" (its newest disk header at or below {rollback})" if landing < rollback else ""
    )
    return text + f"{node_name(index)} {where}, discarding {_lost_items(old, new)}"


def _why_reset(node: NodeState, rollback: int) -> str:
    header = newest_header_at_or_below(node.headers, rollback)
    if rollback == 0:
        return ""
    if header == 0:
        return " (no disk header at or below it)"
    newest = node.headers[-1]
    total = changes_count(node.items, newest, 0, newest)
    gone = changes_count(node.items, newest, header, newest)
    return (
        f" (couchstore midpoint: rolling back to its header at {header} would discard "
        f"{gone} of {total} disk entries)"
    )


def run_of(setup: Setup, init: ClusterState, steps: Sequence[tuple[Action, ClusterState]]) -> Run:
    """A path of the cluster model as a run: the start state, each step told, the end state."""
    told = []
    state = init
    for action, after in steps:
        told.append(
            Step(
                action.to_json(),
                after.to_json(),
                str(action),
                describe_step(setup, state, action, after),
            )
        )
        state = after
    return Run(
        start="initial state",
        init=init.to_json(),
        steps=tuple(told),
        init_lines=("start:", *("    " + line for line in describe_state(init))),
        end_lines=("end:", *("    " + line for line in describe_state(state))),
        numbered=True,
        picture=picture_of(state),
    )


_KINDS = {"PREPARE": "prepare", "COMMIT": "commit", "SET": "set"}
LEGEND = (
    ("prepare", "a PREPARE (SyncWrite)"),
    ("commit", "a COMMIT"),
    ("set", "a SET"),
)


def picture_of(state: ClusterState) -> Picture:
    """Each node's history at the end of a run, with its snapshot markers (a PREPARE's
    label names its level), and where a replica's durability fence holds its HPS."""
    lanes = []
    marks = []
    for i, node in enumerate(state.nodes):
        role = "failed over" if not node.alive else "active" if i == state.active else "replica"
        cells = tuple(
            Cell(x, item.label(x), _KINDS.get(item.op, "set"))
            for x, item in enumerate(node.items, start=1)
        )
        spans = tuple(Span(max(a, 1), b, f"[{a},{b}]") for a, b in node.snapshots)
        name = f"{node_name(i)} {role}"
        lanes.append(Lane(name, cells if node.alive else (), spans if node.alive else ()))
        if node.alive and node.snapshot_ends:
            hps = node.high_prepared_seqno
            disk = node.disk_ends and node.disk_ends[0][0] == node.snapshot_ends[0]
            what = "waits for its disk snapshot's flush" if disk else "fence"
            marks.append(Mark(hps, f"{node_name(i)} {what}: HPS {hps}", "fence", lane=name))
    return Picture(tuple(lanes), tuple(marks), LEGEND)
