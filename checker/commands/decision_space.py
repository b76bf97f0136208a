"""Moved to ``checker.arguments.decision_space`` (issue 48: commands are leaves).

Kept only for ``checker.commands.review``'s import, which another change
rewrites at present; delete this module once review.py imports the new home.
"""

from checker.arguments.decision_space import add_distinct_uuids

__all__ = ["add_distinct_uuids"]
