"""Run the benchmarks: ``python -m benchmarks`` (all) or ``python -m benchmarks vectors``."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time

import benchmarks


def available() -> list[str]:
    return sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if not m.name.startswith("_")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "names", nargs="*", help=f"benchmarks to run (default all: {', '.join(available())})"
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args(argv)
    names = args.names or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        print(
            f"benchmarks: unknown {', '.join(unknown)}; known: {', '.join(available())}",
            file=sys.stderr,
        )
        return 2
    for name in names:
        print(f"== {name} ==")
        started = time.perf_counter()
        importlib.import_module(f"benchmarks.{name}").run(quick=args.quick)
        print(f"({name}: {time.perf_counter() - started:.1f}s in all)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
