#!/usr/bin/python3
"""Writes the glyphless TrueType font of the searchable PDF's text layer (src/pdf/searchable_pdf.cpp)
to the path given: one empty glyph (and .notdef), 500 units wide in a 1000-unit em, ascent 1000,
descent 0. Deterministic (fixed timestamps), so the same build makes the same bytes. Run by CMake
with Debian's python3 and python3-fonttools.

    glyphless_font.py OUT.ttf
"""
import sys

from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen


def main(path):
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder([".notdef", "blank"])
    fb.setupCharacterMap({0x20: "blank"})
    empty = TTGlyphPen(None).glyph()
    fb.setupGlyf({".notdef": empty, "blank": empty})
    fb.setupHorizontalMetrics({".notdef": (500, 0), "blank": (500, 0)})
    fb.setupHorizontalHeader(ascent=1000, descent=0)
    fb.setupNameTable({"familyName": "GlyphLessFont", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=1000, sTypoDescender=0, usWinAscent=1000, usWinDescent=0)
    fb.setupPost()
    fb.updateHead(created=0, modified=0)
    fb.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
