"""A consumer variant, the one docs/authoring-consumers.md starts with: on ROLLBACK(R) it
keeps its data up to the last whole snapshot at or below R and resumes from there."""

from spec.consumers import ConsumerVariant, Reaction


class ResumesAtWholeSnapshot(ConsumerVariant):
    name = "resumes-at-whole-snapshot"  # the stable id used in reports and files
    summary = "on rollback, resume from the last whole snapshot at or below R"

    def on_rollback(self, view, rollback_seqno, producer_log):
        point = view.consistent_at_or_below(rollback_seqno)
        return Reaction(
            keep=point,  # drop data above it
            claim=view.claim.at(point, uuid=producer_log.covering(point)),
        )


VARIANT = ResumesAtWholeSnapshot()  # any module-level instance is picked up
