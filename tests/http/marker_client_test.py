#!/usr/bin/env python3
"""A client written for marker's API server, pointed at `onnxocr serve` (issue 15).

marker (datalab-to/marker, marker/scripts/server.py) serves `POST /marker/upload`
(multipart: `file`, `page_range`, `force_ocr`, `paginate_output`, `output_format`, `use_llm`,
`llm_service`, `*_api_key`) and `POST /marker` (a JSON body naming a server-side `filepath`).
Its clients do, with `requests`:

    resp = requests.post(f"{base}/marker/upload", files={"file": (name, f, "application/pdf")},
                         data={"output_format": "markdown", "paginate_output": True, ...})
    resp.raise_for_status()
    data = resp.json()
    if not data["success"]:
        raise Exception(data["error"])
    data["output"], data["images"], data["metadata"]["page_stats"], ...

`requests` sends a Python bool as str(bool): "True"/"False"; HTML forms send "on". The answer is
`{"format", "output", "images", "metadata", "success"}`; `output` is markdown (the default), a
whole HTML document, or for json and chunks marker's pydantic models dumped as JSON text
(JSONOutput: Document -> Page -> blocks; ChunkOutput: flat blocks with `page`, and `page_info`),
`metadata` is `{"table_of_contents", "page_stats": [{"page_id", "text_extraction_method",
"block_counts", "block_metadata"}]}`. A Page's blocks are its layout blocks in reading order
(the /ocr answer's `blocks`): Text (`<p>`, rows joined by `<br>`), SectionHeader (`<h1>`-`<h3>`),
Table (`<table>`) and ListGroup (`<ul>`/`<ol>` of content-refs to its ListItem children, `<li>`),
ids `/page/{p}/{Type}/{n}`, each with its section_hierarchy (heading level -> the heading's id);
the table of contents lists the headings. A document marker cannot read is HTTP 200 with
`{"success": false, "error": "<str(exception)>"}`; a request FastAPI cannot validate is 422.

MarkerClient below is such a client (standard library only: urllib and a hand-built multipart
body); only its base URL points at our server. The tests check what those clients rely on, and
the exact text of the issue's behaviour spec (marker's pagination separators, error bodies
`{"success": false, "error": "<string>", "code": "<code>"}`, `POST /marker` refused with 400).
The same client pointed at `{base}/ocr` (the path replaced) must work for paginated markdown.

Inputs are made here: a 2-page PDF with a text layer (enscript + ghostscript's ps2pdf), a
scanned page (pango-view PNG wrapped by img2pdf), a mixed PDF (text page + scanned page, qpdf),
an encrypted copy (qpdf), a page with a heading, lists and a table (pango-view markup to a PDF).
The server: `onnxocr serve --host 127.0.0.1 --port 0 --models ppocrv4=models/ppocrv4 --threads
1`, started by bench/load/ocr_load.py's Server: its log in a file (no pipe to drain), killed at
exit.

Exit 0 pass, 1 fail, 77 skipped (binary, models, enscript, ps2pdf, img2pdf, qpdf or pango-view
missing). About 5 s on 2 cores. Environment: ONNXOCR_BINARY (default build/release/onnxocr),
OCR_MODELS_DIR (default models/ppocrv4).
"""
import html
import html.parser
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "load"))
import ocr_load as L  # noqa: E402  (bench/load: the server, skip/require)

TOOLS = ("enscript", "ps2pdf", "img2pdf", "qpdf", "pango-view")

# The text of the 2-page born-digital PDF (enscript, Courier 12: the text layer reads it back
# exactly); page 0 has characters HTML must escape.
TEXT_PAGES = [
    ["Marker client page one", "Invoice number 4711", "Terms & conditions <apply>"],
    ["Marker client page two", "Shipped to Berlin"],
]
SCANNED_TEXT = "Scanned page three\nOrder 1234 paid"
SCANNED_WORDS = ("Scanned", "Order", "1234")

# A page with every kind of block, its text layer read back exactly: a title (40 pt over 14 pt
# body text: its line about 3 times as tall) over two body lines, a bulleted and a numbered list
# and a table (monospaced columns); pango markup, rendered to a PDF by pango-view.
HEADING_TITLE = "Quarterly Report"
HEADING_MARKUP = (f'<span font="DejaVu Sans 40">{HEADING_TITLE}</span>\n'
                  "Revenue grew in March\nCosts stayed flat\n\n"
                  "- Ships on Monday\n- Paid in full\n\n"
                  "1. Invoice sent\n2. Receipt filed\n\n"
                  '<span font="DejaVu Sans Mono 14">Item          Qty      Price\n'
                  "Paper         12       3.50\n"
                  "Toner         2        41.00</span>\n")

SEPARATOR = "-" * 48  # marker's MarkdownRenderer.page_separator
TRUE_SPELLINGS = ("true", "True", "TRUE", "1", "on", "On", "yes", "YES", "t", "T", "y", "Y")
FALSE_SPELLINGS = ("false", "False", "0", "off", "OFF", "no", "No", "f", "F", "n", "N")
ERROR_CODES = {
    400: {"invalid_json", "missing_field", "invalid_base64", "invalid_option",
          "invalid_multipart", "invalid_request"},
    404: {"not_found"}, 405: {"method_not_allowed"}, 409: {"job_not_finished"},
    413: {"payload_too_large"}, 415: {"unsupported_media_type"},
    422: {"undecodable_image", "image_too_large", "invalid_pdf", "encrypted_pdf",
          "too_many_pages"},
    431: {"header_too_large"}, 500: {"internal"}, 503: {"server_busy", "not_ready"},
    504: {"deadline_exceeded"}, 505: {"http_version_not_supported"},
}
ALL_CODES = set().union(*ERROR_CODES.values())
MARKER_KEYS = {"format", "output", "images", "metadata", "success"}
BLOCK_KEYS = {"id", "block_type", "html", "polygon", "bbox", "children", "section_hierarchy",
              "images"}  # marker's JSONBlockOutput
CHUNK_KEYS = BLOCK_KEYS - {"children"} | {"page"}  # marker's FlatBlockOutput
# The /ocr answer's block types as marker names them; consecutive list items of one kind are
# one ListGroup around them. A Page's children are Text, SectionHeader, Table and ListGroup.
OCR_BLOCK_TYPES = {"paragraph": "Text", "heading": "SectionHeader", "list_item": "ListItem",
                   "table": "Table"}
OCR_BLOCK_KEYS = {"paragraph": set(), "heading": {"level"}, "list_item": {"ordered"},
                  "table": {"rows", "columns", "header_rows", "cells"}}
