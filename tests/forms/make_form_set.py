#!/usr/bin/python3
"""Render a development set of 1980s-90s office forms, scanned and faxed at about 100 dpi.

    make_form_set.py OUT [--manifest tests/forms/manifest.json] [--pages N] [--only NAME,...] [--seed S]
                         [--real-testdata DIR] [--real-gt DIR] [--faint-numbers]

Needs Pillow and numpy (Debian: python3-pil, python3-numpy; /usr/bin/python3 has them) and the
URW base-35 fonts (fonts-urw-base35). Exit 77 (ctest: skipped) when one of them is missing.

Each page is one of four kinds (fax cover sheet, memo, questionnaire, purchase order), drawn at
300 dpi with Pillow in typewriter and office fonts (Nimbus Mono PS, Nimbus Sans, Nimbus Roman,
URW Bookman, C059, and Z003 for handwritten entries): label: value fields with blank stretches
between label and value, boxes and rules, checkboxes, and on most pages a document number printed
vertically along the right margin (rotated 90 degrees one way or the other; with --faint-numbers
in faint, mottled grey, as a numbering stamp prints it). Then it is degraded
as a scanner or a fax line would: downsampled to 100 dpi in 8-bit grey (fax pages pass through a
1-bit threshold first), blurred, speckled, streaked, cropped by a few pixels, skewed by at most
1 degree, and saved as JPEG at a low quality. Body text is 9.5-11 pt: capitals 9-11 px high in the
final image, line boxes 11-15 px.

Written to OUT:
  images/NAME.jpg      the page
  gt/NAME.json         ocr-score's ground truth: {"lines": [{"text", "polygon"}], "tags": [kind]},
                       each line's quadrilateral in the final image's coordinates (the run's line
                       box: the font's ascender to descender, its ink across, a tenth of the size
                       added each side; skewed with the page)
  words/NAME.txt       the page's words as word_f1.py counts them, one a line (for reading)
  manifest.json        the pages: name, kind, seed, size, vertical document number or null

With --real-testdata (../shared/testdata/real) and --real-gt (tests/accuracy/real_gt), also writes
a second part, real/: the document-like real photos (the manifest's "real" list) downsampled so
their body text is 8-12 px high, with their hand transcriptions as text-only ground truth
(real/gt/NAME.txt). Skipped with a message when the folder is absent.

Deterministic: the page list and every random choice come from the manifest's seed (a page's
seed is seed * 1000 + its index), so the same manifest and fonts give the same set.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e} (run with a Python that has Pillow and numpy, e.g. /usr/bin/python3)")
    sys.exit(SKIP)

sys.path.insert(0, HERE)
from word_f1 import words  # noqa: E402

DPI = 300
SCALE = 3  # 300 dpi -> 100 dpi
PAGE_W, PAGE_H = 2550, 3300  # US letter at 300 dpi
KINDS = ("fax", "memo", "questionnaire", "purchase")

FONT_FILES = {
    "mono": "NimbusMonoPS-Regular",
    "mono_bold": "NimbusMonoPS-Bold",
    "sans": "NimbusSans-Regular",
    "sans_bold": "NimbusSans-Bold",
    "roman": "NimbusRoman-Regular",
    "roman_bold": "NimbusRoman-Bold",
    "bookman": "URWBookman-Light",
    "bookman_bold": "URWBookman-Demi",
    "c059": "C059-Roman",
    "hand": "Z003-MediumItalic",
}
FONT_DIRS = ("/usr/share/fonts/opentype/urw-base35", "/usr/share/fonts/X11/Type1")

# ----------------------------------------------------------------------------------- vocabulary

FIRST = ["James", "Robert", "Mary", "Linda", "Patricia", "Michael", "David", "Susan", "Karen",
         "Richard", "Thomas", "Nancy", "Donald", "Barbara", "Kenneth", "Carol", "Gary", "Sharon",
         "Ronald", "Deborah", "Walter", "Judith", "Harold", "Joyce", "Eugene", "Gloria"]
LAST = ["Anderson", "Whitaker", "Kowalski", "Brennan", "Delgado", "Hoffman", "McAllister",
        "Fitzgerald", "Okafor", "Lindqvist", "Pemberton", "Castellano", "Nakamura", "Hargrove",
        "Sorensen", "Bradshaw", "Villanueva", "Thornton", "Gallagher", "Rasmussen", "Ellison"]
COMPANIES = ["Consolidated Tobacco Products", "Midwest Research Associates", "Harrison & Vale Inc.",
             "Northeastern Packaging Corp.", "Allied Marketing Services", "Tri-State Laboratories",
             "Bellwether Consulting Group", "Continental Paper Company", "Summit Analytical Ltd.",
             "Lakeshore Distribution Co.", "Pacific Instruments Division", "Greystone Associates"]
DEPTS = ["Research and Development", "Marketing", "Legal Department", "Public Affairs",
         "Quality Assurance", "Purchasing", "Corporate Communications", "Product Development",
         "Scientific Affairs", "Accounting", "Field Sales", "Regulatory Affairs"]
CITIES = ["Richmond, Virginia", "Winston-Salem, NC", "Louisville, KY", "New York, NY 10017",
          "Chicago, Illinois", "Greensboro, NC 27420", "Atlanta, Georgia", "Cincinnati, OH 45202",
          "Dallas, Texas 75201", "Hartford, CT 06103"]
STREETS = ["1200 Commerce Street", "45 West 57th Street", "P.O. Box 2959",
           "3300 Industrial Parkway", "620 Madison Avenue", "17 Harbor Drive, Suite 400",
           "8800 Lakeview Boulevard"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
SUBJECTS = ["Quarterly sales projections", "Revised test protocol", "Consumer panel results",
            "Budget review for fiscal 1991", "Shipment of laboratory samples",
            "Meeting with field representatives", "Packaging specifications",
            "Annual inventory count", "Proposed advertising schedule", "Vendor qualification audit",
            "Request for additional funding", "Summary of physical measurements"]
BODY_WORDS = (
    "the of and to in for that is on with as this be by from are at it will have which we our an "
    "has not all please report data results meeting samples project program study plan product "
    "information department committee schedule attached review approval budget research request "
    "following summary analysis testing division members current proposed additional contract "
    "quality customer market delivery shipment invoice materials equipment containers physical "
    "description headquarters intelligence regional office target benefit procedure estimate "
    "questions responses documents copies signature management evaluation manufacturing "
    "distribution laboratory personnel administrative confidential preliminary quarterly annual "
    "monthly weekly revised final draft enclosed discussed indicated recommend consider provide "
    "complete continue require receive prepare forward contact advise confirm expect believe"
).split()
SENTENCE_TEMPLATES = [
    "Please review the attached {n1} and forward your comments to {name} by {date}.",
    "As discussed at the {n2} meeting, the {n1} will be delivered to {dept} before the end of "
    "{month}.",
    "The {adj} results of the {n1} indicate that additional {n3} will be required.",
    "We expect to receive {num} {n3} from {company} within the next two weeks.",
    "If you have any questions regarding this {n1}, please call me at extension {ext}.",
    "A copy of the {adj} {n1} has been sent to the {dept} for their review and approval.",
    "The committee has asked that all {n3} be returned to headquarters no later than {date}.",
    "Total cost of the {n1} is estimated at ${money}, which is within the approved budget.",
    "I cannot join the {n2} meeting on {date}; {name} will attend in my place.",
    "Current inventory shows {num} units on hand and {num2} units on order.",
]
NOUNS1 = ["report", "proposal", "summary", "protocol", "estimate", "schedule", "contract",
          "specification", "evaluation", "questionnaire", "study", "invoice"]
NOUNS2 = ["quarterly", "regional", "planning", "budget", "project", "steering committee", "staff"]
NOUNS3 = ["samples", "containers", "copies", "materials", "documents", "cartons", "forms"]
ADJS = ["preliminary", "final", "revised", "confidential", "complete", "annual"]
QUESTIONS = [
    "How many hours per week do you spend on this activity?",
    "Which of the following products have you used in the past month?",
    "How would you rate the overall quality of the service?",
    "Did you receive the materials on time?",
    "How often do you read the company newsletter?",
    "Would you recommend this program to a colleague?",
    "Which department do you currently work in?",
    "How satisfied are you with the new procedure?",
    "What is your age group?",
    "Have you attended a training session this year?",
]
ANSWER_SETS = [["Yes", "No", "Not sure"], ["Daily", "Weekly", "Monthly", "Never"],
               ["Excellent", "Good", "Fair", "Poor"],
               ["Under 25", "25 to 44", "45 to 64", "65 or over"],
               ["Very satisfied", "Satisfied", "Dissatisfied"]]
ITEMS = ["Filing cabinet, 4 drawer", "Typewriter ribbon, black", "Copier paper, 20 lb", "Desk lamp",
         "Carbon paper, box of 100", "Letter trays, steel", "Calculator with printer",
         "Binders, 3 inch", "Envelopes No. 10", "Laboratory glassware set", "Fax paper rolls",
         "Storage cartons", "Index cards 3x5", "Correction fluid", "Rubber stamps, dated"]
HAND_NOTES = ["Call me if you need more copies", "Approved - see note", "Rush please!",
              "File under project 2", "Per our phone call", "OK to ship", "Thanks, see you Monday",
              "Received in good order", "Need by Friday", "Discuss at next meeting"]


# -------------------------------------------------------------------------------------- helpers

def font_path(name: str) -> str:
    stem = FONT_FILES[name]
    for d in FONT_DIRS:
        for ext in (".otf", ".pfb", ".ttf"):
            p = os.path.join(d, stem + ext)
            if os.path.exists(p):
                return p
    try:
        out = subprocess.run(["fc-match", "-f", "%{file}", stem], capture_output=True, text=True,
                             check=False).stdout.strip()
        if out and os.path.basename(out).startswith(stem):
            return out
    except OSError:
        pass
    raise FileNotFoundError(f"font {stem} (Debian: fonts-urw-base35)")


class Fonts:
    def __init__(self):
        self.paths = {k: font_path(k) for k in FONT_FILES}
        self.cache: dict = {}

    def get(self, name: str, px: int) -> ImageFont.FreeTypeFont:
        key = (name, px)
        if key not in self.cache:
            self.cache[key] = ImageFont.truetype(self.paths[name], px)
        return self.cache[key]


def pt(points: float) -> int:
    """Font size in pixels at 300 dpi for a size in points."""
    return round(points * DPI / 72)


def fake_date(rng: random.Random) -> str:
    y = rng.randint(1983, 1996)
    m = rng.randint(1, 12)
    d = rng.randint(1, 28)
    style = rng.randrange(3)
    if style == 0:
        return f"{MONTHS[m - 1]} {d}, {y}"
    if style == 1:
        return f"{m:02d}/{d:02d}/{y % 100:02d}"
    return f"{d} {MONTHS[m - 1][:3]} {y}"


def person(rng: random.Random) -> str:
    f, l = rng.choice(FIRST), rng.choice(LAST)
    return rng.choice([f"{f} {l}", f"{f[0]}. {l}", f"{f} {rng.choice('ABCDEFGHJKLMRSTW')}. {l}"])


def phone(rng: random.Random) -> str:
    return f"({rng.randint(201, 919)}) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}"


def sentence(rng: random.Random) -> str:
    t = rng.choice(SENTENCE_TEMPLATES)
    return t.format(n1=rng.choice(NOUNS1), n2=rng.choice(NOUNS2), n3=rng.choice(NOUNS3),
                    adj=rng.choice(ADJS), name=person(rng), date=fake_date(rng),
                    dept=rng.choice(DEPTS), month=rng.choice(MONTHS), company=rng.choice(COMPANIES),
                    num=rng.randint(2, 480), num2=rng.randint(10, 2400),
                    ext=rng.randint(2000, 7999),
                    money=f"{rng.randint(1, 48)},{rng.randint(0, 999):03d}."
                          f"{rng.randint(0, 99):02d}")


def doc_number(rng: random.Random) -> str:
    style = rng.randrange(3)
    if style == 0:
        return f"{rng.randint(10, 99)}{rng.randint(100, 999)} {rng.randint(1000, 9999)}"
    if style == 1:
        return f"{rng.randint(500, 999)}{rng.randint(100000, 999999)}"
    return f"{rng.choice(['TI', 'RJR', 'BW', 'LG', 'PM'])}{rng.randint(10000000, 99999999)}"


# ---------------------------------------------------------------------------------- the page

LINE_PROBE = "Hdlgjpy"  # the font's ascender and descender


def line_box(draw: ImageDraw.ImageDraw, x: float, y: float, s: str, f: ImageFont.FreeTypeFont,
             left: float, right: float) -> list[list[float]]:
    """A run's ground-truth box: from the font's ascender to its descender (the ink of
    LINE_PROBE and the run together, so every line of a font has the same height whatever its
    letters), and across the run's ink plus a tenth of the font size each side. Line boxes, as an
    annotator draws them, not the ink of the letters: a detector's boxes are line boxes too."""
    _, t, _, b = draw.textbbox((x, y), LINE_PROBE + s, font=f)
    pad = f.size * 0.1
    return [[left - pad, t], [right + pad, t], [right + pad, b], [left - pad, b]]


