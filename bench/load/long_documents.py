#!/usr/bin/env python3
"""Long documents: interactive latency under a job, job vs synchronous throughput, streaming.

What asynchronous jobs (POST /jobs) and streamed answers (POST /ocr with stream=true) cost and
give, against a real `onnxocr serve` started here (127.0.0.1, ephemeral port, --request-timeout
3600). Numbers for BENCHMARKS.md.

Inputs: the JPEGs and PNGs of --images (default ../shared/testdata/real next to the checkout;
when absent, text rendered with pango-view + ghostscript). Scanned PDFs are written here with the
standard library: page i holds the i-th JPEG (cycling) as one /DCTDecode image filling a page of
pixels * 72 / 200 pt, so at the server's default --pdf-dpi 200 each page renders at the JPEG's
own size.

Scenarios, in this order, on one server:
 1. idle: one client sends single-image `POST /ocr` (JSON, base64) requests back to back, cycling
    the images: 3 warm-up requests, then N (--requests, 40); latency p50/p95.
 2. busy: a job of a P-page PDF (--pages, 200) is started; once it is `running` with
    pages_done >= 1, the same N requests as (1) are sent while its pages keep every worker busy.
    Only requests that ended while the job still ran count (a thread polls the job); the job is
    then cancelled (DELETE). Goal: busy p95 / idle p95 <= 2.0.
 3. job alone: a job of a --pages-alone (48) page PDF on the idle server: pages/s from the job's
    started_at..finished_at, and the wall time from POST to `succeeded` seen by polling (every
    --poll-s). Baseline ("before"): the same PDF as one synchronous multipart `POST /ocr`:
    pages / wall. Goal: job pages/s / sync pages/s >= 0.9.
 4. stream: the same PDF through `POST /ocr` multipart with stream=true (chunked NDJSON): time to
    the response header, to the first line and to the last line, and the line count.
 With --rounds R, scenarios 3 and 4 run R times, alternated (job, sync, stream, job, ...), and
 each reports its round with the median pages/s (all rounds in pages_per_s_rounds): on a shared
 machine one noisy spell then does not decide the ratio.

Prints a human summary; --json also prints one JSON object with every number as the last line of
stdout (--json-out FILE writes it to a file). Exit 0 when every scenario ran as the API says
(goals missed are reported, not failed, unless --strict), 1 otherwise, 77 when the binary or
models are missing.

    bench/load/long_documents.py --binary build/release/onnxocr           # full run (~10 min)
    bench/load/long_documents.py --quick --json                           # smoke run
"""
import argparse
import datetime
import http.client
import json
import os
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_load as L  # noqa: E402

BUSY_GOAL = 2.0   # busy p95 / idle p95 at most
JOB_GOAL = 0.9    # job pages/s / sync pages/s at least
FINISHED = ("succeeded", "failed", "cancelled")

RENDER_TEXTS = [
    "Invoice 4711\nDate 2024-03-05\nTotal due 1,234.50 EUR\nThank you for your business",
    "Meeting notes\n1. Budget review\n2. Hiring plan for Q3\n3. Office move in October",
    "Lab results\nGlucose 5.4 mmol/L\nCholesterol 4.9 mmol/L\nHemoglobin 14.1 g/dL",
    "Boarding pass\nFlight LH 2023 Munich to Lisbon\nGate B17 Seat 14C\nBoarding 09:35",
    "The quick brown fox jumps over the lazy dog.\nPack my box with five dozen liquor jugs.",
    "Chapter 3\nLong documents are read page by page\nwhile short requests go first.",
]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", "--onnxocr", dest="binary", default=L.default_binary(),
                    help="server binary (default build/release/onnxocr, or $ONNXOCR_BINARY)")
    ap.add_argument("--models", default=L.default_models(),
                    help="model set directory, passed as --models ppocrv4=DIR")
    ap.add_argument("--threads", type=int, help="server --threads (default: the server's)")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(L.ROOT), "shared",
                                                     "testdata", "real"),
                    help="folder of JPEGs/PNGs (default ../shared/testdata/real)")
    ap.add_argument("--requests", type=int, help="measured single-image requests (N, 40)")
    ap.add_argument("--warmup", type=int, default=3, help="warm-up requests before each run")
    ap.add_argument("--pages", type=int, help="pages of the busy scenario's PDF (P, 200)")
    ap.add_argument("--pages-alone", type=int, help="pages of the job-alone/sync/stream PDF (48)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of the job-alone/sync/stream trio, alternated; the median is "
                         "reported")
    ap.add_argument("--poll-s", type=float, default=0.2, help="job status polling interval")
    ap.add_argument("--server-arg", action="append", default=[],
                    help="extra argument for `onnxocr serve` (repeatable; use --server-arg=--x)")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["idle", "busy", "alone", "sync", "stream"],
                    help="leave a scenario out (repeatable)")
    ap.add_argument("--quick", action="store_true", help="smoke run: P=16, N=10, alone 8 pages")
    ap.add_argument("--json", action="store_true", help="print the JSON object last on stdout")
    ap.add_argument("--json-out", help="also write the JSON object to this file")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    ap.add_argument("--keep-pdf", help="also write the busy scenario's PDF to this path")
    args = ap.parse_args(argv)
    args.requests = args.requests or (10 if args.quick else 40)
    args.pages = args.pages or (16 if args.quick else 200)
    args.pages_alone = args.pages_alone or (8 if args.quick else 48)
    return args