COUNTED_TYPES = ("ListItem", "SectionHeader", "Table", "Text")  # block_counts after "Line"
# Text as HTML-escaped: no tag, no bare "&".
ESCAPED_CHAR = r"(?:[^<>&]|&(?:amp|lt|gt|quot|#39|#x27|apos);)"
ESCAPED = ESCAPED_CHAR + "*"
# A list item's bullet or number and its space (layout::ListMarker), which its <li> leaves out.
LIST_MARKER = re.compile(r"(?:[\u2022\u00b7\u25aa\u25cf\u25cb\u25a0\u25a1\u25c6\u25ba\u2013*-]"
                         r"|\d{1,2}[.)]) (?=.)")


# --- HTTP: a hand-built multipart body, urllib ---------------------------------------------------

def form_value(v):
    """What `requests` puts on the wire for a `data=` value: str(v), so True -> "True"."""
    return v if isinstance(v, (bytes, str)) else str(v)


def multipart(fields, file=None):
    """(body, content type) of multipart/form-data with `fields` {name: value} and `file`
    (filename, bytes, content type), as requests' files=/data= encode them."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        value = form_value(value)
        if isinstance(value, str):
            value = value.encode("utf-8")
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     .encode() + value + b"\r\n")
    if file is not None:
        filename, content, ctype = file
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                     f'filename="{filename}"\r\nContent-Type: {ctype}\r\n\r\n'.encode()
                     + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"<{self.status} {self.body[:400]!r}>"


def request(url, body=None, content_type=None, method="POST", timeout_s=60):
    """One request; the answer whatever its status (urllib raises HTTPError on >= 400)."""
    headers = {"Content-Type": content_type} if content_type else {}
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            return Answer(resp.status, resp.headers, resp.read())
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.headers, e.read())


class MarkerClient:
    """A client of marker's API server. `route` is the path it posts to; base_url is the only
    thing a user changes to point it at another server."""

    def __init__(self, base_url, route="/marker/upload", timeout_s=60):
        self.url = base_url.rstrip("/") + route
        self.timeout_s = timeout_s

    def convert(self, filename, content, content_type="application/pdf", **form):
        """Posts the file and the form fields; returns the parsed answer, raising as marker's
        clients do: urllib.error.HTTPError for a status >= 400 (raise_for_status), Exception
        with data["error"] when success is false."""
        body, ctype = multipart(form, (filename, content, content_type))
        req = urllib.request.Request(self.url, data=body, method="POST",
                                     headers={"Content-Type": ctype})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                data = json.loads(resp.read())
        except urllib.error.HTTPError as e:  # resp.raise_for_status(); the body in the message
            body = e.read()
            raise urllib.error.HTTPError(e.url, e.code, f"{e.reason}: {body[:400]!r}", e.headers,
                                         io.BytesIO(body)) from None
        if not data["success"]:
            raise Exception(data["error"])
        return data


# --- inputs --------------------------------------------------------------------------------------

class Inputs:
    def __init__(self, tmp):
        self.tmp = tmp
        txt = self.path("text.txt")
        with open(txt, "w", encoding="utf-8") as f:
            f.write("\f".join("\n".join(lines) + "\n" for lines in TEXT_PAGES))
        self.text_pdf = self.path("text.pdf")
        self.run(f"enscript -q -B -M A4 -f Courier12 -o - '{txt}' | "
                 f"ps2pdf -sPAPERSIZE=a4 - '{self.text_pdf}'")
        scan_txt = self.path("scan.txt")
        with open(scan_txt, "w", encoding="utf-8") as f:
            f.write(SCANNED_TEXT)
        self.scan_png = self.path("scan.png")
        self.run(f"pango-view -q --background=white --font 'DejaVu Sans 28' --margin 30 "
                 f"-o '{self.scan_png}' '{scan_txt}'")
        scan_pdf = self.path("scan.pdf")
        self.run(f"img2pdf -o '{scan_pdf}' '{self.scan_png}'")
        # Page 0: text layer (page 0 of text.pdf); page 1: scanned.
        self.mixed_pdf = self.path("mixed.pdf")
        self.run(f"qpdf --empty --pages '{self.text_pdf}' 1 '{scan_pdf}' -- '{self.mixed_pdf}'")
        self.encrypted_pdf = self.path("encrypted.pdf")
        self.run(f"qpdf --encrypt user-secret owner-secret 256 -- '{self.text_pdf}' "
                 f"'{self.encrypted_pdf}'")
        heading_txt = self.path("heading.txt")
        with open(heading_txt, "w", encoding="utf-8") as f:
            f.write(HEADING_MARKUP)
        self.heading_pdf = self.path("heading.pdf")
        self.run(f"pango-view -q --markup --background=white --font 'DejaVu Sans 14' "
                 f"--margin 40 -o '{self.heading_pdf}' '{heading_txt}'")

    def path(self, name):
        return os.path.join(self.tmp, name)

    @staticmethod
    def run(command):
        p = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError(f"{command} failed ({p.returncode}): {p.stderr}")

    @staticmethod
    def read(path):
        with open(path, "rb") as f:
            return f.read()


# --- marker's shapes -----------------------------------------------------------------------------

def marker_paginate(pages):
    """marker's paginated markdown/text of pages [(page id, page text)], as the spec states:
    "\\n\\n{N}" + 48 dashes + "\\n\\n" + text before each page, 3+ newlines collapsed, the whole
    stripped, "\\n\\n" prepended (and appended when it ends with the separator)."""
    out = "".join(f"\n\n{{{n}}}{SEPARATOR}\n\n{text.strip()}" for n, text in pages)
    out = re.sub(r"\n{3,}", "\n\n", out).strip()
    out = "\n\n" + out
    if out.endswith(SEPARATOR):
        out += "\n\n"
    return out


class PageDivs(html.parser.HTMLParser):
    """The text inside each <div class='page' data-page-id='N'> and the document's tags."""

    def __init__(self):
        super().__init__()
        self.pages = []  # [(page id, text)]
        self.tags = []
        self.meta_charset = None
        self._stack = []  # open tags; a page div's entry is ("div", page id)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "meta" and "charset" in a:
            self.meta_charset = a["charset"]
        if tag in ("meta", "br", "img", "hr", "link", "input"):
            return
        if tag == "div" and a.get("class") == "page":
            self.pages.append([a.get("data-page-id"), ""])
            self._stack.append(("div", a.get("data-page-id")))
        else:
            self._stack.append((tag, None))

    def handle_endtag(self, tag):
        while self._stack:
            t, _ = self._stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if any(page is not None for _, page in self._stack):
            self.pages[-1][1] += data + " "


def words(text):
    return re.sub(r"\s+", " ", text).strip()


