"""Files a Spark job publishes: through Hadoop's FileSystem, so any URI Spark reads works.

A local path, ``file://``, ``hdfs://``, ``s3a://``: the driver creates,
renames and deletes through the same FileSystem the executors write with.
Publishing is a rename: a reader sees a directory whole or not at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["Storage"]


class Storage:
    def __init__(self, spark: SparkSession, root: str) -> None:
        self._spark = spark
        jvm = spark.sparkContext._jvm
        assert jvm is not None  # a live session's
        self._jvm: Any = jvm  # py4j's view of the JVM: untyped
        conf = spark.sparkContext._jsc.hadoopConfiguration()
        if "://" not in root:
            root = Path(root).resolve().as_uri()
        self.root = root.rstrip("/")
        self._fs = self._path(self.root).getFileSystem(conf)

    def _path(self, uri: str) -> Any:  # a Hadoop Path (py4j)
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def uri(self, *parts: str) -> str:
        return "/".join((self.root, *parts))

    def exists(self, *parts: str) -> bool:
        return bool(self._fs.exists(self._path(self.uri(*parts))))

    def mkdirs(self, *parts: str) -> None:
        self._fs.mkdirs(self._path(self.uri(*parts)))

    def delete(self, *parts: str) -> None:
        self._fs.delete(self._path(self.uri(*parts)), True)

    def rename(self, source: str, target: str) -> None:
        """Publish ``source`` as ``target`` (paths under the root)."""
        if not self._fs.rename(self._path(self.uri(source)), self._path(self.uri(target))):
            raise OSError(f"cannot rename {self.uri(source)} to {self.uri(target)}")

    def children(self, *parts: str) -> list[str]:
        where = self._path(self.uri(*parts))
        if not self._fs.exists(where):
            return []
        return sorted(str(s.getPath().getName()) for s in self._fs.listStatus(where))

    def write_text(self, text: str, *parts: str) -> None:
        """Write a small file whole: to a temp name, then renamed."""
        *folder, name = parts
        temp = self._path(self.uri(*folder, f".{name}.tmp"))
        stream = self._fs.create(temp, True)
        try:
            stream.write(bytearray(text.encode()))
        finally:
            stream.close()
        target = self._path(self.uri(*parts))
        self._fs.delete(target, False)
        if not self._fs.rename(temp, target):
            raise OSError(f"cannot write {self.uri(*parts)}")

    def read_text(self, *parts: str) -> str:
        stream = self._fs.open(self._path(self.uri(*parts)))
        try:
            return str(self._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
        finally:
            stream.close()