class Page:
    """A 300-dpi white page with the text runs drawn on it (ground truth at 300 dpi)."""

    def __init__(self, fonts: Fonts, rng: random.Random):
        self.img = Image.new("L", (PAGE_W, PAGE_H), 255)
        self.draw = ImageDraw.Draw(self.img)
        self.fonts = fonts
        self.rng = rng
        self.lines: list[dict] = []  # {"text", "polygon"} at 300 dpi
        self.ink = 0  # text grey level

    def text(self, x: float, y: float, s: str, font: str, size: int, fill: int | None = None,
             box_from: float | None = None) -> tuple[float, float, float, float]:
        """Draw one run at (x, y) (top of the em box); record its line box, from `box_from` when
        a mark printed on the line (a checkbox) comes first. Returns its ink box."""
        f = self.fonts.get(font, size)
        s = s.strip()
        if not s:
            return (x, y, x, y)
        color = self.ink if fill is None else fill
        self.draw.text((x, y), s, font=f, fill=color)
        l, t, r, b = self.draw.textbbox((x, y), s, font=f)
        left = l if box_from is None else min(l, box_from)
        self.lines.append({"text": s, "polygon": line_box(self.draw, x, y, s, f, left, r)})
        return (l, t, r, b)

    def width(self, s: str, font: str, size: int) -> float:
        return self.fonts.get(font, size).getlength(s)

    def field(self, x: float, y: float, label: str, value: str, font: str, size: int,
              gap: float, value_font: str | None = None, value_size: int | None = None,
              underline: bool = False, line_to: float | None = None) -> float:
        """`label` then, `gap` pixels of blank later, `value` (two runs). Returns where the
        value ends."""
        _, _, r, b = self.text(x, y, label, font, size)
        vx = r + gap
        vf, vs = value_font or font, value_size or size
        if underline:
            end = line_to if line_to is not None else vx + self.width(value, vf, vs) + 60
            self.draw.line([(r + 20, y + size * 0.95), (end, y + size * 0.95)], fill=60, width=3)
        if value:
            _, _, r2, _ = self.text(vx, y + (size - vs) * 0.8, value, vf, vs)
            return r2
        return r

    def checkbox(self, x: float, y: float, size: int, checked: bool) -> float:
        s = int(size * 0.7)
        top = y + size * 0.2
        self.draw.rectangle([x, top, x + s, top + s], outline=30, width=3)
        if checked:
            self.draw.line([(x + 6, top + 6), (x + s - 6, top + s - 6)], fill=20, width=5)
            self.draw.line([(x + s - 6, top + 6), (x + 6, top + s - 6)], fill=20, width=5)
        return x + s + size * 0.5

    def box(self, x0, y0, x1, y1, width=4):
        self.draw.rectangle([x0, y0, x1, y1], outline=40, width=width)

    def rule(self, x0, y, x1, width=4):
        self.draw.line([(x0, y), (x1, y)], fill=40, width=width)

    def vertical_number(self, number: str, direction: int,
                        stamp: random.Random | None = None) -> None:
        """The document number along the right margin, rotated 90 degrees (direction +1: reads
        bottom to top, -1: top to bottom). With `stamp`, printed faint and mottled as a numbering
        stamp leaves it: grey ink, unevenly inked (its random stream is its own, so the rest of
        the page is the same either way)."""
        size = pt(self.rng.uniform(9, 11))
        f = self.fonts.get(self.rng.choice(["mono", "sans", "mono_bold"]), size)
        l, _, r, _ = f.getbbox(number)
        _, t, _, b = f.getbbox(LINE_PROBE + number)
        tile = Image.new("L", (int(r - l) + 20, int(b - t) + 20), 255)
        ImageDraw.Draw(tile).text((10 - l, 10 - t), number, font=f, fill=self.ink)
        rot = tile.rotate(90 * direction, expand=True, fillcolor=255)
        w, h = rot.size
        x = PAGE_W - self.rng.randint(130, 190) - w
        y = self.rng.randint(int(PAGE_H * 0.35), int(PAGE_H * 0.75) - h)
        mask = Image.eval(rot, lambda v: 255 - v)
        if stamp is not None:
            # Ink from a quarter to half of the way to the paper, and per blotch of the rubber
            # (blurred noise at 300 dpi, a few pixels wide) from full to 60% of that.
            grey = int(255 * stamp.uniform(0.25, 0.5))
            noise = np.random.default_rng(stamp.randrange(2**32)).uniform(0.6, 1.0, (h, w))
            blotch = Image.fromarray((noise * 255).astype(np.uint8), "L")
            blotch = blotch.filter(ImageFilter.GaussianBlur(2))
            mask = Image.fromarray((np.asarray(mask, np.float32) *
                                    np.asarray(blotch, np.float32) / 255).astype(np.uint8), "L")
            rot = Image.new("L", (w, h), grey)
        self.img.paste(rot, (x, y), mask)
        # Ink box of the tile, in page coordinates, as a quadrilateral that starts at the text's
        # top-left corner (reading order), the way a rotated line's box is given.
        pad = size * 0.1  # as line_box: ascender to descender, a tenth of the size along it
        x0, y0, x1, y1 = x + 10, y + 10 - pad, x + w - 10, y + h - 10 + pad
        if direction == 1:  # bottom to top: the text's top-left is the page's bottom-left
            poly = [[x0, y1], [x0, y0], [x1, y0], [x1, y1]]
        else:
            poly = [[x1, y0], [x1, y1], [x0, y1], [x0, y0]]
        self.lines.append({"text": number, "polygon": poly, "vertical": True})

    def paragraph(self, x, y, text, font, size, max_w, leading=1.25) -> float:
        words_ = text.split()
        line = ""
        for w in words_:
            trial = (line + " " + w).strip()
            if self.width(trial, font, size) > max_w and line:
                self.text(x, y, line, font, size)
                y += size * leading
                line = w
            else:
                line = trial
        if line:
            self.text(x, y, line, font, size)
            y += size * leading
        return y


