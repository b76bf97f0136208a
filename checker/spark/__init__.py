"""Spark jobs. PySpark is imported only here, so everything else starts fast."""