def check_polygon(test, polygon, bbox, what):
    test.assertIsInstance(polygon, list, what)
    test.assertEqual(len(polygon), 4, f"{what}: polygon {polygon}")
    for p in polygon:
        test.assertIsInstance(p, list, what)
        test.assertEqual(len(p), 2, f"{what}: polygon point {p}")
        test.assertTrue(all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p),
                        f"{what}: polygon point {p}")
    test.assertIsInstance(bbox, list, what)
    test.assertEqual(len(bbox), 4, f"{what}: bbox {bbox}")
    test.assertTrue(all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in bbox),
                    f"{what}: bbox {bbox}")
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    expected = [min(xs), min(ys), max(xs), max(ys)]
    test.assertTrue(all(abs(a - b) < 1e-3 for a, b in zip(bbox, expected)),
                    f"{what}: bbox {bbox} is not the polygon's bounds {expected}")


def close(a, b):
    """Two boxes [x0, y0, x1, y1] alike (a float the server writes as float or as double)."""
    return len(a) == len(b) and all(abs(x - y) < 1e-3 for x, y in zip(a, b))


def refs_html(ids):
    """marker's html of a block's children: a content-ref for each."""
    return "".join(f"<content-ref src='{i}'></content-ref>" for i in ids)


def html_text(fragment):
    """A block's html as its reader sees the text: tags (<br> included) a space, entities
    unescaped, whitespace collapsed."""
    return words(html.unescape(re.sub(r"<[^>]*>", " ", fragment)))


def ocr_block_text(results, block):
    """The text of a block of the /ocr answer: its lines' texts (a table's cell by cell) joined
    by spaces; a list item's bullet or number left out, as its <li> leaves it out."""
    text = words(" ".join(results[i]["text"] for i in block["lines"]))
    if block["type"] == "list_item":
        m = LIST_MARKER.match(text)
        text = text[m.end():] if m else text
    return text


def marker_blocks(ocr_page):
    """The Page children marker's JSON lists for a page of the /ocr answer, in its order:
    [(block type, the /ocr block)]; a run of list items of one kind is (ListGroup, [its
    list_item blocks])."""
    out = []
    for block in ocr_page["blocks"]:
        if block["type"] != "list_item":
            out.append((OCR_BLOCK_TYPES[block["type"]], block))
        elif out and out[-1][0] == "ListGroup" and out[-1][1][-1]["ordered"] == block["ordered"]:
            out[-1][1].append(block)
        else:
            out.append(("ListGroup", [block]))
    return out


def block_counts(page, line_count):
    """page_stats' block_counts of a page of marker's JSON with `line_count` recognized lines:
    ["Line", n], then each block type present (a ListGroup's items, not the group) by name."""
    kinds = {}
    for block in page["children"]:
        for b in block["children"] if block["block_type"] == "ListGroup" else [block]:
            kinds[b["block_type"]] = kinds.get(b["block_type"], 0) + 1
    return ([["Line", line_count]] if line_count else []) + [[k, kinds[k]] for k in sorted(kinds)]


def flat_chunks(doc):
    """marker's chunks of a JSON document: every page's children, flat, without children and
    with their page; a ListGroup's html with its items' html in place of their content-refs."""
    out = []
    for page in doc["children"]:
        for block in page["children"]:
            chunk = {k: v for k, v in block.items() if k != "children"}
            for item in block["children"] or []:
                chunk["html"] = chunk["html"].replace(refs_html([item["id"]]), item["html"], 1)
            chunk["page"] = int(page["id"].split("/")[2])
            out.append(chunk)
    return out


# --- the tests -----------------------------------------------------------------------------------

SERVER = None
INPUTS = None


class MarkerClientTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.base = SERVER.url
        cls.client = MarkerClient(cls.base)
        cls.text_pdf = Inputs.read(INPUTS.text_pdf)
        cls.mixed_pdf = Inputs.read(INPUTS.mixed_pdf)
        cls._cache = {}

    # helpers

    def convert(self, content=None, filename="document.pdf", **form):
        return self.client.convert(filename, self.text_pdf if content is None else content,
                                   **form)

    def page_text(self, page, fmt="markdown", route="/marker/upload"):
        """Page `page` of the text PDF alone, unpaginated, in `fmt` (the spec's page text)."""
        key = (page, fmt, route)
        if key not in self._cache:
            client = MarkerClient(self.base, route=route)
            data = client.convert("text.pdf", self.text_pdf, page_range=str(page),
                                  output_format=fmt)
            self._cache[key] = data["output"]
        return self._cache[key]

    def upload_raw(self, fields, file=None, route="/marker/upload"):
        body, ctype = multipart(fields, file)
        return request(self.base + route, body, ctype)

    def check_error_body(self, answer, status, codes=None):
        """An error answer as the spec states: the status, JSON with exactly success (false),
        error (a non-empty string message) and code; X-Request-Id."""
        self.assertEqual(answer.status, status, answer)
        self.assertTrue(answer.headers.get("Content-Type", "").startswith("application/json"),
                        answer.headers.get("Content-Type"))
        self.assertTrue(answer.headers.get("X-Request-Id"), "no X-Request-Id")
        data = answer.json()
        self.assertEqual(set(data), {"success", "error", "code"}, data)
        self.assertIs(data["success"], False, data)
        self.assertIsInstance(data["error"], str, data)
        self.assertTrue(data["error"].strip(), data)
        self.assertNotIn("[object Object]", data["error"])
        self.assertIsInstance(data["code"], str, data)
        self.assertIn(data["code"], codes or ALL_CODES, data)
        return data

    def check_marker_answer(self, data, fmt):
        self.assertEqual(set(data), MARKER_KEYS, sorted(data))
        self.assertIs(data["success"], True)
        self.assertEqual(data["format"], fmt)
        self.assertIsInstance(data["output"], str)
        self.assertIsInstance(data["images"], dict)
        self.assertEqual(data["images"], {}, "no embedded images are extracted")
        meta = data["metadata"]
        self.assertEqual(set(meta), {"table_of_contents", "page_stats"}, meta)
        self.assertIsInstance(meta["page_stats"], list)
        # The table of contents: the headings (marker's TocItem), in document order.
        toc = meta["table_of_contents"]
        self.assertIsInstance(toc, list)
        page_ids = [stat["page_id"] for stat in meta["page_stats"]]
        for entry in toc:
            self.assertEqual(set(entry), {"title", "heading_level", "page_id", "polygon"}, entry)
            self.assertIsInstance(entry["title"], str, entry)
            self.assertTrue(entry["title"].strip(), entry)
            self.assertIn(entry["heading_level"], (1, 2, 3), entry)
            self.assertIn(entry["page_id"], page_ids, entry)
            polygon = entry["polygon"]
            check_polygon(self, polygon, polygon[0] + polygon[2], f"toc entry {entry}")
            self.assertEqual([polygon[1], polygon[3]], [[polygon[2][0], polygon[0][1]],
                                                        [polygon[0][0], polygon[2][1]]], entry)
        self.assertEqual([e["page_id"] for e in toc], sorted(e["page_id"] for e in toc), toc)
        for stat in meta["page_stats"]:
            self.assertEqual(set(stat), {"page_id", "text_extraction_method", "block_counts",
                                         "block_metadata"}, stat)
            self.assertIsInstance(stat["page_id"], int)
            self.assertIn(stat["text_extraction_method"], ("pdftext", "surya"), stat)
            self.assertEqual(stat["block_metadata"], {"llm_request_count": 0,
                                                      "llm_error_count": 0,
                                                      "llm_tokens_used": 0}, stat)
            # ["Line", recognized lines], then [type, count] of each block type present, by name
            counts = stat["block_counts"]
            self.assertIsInstance(counts, list, stat)
            for entry in counts:
                self.assertIsInstance(entry, list, stat)
                self.assertEqual(len(entry), 2, stat)
                self.assertIsInstance(entry[1], int, stat)
                self.assertGreater(entry[1], 0, stat)
            if counts:
                self.assertEqual(counts[0][0], "Line", stat)
                kinds = [kind for kind, _ in counts[1:]]
                self.assertEqual(kinds, sorted(set(kinds)), stat)
                self.assertLessEqual(set(kinds), set(COUNTED_TYPES), stat)
        return data

    def check_json_page(self, page, n, reference):
        """Page `n` of marker's JSON against the /ocr answer's page `reference`: its children are
        the page's blocks, one for each of the /ocr answer's blocks (a ListGroup for each run of
        list items of one kind), in its order, with their text and box; ids, html shapes,
        section hierarchy and polygons as marker writes them."""
        what = f"page {n}"
        self.assertEqual(set(page), BLOCK_KEYS, what)
        self.assertEqual(page["id"], f"/page/{n}/Page/{n}")
        self.assertEqual(page["block_type"], "Page")
        self.assertEqual(page["section_hierarchy"], {})
        self.assertIsNone(page["images"])
        check_polygon(self, page["polygon"], page["bbox"], what)
        w, h = page["bbox"][2], page["bbox"][3]
        self.assertGreater(w, 0)
        self.assertGreater(h, 0)
        self.assertEqual(page["polygon"], [[0, 0], [w, 0], [w, h], [0, h]], what)
        self.assertEqual(page["bbox"][:2], [0, 0], what)
        self.assertEqual([w, h], [reference["width"], reference["height"]], what)
        blocks = page["children"]
        self.assertIsInstance(blocks, list, what)
        self.assertEqual(page["html"], refs_html(b["id"] for b in blocks),
                         f"{what}: html {page['html']}")
        expected = marker_blocks(reference)
        self.assertEqual([b["block_type"] for b in blocks], [kind for kind, _ in expected],
                         f"{what}: the /ocr answer's blocks are {reference['blocks']}")
        results = reference["results"]
        number = 0  # ids number the page's blocks, a ListGroup's items after the group
        hierarchy = {}  # heading level -> the id of the current heading at that level

        def check_leaf(block, source, kind, bwhat):
            """A block that is one of the /ocr answer's: id, shape, html, text and box."""
            nonlocal number
            self.assertEqual(set(block), BLOCK_KEYS, bwhat)
            self.assertEqual(block["id"], f"/page/{n}/{kind}/{number}", bwhat)
            number += 1
            self.assertEqual(block["block_type"], kind, bwhat)
            self.assertIsNone(block["children"], bwhat)
            self.assertEqual(block["images"], {}, bwhat)
            if kind == "SectionHeader":  # a heading closes the sections at and below its level
                for level in [k for k in hierarchy if int(k) >= source["level"]]:
                    del hierarchy[level]
                hierarchy[str(source["level"])] = block["id"]
            self.assertEqual(block["section_hierarchy"], hierarchy, bwhat)
            check_polygon(self, block["polygon"], block["bbox"], bwhat)
            x0, y0, x1, y1 = block["bbox"]
            self.assertTrue(-1 <= x0 <= x1 <= w + 1 and -1 <= y0 <= y1 <= h + 1,
                            f"{bwhat}: bbox {block['bbox']} outside the page {w}x{h}")
            self.assertTrue(close(block["bbox"], source["bbox"]),
                            f"{bwhat}: bbox {block['bbox']}, the /ocr block's {source['bbox']}")
            markup = block["html"]
            if kind == "Text":  # a paragraph: its rows, escaped, joined by <br>
                pattern = rf"<p>{ESCAPED}(?:<br>{ESCAPED})*</p>"
            elif kind == "ListItem":
                pattern = rf"<li>{ESCAPED}(?:<br>{ESCAPED})*</li>"
            elif kind == "SectionHeader":  # a title on one line
                pattern = rf"<h{source['level']}>{ESCAPED}</h{source['level']}>"
            else:  # a table: its rows of cells (header cells <th>), a cell's rows joined by <br>
                self.assertTrue(markup.startswith("<table>") and markup.endswith("</table>"),
                                f"{bwhat}: html {markup!r}")
                tags = re.findall(r"<[^>]*>", markup)
                for tag in tags:
                    self.assertRegex(tag, r'^(?:</?(?:table|thead|tbody|tr|th|td)>|<br>'
                                          r'|<t[hd](?: (?:rowspan|colspan)="[1-9][0-9]*")+>)$',
                                     f"{bwhat}: html {markup!r}")
                self.assertEqual(tags.count("<tr>"), source["rows"], bwhat)
                cells = [t for t in tags if re.match(r"<t[hd][ >]", t)]
                self.assertEqual(len(cells), len(source["cells"]), bwhat)
                self.assertEqual(sum(t.startswith("<th") for t in cells),
                                 sum(c["row"] < source["header_rows"] for c in source["cells"]),
                                 f"{bwhat}: header cells")
                pattern = rf"(?:<[^>]*>|{ESCAPED_CHAR})*"
            self.assertIsNotNone(re.fullmatch(pattern, markup),
                                 f"{bwhat}: unescaped text or another shape: {markup!r}")
            self.assertEqual(html_text(markup), ocr_block_text(results, source), bwhat)
            if kind == "Text":  # a <br> between two lines, never inside one
                texts = [words(results[i]["text"]) for i in source["lines"]]
                for row in markup[len("<p>"):-len("</p>")].split("<br>"):
                    taken = 1
                    while taken < len(texts) and " ".join(texts[:taken]) != html_text(row):
                        taken += 1
                    self.assertEqual(" ".join(texts[:taken]), html_text(row),
                                     f"{bwhat}: row {row!r} of {markup!r}")
                    del texts[:taken]

        for block, (kind, source) in zip(blocks, expected):
            bwhat = f"{what} block {block['id']}"
            if kind != "ListGroup":
                check_leaf(block, source, kind, bwhat)
                continue
            # A list: <ul> or <ol> of its ListItem children, each <li> a list item's text.
            self.assertEqual(set(block), BLOCK_KEYS, bwhat)
            self.assertEqual(block["id"], f"/page/{n}/ListGroup/{number}", bwhat)
            number += 1
            self.assertEqual(block["images"], {}, bwhat)
            self.assertEqual(block["section_hierarchy"], hierarchy, bwhat)
            items = block["children"]
            self.assertIsInstance(items, list, bwhat)
            self.assertEqual(len(items), len(source), bwhat)
            tag = "ol" if source[0]["ordered"] else "ul"
            self.assertEqual(block["html"], f"<{tag}>{refs_html(i['id'] for i in items)}</{tag}>",
                             bwhat)
            for item, item_source in zip(items, source):
                check_leaf(item, item_source, "ListItem", f"{bwhat} item {item['id']}")
            check_polygon(self, block["polygon"], block["bbox"], bwhat)
            bounds = [min(i["bbox"][0] for i in items), min(i["bbox"][1] for i in items),
                      max(i["bbox"][2] for i in items), max(i["bbox"][3] for i in items)]
            self.assertTrue(close(block["bbox"], bounds),
                            f"{bwhat}: bbox {block['bbox']} is not its items' bounds {bounds}")

    def check_ocr_blocks(self, page):
        """The blocks of a page of the /ocr answer: their shapes, and every recognized line in
        exactly one block (a table's in one cell); a line without text (none once normalized)
        in none."""
        what = f"/ocr page {page['page']}"
        results, blocks = page["results"], page["blocks"]
        self.assertIsInstance(blocks, list, what)
        listed = []
        for block in blocks:
            bwhat = f"{what} block {block}"
            self.assertIn(block.get("type"), OCR_BLOCK_TYPES, bwhat)
            self.assertEqual(set(block), {"type", "bbox", "lines"} | OCR_BLOCK_KEYS[block["type"]],
                             bwhat)
            bbox = block["bbox"]
            self.assertEqual(len(bbox), 4, bwhat)
            self.assertTrue(all(isinstance(c, (int, float)) and not isinstance(c, bool)
                                for c in bbox), bwhat)
            self.assertTrue(-1 <= bbox[0] <= bbox[2] <= page["width"] + 1 and
                            -1 <= bbox[1] <= bbox[3] <= page["height"] + 1, bwhat)
            self.assertTrue(block["lines"], bwhat)
            self.assertTrue(all(isinstance(i, int) and 0 <= i < len(results)
                                for i in block["lines"]), bwhat)
            if block["type"] == "heading":
                self.assertIn(block["level"], (1, 2, 3), bwhat)
            if block["type"] == "list_item":
                self.assertIsInstance(block["ordered"], bool, bwhat)
            if block["type"] == "table":
                rows, cols = block["rows"], block["columns"]
                self.assertGreater(rows, 0, bwhat)
                self.assertGreater(cols, 0, bwhat)
                self.assertTrue(0 <= block["header_rows"] < rows, bwhat)
                cells = block["cells"]
                for cell in cells:
                    self.assertEqual(set(cell), {"row", "col", "row_span", "col_span", "lines"},
                                     bwhat)
                    self.assertTrue(0 <= cell["row"] < cell["row"] + cell["row_span"] <= rows and
                                    0 <= cell["col"] < cell["col"] + cell["col_span"] <= cols,
                                    f"{bwhat}: cell {cell}")
                # cells row-major by origin; the block's lines are theirs, cell by cell
                origins = [(c["row"], c["col"]) for c in cells]
                self.assertEqual(origins, sorted(set(origins)), bwhat)
                self.assertEqual(block["lines"], [i for c in cells for i in c["lines"]], bwhat)
            listed += block["lines"]
        texted = [i for i, r in enumerate(results) if r["text"].strip(" \t\n\v\f\r")]
        self.assertEqual(sorted(listed), texted,
                         f"{what}: every recognized line in exactly one block; "
                         f"the blocks are {blocks}")

    # success paths

    def test_default_is_markdown_with_the_text(self):
        data = self.check_marker_answer(self.client.convert("mixed.pdf", self.mixed_pdf),
                                        "markdown")
        out = words(data["output"])
        for w in ("Marker client page one", "Invoice number 4711", "conditions"):
            self.assertIn(w, out)
        for w in SCANNED_WORDS:
            self.assertIn(w, out)
        self.assertNotIn(SEPARATOR, data["output"], "paginated without paginate_output")
        self.assertFalse(out.startswith("{"), "the default output_format is not markdown")

    def test_page_stats_text_layer_and_ocr(self):
        data = self.check_marker_answer(
            self.client.convert("mixed.pdf", self.mixed_pdf, output_format="json"), "json")
        stats = data["metadata"]["page_stats"]
        self.assertEqual([s["page_id"] for s in stats], [0, 1], stats)
        self.assertEqual([s["text_extraction_method"] for s in stats], ["pdftext", "surya"],
                         stats)
        doc = json.loads(data["output"])
        reference = self.ocr_reference(self.mixed_pdf)
        self.assertEqual(len(doc["children"]), len(stats))
        for stat, page, ref in zip(stats, doc["children"], reference):
            what = f"page {stat['page_id']}"
            # ["Line", the recognized lines], then the blocks by type: those of the JSON's page,
            # which are the /ocr answer's blocks
            self.assertGreater(len(ref["results"]), 0, what)
            self.assertEqual(stat["block_counts"], block_counts(page, len(ref["results"])),
                             f"{what}: block_counts vs its blocks")
            kinds = {}
            for block in ref["blocks"]:
                kind = OCR_BLOCK_TYPES[block["type"]]
                kinds[kind] = kinds.get(kind, 0) + 1
            self.assertEqual(stat["block_counts"], [["Line", len(ref["results"])]] +
                             [[kind, kinds[kind]] for kind in sorted(kinds)],
                             f"{what}: block_counts vs the /ocr answer's blocks")
            self.assertGreater(len(stat["block_counts"]), 1, what)
        # force_ocr: every page read by OCR
        forced = self.client.convert("mixed.pdf", self.mixed_pdf, force_ocr=True)
        self.assertEqual([s["text_extraction_method"] for s in forced["metadata"]["page_stats"]],
                         ["surya", "surya"], forced["metadata"])

    def test_paginate_output_every_true_spelling(self):
        expected = marker_paginate([(0, self.page_text(0)), (1, self.page_text(1))])
        self.assertTrue(expected.startswith(f"\n\n{{0}}{SEPARATOR}\n\n"))
        for spelling in TRUE_SPELLINGS:
            with self.subTest(paginate_output=spelling):
                data = self.convert(paginate_output=spelling)
                self.check_marker_answer(data, "markdown")
                self.assertEqual(data["output"], expected)
        # requests sends Python's True as "True"
        self.assertEqual(self.convert(paginate_output=True)["output"], expected)

    def test_paginate_output_every_false_spelling(self):
        plain = self.convert()["output"]
        self.assertNotIn(SEPARATOR, plain)
        for spelling in FALSE_SPELLINGS + (False,):
            with self.subTest(paginate_output=spelling):
                data = self.convert(paginate_output=spelling)
                self.assertEqual(data["output"], plain)
                self.assertFalse(data["output"].startswith("\n\n"), repr(data["output"][:40]))

    def test_other_booleans_take_every_spelling(self):
        for spelling in TRUE_SPELLINGS + FALSE_SPELLINGS:
            with self.subTest(use_llm=spelling):
                self.check_marker_answer(self.convert(use_llm=spelling), "markdown")
        for spelling in FALSE_SPELLINGS:
            with self.subTest(force_ocr=spelling):
                data = self.check_marker_answer(self.convert(force_ocr=spelling, page_range="0"),
                                                "markdown")
                self.assertEqual([s["text_extraction_method"]
                                  for s in data["metadata"]["page_stats"]], ["pdftext"])
        for spelling in ("t", "Y", "on", "1"):
            with self.subTest(force_ocr=spelling):
                data = self.check_marker_answer(self.convert(force_ocr=spelling, page_range="0"),
                                                "markdown")
                self.assertEqual([s["text_extraction_method"]
                                  for s in data["metadata"]["page_stats"]], ["surya"])

    def test_llm_fields_are_accepted_and_ignored(self):
        data = self.convert(use_llm=True, llm_service="marker.services.openai.OpenAIService",
                            gemini_api_key="g-key", openai_api_key="o-key", groq_api_key="q-key")
        self.check_marker_answer(data, "markdown")
        self.assertEqual(data["output"], self.convert()["output"])
        for stat in data["metadata"]["page_stats"]:
            self.assertEqual(stat["block_metadata"]["llm_request_count"], 0)

    def test_page_range(self):
        data = self.check_marker_answer(self.convert(page_range="1"), "markdown")
        self.assertIn("Marker client page two", words(data["output"]))
        self.assertNotIn("page one", data["output"])
        self.assertEqual([s["page_id"] for s in data["metadata"]["page_stats"]], [1])
        paged = self.convert(page_range="1", paginate_output="true")["output"]
        self.assertEqual(paged, marker_paginate([(1, self.page_text(1))]))
        both = self.convert(page_range="0-1")
        self.assertEqual([s["page_id"] for s in both["metadata"]["page_stats"]], [0, 1])

    def test_html_is_a_whole_document(self):
        for paginate in ("false", "true"):
            with self.subTest(paginate_output=paginate):
                data = self.check_marker_answer(
                    self.convert(output_format="html", paginate_output=paginate), "html")
                out = data["output"]
                self.assertTrue(out.lstrip().startswith("<!DOCTYPE html>"), out[:80])
                self.assertIn('<meta charset="utf-8">', out)
                parser = PageDivs()
                parser.feed(out)
                parser.close()
                for tag in ("html", "head", "body"):
                    self.assertIn(tag, parser.tags, out[:300])
                self.assertEqual(parser.meta_charset, "utf-8")
                self.assertIn("&lt;apply&gt;", out, "text is not HTML-escaped")
                self.assertNotIn("<apply>", out)
                if paginate == "true":
                    self.assertIn("<div class='page' data-page-id='0'>", out)
                    self.assertIn("<div class='page' data-page-id='1'>", out)
                    self.assertEqual([p for p, _ in parser.pages], ["0", "1"])
                    self.assertIn("Marker client page one", words(parser.pages[0][1]))
                    self.assertIn("Shipped to Berlin", words(parser.pages[1][1]))
                    self.assertNotIn("page two", parser.pages[0][1])
                else:
                    self.assertEqual(parser.pages, [])
                    self.assertNotIn("data-page-id", out)
                    self.assertIn("Marker client page one", words(html.unescape(out)))

    def test_json_is_marker_json_output(self):
        data = self.check_marker_answer(self.client.convert("mixed.pdf", self.mixed_pdf,
                                                            output_format="json"), "json")
        doc = json.loads(data["output"])
        self.assertEqual(set(doc) - {"llm_hierarchy"}, {"children", "block_type"}, sorted(doc))
        self.assertEqual(doc["block_type"], "Document")
        pages = doc["children"]
        self.assertEqual(len(pages), 2)
        reference = self.ocr_reference(self.mixed_pdf)
        for n, page in enumerate(pages):
            self.check_json_page(page, n, reference[n])
            self.assertGreater(len(page["children"]), 0, f"page {n}")
        # No heading in these pages: no SectionHeader, an empty table of contents.
        self.assertEqual(data["metadata"]["table_of_contents"], [])
        self.assertNotIn("SectionHeader", [b["block_type"] for p in pages for b in p["children"]])
        # Page 0's text layer reads back exactly; the characters HTML must escape are escaped in
        # the html of its Text block (a paragraph's rows joined by <br>).
        self.assertEqual(" ".join(html_text(b["html"]) for b in pages[0]["children"]),
                         " ".join(TEXT_PAGES[0]))
        rows = [row for b in pages[0]["children"] if b["block_type"] == "Text"
                for row in b["html"][len("<p>"):-len("</p>")].split("<br>")]
        self.assertIn("Terms &amp; conditions &lt;apply&gt;", rows)
        self.assertIn("Terms & conditions <apply>", [html.unescape(row) for row in rows])
        for w in SCANNED_WORDS:
            self.assertIn(w, " ".join(b["html"] for b in pages[1]["children"]))

    def check_chunks(self, chunks, doc):
        """marker's chunks against the JSON of the same document: its pages' children, flat,
        each with its page and no children, a ListGroup's html with its items' <li> written in
        place of their content-refs; page_info each page's box."""
        self.assertEqual(set(chunks), {"blocks", "page_info"}, sorted(chunks))
        for block in chunks["blocks"]:
            what = f"block {block.get('id')}"
            self.assertEqual(set(block), CHUNK_KEYS, what)
            self.assertEqual(block["page"], int(block["id"].split("/")[2]), what)
            self.assertNotIn("content-ref", block["html"], what)
            check_polygon(self, block["polygon"], block["bbox"], what)
        self.assertEqual(chunks["blocks"], flat_chunks(doc))
        self.assertEqual(sorted(chunks["page_info"]), sorted(p["id"].split("/")[2]
                                                             for p in doc["children"]))
        for key, info in chunks["page_info"].items():
            self.assertEqual(set(info), {"bbox", "polygon"}, info)
            check_polygon(self, info["polygon"], info["bbox"], f"page_info {key}")
            page = doc["children"][int(key)]
            self.assertEqual(info["bbox"], page["bbox"])
            self.assertEqual(info["polygon"], page["polygon"])

    def test_chunks_is_marker_chunk_output(self):
        data = self.check_marker_answer(self.client.convert("mixed.pdf", self.mixed_pdf,
                                                            output_format="chunks"), "chunks")
        chunks = json.loads(data["output"])
        doc = json.loads(self.client.convert("mixed.pdf", self.mixed_pdf,
                                             output_format="json")["output"])
        self.check_chunks(chunks, doc)
        self.assertEqual(sorted(chunks["page_info"]), ["0", "1"])
        self.assertEqual(sorted({b["page"] for b in chunks["blocks"]}), [0, 1])

    def test_headings_are_the_table_of_contents(self):
        # A page with a title line about 3 times as tall as its body text: the title is a
        # SectionHeader (<h1>) and the table of contents' one entry; the blocks after it are in
        # its section. The page's lists and table are ListGroups and a Table.
        pdf = Inputs.read(INPUTS.heading_pdf)
        data = self.check_marker_answer(self.client.convert("heading.pdf", pdf,
                                                            output_format="json"), "json")
        doc = json.loads(data["output"])
        self.assertEqual(len(doc["children"]), 1)
        page = doc["children"][0]
        reference = self.ocr_reference(pdf)
        self.check_json_page(page, 0, reference[0])
        blocks = page["children"]
        self.assertEqual([b["block_type"] for b in blocks],
                         ["SectionHeader", "Text", "ListGroup", "ListGroup", "Table"])
        header = blocks[0]
        self.assertEqual(header["id"], "/page/0/SectionHeader/0")
        self.assertEqual(header["html"], f"<h1>{HEADING_TITLE}</h1>")
        self.assertEqual(header["section_hierarchy"], {"1": header["id"]})
        for block in blocks[1:]:
            for b in [block] + (block["children"] or []):
                self.assertEqual(b["section_hierarchy"], {"1": header["id"]}, b["id"])
        self.assertEqual(blocks[1]["html"], "<p>Revenue grew in March<br>Costs stayed flat</p>")
        self.assertEqual([(b["html"], [i["html"] for i in b["children"]]) for b in blocks[2:4]], [
            ("<ul><content-ref src='/page/0/ListItem/3'></content-ref>"
             "<content-ref src='/page/0/ListItem/4'></content-ref></ul>",
             ["<li>Ships on Monday</li>", "<li>Paid in full</li>"]),
            ("<ol><content-ref src='/page/0/ListItem/6'></content-ref>"
             "<content-ref src='/page/0/ListItem/7'></content-ref></ol>",
             ["<li>Invoice sent</li>", "<li>Receipt filed</li>"])])
        self.assertEqual(blocks[4]["id"], "/page/0/Table/8")
        self.assertEqual(blocks[4]["html"].replace("\n", ""),
                         "<table><thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>"
                         "<tbody><tr><td>Paper</td><td>12</td><td>3.50</td></tr>"
                         "<tr><td>Toner</td><td>2</td><td>41.00</td></tr></tbody></table>")
        # The table of contents: the one heading, its box the SectionHeader's.
        toc = data["metadata"]["table_of_contents"]
        self.assertEqual(len(toc), 1, toc)
        self.assertEqual(toc[0]["title"], HEADING_TITLE)
        self.assertEqual(toc[0]["heading_level"], 1)
        self.assertEqual(toc[0]["page_id"], 0)
        check_polygon(self, toc[0]["polygon"], header["bbox"], "toc entry")
        self.assertEqual(toc[0]["polygon"], header["polygon"])
        self.assertEqual(data["metadata"]["page_stats"][0]["block_counts"],
                         [["Line", len(reference[0]["results"])], ["ListItem", 4],
                          ["SectionHeader", 1], ["Table", 1], ["Text", 1]])
        # The same blocks as chunks, the lists written out; the same table of contents.
        data = self.check_marker_answer(self.client.convert("heading.pdf", pdf,
                                                            output_format="chunks"), "chunks")
        chunks = json.loads(data["output"])
        self.check_chunks(chunks, doc)
        self.assertEqual([b["html"] for b in chunks["blocks"][2:4]], [
            "<ul><li>Ships on Monday</li><li>Paid in full</li></ul>",
            "<ol><li>Invoice sent</li><li>Receipt filed</li></ol>"])
        self.assertEqual(data["metadata"]["table_of_contents"], toc)

    def test_markdown_and_html_are_the_writers_of_ocr(self):
        ocr = MarkerClient(self.base, route="/ocr")
        for fmt in ("markdown", "html"):
            for paginate in (False, True):
                with self.subTest(output_format=fmt, paginate_output=paginate):
                    ours = self.convert(output_format=fmt, paginate_output=paginate)["output"]
                    theirs = ocr.convert("text.pdf", self.text_pdf, output_format=fmt,
                                         paginate_output=paginate)["output"]
                    self.assertEqual(ours, theirs)

    def ocr_reference(self, pdf):
        """The /ocr answer's pages for `pdf`: the recognized lines (`results`) and the blocks
        they form (`blocks`), which marker's JSON lists; each page's blocks checked."""
        body, ctype = multipart({"output_format": "json"}, ("doc.pdf", pdf, "application/pdf"))
        a = request(self.base + "/ocr", body, ctype)
        self.assertEqual(a.status, 200, a)
        pages = a.json()["pages"]
        for page in pages:
            self.check_ocr_blocks(page)
        return pages

    # error paths, as marker's clients see them

    def assert_client_raises_error(self, filename, content, content_type, codes, **form):
        """A document marker cannot read: HTTP 200, success false; the client's
        Exception(data["error"]) carries the server's readable message."""
        with self.assertRaises(Exception) as caught:
            self.client.convert(filename, content, content_type, **form)
        self.assertNotIsInstance(caught.exception, urllib.error.HTTPError,
                                 f"{filename}: an HTTP error instead of 200 success=false: "
                                 f"{caught.exception}")
        raw = self.upload_raw(form, (filename, content, content_type))
        data = self.check_error_body(raw, 200, codes)
        message = str(caught.exception)
        self.assertEqual(message, data["error"])
        self.assertGreater(len(message), 5, message)
        self.assertFalse(message.lstrip().startswith(("{", "[")), message)
        return data

    def test_undecodable_documents_answer_200_success_false(self):
        cases = [
            ("broken.pdf", b"%PDF-1.4\nnot really a PDF\n", "application/pdf", {"invalid_pdf"}),
            ("broken.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "image/png",
             {"undecodable_image"}),
            ("notes.txt", b"hello, this is text", "text/plain",
             {"unsupported_media_type"}),
            ("locked.pdf", Inputs.read(INPUTS.encrypted_pdf), "application/pdf",
             {"encrypted_pdf"}),
        ]
        for filename, content, ctype, codes in cases:
            with self.subTest(file=filename):
                self.assert_client_raises_error(filename, content, ctype, codes)
        with self.subTest(page_range="abc"):
            self.assert_client_raises_error("text.pdf", self.text_pdf, "application/pdf",
                                            ALL_CODES, page_range="abc")

    def test_validation_errors_are_422(self):
        file = ("text.pdf", self.text_pdf, "application/pdf")
        cases = [
            ("missing file", {"output_format": "markdown"}, None, {"missing_field"}),
            ("bad boolean paginate_output=maybe", {"paginate_output": "maybe"}, file,
             {"invalid_option"}),
            ("bad boolean force_ocr=2", {"force_ocr": "2"}, file, {"invalid_option"}),
            ("bad boolean use_llm=truee", {"use_llm": "truee"}, file, {"invalid_option"}),
            ("unknown output_format", {"output_format": "docx"}, file, {"invalid_option"}),
        ]
        for name, fields, f, codes in cases:
            with self.subTest(name):
                with self.assertRaises(urllib.error.HTTPError) as caught:  # raise_for_status
                    if f is None:
                        body, ctype = multipart(fields)
                        req = urllib.request.Request(self.client.url, data=body, method="POST",
                                                     headers={"Content-Type": ctype})
                        urllib.request.urlopen(req, timeout=60).read()
                    else:
                        self.client.convert(*f, **fields)
                self.assertEqual(caught.exception.code, 422)
                self.check_error_body(self.upload_raw(fields, f), 422, codes)
        with self.subTest("broken multipart body"):
            body = b"--xyz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno end"
            a = request(self.client.url, body, "multipart/form-data; boundary=xyz")
            self.check_error_body(a, 422, {"invalid_multipart"})

    def test_marker_filepath_route_is_refused(self):
        secret = "onnxocr-secret-" + uuid.uuid4().hex
        secret_path = INPUTS.path("secret.txt")
        with open(secret_path, "w") as f:
            f.write(secret + "\n")
        with open("/etc/passwd", encoding="utf-8", errors="replace") as f:
            passwd_lines = [l for l in f.read().splitlines() if l.strip()]
        for path in ("/etc/passwd", secret_path, INPUTS.text_pdf):
            with self.subTest(filepath=path):
                body = json.dumps({"filepath": path, "output_format": "markdown",
                                   "paginate_output": False}).encode()
                a = request(self.base + "/marker", body, "application/json")
                data = self.check_error_body(a, 400, {"invalid_option"})
                message = data["error"]
                self.assertIn("/marker/upload", message)
                self.assertRegex(message.lower(), r"server.{0,40}path|path.{0,40}server",
                                 message)
                self.assertRegex(message.lower(), r"never|not|no ", message)
                text = a.body.decode("utf-8", "replace")
                self.assertNotIn(secret, text)
                self.assertNotIn("root:", text)
                for line in passwd_lines[:5]:
                    self.assertNotIn(line, text)
                self.assertNotIn("Marker client page", text)

    def test_errors_have_the_same_shape_everywhere(self):
        a = request(self.base + "/marker/nowhere", b"{}", "application/json")
        self.check_error_body(a, 404, {"not_found"})
        a = request(self.base + "/marker/upload", method="GET", body=None)
        self.check_error_body(a, 405, {"method_not_allowed"})
        self.assertIn("POST", a.headers.get("Allow", ""))

    # the same client pointed at /ocr

    def test_marker_client_pointed_at_ocr(self):
        ocr = MarkerClient(self.base, route="/ocr")
        data = ocr.convert("text.pdf", self.text_pdf, paginate_output=True,
                           output_format="markdown")
        self.assertIs(data["success"], True)
        self.assertEqual(data["format"], "markdown")
        expected = marker_paginate([(0, self.page_text(0, route="/ocr")),
                                    (1, self.page_text(1, route="/ocr"))])
        self.assertEqual(data["output"], expected)
        mixed = ocr.convert("mixed.pdf", self.mixed_pdf, paginate_output="on",
                            output_format="markdown")["output"]
        self.assertTrue(mixed.startswith(f"\n\n{{0}}{SEPARATOR}\n\n"), repr(mixed[:80]))
        self.assertIn(f"\n\n{{1}}{SEPARATOR}\n\n", mixed)
        for w in SCANNED_WORDS:
            self.assertIn(w, mixed.split(f"{{1}}{SEPARATOR}")[1])

    def test_ocr_text_pagination_and_booleans(self):
        ocr = MarkerClient(self.base, route="/ocr")
        pages = [(n, self.page_text(n, "text", "/ocr")) for n in (0, 1)]
        for spelling in TRUE_SPELLINGS:
            with self.subTest(paginate_output=spelling):
                out = ocr.convert("text.pdf", self.text_pdf, output_format="text",
                                  paginate_output=spelling)["output"]
                self.assertEqual(out, marker_paginate(pages))
        for spelling in FALSE_SPELLINGS:
            with self.subTest(paginate_output=spelling):
                out = ocr.convert("text.pdf", self.text_pdf, output_format="text",
                                  paginate_output=spelling)["output"]
                self.assertNotIn(SEPARATOR, out)
        default = request(self.base + "/ocr", *multipart({}, ("t.pdf", self.text_pdf,
                                                              "application/pdf")))
        self.assertEqual(default.status, 200, default)
        self.assertEqual(default.json()["format"], "json", "/ocr's default output_format")
        for bad in ("maybe", "2", "truee"):
            with self.subTest(bad=bad):
                body, ctype = multipart({"paginate_output": bad},
                                        ("t.pdf", self.text_pdf, "application/pdf"))
                self.check_error_body(request(self.base + "/ocr", body, ctype), 400,
                                      {"invalid_option"})
        html_doc = ocr.convert("text.pdf", self.text_pdf, output_format="html",
                               paginate_output="y")["output"]
        self.assertTrue(html_doc.lstrip().startswith("<!DOCTYPE html>"), html_doc[:80])
        self.assertIn('<meta charset="utf-8">', html_doc)
        self.assertIn("<div class='page' data-page-id='1'>", html_doc)


def main():
    global SERVER, INPUTS
    binary = L.default_binary()
    L.require(binary, pango=False)  # the binary and the models; exits 77 with the reason
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        L.skip(f"{', '.join(missing)} missing (apt-get install enscript ghostscript img2pdf qpdf "
               "pango1.0-tools)")
    tmp = tempfile.mkdtemp(prefix="onnxocr-marker-client-")
    started = time.monotonic()
    try:
        INPUTS = Inputs(tmp)
        # The server's default log format (json): the log lines are filtered as json below.
        SERVER = L.Server(binary, ["--threads", "1"], models=[f"ppocrv4={L.default_models()}"],
                          log_dir=tmp, log_format=None).start(wait_ready=False)
        print(f"# server {binary} at {SERVER.url}", flush=True)
        result = unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:], exit=False).result
        ok = result.wasSuccessful()
        if not ok:
            notable = [l for l in SERVER.log_text().splitlines()
                       if '"level":"error"' in l or '"level":"warn' in l][-20:]
            if notable:
                print("--- server log (warnings and errors) ---\n" + "\n".join(notable))
        print(f"# {time.monotonic() - started:.1f} s", flush=True)
        return 0 if ok else 1
    finally:
        if SERVER is not None:
            SERVER.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