# ---------------------------------------------------------------------------------- the kinds

def office_fonts(rng: random.Random) -> tuple[str, str]:
    """(body font, heading font) of a page: a typewriter or an office face."""
    return rng.choice([("mono", "mono_bold"), ("mono", "sans_bold"), ("sans", "sans_bold"),
                       ("roman", "roman_bold"), ("bookman", "bookman_bold"), ("c059", "roman_bold"),
                       ("mono", "bookman_bold")])


def letterhead(p: Page, rng: random.Random, head: str) -> float:
    company = rng.choice(COMPANIES)
    y = 150 + rng.randint(0, 60)
    size = pt(rng.uniform(14, 17))
    p.text(200, y, company.upper() if rng.random() < 0.5 else company, head, size)
    y += size * 1.3
    small = pt(rng.uniform(8.5, 9.5))
    p.text(200, y, f"{rng.choice(STREETS)}   {rng.choice(CITIES)}", "sans", small)
    y += small * 1.6
    p.rule(200, y, PAGE_W - 200, width=6)
    return y + 60


def fax_page(p: Page, rng: random.Random) -> None:
    body, head = office_fonts(rng)
    # The fax machine's header line, printed by the sending machine across the top.
    hsize = pt(rng.uniform(8, 9))
    p.text(120, 60, f"{fake_date(rng)}  {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}", "mono",
           hsize)
    p.text(1050, 60, f"FROM {rng.choice(COMPANIES).upper()[:24]}", "mono", hsize)
    p.text(2050, 60, f"P.{rng.randint(1, 3):02d}", "mono", hsize)
    y = letterhead(p, rng, head) + 40
    tsize = pt(rng.uniform(20, 26))
    p.text(200, y, rng.choice(["FACSIMILE TRANSMITTAL", "FAX COVER SHEET", "TELECOPY COVER SHEET",
                               "Facsimile Transmission"]), head, tsize)
    y += tsize * 1.8
    size = pt(rng.uniform(9.5, 11))
    labels = [("TO:", person(rng)), ("COMPANY:", rng.choice(COMPANIES)), ("FAX NO.:", phone(rng)),
              ("FROM:", person(rng)), ("PHONE:", phone(rng)), ("DATE:", fake_date(rng)),
              ("PAGES:", f"{rng.randint(2, 14)} (including cover)"), ("RE:", rng.choice(SUBJECTS))]
    col2 = 560
    hand_rows = set(rng.sample(range(len(labels)), rng.randint(0, 2)))
    for i, (lab, val) in enumerate(labels):
        hand = i in hand_rows
        vx_gap = col2 - p.width(lab, body, size) - 200
        p.field(200, y, lab, val, body, size, gap=max(vx_gap, 60),
                value_font="hand" if hand else None,
                value_size=int(size * 1.25) if hand else None,
                underline=rng.random() < 0.5, line_to=PAGE_W - 420)
        y += size * rng.uniform(1.9, 2.4)
    y += 40
    p.box(200, y, PAGE_W - 380, y + size * 2.2)
    x = 240
    for opt in rng.sample(["Urgent", "For Review", "Please Comment", "Please Reply", "FYI"], 4):
        box_x = x
        x = p.checkbox(x, y + size * 0.55, size, rng.random() < 0.3)
        _, _, r, _ = p.text(x, y + size * 0.55, opt, body, size, box_from=box_x)
        x = r + 90
    y += size * 3.4
    p.text(200, y, "COMMENTS:", head, size)
    y += size * 1.6
    n = rng.randint(2, 5)
    y = p.paragraph(220, y, " ".join(sentence(rng) for _ in range(n)), body, size,
                    PAGE_W - 700)
    if rng.random() < 0.7:
        y += size
        p.text(260, y, rng.choice(HAND_NOTES), "hand", int(size * 1.4))
        y += size * 2
    y = max(y + 80, PAGE_H - 520)
    small = pt(rng.uniform(8, 9))
    p.rule(200, y, PAGE_W - 380, width=3)
    p.paragraph(200, y + 30, "If you do not receive all pages, or if any page is illegible, please "
                "call the sender as soon as possible. This message is intended only for the "
                "addressee and may contain confidential information.", "sans", small,
                PAGE_W - 700)


