"""The in-process search's compact memory: a fingerprint set, a trace, a packed queue."""

from __future__ import annotations

import random

from checker.engines.fingerprints import FingerprintSet, Queue, Trace, collision_probability


def test_the_set_keeps_each_fingerprint_once_across_growth() -> None:
    rng = random.Random(1)
    keys = [rng.getrandbits(64) - (1 << 63) for _ in range(50_000)] + [0, 1, -1]
    held = FingerprintSet(capacity=16)
    assert [held.add(k) for k in keys] == [True] * len(keys)
    assert not any(held.add(k) for k in keys[::7])
    assert len(held) == len(keys)
    assert all(k in held for k in keys)
    assert sum(rng.getrandbits(64) - (1 << 63) in held for _ in range(1000)) == 0
    assert held.nbytes() <= 8 * 4 * len(keys)  # at least a quarter full


def test_keys_that_share_a_slot_are_all_kept() -> None:
    held = FingerprintSet(capacity=16)
    size = held.nbytes() // 8
    keys = [1 + size * n for n in range(40)]  # one home slot, then the table grows
    assert all(held.add(k) for k in keys)
    assert all(k in held for k in keys) and (2 not in held)


def test_the_queue_gives_back_what_it_was_given_in_order() -> None:
    queue = Queue()
    made = [bytes([n % 251]) * (n % 37) for n in range(10_000)]
    out = []
    for n, data in enumerate(made):
        queue.append(data)
        if n % 3 == 0:
            out.append(queue.popleft())
    while queue:
        out.append(queue.popleft())
    assert out == made


def test_a_queue_past_its_memory_waits_on_disk_and_gives_back_in_order() -> None:
    rng = random.Random(2)
    queue = Queue(held=1)  # every sealed chunk to the file
    made = [rng.randbytes(n % 29) for n in range(3 * 4096 + 5)]
    out = []
    for data in made[: 2 * 4096]:
        queue.append(data)
    assert queue.on_disk() > 0
    out += [queue.popleft() for _ in range(4097)]
    for data in made[2 * 4096 :]:
        queue.append(data)
    while queue:
        out.append(queue.popleft())
    assert out == made and queue.on_disk() == 0
    queue.close()


def test_a_trace_gives_the_fingerprints_from_an_initial_state() -> None:
    trace = Trace()
    root = trace.add(10, -1, 0)
    child = trace.add(20, root, 3)
    trace.add(30, root, 1)
    assert trace.lineage(trace.add(40, child, 0)) == [10, 20, 40]


def test_the_collision_estimate_is_tlcs() -> None:
    assert collision_probability(2**32) == 2**64 / 2**65