# --- inputs --------------------------------------------------------------------------------------

def scanned_pdf(jpegs, pages, dpi=200):
    """A PDF of `pages` pages, page i one image XObject of jpegs[i % len] (DCTDecode) filling a
    page of pixels * 72 / dpi points. Standard library only."""
    objs = []  # objs[k] is the body of object k + 1

    def add(body):
        objs.append(body)
        return len(objs)

    add(b"<< /Type /Catalog /Pages 2 0 R >>")
    add(b"")  # the page tree, filled in below
    kids = []
    for p in range(pages):
        data = jpegs[p % len(jpegs)]
        w, h, comps = L.jpeg_frame(data)
        space = {1: b"/DeviceGray", 3: b"/DeviceRGB"}[comps]
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
                  b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n"
                  % (w, h, space, len(data)) + data + b"\nendstream")
        pw, ph = w * 72.0 / dpi, h * 72.0 / dpi
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (pw, ph)
        cs = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] "
                        b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                        % (pw, ph, img, cs)))
    objs[1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) +
               b"] /Count %d >>" % len(kids))
    out = [b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"]
    size = len(out[0])
    offsets = []
    for k, body in enumerate(objs, 1):
        offsets.append(size)
        chunk = b"%d 0 obj\n" % k + body + b"\nendobj\n"
        out.append(chunk)
        size += len(chunk)
    xref = [b"xref\n0 %d\n" % (len(objs) + 1), b"0000000000 65535 f \n"]
    xref += [b"%010d 00000 n \n" % off for off in offsets]
    out += xref
    out.append(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
               % (len(objs) + 1, size))
    return b"".join(out)


def load_images(args, tmp):
    """([(name, bytes)] of every image for single requests, [bytes] of JPEGs for PDFs, source)."""
    folder = args.images
    exts = (".jpg", ".jpeg", ".png")
    if os.path.isdir(folder):
        names = sorted(f for f in os.listdir(folder) if f.lower().endswith(exts))
        images = []
        for n in names:
            with open(os.path.join(folder, n), "rb") as f:
                images.append((n, f.read()))
        jpegs = [d for _, d in images if (L.jpeg_frame(d) or (0, 0, 0))[2] in (1, 3)]
        if images and jpegs:
            return images, jpegs, folder
    L.require(args.binary, models=False, pango=True, ghostscript=True)
    L.log(f"{folder} has no JPEGs: rendering {len(RENDER_TEXTS)} with pango-view + ghostscript")
    images = [(f"rendered{i}.jpg", L.render_jpeg(tmp, t, font_pt=22, dpi=110 + 20 * (i % 3)))
              for i, t in enumerate(RENDER_TEXTS)]
    return images, [d for _, d in images], "rendered"


# --- helpers -------------------------------------------------------------------------------------

class ContractError(Exception):
    """The server answered something the API does not say."""


def path_of(url_or_path, fallback):
    if not url_or_path:
        return fallback
    if url_or_path.startswith("http://") or url_or_path.startswith("https://"):
        rest = url_or_path.split("://", 1)[1]
        return "/" + rest.split("/", 1)[1] if "/" in rest else fallback
    return url_or_path


def to_epoch(v):
    """A job timestamp (ISO 8601 string, or epoch seconds / milliseconds) in epoch seconds."""
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return v / 1000.0 if v > 1e11 else float(v)
    try:
        return to_epoch(float(v))
    except ValueError:
        pass
    return datetime.datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()


def pct(values):
    return {"n": len(values), "p50_ms": L.ms(L.percentile(values, 50)),
            "p95_ms": L.ms(L.percentile(values, 95)),
            "max_ms": L.ms(max(values) if values else None)}


def per_image(answers):
    """Median milliseconds per image name (Answer.tag), in first-seen order."""
    by = {}
    for a in answers:
        by.setdefault(a.tag, []).append(a.seconds)
    return {k: L.ms(L.percentile(v, 50)) for k, v in by.items()}


def rnd(x, nd=3):
    return None if x is None else round(x, nd)


def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None


def doc_pages(doc):
    """Pages in a document answer: len(pages) when present, else page_count."""
    if isinstance(doc, dict):
        if isinstance(doc.get("pages"), list):
            return len(doc["pages"])
        return doc.get("page_count")
    return None


def doc_texts(doc):
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        return [str(r.get("text", "")) for r in doc["results"] if isinstance(r, dict)]
    return None


class Jobs:
    """The /jobs API on one keep-alive connection."""

    def __init__(self, url):
        self.c = L.Client(url, timeout_s=600)

    def close(self):
        self.c.close()

    def create(self, pdf, fields=None):
        body, ctype = L.multipart_body(pdf, fields or {}, filename="document.pdf")
        a = self.c.post("/jobs", body, ctype)
        j = a.json()
        if a.status != 202 or not isinstance(j, dict) or not j.get("id"):
            raise ContractError(f"POST /jobs: {a.status} {a.body[:300]!r} (expected 202 + id)")
        if j.get("status") != "queued":
            L.log(f"note: POST /jobs answered status {j.get('status')!r}, contract says 'queued'")
        return j

    def status(self, job):
        path = path_of(job.get("status_url"), f"/jobs/{job['id']}")
        a = self.c.request("GET", path)
        j = a.json()
        if a.status != 200 or not isinstance(j, dict) or "status" not in j:
            raise ContractError(f"GET {path}: {a.status} {a.body[:300]!r}")
        return j

    def result(self, job):
        path = path_of(job.get("result_url"), f"/jobs/{job['id']}/result")
        a = self.c.request("GET", path)
        if a.status != 200:
            raise ContractError(f"GET {path}: {a.status} {a.body[:300]!r}")
        return a

    def delete(self, job):
        a = self.c.request("DELETE", f"/jobs/{job['id']}")
        if a.status not in (200, 202, 204):
            raise ContractError(f"DELETE /jobs/{job['id']}: {a.status} {a.body[:300]!r}")
        return a

    def wait(self, job, until, timeout_s, poll_s):
        """Polls until until(status) is true; returns (status, monotonic time it was seen)."""
        deadline = time.monotonic() + timeout_s
        while True:
            s = self.status(job)
            now = time.monotonic()
            if until(s):
                return s, now
            if s["status"] in FINISHED:
                raise ContractError(f"job {job['id']} ended as {s['status']} "
                                    f"(error {s.get('error')!r}) while waiting")
            if now > deadline:
                raise ContractError(f"job {job['id']}: still {s['status']} after {timeout_s} s "
                                    f"(pages_done {s.get('pages_done')})")
            time.sleep(poll_s)


class JobMonitor(L._BackgroundLoop):
    """Polls a job's status every interval_s on its own connection; remembers when it first saw
    the job finished and the (time, pages_done) samples."""

    def __init__(self, url, job, interval_s):
        super().__init__()
        self.jobs = Jobs(url)
        self.job = job
        self.interval_s = interval_s
        self.samples = []  # (monotonic, status, pages_done)
        self.ended_at = None
        self.error = None

    def _run(self):
        try:
            while not self._stop.is_set():
                s = self.jobs.status(self.job)
                now = time.monotonic()
                self.samples.append((now, s["status"], s.get("pages_done")))
                if s["status"] != "running" and self.ended_at is None:
                    self.ended_at = now
                self._stop.wait(self.interval_s)
        except Exception as e:  # noqa: BLE001 (reported by the caller)
            self.error = str(e)
        finally:
            self.jobs.close()


def sequential(url, bodies, warmup, n):
    """Sends warm-up then n single-image requests back to back on one connection; returns the
    measured answers (each with sent_at, seconds)."""
    c = L.Client(url, timeout_s=600)
    try:
        for i in range(warmup):
            a = c.post("/ocr", bodies[i % len(bodies)][1])
            if a.status != 200:
                raise ContractError(f"warm-up POST /ocr: {a}")
        out = []
        for i in range(n):
            name, body = bodies[i % len(bodies)]
            a = c.post("/ocr", body, tag=name)
            if a.status != 200:
                raise ContractError(f"POST /ocr ({name}): {a}")
            out.append(a)
        return out
    finally:
        c.close()


# --- scenarios -----------------------------------------------------------------------------------

def run_idle(server, bodies, args):
    L.log(f"idle: {args.warmup} warm-up + {args.requests} sequential single-image requests")
    answers = sequential(server.url, bodies, args.warmup, args.requests)
    r = pct([a.seconds for a in answers])
    r["per_image_p50_ms"] = per_image(answers)
    L.log(f"idle: p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms")
    return r


def run_busy(server, bodies, pdf, pages, args):
    jobs = Jobs(server.url)
    try:
        L.log(f"busy: POST /jobs with a {pages}-page PDF ({len(pdf) / 1e6:.1f} MB)")
        t0 = time.monotonic()
        job = jobs.create(pdf)
        st, seen = jobs.wait(job, lambda s: s["status"] == "running" and
                             (s.get("pages_done") or 0) >= 1, 300, 0.05)
        L.log(f"busy: job running, pages_done {st.get('pages_done')} after "
              f"{seen - t0:.1f} s; measuring")
        out = {"pages": pages, "pdf_mb": round(len(pdf) / 1e6, 2),
               "job_running_after_s": rnd(seen - t0)}
        with JobMonitor(server.url, job, 0.25) as mon, L.StallMeter() as stalls:
            start_done = jobs.status(job).get("pages_done") or 0
            m0 = time.monotonic()
            # No warm-up: the server is warm from the idle run, and the job must outlast this.
            answers = sequential(server.url, bodies, 0, args.requests)
            m1 = time.monotonic()
            end = jobs.status(job)
        if mon.error:
            raise ContractError(f"job monitor: {mon.error}")
        ended = mon.ended_at if mon.ended_at is not None else (
            None if end["status"] == "running" else m1)
        busy = [a for a in answers if ended is None or a.sent_at + a.seconds <= ended]
        out.update(pct([a.seconds for a in busy]))
        out["per_image_p50_ms"] = per_image(busy)
        out["all_requests"] = pct([a.seconds for a in answers])
        out["job_running_at_end"] = end["status"] == "running"
        out["job_status_at_end"] = end["status"]
        out["requests_after_job_ended"] = len(answers) - len(busy)
        out["measure_s"] = rnd(m1 - m0)
        done = (end.get("pages_done") or 0) - start_done
        out["job_pages_during_measure"] = done
        out["job_pages_per_s_during_measure"] = rnd(done / (m1 - m0))
        out["client_stalls"] = stalls.summary()
        if not out["job_running_at_end"]:
            L.log(f"busy: WARNING the job was {end['status']} before the measurement ended: "
                  f"{out['requests_after_job_ended']} of {len(answers)} requests left out "
                  f"(use more --pages)")
        L.log(f"busy: p50 {out['p50_ms']} ms, p95 {out['p95_ms']} ms over {len(busy)} requests; "
              f"job {end['status']}, pages_done {end.get('pages_done')}/{pages}")
        if end["status"] not in FINISHED:
            c0 = time.monotonic()
            jobs.delete(job)
            st, seen = jobs.wait(job, lambda s: s["status"] in FINISHED, 120, 0.05)
            out["cancel_s"] = rnd(seen - c0)
            out["job_status_after_delete"] = st["status"]
            out["pages_done_at_cancel"] = st.get("pages_done")
            L.log(f"busy: DELETE -> {st['status']} in {out['cancel_s']} s")
            time.sleep(2.0)  # pages in flight stop at their next check
            gone = jobs.c.request("GET", f"/jobs/{job['id']}")
            out["status_after_delete_http"] = gone.status
        return out
    finally:
        jobs.close()


def run_alone(server, pdf, pages, args):
    jobs = Jobs(server.url)
    try:
        L.log(f"job alone: POST /jobs with a {pages}-page PDF")
        t0 = time.monotonic()
        job = jobs.create(pdf)
        t_post = time.monotonic() - t0
        st, seen = jobs.wait(job, lambda s: s["status"] in FINISHED, 3600, args.poll_s)
        wall = seen - t0
        if st["status"] != "succeeded":
            raise ContractError(f"job alone ended {st['status']}: {st.get('error')!r}")
        started, finished = to_epoch(st.get("started_at")), to_epoch(st.get("finished_at"))
        created = to_epoch(st.get("created_at"))
        server_s = finished - started if started is not None and finished is not None else None
        res = jobs.result(job)
        doc = res.json()
        out = {"pages": pages, "post_s": rnd(t_post), "wall_s": rnd(wall),
               "server_s": rnd(server_s),
               "queued_s": rnd(started - created if started and created else None),
               "pages_per_s": rnd(pages / server_s if server_s else None),
               "pages_per_s_wall": rnd(pages / wall),
               "page_count": st.get("page_count"), "pages_done": st.get("pages_done"),
               "result_pages": doc_pages(doc),
               "result_success": doc.get("success") if isinstance(doc, dict) else None,
               "result_processing_time": doc.get("processing_time")
               if isinstance(doc, dict) else None,
               "result_mb": round(len(res.body) / 1e6, 2),
               "timestamps": {k: st.get(k) for k in ("created_at", "started_at", "finished_at")}}
        if out["result_pages"] != pages or out["pages_done"] != pages:
            raise ContractError(f"job alone: {out['result_pages']} result pages, pages_done "
                                f"{out['pages_done']}, expected {pages}")
        L.log(f"job alone: {out['pages_per_s']} pages/s (server), wall {wall:.1f} s")
        return out, doc_texts(doc)
    finally:
        jobs.close()


def run_sync(server, pdf, pages):
    L.log(f"sync: POST /ocr multipart with the {pages}-page PDF")
    body, ctype = L.multipart_body(pdf, {}, filename="document.pdf")
    c = L.Client(server.url, timeout_s=3700)
    try:
        a = c.post("/ocr", body, ctype)
    finally:
        c.close()
    doc = a.json()
    if a.status != 200 or not isinstance(doc, dict):
        raise ContractError(f"sync POST /ocr: {a}")
    out = {"pages": pages, "wall_s": rnd(a.seconds), "pages_per_s": rnd(pages / a.seconds),
           "result_pages": doc_pages(doc), "processing_time": doc.get("processing_time"),
           "result_mb": round(len(a.body) / 1e6, 2)}
    if out["result_pages"] != pages:
        raise ContractError(f"sync: {out['result_pages']} pages in the answer, expected {pages}")
    L.log(f"sync: {out['pages_per_s']} pages/s, wall {a.seconds:.1f} s")
    return out, doc_texts(doc)


def run_stream(server, pdf, pages):
    L.log(f"stream: POST /ocr multipart stream=true with the {pages}-page PDF")
    body, ctype = L.multipart_body(pdf, {"stream": "true"}, filename="document.pdf")
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3700)
    try:
        t0 = time.monotonic()
        conn.request("POST", "/ocr", body=body, headers={"Content-Type": ctype})
        resp = conn.getresponse()
        t_head = time.monotonic() - t0
        headers = {k.lower(): v for k, v in resp.getheaders()}
        if resp.status != 200:
            raise ContractError(f"stream: {resp.status} {resp.read()[:300]!r}")
        lines, times, bad = [], [], 0
        while True:
            line = resp.readline()
            if not line:
                break
            if not line.strip():
                continue
            times.append(time.monotonic() - t0)
            try:
                lines.append(json.loads(line))
            except ValueError:
                bad += 1
                lines.append(None)
        t_end = time.monotonic() - t0
    finally:
        conn.close()
    last = lines[-1] if lines else None
    out = {"pages": pages, "content_type": headers.get("content-type"),
           "transfer_encoding": headers.get("transfer-encoding"),
           "header_s": rnd(t_head),
           "first_line_s": rnd(times[0] if times else None),
           "last_line_s": rnd(times[-1] if times else None), "end_s": rnd(t_end),
           "lines": len(lines), "unparsable_lines": bad,
           "pages_per_s": rnd(pages / times[-1] if times else None),
           "gaps_ms": pct([b - a for a, b in zip(times, times[1:])]),
           "last_line_keys": sorted(last.keys())[:20] if isinstance(last, dict) else None,
           "last_line_success": last.get("success") if isinstance(last, dict) else None}
    if len(lines) != pages + 1:
        L.log(f"stream: WARNING {len(lines)} lines, expected {pages} pages + 1 final line")
    if bad:
        raise ContractError(f"stream: {bad} lines are not JSON")
    L.log(f"stream: first line {out['first_line_s']} s, last {out['last_line_s']} s, "
          f"{len(lines)} lines")
    return out


