"""``--sessions any``: the induction over resumes is sound, and finds what bounds find.

At small bounds an ``any`` verdict must agree with the bounded checks at K = 1, 2, 3
(a ``holds`` for every K with a violation at some K is a harness bug); kv-replica's
two-session rollback loop must come back as a real counterexample; a rule set with a
clause removed must break the invariant the whole rule set has.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest
from clihelp import run_cli

from checker.engines.options import Options
from checker.induction.every_session import bounded_summary, check_every_session
from checker.induction.houdini import BY_TARGET_FROM, Induction, InductionOutcome, induct
from checker.result import Verdict
from checker.scenario_check import check, planned
from checker.symbolic.budget import Budget
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

SMALL = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
# The smallest bounds of kv-replica's loop (counterexamples/sessions/): one seqno, a
# first table of two entries, a failover before each resume.
LOOP = Bounds(seqnos=1, keys=1, entries=4, failovers=2)


@functools.cache
def _houdini(prop: str) -> Induction:
    """Houdini over the whole lemma library for kv-current x correct at SMALL, run once per
    test process for each property (several tests below read the same invariant; none
    changes it)."""
    r, c, p = RULE_SETS.get("kv-current"), CONSUMERS.get("correct"), PROPERTIES.get(prop)
    return induct(r, c, p, SMALL, Budget())


@functools.cache  # once per test process: two tests below ask for correct's at SMALL
def _every(rules: str, consumer: str, prop: str, bounds: Bounds) -> Verdict:
    r, c, p = RULE_SETS.get(rules), CONSUMERS.get(consumer), PROPERTIES.get(prop)
    return check_every_session(r, c, p, bounds).verdict


def _bounded(rules: str, consumer: str, prop: str, bounds: Bounds, k: int) -> Verdict:
    r, c, p = RULE_SETS.get(rules), CONSUMERS.get(consumer), PROPERTIES.get(prop)
    return check(r, c, p, replace(bounds, sessions=k), Options(minimise=False)).verdict


@pytest.mark.parametrize(
    ("rules", "consumer", "prop"),
    [
        ("kv-current", "correct", "no-missed-item"),
        ("kv-current", "correct", "no-foreign-snapshot"),
        ("rollback-doc", "collapse-snapshot", "no-missed-item"),
        ("kv-current", "go-dcp", "no-missed-item"),
    ],
)
def test_a_proof_for_every_session_agrees_with_the_bounded_checks(rules, consumer, prop) -> None:
    every = _every(rules, consumer, prop, SMALL)
    bounded = [_bounded(rules, consumer, prop, SMALL, k) for k in (1, 2, 3)]
    if every is Verdict.HOLDS:
        assert bounded == [Verdict.HOLDS] * 3, "holds for every K but violated at some K"
    if every is Verdict.VIOLATED:
        assert Verdict.VIOLATED in bounded
    if Verdict.VIOLATED in bounded:
        assert every is Verdict.VIOLATED


TINY = Bounds(seqnos=1, keys=1, entries=3, failovers=2)


# Every catalogued consumer and property: python -m benchmarks induction (minutes).
@pytest.mark.parametrize("consumer", ["correct", "collapse-snapshot", "java-dcp-client"])
@pytest.mark.parametrize("prop", ["no-missed-item"])
def test_every_consumer_any_verdict_agrees_with_the_bounded_checks(consumer, prop) -> None:
    every = _every("kv-current", consumer, prop, TINY)
    bounded = [_bounded("kv-current", consumer, prop, TINY, k) for k in (1, 2, 3)]
    if every is Verdict.HOLDS:
        assert bounded == [Verdict.HOLDS] * 3, "holds for every K but violated at some K"
    assert (every is Verdict.VIOLATED) == (Verdict.VIOLATED in bounded)


def test_the_correct_consumer_is_proved_for_every_number_of_sessions_at_small_bounds() -> None:
    assert _every("kv-current", "correct", "no-missed-item", SMALL) is Verdict.HOLDS


def test_kv_replicas_two_session_loop_is_found_as_a_real_counterexample() -> None:
    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("kv-replica")
    result = check_every_session(r, c, PROPERTIES.get("bounded-rollback"), LOOP)
    assert result.verdict is Verdict.VIOLATED
    assert result.confirmed
    assert result.bounds.to_json()["sessions"] == 2
    assert result.ident == "bounded-rollback--kv-current--kv-replica--3df517344d"


def test_a_rule_set_without_one_clause_breaks_the_invariant_of_the_whole_one() -> None:
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    prop = PROPERTIES.get("no-missed-item")
    whole = _houdini(prop.id)
    assert whole.outcome is InductionOutcome.PROVED
    steps = tuple(s for s in rules.steps if s.name != "uuid-not-found")
    mutant = replace(rules, name="kv-current-without-uuid-not-found", steps=steps)
    again = induct(mutant, variant, prop, SMALL, Budget(), lemmas=whole.lemmas)
    assert again.outcome is not InductionOutcome.PROVED
    assert check_every_session(mutant, variant, prop, SMALL).verdict is not Verdict.HOLDS


def test_a_lemma_false_before_the_first_resume_is_not_in_the_invariant() -> None:
    from checker.induction.lemmas import Lemma
    from spec.model.boundary import BoundaryVars

    state = BoundaryVars(SMALL).state
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    false_at_start = Lemma("nothing-held", "the consumer holds nothing", ~state.data.held[1])
    found = induct(
        rules,
        variant,
        PROPERTIES.get("no-foreign-snapshot"),
        SMALL,
        Budget(),
        lemmas=[false_at_start],
    )
    assert false_at_start not in found.lemmas


def test_the_command_line_says_every_number_of_sessions_and_shows_the_invariant(
    tmp_path, monkeypatch, capsys
) -> None:
    args = ["check", "--rules", "kv-current", "--consumer", "correct"]
    args += ["--property", "no-foreign-snapshot", "--seqnos", "2", "--keys", "1"]
    args += ["--entries", "2", "--failovers", "1", "--sessions", "any", "--show-invariant"]
    done = run_cli([*args, "--out", tmp_path, "--quiet"], monkeypatch=monkeypatch, capsys=capsys)
    assert done.code == 0
    assert "every number of sessions (induction)" in done.out
    assert "streamed.1: an item the consumer keeps at 1 is the streamed producer's" in done.out


def test_sessions_any_is_refused_with_another_engine(tmp_path, monkeypatch, capsys) -> None:
    args = ["check", "--rules", "kv-current", "--consumer", "correct", "--sessions", "any"]
    args += ["--engine", "random", "--out", tmp_path]
    done = run_cli(args, monkeypatch=monkeypatch, capsys=capsys)
    assert done.code == 2
    assert "--sessions any" in done.err


def test_a_counterexample_to_induction_shows_the_state_one_session_later() -> None:
    from checker.induction.every_session import cti_note

    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    found = induct(rules, variant, PROPERTIES.get("no-missed-item"), SMALL, Budget(), lemmas=[])
    assert found.outcome is InductionOutcome.CTI
    assert set(found.cti_next) == set(found.cti)
    assert found.cti_next != found.cti
    assert "one session later" in cti_note(found, SMALL)


def test_the_failover_and_table_lemmas_are_kept_by_the_proof_for_the_correct_consumer() -> None:
    # Houdini keeps a lemma only if it holds before the first resume and after every
    # step from the invariant: these two ruled out the first counterexamples to
    # induction at 4 seqnos (docs/findings.md).
    found = _houdini("no-missed-item")
    assert found.outcome is InductionOutcome.PROVED
    assert {"agree-failover", "table-latest"} <= {lemma.name for lemma in found.lemmas}


def test_the_received_prefix_lemmas_hold_before_the_first_resume_and_after_every_step() -> None:
    # The ghosts g.from / g.upto (the last stream's start, how far the consumer got it
    # whole) are set by the start and by HeldData.after_cut: a wrong one breaks these.
    found = _houdini("no-missed-item")
    assert found.outcome is InductionOutcome.PROVED
    kept = {lemma.name for lemma in found.lemmas}
    assert {"from-upto", "last-upto", "prefix-upto.0", "prefix-below.0", "last-first.0"} <= kept


def _certified(prop: str) -> tuple[list[str], list[str]]:
    """(Houdini's invariant, the shrunk one) for kv-current x correct at SMALL."""
    kept, small = _shrunk(prop)
    return list(kept), list(small)


@functools.cache
def _shrunk(prop: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``_certified``, computed once per test process for each property."""
    from checker.induction.certificate import shrink

    r, c, p = RULE_SETS.get("kv-current"), CONSUMERS.get("correct"), PROPERTIES.get(prop)
    found = _houdini(prop)
    assert found.outcome is InductionOutcome.PROVED
    small = shrink(r, c, p, SMALL, found.lemmas, Budget())
    return tuple(x.name for x in found.lemmas), tuple(x.name for x in small.lemmas)


def _store_corrects_certificate(prop: str, tmp_path, monkeypatch) -> list[str]:
    """correct's shrunk certificate for ``prop`` at SMALL, stored in a scratch store."""
    from checker.induction import certificate

    monkeypatch.setattr(certificate, "STORE", tmp_path / "certificates.json")
    _, small = _certified(prop)
    certificate.store_certificate("kv-current", "correct", prop, SMALL, small)
    return small


def test_a_shrunk_invariant_is_a_smaller_one_that_checks_again() -> None:
    from checker.induction.certificate import check_certificate

    kept, small = _certified("no-missed-item")
    assert small and set(small) < set(kept)
    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    p = PROPERTIES.get("no-missed-item")
    again = check_certificate(r, c, p, SMALL, small, Budget())
    assert again.outcome is InductionOutcome.PROVED


def test_a_certificate_that_does_not_check_is_never_holds(tmp_path, monkeypatch) -> None:
    from checker.induction import certificate

    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    p = PROPERTIES.get("no-missed-item")
    monkeypatch.setattr(certificate, "STORE", tmp_path / "certificates.json")
    absent = check_every_session(r, c, p, SMALL, houdini=False)
    assert absent.verdict is Verdict.UNKNOWN and "no stored certificate" in absent.reason
    for names in ([], ["no-such-lemma"], ["filter-zero"]):  # P alone is not inductive
        certificate.store_certificate(r.name, c.name, p.id, SMALL, names)
        got = check_every_session(r, c, p, SMALL, houdini=False)
        assert got.verdict is Verdict.UNKNOWN, names
        assert "does not check" in got.reason
    _, small = _certified("no-missed-item")
    certificate.store_certificate(r.name, c.name, p.id, SMALL, small)
    proved = check_every_session(r, c, p, SMALL, houdini=False)
    assert proved.verdict is Verdict.HOLDS
    assert "stored certificate, checked again" in proved.long_text
    # The rule set without one clause: kv-current's certificate must not prove it.
    steps = tuple(s for s in r.steps if s.name != "uuid-not-found")
    mutant = replace(r, steps=steps)
    assert check_every_session(mutant, c, p, SMALL, houdini=False).verdict is not Verdict.HOLDS


def test_verify_checks_a_stored_certificate_and_never_prints_holds_for_a_bad_one(
    tmp_path, monkeypatch, capsys
) -> None:
    from checker.induction import certificate

    monkeypatch.setattr(certificate, "STORE", tmp_path / "certificates.json")
    monkeypatch.setattr("checker.commands.verify.CERTIFIED", SMALL)  # verify's certificate bounds
    prop = "no-foreign-snapshot"
    _, small = _certified(prop)
    args = ["verify", "--no-spark", "--rules", "kv-current", "--consumer", "correct"]
    args += ["--property", prop, "--no-clients", "--no-durability", "--no-decision"]
    args += ["--seqnos", "2", "--keys", "1", "--entries", "2", "--failovers", "1"]
    args += ["--out", tmp_path / "out", "--quiet"]
    certificate.store_certificate("kv-current", "correct", prop, SMALL, small)
    good = run_cli(args, monkeypatch=monkeypatch, capsys=capsys)
    assert good.code == 0, good.out + good.err
    assert "every number of sessions (stored certificates" in good.out
    assert "every number of sessions (induction)" in good.out
    assert "2 of 2 checks as expected" in good.out
    certificate.store_certificate("kv-current", "correct", prop, SMALL, ["filter-zero"])
    bad = run_cli(args, monkeypatch=monkeypatch, capsys=capsys)
    assert bad.code == 3, bad.out + bad.err
    assert "1 of 2 checks as expected, 1 unknown" in bad.out


def test_houdini_starts_from_corrects_certificate_for_another_variant(
    tmp_path, monkeypatch
) -> None:
    prop = "no-foreign-snapshot"
    _store_corrects_certificate(prop, tmp_path, monkeypatch)
    r, p = RULE_SETS.get("kv-current"), PROPERTIES.get(prop)
    got = check_every_session(r, CONSUMERS.get("java-dcp-client-fixed"), p, SMALL)
    assert got.verdict is Verdict.HOLDS
    assert "Houdini from correct's certificate" in got.long_text


def test_consecution_target_by_target_keeps_what_the_single_query_keeps() -> None:
    # The same Houdini, consecution asked per lemma with unsat cores (the default from 4
    # seqnos) or as one query over all of them: the same invariant, the same drops.
    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    p = PROPERTIES.get("no-foreign-snapshot")
    split = induct(r, c, p, SMALL, Budget(), by_target=True)
    assert SMALL.seqnos < BY_TARGET_FROM  # Houdini's default at SMALL is the single query
    whole = _houdini(p.id)
    assert split.outcome is whole.outcome is InductionOutcome.PROVED
    assert [x.name for x in split.lemmas] == [x.name for x in whole.lemmas]
    assert split.dropped == whole.dropped > 0


def test_a_lemma_a_step_breaks_is_dropped_by_target_and_rejected_when_strict() -> None:
    from checker.induction.lemmas import Lemma
    from spec.model.boundary import BoundaryVars

    # True before the first resume (the first stream starts at 0), false after a resume
    # from seqno 1.
    state = BoundaryVars(SMALL).state
    empty = Lemma("from-zero", "the last stream started at 0", state.received_from == 0)
    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    p = PROPERTIES.get("no-foreign-snapshot")
    found = _houdini(p.id)
    assert found.outcome is InductionOutcome.PROVED
    with_it = [*found.lemmas, empty]
    again = induct(r, c, p, SMALL, Budget(), lemmas=with_it, by_target=True)
    assert again.outcome is InductionOutcome.PROVED and empty not in again.lemmas
    strict = induct(r, c, p, SMALL, Budget(), lemmas=with_it, strict=True, by_target=True)
    assert strict.outcome is InductionOutcome.REJECTED
    assert "from-zero" in strict.reason


def test_houdini_starts_from_corrects_certificate_lifted_to_larger_bounds(
    tmp_path, monkeypatch
) -> None:
    from checker.induction import certificate
    from checker.induction.every_session import warm_starts

    prop = "no-foreign-snapshot"
    small = _store_corrects_certificate(prop, tmp_path, monkeypatch)
    wider = replace(SMALL, seqnos=3)
    ((what, lemmas),) = warm_starts("kv-current", "correct", prop, wider)
    names = {x.name for x in lemmas}
    assert "families" in what and set(small) < names
    assert {certificate.family(n) for n in names} == {certificate.family(n) for n in small}
    r, c, p = RULE_SETS.get("kv-current"), CONSUMERS.get("correct"), PROPERTIES.get(prop)
    got = check_every_session(r, c, p, wider)
    assert got.verdict is Verdict.HOLDS
    assert "Houdini from the lemma families of correct's certificates" in got.long_text


def test_a_bounded_check_left_undecided_is_never_called_free_of_a_violation() -> None:
    """Where the induction does not close, --sessions any reports the checks at K = 1, 2, 3:
    one whose budget ran out is undecided, said so with why, not 'no violation'."""
    r, c = RULE_SETS.get("kv-current"), CONSUMERS.get("kv-replica-fixed")
    base = planned(r, c, PROPERTIES.get("no-missed-item"), SMALL)
    clear, spent = base.but(verdict=Verdict.HOLDS), base.but(reason="solver: budget")
    every = [(1, clear), (2, clear), (3, clear)]
    assert bounded_summary(every) == "no violation at K = 1, 2, 3 sessions"
    ran_out = [(1, clear), (2, clear), (3, spent)]
    assert bounded_summary(ran_out) == (
        "no violation at K = 1, 2 sessions; K = 3 undecided (solver: budget)"
    )
    assert bounded_summary([(1, spent), (2, spent), (3, spent)]) == (
        "K = 1, 2, 3 undecided (solver: budget)"
    )
    timed_out = base.but(reason="solver: timeout")
    assert bounded_summary([(1, clear), (2, spent), (3, timed_out)]) == (
        "no violation at K = 1 sessions; K = 2, 3 undecided (solver: budget; solver: timeout)"
    )
