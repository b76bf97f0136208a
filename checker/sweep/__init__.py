"""``dcpcheck sweep``: every producer decision within bounds, under every selected rule set.

``space``: the bounded input space, enumerated by index (``SweepSpace``);
``batches``: one Arrow record batch of inputs and answers per chunk of
indices; ``job``: what an executor does with a range of indices (generate,
decide, write a Parquet part, count); ``summary``: what the counts say and
how it is printed; ``crosscheck``: every difference the sweep finds against
the regions ``dcpcheck diff`` reports. The Spark job is
``checker.spark.sweep``.
"""