def memo_page(p: Page, rng: random.Random) -> None:
    body, head = office_fonts(rng)
    y = letterhead(p, rng, head) if rng.random() < 0.6 else 260
    tsize = pt(rng.uniform(18, 24))
    p.text(200, y + 20, rng.choice(["MEMORANDUM", "INTEROFFICE MEMORANDUM", "Memo",
                                    "INTER-OFFICE CORRESPONDENCE"]), head, tsize)
    y += tsize * 2.2
    size = pt(rng.uniform(9.5, 11))
    gap = rng.randint(120, 260)
    for lab, val in [("TO:", f"{person(rng)}, {rng.choice(DEPTS)}"),
                     ("FROM:", person(rng)), ("DATE:", fake_date(rng)),
                     ("SUBJECT:", rng.choice(SUBJECTS))]:
        p.field(200, y, lab, val, body, size, gap=gap + 240 - p.width(lab, body, size))
        y += size * 1.8
    if rng.random() < 0.6:
        p.field(200, y, "CC:", f"{person(rng)}; {person(rng)}", body, size,
                gap=gap + 240 - p.width("CC:", body, size))
        y += size * 1.8
    p.rule(200, y, PAGE_W - 380, width=5)
    y += size * 1.4
    for _ in range(rng.randint(2, 4)):
        n = rng.randint(2, 4)
        y = p.paragraph(200, y, " ".join(sentence(rng) for _ in range(n)), body, size,
                        PAGE_W - 640, leading=rng.uniform(1.3, 1.9))
        y += size * 0.9
        if y > PAGE_H - 700:
            break
    if rng.random() < 0.5:
        y += size
        p.text(1300, y, rng.choice(HAND_NOTES), "hand", int(size * 1.4))
        y += size * 2.2
    y += size
    initials = "".join(w[0] for w in person(rng).split() if w[0].isalpha()).upper()
    p.text(200, y, f"{initials}:{rng.choice(['jw', 'mk', 'ls', 'dr'])}", body, size)


