#!/usr/bin/env python3
"""Runs README.md's examples as they are written (issue 27), so the README and the product
cannot drift apart.

Every fenced block whose info string is `sh`, `bash` or `python` is an example. A block runs
unless the line right above its fence says otherwise:
    <!-- readme-test: skip (REASON) -->   never run here (the reason is printed)
    <!-- readme-test: needs TOOL... -->   run only when each TOOL is on PATH (else skipped, said)
Shell blocks run with `bash -e -o pipefail` in a scratch folder laid out as a checkout
(build/release/onnxocr and contrib/ link to the real ones, ../shared/testdata/real holds two
images) that holds every file the examples name: photo.jpg (a 2400 x 1800 JPEG of over 2 MB, so
its base64 is far over the 128 KB a command-line argument may hold), scan.png, a.png, b.png,
scan.pdf (a scan: an image-only page), scan.tiff (two frames), report.pdf (three pages) and
book.pdf (two pages). Against a real `onnxocr serve` on 127.0.0.1 with an ephemeral port; the
only rewrite is localhost:5005 / 127.0.0.1:5005 to that address. Python blocks run with this
interpreter when it has `requests` (Debian's python3-requests), else they are skipped with a
message. Each runnable block must have a check below, keyed by a line of it: a new example
without one fails this test until it gets one.

Exits 0 when every runnable block ran and passed its check, 1 otherwise, 77 (skipped) when the
binary, the models, pango-view, ghostscript, img2pdf or qpdf is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "bench", "load"))
import ocr_load as L  # noqa: E402

README = os.path.join(ROOT, "README.md")
FENCE = re.compile(r"^```(\S*)\s*$")
MARK = re.compile(r"^<!--\s*readme-test:\s*(skip|needs)\b\s*(.*?)\s*-->$")
LANGUAGES = {"sh", "bash", "python"}
ARG_MAX_ONE = 128 * 1024  # Linux's MAX_ARG_STRLEN: the most one command-line argument holds

# What the inputs say; each check looks for these words.
PHOTO_LINES = ["Invoice 2024-0815", "Paid in full, thank you", "Total 1234.56 EUR"]
SCAN_TEXT = "Scan heading\n\nThe scanned body text"
PAGES = {"report.pdf": ["Report page one", "Report page two", "Report page three"],
         "book.pdf": ["Book chapter one", "Book chapter two"]}
TIFF_FRAMES = ["Frame one text", "Frame two text"]


def squeeze(text):
    return re.sub(r"\s+", "", text)


def contains(text, *phrases):
    """Asserts each phrase is in text, spaces ignored (OCR may add or drop one)."""
    flat = squeeze(text)
    for phrase in phrases:
        assert squeeze(phrase) in flat, f"{phrase!r} not in output:\n{text[:3000]}"


def json_values(text):
    """The JSON values printed one after another (with or without newlines between them)."""
    decoder = json.JSONDecoder()
    values, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        values.append(value)


def read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def expect_pdf(path, *phrases):
    """path is a PDF (and, with pdftotext, its text has the phrases)."""
    data = read(path)
    assert data.startswith(b"%PDF-"), f"{path} is not a PDF: {data[:16]!r}"
    if phrases and shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True,
                              check=True, timeout=60).stdout
        contains(text, *phrases)


# --- inputs --------------------------------------------------------------------------------------

def run_tool(*args, **kw):
    subprocess.run(args, check=True, timeout=120, stdout=subprocess.DEVNULL, **kw)


def render_png(path, text, font_pt=28):
    src = path + ".txt"
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    run_tool("pango-view", "-q", "--background=white", "--font", f"DejaVu Sans {font_pt}",
             "--margin", "40", "-o", path, src)


def text_pdf(path, pages, work):
    """A born-digital PDF (text layer), one page per text, merged with qpdf."""
    parts = []
    for i, text in enumerate(pages):
        part = os.path.join(work, f"{os.path.basename(path)}.{i}.pdf")
        src = part + ".txt"
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        run_tool("pango-view", "-q", "--font", "DejaVu Sans 20", "--margin", "60", "-o", part,
                 src)
        parts.append(part)
    run_tool("qpdf", "--empty", "--pages", *parts, "--", path)


def make_photo(path):
    """A photo-sized JPEG (2400 x 1800, quality 95) of over 2 MB: three lines of text over a
    light, noisy background (noise is what makes a real photo's JPEG large), drawn in PostScript
    by ghostscript."""
    program = path + ".ps"
    lines = "\n".join(f"100 {760 - 90 * i} moveto ({t}) show" for i, t in enumerate(PHOTO_LINES))
    with open(program, "w", encoding="ascii") as f:
        f.write(f"""%!PS
<< /PageSize [1200 900] >> setpagedevice
/W 2400 def /H 1800 def
/noise 7500 string def
0 1 7499 {{ noise exch rand -8 bitshift 255 and put }} for
gsave 1200 900 scale /DeviceRGB setcolorspace
<< /ImageType 1 /Width W /Height H /BitsPerComponent 8 /Decode [0.7 1 0.7 1 0.7 1]
   /ImageMatrix [W 0 0 H neg 0 H] /DataSource {{ noise rand 300 mod 7200 getinterval }} >> image
grestore
/Helvetica findfont 48 scalefont setfont 0 setgray
{lines}
showpage
""")
    run_tool("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=jpeg", "-r144",
             "-dJPEGQ=95", "-dTextAlphaBits=4", f"-sOutputFile={path}", program)


def make_inputs(repo, work):
    """The files the examples name, in `repo` (the examples' working directory)."""
    make_photo(os.path.join(repo, "photo.jpg"))
    render_png(os.path.join(repo, "scan.png"), SCAN_TEXT)
    render_png(os.path.join(repo, "a.png"), "Alpha file")
    render_png(os.path.join(repo, "b.png"), "Bravo file")
    # scan.pdf: a scanned page, no text layer.
    run_tool("img2pdf", "-o", os.path.join(repo, "scan.pdf"), os.path.join(repo, "scan.png"))
    for name, pages in PAGES.items():
        text_pdf(os.path.join(repo, name), pages, work)
    frames = os.path.join(work, "frames.pdf")
    text_pdf(frames, TIFF_FRAMES, work)
    run_tool("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiff24nc", "-r110",
             f"-sOutputFile={os.path.join(repo, 'scan.tiff')}", frames)
    real = os.path.join(os.path.dirname(repo), "shared", "testdata", "real")
    os.makedirs(real)
    for name in ("a.png", "b.png"):
        shutil.copy(os.path.join(repo, name), real)


# --- the checks, one per example -----------------------------------------------------------------

def check_api_forms(out, repo):
    photo, scan = json_values(out)
    texts = [r["text"] for r in photo["results"]]
    contains("\n".join(texts), *PHOTO_LINES)
    assert scan["success"] is True and scan["format"] == "markdown", scan
    contains(scan["output"], "Scan heading", "The scanned body text")


def check_python_forms(out, repo):
    lines = out.splitlines()
    scores = [line for line in lines if re.match(r"^[01]\.\d\d \S", line)]
    assert len(scores) == len(PHOTO_LINES), f"one '<confidence> <text>' line per photo line:\n{out}"
    contains(out, *PHOTO_LINES)
    contains(out, "Scan heading", "The scanned body text")


def check_archive(out, repo):
    expect_pdf(os.path.join(repo, "scan.searchable.pdf"), "Scan heading")
    expect_pdf(os.path.join(repo, "photo.pdf"), PHOTO_LINES[0])
    pdfa = os.path.join(repo, "scan.pdfa.pdf")
    expect_pdf(pdfa, "Scan heading")
    assert b"pdfaid" in read(pdfa), "no PDF/A identification in scan.pdfa.pdf"
    alto = read(os.path.join(repo, "scan.alto.xml"), "r")
    assert "<alto" in alto and "CONTENT='Scan'" in alto, alto[:2000]
    hocr = read(os.path.join(repo, "scan.hocr"), "r")
    assert hocr.count("class='ocr_page'") == 2, hocr[:2000]
    contains(re.sub(r"<[^>]+>", " ", hocr), *TIFF_FRAMES)


def check_ocrmypdf(out, repo):
    expect_pdf(os.path.join(repo, "scan.ocr.pdf"), "Scan heading")


def check_marker(out, repo):
    (answer,) = json_values(out)
    assert answer["success"] is True and answer["format"] == "markdown", answer
    contains(answer["output"], *PAGES["report.pdf"])
    assert "{0}" in answer["output"], "paginate_output=true separates the pages"


def jpeg_size(data):
    """(width, height) from a JPEG's first start-of-frame marker; None when there is none."""
    at = 2
    while at + 9 < len(data) and data[at] == 0xFF:
        marker, length = data[at + 1], int.from_bytes(data[at + 2:at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return (int.from_bytes(data[at + 7:at + 9], "big"),
                    int.from_bytes(data[at + 5:at + 7], "big"))
        at += 2 + length
    return None


def check_long_documents(out, repo):
    # The stream: one JSON line per page, then the document's line with "output".
    lines = out.splitlines()
    stream = [json.loads(line) for line in lines[:3]]
    assert [p.get("page") for p in stream[:2]] == [0, 1], stream
    contains(stream[2]["output"], *PAGES["book.pdf"])
    # The job: its status, its events, its result and the DELETE's answer. curl adds no newline
    # after a JSON body, so the events' "retry:" may follow one on its line.
    rest = "\n".join(lines[3:])
    assert rest.count("event: page") == 2 and "event: done" in rest, f"events:\n{rest}"
    status, result, again, deleted = json_values(
        re.sub(r"(retry|id|event|data): [^\n]*", "", rest))
    assert status["page_count"] == 2 and status["id"] == deleted["id"], (status, deleted)
    assert result["success"] is True and result["page_count"] == 2, result
    contains(result["output"], *PAGES["book.pdf"])
    assert again["format"] == "text" and again["results"] == result["results"], again
    contains(again["output"], *PAGES["book.pdf"])
    with open(os.path.join(repo, "page0.jpg"), "rb") as f:
        page = f.read()
    assert page[:3] == b"\xff\xd8\xff", "a JPEG"
    size = jpeg_size(page)
    assert size and max(size) <= 1200, size


def check_cli(out, repo):
    contains(out, *PHOTO_LINES)                       # run photo.jpg (JSON)
    contains(out, "==> a.png <==", "Alpha file", "==> b.png <==", "Bravo file")
    contains(out, "Scan heading")                     # markdown
    contains(out, "{0}" + "-" * 48, *PAGES["report.pdf"])  # paginated text
    assert '"words"' in out, "--word-boxes lists words"
    contains(out, *TIFF_FRAMES)
    assert out.count("The scanned body text") >= 2, "markdown, then text from standard input"
    assert "Usage: onnxocr" in out, "--help"
    expect_pdf(os.path.join(repo, "scan.searchable.pdf"), "Scan heading")


def check_quick_bench(out, repo):
    assert re.search(r"^c=1 +\d+\.\d+ img/s", out, re.M), out[:2000]


CHECKS = [  # (a line the example contains, its check)
    ("base64 < photo.jpg | tr -d", check_api_forms),
    ('requests.post("http://localhost:5005/ocr", json=', check_python_forms),
    ("-F output_format=pdf -o scan.searchable.pdf", check_archive),
    ("ocrmypdf --plugin contrib/ocrmypdf/onnxocr_plugin.py", check_ocrmypdf),
    ("/marker/upload -F file=@report.pdf", check_marker),
    ("-F stream=true -F output_format=markdown", check_long_documents),
    ("onnxocr run photo.jpg", check_cli),
    ("--concurrency 1 --duration 5", check_quick_bench),
]


# --- the README ----------------------------------------------------------------------------------

def examples(text):
    """(line number, language, marker match or None, code) of every sh/bash/python block."""
    lines = text.splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        language = opening.group(1)
        if language in LANGUAGES:
            mark = MARK.match(lines[i - 1].strip()) if i > 0 else None
            found.append((i + 1, language, mark, "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return found


def at_port(code, port):
    """The example with the server's address in place of port 5005's; every 5005 must go."""
    code = re.sub(r"\b(localhost|127\.0\.0\.1):5005\b", f"127.0.0.1:{port}", code)
    assert "5005" not in code, f"an address this test cannot rewrite:\n{code}"
    return code


def run_example(line, language, code, repo, env):
    if language == "python":
        command = [sys.executable, "-c", code]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", code]
    start = time.monotonic()
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True,
                          timeout=400)
    seconds = time.monotonic() - start
    L.log(f"README line {line} ({language}): exit {done.returncode} in {seconds:.1f} s")
    assert done.returncode == 0, (f"exit {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
                                  f"--- stderr\n{done.stderr[-3000:]}")
    return done.stdout


def main():
    binary = L.default_binary()
    L.require(binary, models=True, pango=True, ghostscript=True)
    for tool in ("img2pdf", "qpdf", "curl"):
        if shutil.which(tool) is None:
            L.skip(f"{tool} is missing (scripts/bootstrap installs it)")
    readme = read(README, "r")
    assert "base64 -w0" not in readme, "GNU-only base64 -w0 is back in the README"
    blocks = examples(readme)
    assert len(blocks) >= 8, f"only {len(blocks)} examples found: is the fence format changed?"

    work = tempfile.mkdtemp(prefix="onnxocr-readme-")
    failures = []
    try:
        repo = os.path.join(work, "checkout")
        os.makedirs(os.path.join(repo, "build", "release"))
        os.symlink(os.path.realpath(binary), os.path.join(repo, "build", "release", "onnxocr"))
        os.symlink(os.path.join(ROOT, "contrib"), os.path.join(repo, "contrib"))
        make_inputs(repo, work)
        photo_size = os.path.getsize(os.path.join(repo, "photo.jpg"))
        L.log(f"photo.jpg: {photo_size} bytes")
        assert photo_size > 2_000_000, f"photo.jpg is only {photo_size} bytes"
        assert photo_size * 4 // 3 > ARG_MAX_ONE, "its base64 would fit in one argument"
        have_requests = subprocess.run([sys.executable, "-c", "import requests"],
                                       capture_output=True).returncode == 0
        env = dict(os.environ, ONNXOCR_PROGRESS="off")
        env.pop("ONNXOCR_MODELS", None)
        with L.Server(binary, log_dir=work) as server:
            for line, language, mark, code in blocks:
                if mark and mark.group(1) == "skip":
                    L.log(f"README line {line}: not run: {mark.group(2)}")
                    continue
                if mark and mark.group(1) == "needs":
                    missing = [t for t in mark.group(2).split() if shutil.which(t) is None]
                    if missing:
                        L.log(f"README line {line}: SKIPPED: {' '.join(missing)} not installed")
                        continue
                if language == "python" and not have_requests:
                    L.log(f"README line {line}: SKIPPED: {sys.executable} has no requests "
                          "(apt-get install python3-requests)")
                    continue
                checks = [c for key, c in CHECKS if key in code]
                try:
                    assert len(checks) == 1, ("no check (or several) for this example: add one to "
                                              f"CHECKS in {os.path.relpath(__file__, ROOT)}")
                    out = run_example(line, language, at_port(code, server.port), repo, env)
                    checks[0](out, repo)
                except Exception as e:  # noqa: BLE001 (a failed check of any kind)
                    failures.append(line)
                    L.log(f"FAIL: README line {line}:\n{code}{type(e).__name__}: {e}")
        if failures:
            L.log(f"FAIL: the examples at README lines {failures}")
            return 1
        L.log("OK: every runnable README example ran as written and gave what it says")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
