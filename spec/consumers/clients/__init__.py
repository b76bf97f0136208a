"""The catalogue: DCP clients people run, modelled from their own source, and their fixes.

Each module models one client as a consumer variant and, next to it, the
smallest client-side change we found that makes it safe (``<name>-fixed``).
Every behaviour modelled cites the repository, file and function it was read
from; docs/clients.md tells what the checker found. What a docstring says
about a client is *our reading* of its code (read 2026-08 at the revisions
named in docs/clients.md); what is *verified* is only what dcpcheck checks:
the verdicts of these models, within the stated bounds.

Each module's ``VARIANTS`` is (client, fix); ``spec.consumers`` registers every
module here, and ``spec.consumers.CATALOGUE`` orders the pairs.
"""