# --- main ----------------------------------------------------------------------------------------

def human(summary):
    r = summary["results"]
    g = summary["goals"]
    ratios = summary["ratios"]
    print("\n== long documents ==")
    print(f"server: {summary['server']['workers']}; images: {summary['inputs']['images']} "
          f"from {summary['inputs']['source']}")
    if "idle" in r:
        i = r["idle"]
        print(f"idle   single-image POST /ocr: p50 {i['p50_ms']} ms  p95 {i['p95_ms']} ms "
              f"(n={i['n']})")
    if "busy" in r:
        b = r["busy"]
        print(f"busy   same, during a {b['pages']}-page job: p50 {b['p50_ms']} ms  "
              f"p95 {b['p95_ms']} ms (n={b['n']}); job still running at end: "
              f"{b['job_running_at_end']}; job pages/s meanwhile "
              f"{b['job_pages_per_s_during_measure']}")
        print(f"       busy p95 / idle p95 = {ratios.get('busy_p95_over_idle_p95')} "
              f"(goal <= {BUSY_GOAL}: {'met' if g.get('busy_p95_ratio') else 'MISSED'})")
    if "alone" in r:
        a = r["alone"]
        print(f"job    {a['pages']} pages alone: {a['pages_per_s']} pages/s (started..finished "
              f"{a['server_s']} s); POST..succeeded {a['wall_s']} s ({a['pages_per_s_wall']} "
              f"pages/s)")
    if "sync" in r:
        s = r["sync"]
        print(f"sync   same PDF, one POST /ocr: {s['pages_per_s']} pages/s (wall {s['wall_s']} s)")
    if "alone" in r and "sync" in r:
        print(f"       job / sync pages/s = {ratios.get('job_over_sync_pages_per_s')} "
              f"(goal >= {JOB_GOAL}: {'met' if g.get('job_throughput_ratio') else 'MISSED'})")
    if "stream" in r:
        s = r["stream"]
        print(f"stream same PDF, stream=true: first line {s['first_line_s']} s, last line "
              f"{s['last_line_s']} s, {s['lines']} lines ({s['pages_per_s']} pages/s)")
    for key in ("alone", "sync", "stream"):
        if r.get(key, {}).get("pages_per_s_rounds"):
            print(f"       {key} pages/s per round: {r[key]['pages_per_s_rounds']} (median shown)")
    for e in summary["errors"]:
        print(f"ERROR: {e}")


