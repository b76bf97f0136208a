"""A user's client (``my-client``): on a rollback it claims the rollback point, uuid and all,
as if it had the snapshot there; tests judge it beside the catalogue."""

from spec.consumers import ConsumerVariant, Reaction


class ClaimsRollbackPoint(ConsumerVariant):
    name = "my-client"

    def on_rollback(self, view, rollback_seqno, producer_log):
        r = rollback_seqno
        return Reaction(keep=r, claim=view.claim.at(r, uuid=view.log.covering(r)))


VARIANT = ClaimsRollbackPoint()
