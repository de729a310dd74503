#!/usr/bin/env python3
"""Writes the two fonts of perflab's PNG charts, subsets of fonts Debian ships:

- DejaVuSans-perflab.ttf, from DejaVu Sans (fonts-dejavu-core; licence in LICENSE-DejaVu.txt):
  ASCII, Latin-1 and Latin Extended-A (every Turkish letter), punctuation, arrows, mathematical
  signs and geometric shapes (the ▲ and ▼ of gains and losses);
- NotoSansCJK-perflab.otf, from Noto Sans CJK SC Regular (fonts-noto-cjk; SIL Open Font
  License 1.1 in OFL.txt): the same Latin ranges it has, kana, the CJK symbols and full-width
  forms, the first levels of GB 2312 and JIS X 0208 (the common Chinese and Japanese
  characters), and every character of the catalogs and the bundled studies.

Needs fontTools (`pip install fonttools`). Run from the repository root:
python3 assets/fonts/subset.py
"""
import pathlib
from fontTools import subset
from fontTools.ttLib import TTCollection

from fontTools.ttLib import TTFont

CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
LATIN = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
HERE = pathlib.Path(__file__).parent


def level_one(codec, rows):
    chars = set()
    for hi in rows:
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode(codec))
            except UnicodeDecodeError:
                pass
    return chars


def ranges(*pairs):
    return {chr(c) for lo, hi in pairs for c in range(lo, hi + 1)}


def write(font, chars, out):
    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.name_IDs = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=[ord(c) for c in sorted(chars)])
    sub.subset(font)
    font.recalcTimestamp = False
    font.save(out)
    print(f"{out}: {len(font.getGlyphOrder())} glyphs, {out.stat().st_size} bytes")


def main():
    latin = ranges((0x20, 0x7E), (0xA0, 0x17F), (0x2000, 0x206F), (0x2190, 0x21FF), (0x2200, 0x22FF),
                   (0x25A0, 0x25FF))
    write(TTFont(LATIN), latin, HERE / "DejaVuSans-perflab.ttf")
    chars = latin | ranges((0x3000, 0x30FF), (0xFF00, 0xFFEF))
    chars |= level_one("gb2312", range(0xB0, 0xD8))
    chars |= level_one("euc_jp", range(0xB0, 0xD0))
    root = pathlib.Path(".")
    for path in list(root.glob("templates/i18n/*.ftl")) + list(root.glob("results/*/study.toml")):
        chars |= set(path.read_text(encoding="utf-8"))
    chars = {c for c in chars if ord(c) >= 0x20}
    font = next(f for f in TTCollection(CJK).fonts if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    write(font, chars, HERE / "NotoSansCJK-perflab.otf")


if __name__ == "__main__":
    main()