def main(argv=None):
    args = parse_args(argv)
    L.require(args.binary, models=False, pango=False)
    if not os.path.isfile(os.path.join(args.models, "rec", "rec.onnx")):
        L.skip(f"models missing under {args.models} (run scripts/bootstrap)")
    tmp = tempfile.mkdtemp(prefix="onnxocr-longdocs-")
    images, jpegs, source = load_images(args, tmp)
    bodies = [(n, L.json_body(d)) for n, d in images]
    pdf_busy = scanned_pdf(jpegs, args.pages)
    pdf_alone = scanned_pdf(jpegs, args.pages_alone)
    if args.keep_pdf:
        with open(args.keep_pdf, "wb") as f:
            f.write(pdf_busy)

    server_args = ["--request-timeout", "3600"]
    if args.threads:
        server_args += ["--threads", str(args.threads)]
    biggest = max(len(pdf_busy), len(pdf_alone))
    if biggest > (31 << 20):
        server_args += ["--max-body-mb", str((biggest >> 20) + 2)]
    if max(args.pages, args.pages_alone) > 200:
        server_args += ["--max-pdf-pages", str(max(args.pages, args.pages_alone))]
    server_args += args.server_arg
    server = L.Server(args.binary, server_args, models=[f"ppocrv4={args.models}"],
                      name="longdocs")
    summary = {"tool": "bench/load/long_documents.py", "quick": args.quick,
               "server": {"binary": args.binary, "args": server_args},
               "inputs": {"source": source, "images": len(images), "pdf_jpegs": len(jpegs),
                          "requests": args.requests, "warmup": args.warmup,
                          "pages_busy": args.pages, "pages_alone": args.pages_alone,
                          "pdf_busy_mb": round(len(pdf_busy) / 1e6, 2),
                          "pdf_alone_mb": round(len(pdf_alone) / 1e6, 2)},
               "machine": {"cpus": os.cpu_count()},
               "results": {}, "ratios": {}, "goals": {}, "errors": []}
    results = summary["results"]
    L.log(f"starting {args.binary} serve {' '.join(server_args)}")
    with server:
        workers = [ln.split("workers: ", 1)[1] for ln in server.log_text().splitlines()
                   if "workers: " in ln]
        summary["server"]["workers"] = workers[-1] if workers else "?"
        steps = [("idle", lambda: run_idle(server, bodies, args)),
                 ("busy", lambda: run_busy(server, bodies, pdf_busy, args.pages, args))]
        for _ in range(args.rounds):  # alternated, so a noisy spell hits each of them
            steps += [("alone", lambda: run_alone(server, pdf_alone, args.pages_alone, args)),
                      ("sync", lambda: run_sync(server, pdf_alone, args.pages_alone)),
                      ("stream", lambda: run_stream(server, pdf_alone, args.pages_alone))]
        texts, rounds = {}, {}
        for key, step in steps:
            if key in args.skip:
                continue
            try:
                out = step()
                if isinstance(out, tuple):
                    out, texts[key] = out
                rounds.setdefault(key, []).append(out)
            except ContractError as e:
                summary["errors"].append(f"{key}: {e}")
                L.log(f"{key}: ERROR {e}")
            if server.proc.poll() is not None:
                summary["errors"].append(f"server exited with {server.proc.returncode}")
                break
        for key, outs in rounds.items():
            # The round with the median pages/s (the lower middle one of an even count).
            ranked = sorted(outs, key=lambda o: o.get("pages_per_s") or 0)
            results[key] = dict(ranked[(len(ranked) - 1) // 2])
            if len(outs) > 1:
                results[key]["pages_per_s_rounds"] = [o.get("pages_per_s") for o in outs]
        if texts.get("alone") is not None and texts.get("sync") is not None:
            results["job_texts_equal_sync"] = texts["alone"] == texts["sync"]
        summary["server"]["notable_log"] = server.notable_log_lines(10)
    summary["server"]["exit_code"] = server.proc.returncode

    idle, busy = results.get("idle"), results.get("busy")
    if idle and busy and idle.get("p95_ms") and busy.get("p95_ms"):
        summary["ratios"]["busy_p95_over_idle_p95"] = ratio(busy["p95_ms"], idle["p95_ms"])
        summary["ratios"]["busy_p50_over_idle_p50"] = ratio(busy["p50_ms"], idle["p50_ms"])
        summary["goals"]["busy_p95_ratio"] = (
            summary["ratios"]["busy_p95_over_idle_p95"] <= BUSY_GOAL)
    alone, sync = results.get("alone"), results.get("sync")
    if alone and sync and alone.get("pages_per_s") and sync.get("pages_per_s"):
        summary["ratios"]["job_over_sync_pages_per_s"] = ratio(alone["pages_per_s"],
                                                               sync["pages_per_s"])
        summary["ratios"]["job_wall_over_sync_pages_per_s"] = ratio(alone["pages_per_s_wall"],
                                                                    sync["pages_per_s"])
        summary["goals"]["job_throughput_ratio"] = (
            summary["ratios"]["job_over_sync_pages_per_s"] >= JOB_GOAL)
    stream = results.get("stream")
    if stream and sync and stream.get("last_line_s"):
        summary["ratios"]["stream_last_over_sync_wall"] = ratio(stream["last_line_s"],
                                                                sync["wall_s"])
    if busy and not busy.get("job_running_at_end"):
        summary["errors"].append("busy: the job ended before the measurement did")

    human(summary)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=2)
    if args.json:
        print(json.dumps(summary), flush=True)
    failed = bool(summary["errors"]) or (args.strict and not all(summary["goals"].values()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
