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

import numpy as np

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
    pixels: np.ndarray  # rows x columns x channels (RGB or RGBA), uint8
    console: list[str]  # messages the page logged

    def distinct_colours(self) -> int:
        channels = self.pixels.shape[2]
        flat = self.pixels.reshape(-1, channels).astype(np.uint32)
        packed = flat @ (np.uint32(256) ** np.arange(channels - 1, -1, -1, dtype=np.uint32))
        return len(np.unique(packed))  # each colour one number: its channels' bytes

    def inked(self) -> float:
        """The share of pixels that differ from the top-left (background) pixel."""
        return float((self.pixels != self.pixels[0, 0]).any(axis=2).mean())


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


def decode_png(data: bytes) -> np.ndarray:
    """8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are. Rows filtered
    with None, Sub or Up are undone a row at a time (NumPy); Average and Paeth, whose
    every byte needs the one to its left, byte by byte."""
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
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, width * channels + 1)
    out = np.zeros((height, width * channels), dtype=np.uint8)
    previous = np.zeros(width * channels, dtype=np.uint8)
    for y in range(height):
        kind, row = raw[y, 0], raw[y, 1:]
        if kind == 0:
            out[y] = row
        elif kind == 1:
            sums = np.cumsum(row.reshape(width, channels), axis=0, dtype=np.uint64) & 0xFF
            out[y] = sums.astype(np.uint8).reshape(-1)
        elif kind == 2:
            out[y] = row + previous  # uint8: modulo 256
        else:
            out[y] = _left_dependent(kind, row.tolist(), previous.tolist(), channels)
        previous = out[y]
    return out.reshape(height, width, channels)


def _left_dependent(kind: int, row: list[int], up: list[int], channels: int) -> list[int]:
    """A row filtered with Average (3) or Paeth (4), undone byte by byte."""
    for i in range(len(row)):
        left = row[i - channels] if i >= channels else 0
        above = up[i]
        if kind == 3:
            row[i] = (row[i] + (left + above) // 2) & 0xFF
            continue
        corner = up[i - channels] if i >= channels else 0
        guess = left + above - corner
        far_left, far_above, far_corner = abs(guess - left), abs(guess - above), abs(guess - corner)
        if far_left <= far_above and far_left <= far_corner:
            best = left
        elif far_above <= far_corner:
            best = above
        else:
            best = corner
        row[i] = (row[i] + best) & 0xFF
    return row