def questionnaire_page(p: Page, rng: random.Random) -> None:
    body, head = office_fonts(rng)
    tsize = pt(rng.uniform(16, 20))
    y = 200
    p.text(200, y, rng.choice(["EMPLOYEE SURVEY", "CONSUMER QUESTIONNAIRE", "Product Use Survey",
                               "FIELD STUDY QUESTIONNAIRE"]), head, tsize)
    p.text(1800, y + 10, f"Form Q-{rng.randint(100, 999)}", "sans", pt(9))
    y += tsize * 1.8
    size = pt(rng.uniform(9.5, 11))
    p.box(180, y, PAGE_W - 380, y + size * 4.6)
    p.field(220, y + size * 0.6, "Name:", person(rng), body, size, gap=rng.randint(60, 200),
            value_font="hand", value_size=int(size * 1.3))
    p.field(1300, y + size * 0.6, "Date:", fake_date(rng), body, size, gap=rng.randint(60, 160))
    p.field(220, y + size * 2.6, "Department:", rng.choice(DEPTS), body, size,
            gap=rng.randint(60, 200))
    p.field(1300, y + size * 2.6, "Respondent No.:", str(rng.randint(1000, 99999)), body, size,
            gap=rng.randint(60, 120))
    y += size * 6
    p.paragraph(200, y, "Please answer every question by marking one box. Your answers will be "
                "kept confidential.", body, size, PAGE_W - 620)
    y += size * 3.2
    for qi, q in enumerate(rng.sample(QUESTIONS, rng.randint(5, 7)), 1):
        if y > PAGE_H - 420:
            break
        p.text(200, y, f"{qi}. {q}", body, size)
        y += size * 1.6
        x = 280
        answers = rng.choice(ANSWER_SETS)
        mark = rng.randrange(len(answers))
        for ai, a in enumerate(answers):
            box_x = x
            x = p.checkbox(x, y, size, ai == mark)
            _, _, r, _ = p.text(x, y, a, body, size, box_from=box_x)
            x = r + rng.randint(110, 220)
        y += size * 2.3
    if y < PAGE_H - 420:
        p.text(200, y, "Comments:", body, size)
        p.rule(200 + p.width("Comments:", body, size) + 30, y + size, PAGE_W - 420, width=3)
        p.text(700, y - size * 0.3, rng.choice(HAND_NOTES), "hand", int(size * 1.3))


