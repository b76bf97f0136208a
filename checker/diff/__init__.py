"""``dcpcheck diff``: where two rule sets (or two consumer variants) differ, and is it safe.

* ``regions``: what a difference is (a change between two answers) and a
  region (A's clause, B's clause, the change), as expressions;
* ``decisions``: every region of the decision space, found and blocked by Z3;
* ``scenarios``: two runs of one scenario, and where they first part;
* ``classify``: each region's verdict, asked of the scenario model, and the
  witness scenario replayed on the reference implementation;
* ``engine``: ``diff_rules`` and ``diff_consumers``; ``report``: text and JSON.
"""
