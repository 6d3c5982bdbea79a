#!/usr/bin/env python3
"""Every answer a binary gives for a few inputs, written to a folder with processing times set to
0, so that two builds can be compared byte for byte with `diff -r` (a refactor must change no
answer). Run from the checkout (the binary finds models/ there):

  bench/answer_snapshot.py OLD_BINARY /tmp/old && bench/answer_snapshot.py NEW_BINARY /tmp/new
  diff -r /tmp/old /tmp/new

Inputs: three real photos, a synthetic page, two ICDAR 2013 PDFs (a text layer, dense tables)
from ../shared/testdata, and a 3-page scan made of them with img2pdf. Answers: `onnxocr run` in
every format (json with and without words, markdown, html, text, hocr, alto, the PDF/A's text by
pdftotext), and a server's: POST /ocr in every format, as a PDF/A, streamed, marker's upload, the
JSON form, and a job whose result is fetched in four formats. About 6 minutes on 2 cores.
"""
import argparse, base64, json, os, re, socket, subprocess, sys, tempfile, time, urllib.request, uuid

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("binary")
ap.add_argument("out")
ap.add_argument("--testdata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "shared", "testdata"))
args = ap.parse_args()
BIN, OUT, T = os.path.abspath(args.binary), args.out, args.testdata
if not os.path.isdir(T):
    sys.exit(f"{T} not found: pass --testdata (../shared/testdata beside the checkout)")
PHOTOS = [f"{T}/real/paper_page_en.jpg", f"{T}/real/results_table_en.jpg", f"{T}/real/train_ticket.jpg",
          f"{T}/synthetic/images/001.jpg"]
SCAN = os.path.join(tempfile.mkdtemp(prefix="answer-snapshot-"), "scan3.pdf")
subprocess.run(["img2pdf", "--imgsize", "150dpi", PHOTOS[0], f"{T}/real/bank_receipt.jpg", PHOTOS[3],
                "-o", SCAN], check=True)
INPUTS = PHOTOS + [f"{T}/icdar2013-dev/eu-001.pdf", f"{T}/icdar2013-dev/us-025.pdf", SCAN]
os.makedirs(OUT, exist_ok=True)


def norm(data: bytes) -> bytes:
    return re.sub(rb'"processing_time":[0-9.e+-]+', b'"processing_time":0', data)


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(norm(data))


def pdftext(pdf: bytes) -> bytes:
    return subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True).stdout


for path in INPUTS:
    base = os.path.basename(path)
    for fmt in ["json", "markdown", "html", "text", "hocr", "alto"]:
        out = subprocess.run([BIN, "run", "--format", fmt, path], capture_output=True).stdout
        save(f"cli-{base}.{fmt}", out)
    out = subprocess.run([BIN, "run", "--format", "json", "--word-boxes", path], capture_output=True).stdout
    save(f"cli-{base}.words.json", out)
    out = subprocess.run([BIN, "run", "--format", "pdf", "--pdfa", path], capture_output=True).stdout
    save(f"cli-{base}.pdf.txt", pdftext(out) + (b"PDFA" if b"pdfaid" in out else b"plain"))

# The server.
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
data = f"/tmp/ident-data-{uuid.uuid4().hex}"
server = subprocess.Popen([BIN, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", data],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
url = f"http://127.0.0.1:{port}"
for _ in range(100):
    try:
        urllib.request.urlopen(url + "/readyz"); break
    except Exception:
        time.sleep(0.2)


def form(fields, path):
    boundary = uuid.uuid4().hex
    body = b""
    for k, v in fields.items():
        body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode()
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{os.path.basename(path)}\"\r\n"
             "Content-Type: application/octet-stream\r\n\r\n").encode() + open(path, "rb").read() + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def post(route, fields, path):
    body, ctype = form(fields, path)
    req = urllib.request.Request(url + route, data=body, headers={"Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


try:
    for path in INPUTS:
        base = os.path.basename(path)
        for fmt in ["json", "markdown", "html", "text", "hocr", "alto"]:
            st, _, body = post("/ocr", {"output_format": fmt, "paginate_output": "true"}, path)
            save(f"srv-{base}.{fmt}", str(st).encode() + b"\n" + body)
        st, hd, body = post("/ocr", {"output_format": "pdf", "pdfa": "true"}, path)
        save(f"srv-{base}.pdf.txt", str(st).encode() + hd.get("Content-Disposition", "").encode() + pdftext(body)
             + (b"PDFA" if b"pdfaid" in body else b"plain"))
        st, _, body = post("/ocr", {"return_word_boxes": "true", "stream": "true"}, path)
        save(f"srv-{base}.stream", str(st).encode() + b"\n" + body)
        st, _, body = post("/marker/upload", {"output_format": "markdown"}, path)
        save(f"srv-{base}.marker", str(st).encode() + b"\n" + body)
        if not path.endswith(".pdf"):
            req = urllib.request.Request(url + "/ocr", data=json.dumps(
                {"image": base64.b64encode(open(path, "rb").read()).decode(), "return_word_boxes": True}).encode(),
                headers={"Content-Type": "application/json"})
            save(f"srv-{base}.jsonform", urllib.request.urlopen(req, timeout=300).read())
        # A job: markdown, then its result in other formats.
        st, _, body = post("/jobs", {"output_format": "markdown", "pdfa": "true"}, path)
        job = json.loads(body)
        for _ in range(600):
            status = json.loads(urllib.request.urlopen(url + job["status_url"]).read())
            if status["status"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.2)
        for q in ["", "?output_format=json", "?output_format=hocr", "?output_format=pdf"]:
            with urllib.request.urlopen(url + job["result_url"] + q) as r:
                body = r.read()
                if q.endswith("pdf"):
                    body = pdftext(body) + (b"PDFA" if b"pdfaid" in body else b"plain")
            save(f"job-{base}{q.replace('?output_format=', '.') or '.default'}", body)
finally:
    server.terminate()
    server.wait()
    subprocess.run(["rm", "-rf", data])
print("done", len(os.listdir(OUT)))
