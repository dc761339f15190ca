"""The vendored math font is an OpenType MATH font, shipped with its licence."""

from __future__ import annotations

import struct
from pathlib import Path

from django.conf import settings

FONTS = Path(settings.BASE_DIR) / "static" / "fonts"
# The WOFF2 table directory names common tables by an index into this list (WOFF2 spec, 5.1).
KNOWN_TAGS = (
    "cmap head hhea hmtx maxp name OS/2 post cvt  fpgm glyf loca prep CFF  VORG EBDT EBLC gasp "
    "hdmx kern LTSH PCLT VDMX vhea vmtx BASE GDEF GPOS GSUB EBSC JSTF MATH CBDT CBLC COLR CPAL "
    "SVG  sbix acnt avar bdat bloc bsln cvar fdsc feat fmtx fvar gvar hsty just lcar mort morx "
    "opbd prop trak Zapf Silf Glat Gloc Feat Sill"
)


def _base128(data: bytes, offset: int) -> tuple[int, int]:
    value = 0
    for position in range(offset, offset + 5):
        value = (value << 7) | (data[position] & 0x7F)
        if not data[position] & 0x80:
            return value, position + 1
    raise ValueError("UIntBase128 longer than 5 bytes")


def woff2_tables(data: bytes) -> list[str]:
    """The table tags of a WOFF2 file, read from its directory (no decompression needed)."""
    assert data[:4] == b"wOF2", "not a WOFF2 file"
    (count,) = struct.unpack(">H", data[12:14])
    offset, tags = 48, []
    for _ in range(count):
        flags = data[offset]
        offset += 1
        if flags & 0x3F == 0x3F:
            tag = data[offset : offset + 4].decode("latin-1")
            offset += 4
        else:
            tag = KNOWN_TAGS[(flags & 0x3F) * 5 : (flags & 0x3F) * 5 + 4]
        _, offset = _base128(data, offset)  # origLength
        transform = flags >> 6
        if (tag.strip() in ("glyf", "loca")) == (transform == 0):
            _, offset = _base128(data, offset)  # transformLength
        tags.append(tag.strip())
    return tags


def test_the_math_font_has_a_math_table_and_its_licence():
    tables = woff2_tables((FONTS / "NotoSansMath-Regular.woff2").read_bytes())
    assert {"MATH", "cmap", "glyf", "GSUB"} <= set(tables), tables
    licence = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence


def test_the_reader_tells_a_font_without_a_math_table(tmp_path):
    """Positive control: a directory holding only cmap (index 0) and head has no MATH."""
    header = b"wOF2" + b"\0" * 8 + struct.pack(">H", 2) + b"\0" * 34
    directory = bytes([0x00, 0x10, 0x01, 0x20])
    assert woff2_tables(header + directory) == ["cmap", "head"]