def purchase_page(p: Page, rng: random.Random) -> None:
    body, head = office_fonts(rng)
    y = letterhead(p, rng, head)
    tsize = pt(rng.uniform(18, 22))
    p.text(200, y, rng.choice(["PURCHASE ORDER", "PURCHASE REQUISITION", "Order Form"]), head,
           tsize)
    size = pt(rng.uniform(9.5, 11))
    p.field(1500, y + 10, "P.O. No.", str(rng.randint(10000, 99999)), body, size, gap=80)
    y += tsize * 1.9
    p.box(180, y, 1240, y + size * 6.2)
    p.box(1290, y, PAGE_W - 380, y + size * 6.2)
    p.text(210, y + size * 0.4, "VENDOR", head, size)
    p.text(210, y + size * 1.8, rng.choice(COMPANIES), body, size)
    p.text(210, y + size * 3.1, rng.choice(STREETS), body, size)
    p.text(210, y + size * 4.4, rng.choice(CITIES), body, size)
    p.text(1320, y + size * 0.4, "SHIP TO", head, size)
    p.text(1320, y + size * 1.8, rng.choice(DEPTS), body, size)
    p.text(1320, y + size * 3.1, rng.choice(STREETS), body, size)
    p.text(1320, y + size * 4.4, rng.choice(CITIES), body, size)
    y += size * 7.2
    p.field(200, y, "Date of order:", fake_date(rng), body, size, gap=rng.randint(80, 200))
    p.field(1300, y, "Requested by:", person(rng), body, size, gap=rng.randint(60, 120),
            value_font="hand" if rng.random() < 0.5 else None, value_size=int(size * 1.25))
    y += size * 2.2
    cols = [200, 420, 1400, 1750, PAGE_W - 380]
    top = y
    p.rule(180, y, PAGE_W - 380)
    y += size * 0.5
    for cx, h in zip(cols, ["QTY", "DESCRIPTION", "UNIT PRICE", "AMOUNT"]):
        p.text(cx + 20, y, h, head, size)
    y += size * 1.6
    p.rule(180, y, PAGE_W - 380, width=3)
    total = 0.0
    for item in rng.sample(ITEMS, rng.randint(5, 9)):
        y += size * 0.5
        qty = rng.randint(1, 48)
        unit = rng.randint(1, 350) + rng.randint(0, 99) / 100
        amount = qty * unit
        total += amount
        p.text(cols[0] + 30, y, str(qty), body, size)
        p.text(cols[1] + 20, y, item, body, size)
        p.text(cols[2] + 20, y, f"{unit:,.2f}", body, size)
        p.text(cols[3] + 20, y, f"{amount:,.2f}", body, size)
        y += size * 1.5
        p.rule(180, y, PAGE_W - 380, width=2)
    for cx in [180] + cols[1:]:
        p.draw.line([(cx, top), (cx, y)], fill=40, width=3)
    y += size * 0.8
    p.field(cols[2] + 20, y, "TOTAL", f"{total:,.2f}", head, size, gap=cols[3] - cols[2] - 40 -
            p.width("TOTAL", head, size))
    y += size * 2.8
    p.text(200, y, "Terms:", body, size)
    x = 200 + p.width("Terms:", body, size) + 60
    for opt in ["Net 30", "C.O.D.", "Prepaid"]:
        box_x = x
        x = p.checkbox(x, y, size, rng.random() < 0.35)
        _, _, r, _ = p.text(x, y, opt, body, size, box_from=box_x)
        x = r + 100
    y += size * 2.6
    p.field(200, y, "Approved by:", person(rng), body, size, gap=rng.randint(100, 300),
            value_font="hand", value_size=int(size * 1.35), underline=True, line_to=1300)
    p.field(1400, y, "Budget code:", f"{rng.randint(100, 999)}-{rng.randint(10, 99)}", body, size,
            gap=rng.randint(60, 140))


