"""Rendering a page in headless Chromium and reading back the screenshot (test helper).

Chromium is Debian's (``make browser`` installs it where it is missing); it
runs with no network, no GPU and no sandbox (tests run as root in CI). Every
message the page logs to the console is returned: dcpcheck's reports have
no scripts, so any message (an SVG attribute Chromium rejects, say) is an
error. The screenshot is decoded here (PNG: zlib and the five row filters)
to tell a drawn page from a blank one.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]
CONSOLE = re.compile(r':CONSOLE[^\]]*\] "(?P<message>.*)", source: (?P<source>\S+)')


@dataclass
class Rendered:
    pixels: list[list[tuple[int, ...]]]  # rows of (r, g, b[, a])
    console: list[str]  # messages the page logged

    def distinct_colours(self) -> int:
        return len({p for row in self.pixels for p in row})

    def inked(self) -> float:
        """The share of pixels that differ from the top-left (background) pixel."""
        background = self.pixels[0][0]
        total = sum(len(row) for row in self.pixels)
        return sum(p != background for row in self.pixels for p in row) / total


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise AssertionError(
            "chromium is not installed: run `make browser` (Debian's chromium package)"
        )
    return found


def render(page: Path, width: int = 1400, height: int = 1200) -> Rendered:
    with tempfile.TemporaryDirectory(prefix="dcpcheck-browser-") as scratch:
        shot = Path(scratch) / "shot.png"
        proc = subprocess.run(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={scratch}/profile",
                f"--window-size={width},{height}",
                f"--screenshot={shot}",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert shot.exists(), (
            f"chromium wrote no screenshot (exit {proc.returncode}):\n{proc.stderr}"
        )
        console = [m.group("message") for m in CONSOLE.finditer(proc.stderr)]
        return Rendered(decode_png(shot.read_bytes()), console)


def dom(page: Path) -> str:
    """The page's DOM as Chromium built it (``--dump-dom``)."""
    page = page.resolve()
    with tempfile.TemporaryDirectory(prefix="dcpcheck-browser-") as scratch:
        proc = subprocess.run(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={scratch}/profile",
                "--dump-dom",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert "<svg" in proc.stdout or "<body" in proc.stdout, proc.stderr[-2000:]
        return proc.stdout


def decode_png(data: bytes) -> list[list[tuple[int, ...]]]:
    """8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG kind"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                best = min(
                    (abs(guess - left), 0, left),
                    (abs(guess - up), 1, up),
                    (abs(guess - corner), 2, corner),
                )[2]
                row[i] = (row[i] + best) & 0xFF
        rows.append(row)
        previous = row
    return [[tuple(row[x * channels : (x + 1) * channels]) for x in range(width)] for row in rows]