DRAW = {"fax": fax_page, "memo": memo_page, "questionnaire": questionnaire_page,
        "purchase": purchase_page}


# --------------------------------------------------------------------------- scanning and faxing

def rotate_point(x: float, y: float, cx: float, cy: float, deg: float) -> tuple[float, float]:
    """Where Image.rotate(deg) (counter-clockwise on screen, about (cx, cy)) moves (x, y)."""
    a = math.radians(deg)
    dx, dy = x - cx, y - cy
    return (cx + dx * math.cos(a) + dy * math.sin(a), cy - dx * math.sin(a) + dy * math.cos(a))


def degrade(img: Image.Image, lines: list[dict], rng: random.Random, fax: bool
            ) -> tuple[Image.Image, list[dict], dict]:
    """300-dpi page -> ~100-dpi grey scan or fax. Moves the lines' polygons with it."""
    nrs = np.random.default_rng(rng.randrange(2**32))
    info: dict = {}
    # Toner and paper: text a little lighter than black, paper a little darker than white.
    if fax:
        # A fax line: standard resolution is about 200 x 100 dpi, one bit a pixel.
        a = np.asarray(img.resize((PAGE_W * 2 // 3, PAGE_H // 3), Image.BOX), dtype=np.float32)
        a += nrs.normal(0, 18, a.shape)
        bw = (a > rng.uniform(120, 150)).astype(np.uint8) * 255
        img = Image.fromarray(bw, "L").resize((PAGE_W // SCALE, PAGE_H // SCALE), Image.BOX)
        info["fax"] = True
    else:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(1.0, 2.2)))
        img = img.resize((PAGE_W // SCALE, PAGE_H // SCALE), Image.BOX)
    lines = [dict(l, polygon=[[x / SCALE, y / SCALE] for x, y in l["polygon"]]) for l in lines]
    a = np.asarray(img, dtype=np.float32)
    paper = rng.uniform(225, 248)
    ink = rng.uniform(15, 60)
    a = ink + (paper - ink) * (a / 255.0)
    h, w = a.shape
    # Uneven illumination, a scanner's lamp falling off towards one side.
    ramp = np.linspace(0, rng.uniform(-18, 12), w, dtype=np.float32)
    a += ramp[None, :]
    # Streaks: thin vertical lines from dust on the scanner glass, horizontal ones from the fax.
    for _ in range(rng.randint(0, 2)):
        x = rng.randrange(w)
        y0 = rng.randrange(h // 2)
        a[y0:, x:x + rng.randint(1, 2)] -= rng.uniform(15, 60)
    if fax or rng.random() < 0.3:
        for _ in range(rng.randint(1, 2)):
            y = rng.randrange(h)
            a[y:y + 1, :] -= rng.uniform(20, 60)
    # Speckle: dark dots and small clusters, and a little grain.
    n = int(w * h * rng.uniform(0.0008, 0.003))
    ys, xs = nrs.integers(0, h, n), nrs.integers(0, w, n)
    a[ys, xs] = nrs.uniform(0, 120, n)
    for _ in range(rng.randint(5, 30)):
        cx, cy = rng.randrange(w - 4), rng.randrange(h - 4)
        a[cy:cy + rng.randint(1, 3), cx:cx + rng.randint(1, 3)] = rng.uniform(0, 100)
    a += nrs.normal(0, rng.uniform(2, 7), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
    if not fax:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.7)))
    # Skew, then crop a few pixels off each edge as a scanner's platen would.
    skew = rng.uniform(-1.0, 1.0)
    cx, cy = w / 2, h / 2
    img = img.rotate(skew, resample=Image.BICUBIC, center=(cx, cy), fillcolor=int(paper))
    lines = [dict(l, polygon=[list(rotate_point(x, y, cx, cy, skew)) for x, y in l["polygon"]])
             for l in lines]
    left, top = rng.randint(0, 40), rng.randint(0, 40)
    right, bottom = w - rng.randint(0, 40), h - rng.randint(0, 40)
    img = img.crop((left, top, right, bottom))
    lines = [dict(l, polygon=[[round(x - left, 1), round(y - top, 1)] for x, y in l["polygon"]])
             for l in lines]
    info.update(skew_deg=round(skew, 3), jpeg_quality=rng.randint(35, 70))
    return img, lines, info


# ---------------------------------------------------------------------------------- the set

def make_page(fonts: Fonts, spec: dict, faint_numbers: bool = False
              ) -> tuple[Image.Image, dict, dict]:
    rng = random.Random(spec["seed"])
    p = Page(fonts, rng)
    kind = spec["kind"]
    DRAW[kind](p, rng)
    number = None
    if rng.random() < 0.8:
        number = doc_number(rng)
        stamp = random.Random(spec["seed"] * 7 + 1) if faint_numbers else None
        p.vertical_number(number, rng.choice([1, -1]), stamp)
    fax = kind == "fax" or rng.random() < 0.15
    img, lines, info = degrade(p.img, p.lines, rng, fax)
    gt_lines = [{"text": l["text"], "polygon": l["polygon"]} for l in lines]
    gt = {"lines": gt_lines, "tags": [kind] + (["fax_line"] if fax else [])}
    heights = sorted(min(math.dist(l["polygon"][0], l["polygon"][3]),
                         math.dist(l["polygon"][0], l["polygon"][1])) for l in lines)
    meta = dict(info, name=spec["name"], kind=kind, seed=spec["seed"], width=img.width,
                height=img.height, vertical_number=number,
                vertical_polygon=next((l["polygon"] for l in lines if l.get("vertical")), None),
                lines=len(lines), median_line_px=round(heights[len(heights) // 2], 1))
    return img, gt, meta


def write_real(out: str, testdata: str, gt_dir: str, real: list[dict]) -> list[dict]:
    if not os.path.isdir(testdata) or not os.path.isdir(gt_dir):
        print(f"real part skipped: {testdata} or {gt_dir} is absent")
        return []
    os.makedirs(os.path.join(out, "real", "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "real", "gt"), exist_ok=True)
    made = []
    for r in real:
        src = os.path.join(testdata, r["file"])
        gt = os.path.join(gt_dir, r["name"] + ".txt")
        if not os.path.exists(src) or not os.path.exists(gt):
            print(f"real part: {r['name']} skipped ({src} or {gt} is absent)")
            continue
        img = Image.open(src).convert("L")
        scale = r["scale"]
        small = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))),
                           Image.LANCZOS)
        small.save(os.path.join(out, "real", "images", r["name"] + ".jpg"), quality=70)
        with open(gt, encoding="utf-8") as f:
            transcription = f.read()
        with open(os.path.join(out, "real", "gt", r["name"] + ".txt"), "w", encoding="utf-8") as g:
            g.write(transcription)
        made.append(dict(r, width=small.width, height=small.height))
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    ap.add_argument("--pages", type=int, help="only the first N pages of the manifest")
    ap.add_argument("--only", help="only these pages (NAME,NAME,...); each is as in the whole set")
    ap.add_argument("--seed", type=int, help="override the manifest's seed")
    ap.add_argument("--real-testdata", help="../shared/testdata/real")
    ap.add_argument("--real-gt", help="tests/accuracy/real_gt")
    ap.add_argument("--faint-numbers", action="store_true",
                    help="print the margin numbers faint and mottled, as a numbering stamp does "
                         "(every other pixel of the set is the same)")
    args = ap.parse_args()
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    seed = args.seed if args.seed is not None else manifest["seed"]
    try:
        fonts = Fonts()
    except FileNotFoundError as e:
        print(f"SKIP: {e}")
        return SKIP
    counts = manifest["pages"]  # {"fax": n, ...}
    specs = []
    i = 0
    for kind in KINDS:
        for k in range(counts[kind]):
            specs.append({"name": f"{kind}_{k + 1:02d}", "kind": kind, "seed": seed * 1000 + i})
            i += 1
    # Interleave the kinds so that --pages N takes some of each.
    specs.sort(key=lambda s: (int(s["name"].rsplit("_", 1)[1]), KINDS.index(s["kind"])))
    if args.pages:
        specs = specs[:args.pages]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - {s["name"] for s in specs})
        if unknown:
            ap.error(f"--only: no such page: {', '.join(unknown)}")
        specs = [s for s in specs if s["name"] in wanted]
    for sub in ("images", "gt", "words"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    pages = []
    for spec in specs:
        img, gt, meta = make_page(fonts, spec, args.faint_numbers)
        img.save(os.path.join(args.out, "images", spec["name"] + ".jpg"),
                 quality=meta["jpeg_quality"])
        with open(os.path.join(args.out, "gt", spec["name"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(gt, f, indent=1, ensure_ascii=False)
        words_path = os.path.join(args.out, "words", spec["name"] + ".txt")
        with open(words_path, "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(words("\n".join(l["text"] for l in gt["lines"])))) + "\n")
        pages.append(meta)
    real = []
    if args.real_testdata and args.real_gt:
        real = write_real(args.out, args.real_testdata, args.real_gt, manifest.get("real", []))
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"seed": seed, "pages": pages, "real": real}, f, indent=1)
    print(f"{len(pages)} form pages and {len(real)} real pages written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
