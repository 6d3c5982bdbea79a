#!/usr/bin/env python3
"""Jobs shared through Redis (`onnxocr serve --redis URL`), for real: no Docker, no mocks.

Starts Debian's redis-server (ephemeral loopback port, append-only file in a temporary directory,
so a restart keeps the data), `onnxocr serve --host 127.0.0.1 --port 0 --threads 1 --redis ...
--job-lease 2` replicas, and for the last scenario Debian's nginx with the configuration generated
from deploy/nginx/onnxocr.conf (as nginx_failover_test.py does). The input is a 40-page scanned
PDF (four short text pages rendered with pango-view + ghostscript, cycled); its reference is the
synchronous `POST /ocr` multipart answer of one replica. Every job result must equal it: the
same page count, pages 0..39 in order, the same recognized texts per page.

 1. shared: a job posted to replica A is polled and streamed (/events) from replica B; both
    replicas read pages (onnxocr_pages_processed_total grows on each, 40 in all); B's result,
    A's result and B's SSE stream (40 `page` events in order, then `done`) match the reference.
 2. kill -9: replica A is SIGKILLed mid-job; B finishes it (A's pages come back when their
    2 s lease expires), every page exactly once, within a bound printed with the timing.
 3. Redis down: redis-server gets SIGTERM mid-job; meanwhile job routes answer 503 `not_ready`,
    POST /ocr (JSON image) answers 200 and /readyz stays 200; Redis restarts on the same port and
    directory; job routes answer again within a few seconds and the job succeeds with all pages.
 4. cancel, limits, TTL (a second pair C, D on a second Redis, --max-jobs 1 --job-ttl 3): while a
    job runs, a second POST /jobs on either replica gets 503 `server_busy`; DELETE on D cancels
    the job C works on: `cancelled` on both, C's event stream ends with `cancelled`, neither
    replica reads another page; a small job then succeeds and its status answers 404 `not_found`
    about --job-ttl seconds after it ended.
 5. nginx: a job posted through nginx, polled through nginx, while the replica that took the POST
    gets SIGTERM mid-job: it drains and exits 0, the survivor reads the remaining pages, every
    status poll through nginx answers 200 and the job succeeds.

Exit 0 pass, 1 fail, 77 skipped (redis-server, pango-view, ghostscript, the models or the server
binary missing; without nginx only scenario 5 is skipped). Bounded: 200 s (about 60 s on 2 cores).
Environment: ONNXOCR_BINARY (default build/release/onnxocr), REDIS_SERVER (default redis-server on
PATH or /usr/bin/redis-server), NGINX (as nginx_failover_test.py), OCR_MODELS_DIR.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "load"))
sys.path.insert(0, HERE)
import ocr_load as L  # noqa: E402  (bench/load: servers, client, rendering, metrics)
import long_documents as D  # noqa: E402  (bench/load: scanned_pdf)
import nginx_failover_test as NF  # noqa: E402  (same directory: nginx config and start)

DEADLINE_S = 200
PAGES = 40
LEASE_S = 2
TTL_S = 3
DRAIN_S = 15
FINISHED = ("succeeded", "failed", "cancelled")
# Four short pages; each takes a --threads 1 replica about 0.15 s on a 2-core machine.
TEXTS = ["\n".join(t.split("\n")[:3]) for t in D.RENDER_TEXTS[:4]]
START = time.monotonic()
log = L.log


def remaining_s():
    return DEADLINE_S - (time.monotonic() - START)


def find_redis():
    return NF.find_program("REDIS_SERVER", "redis-server", "/usr/bin/redis-server")


# --- processes -----------------------------------------------------------------------------------

_procs = []  # redis-server and nginx processes, stopped at the end


class Redis:
    """One redis-server on 127.0.0.1 with an append-only file under `directory`. stop() and
    start() again reuse the port and the directory: the data survives."""

    def __init__(self, binary, directory, name):
        self.binary = binary
        self.dir = directory
        self.name = name
        self.port = None
        self.proc = None
        os.makedirs(directory, exist_ok=True)
        self.log_path = os.path.join(directory, "redis.log")

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        for _ in range(3):  # a probed free port can be taken before redis binds it
            port = self.port or NF.free_port()
            with open(self.log_path, "ab") as out:
                self.proc = subprocess.Popen(
                    [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                     "--appendonly", "yes", "--dir", self.dir, "--daemonize", "no"],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True, preexec_fn=L._die_with_parent)
            _procs.append(self.proc)
            if self._wait_pong(port, 10):
                self.port = port
                return self
            self.kill()
            if self.port:  # a restart must keep its port
                break
        raise AssertionError(f"{self.name} did not start: {self.log_tail()}")

    def _wait_pong(self, port, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    s.sendall(b"*1\r\n$4\r\nPING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout_s=10):
        """SIGTERM (redis flushes the append-only file and exits); returns the exit code."""
        if self.running():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.poll() if self.proc else None

    def kill(self):
        if self.running():
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log_tail(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-1500:]
        except OSError:
            return ""


def cleanup():
    for p in _procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in _procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
    L._kill_all()


def start_replica(binary, models, tmp, name, redis, extra=()):
    args = ["--threads", "1", "--redis", redis.url, "--job-lease", str(LEASE_S),
            "--drain-timeout", str(DRAIN_S)] + list(extra)
    s = L.Server(binary, args, models=[f"ppocrv4={models}"], log_dir=tmp, name=name)
    s.start(timeout_s=30)
    return s


# --- HTTP helpers --------------------------------------------------------------------------------

def request(url, method, path, body=None, content_type=None, timeout_s=30):
    c = L.Client(url, timeout_s)
    try:
        return c.request(method, path, body, {"Content-Type": content_type} if content_type
                         else {})
    finally:
        c.close()


def error_code(answer):
    """The error code of an error answer: {"success": false, "error": "<message>", "code"}."""
    j = answer.json()
    return j.get("code") if isinstance(j, dict) else None


def pages_read(server):
    return int(L.metric_sum(L.metrics(server.url), "onnxocr_pages_processed_total"))


def post_job(url, pdf):
    body, ctype = L.multipart_body(pdf, {}, filename="document.pdf")
    a = request(url, "POST", "/jobs", body, ctype)
    j = a.json()
    assert a.status == 202 and isinstance(j, dict) and j.get("id"), \
        f"POST /jobs on {url}: {a.status} {a.body[:300]!r} (expected 202 with an id)"
    for key in ("status_url", "result_url", "events_url"):
        assert j.get(key), f"POST /jobs answer lacks {key}: {j}"
    return j


def path_of(job, key, suffix=""):
    return D.path_of(job.get(key), f"/jobs/{job['id']}{suffix}")


def status(url, job, timeout_s=10):
    return request(url, "GET", path_of(job, "status_url"), timeout_s=timeout_s)


def wait_job(url, job, until, timeout_s, what, poll_s=0.1, samples=None):
    """Polls GET /jobs/{id} on `url` until until(status json); returns (json, monotonic time).
    Fails on a non-200 answer, on another end than the awaited one, and on timeout."""
    deadline = time.monotonic() + min(timeout_s, max(1.0, remaining_s() - 10))
    while True:
        a = status(url, job)
        now = time.monotonic()
        j = a.json()
        assert a.status == 200 and isinstance(j, dict), \
            f"{what}: GET /jobs/{job['id']} on {url}: {a.status} {a.body[:300]!r}"
        if samples is not None:
            samples.append((now, j.get("status"), j.get("pages_done")))
        if until(j):
            return j, now
        assert j.get("status") not in FINISHED, \
            f"{what}: job ended {j.get('status')} (error {j.get('error')!r}) while waiting"
        assert now < deadline, \
            f"{what}: job still {j.get('status')} after {timeout_s} s (pages_done " \
            f"{j.get('pages_done')})"
        time.sleep(poll_s)


def result(url, job):
    a = request(url, "GET", path_of(job, "result_url", "/result"), timeout_s=60)
    assert a.status == 200 and isinstance(a.json(), dict), \
        f"GET result on {url}: {a.status} {a.body[:300]!r}"
    return a.json()


def page_texts(doc):
    return [[str(r.get("text", "")) for r in p.get("results", [])] for p in doc["pages"]]


def check_document(doc, reference, what):
    """Same page count, pages 0..N-1 in order, same texts per page as the reference."""
    pages = doc.get("pages") if isinstance(doc, dict) else None
    assert isinstance(pages, list), f"{what}: no pages in {str(doc)[:300]}"
    numbers = [p.get("page") for p in pages]
    assert len(pages) == PAGES and numbers == list(range(PAGES)), \
        f"{what}: {len(pages)} pages numbered {numbers}, expected 0..{PAGES - 1} once each"
    assert doc.get("page_count") in (None, PAGES), \
        f"{what}: page_count {doc.get('page_count')}, expected {PAGES}"
    texts = page_texts(doc)
    bad = [i for i in range(PAGES) if texts[i] != reference[i]]
    assert not bad, (f"{what}: texts differ from the synchronous answer on pages {bad}; page "
                     f"{bad[0]}: {texts[bad[0]]} vs {reference[bad[0]]}")


def cancel_quietly(urls, job):
    """Best effort after a failure: an unfinished job would keep the replicas busy."""
    for url in urls:
        try:
            request(url, "DELETE", f"/jobs/{job['id']}", timeout_s=5)
            return
        except Exception:  # noqa: BLE001
            pass


class Events(threading.Thread):
    """Reads GET /jobs/{id}/events (Server-Sent Events) until the end event or the end of the
    stream: self.events is [(id, name, data)]."""

    END = ("done", "failed", "cancelled")

    def __init__(self, url, path, timeout_s=60):
        super().__init__(daemon=True)
        m = re.match(r"http://([^:/]+):(\d+)", url)
        self.host, self.port, self.path, self.timeout_s = m.group(1), int(m.group(2)), path, \
            timeout_s
        self.status = None
        self.content_type = None
        self.events = []
        self.error = None
        self.started = threading.Event()

    def run(self):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
        try:
            conn.request("GET", self.path, headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            self.status = resp.status
            self.content_type = resp.getheader("Content-Type")
            self.started.set()
            if resp.status != 200:
                self.error = f"status {resp.status}: {resp.read()[:300]!r}"
                return
            fields = {}
            while True:
                raw = resp.readline()
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if line == "":
                    if "event" in fields or "data" in fields:
                        try:
                            data = json.loads(fields.get("data", "null"))
                        except ValueError:
                            data = fields.get("data")
                        self.events.append((fields.get("id"), fields.get("event", "message"),
                                            data))
                        if fields.get("event") in self.END:
                            return
                    fields = {}
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                fields[name] = fields[name] + "\n" + value if name == "data" and name in fields \
                    else value
        except (OSError, http.client.HTTPException) as e:
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.started.set()
            conn.close()

    def names(self):
        return [e[1] for e in self.events]

    def check(self, reference, end, what):
        """Ids 1, 2, ... increasing; `page` events for pages 0..N-1 in order with the reference
        texts; the last event is `end`."""
        assert self.status == 200, f"{what}: events answered {self.status} ({self.error})"
        assert self.content_type and self.content_type.startswith("text/event-stream"), \
            f"{what}: events Content-Type {self.content_type!r}"
        assert self.events, f"{what}: no events ({self.error})"
        assert self.events[-1][1] == end, \
            f"{what}: stream ended with {self.events[-1][1]!r} (expected {end!r}; " \
            f"error {self.error}); last events {self.events[-3:]}"
        ids = [e[0] for e in self.events]
        try:
            nums = [int(i) for i in ids]
        except (TypeError, ValueError):
            raise AssertionError(f"{what}: event ids {ids[:10]} are not numbers")
        assert nums[0] == 1 and all(b > a for a, b in zip(nums, nums[1:])), \
            f"{what}: event ids {nums[:10]}... do not increase from 1"
        if reference is None:
            return
        pages = [e[2] for e in self.events if e[1] == "page"]
        indices = [p.get("index", p.get("page")) if isinstance(p, dict) else None for p in pages]
        assert indices == list(range(PAGES)), \
            f"{what}: page events {indices}, expected 0..{PAGES - 1} in order"
        texts = [[str(r.get("text", "")) for r in p.get("results", [])] for p in pages]
        bad = [i for i in range(PAGES) if texts[i] != reference[i]]
        assert not bad, f"{what}: page events' texts differ from the reference on pages {bad}"


# --- scenarios -----------------------------------------------------------------------------------

class Ctx:
    pass


def scenario_shared(ctx):
    """1. A job posted to A, polled and streamed from B, both replicas read pages."""
    a, b = ctx.a, ctx.b
    before = {"A": pages_read(a), "B": pages_read(b)}
    t0 = time.monotonic()
    job = post_job(a.url, ctx.pdf)
    t_post = time.monotonic() - t0
    early = request(b.url, "GET", path_of(job, "result_url", "/result"))
    events = Events(b.url, path_of(job, "events_url", "/events"))
    events.start()
    samples = []
    try:
        st, seen = wait_job(b.url, job, lambda s: s.get("status") in FINISHED, 90,
                            "shared (status on B)", samples=samples)
    except AssertionError:
        cancel_quietly([a.url, b.url], job)
        raise
    wall = seen - t0
    events.join(timeout=15)
    after = {"A": pages_read(a), "B": pages_read(b)}
    per = {k: after[k] - before[k] for k in after}
    ctx.page_s = wall * 2 / PAGES  # one worker's seconds per page
    log(f"1 shared: POST /jobs on A {t_post:.2f} s; succeeded (seen on B) after {wall:.1f} s; "
        f"pages read per replica {per}; {len(events.events)} events on B")
    assert st["status"] == "succeeded", f"shared: job {st['status']} ({st.get('error')!r})"
    assert st.get("page_count") == PAGES and st.get("pages_done") == PAGES, \
        f"shared: status on B has page_count {st.get('page_count')}, pages_done " \
        f"{st.get('pages_done')}"
    done = [d for _, _, d in samples if d is not None]
    assert all(y >= x for x, y in zip(done, done[1:])), f"shared: pages_done went back: {done}"
    if early.status != 200:  # a 40-page job cannot be over right after its POST
        assert early.status == 409 and error_code(early) == "job_not_finished", \
            f"shared: early GET result on B: {early.status} {early.body[:200]!r}"
    check_document(result(b.url, job), ctx.reference, "shared: result from B")
    check_document(result(a.url, job), ctx.reference, "shared: result from A")
    events.check(ctx.reference, "done", "shared: events on B")
    assert per["A"] > 0 and per["B"] > 0, f"shared: a replica read no page: {per}"
    assert per["A"] + per["B"] == PAGES, \
        f"shared: the replicas read {per['A'] + per['B']} pages for a {PAGES}-page job ({per}): " \
        f"without a failure each page must be read once"


def scenario_kill(ctx):
    """2. kill -9 of replica A mid-job: B finishes, every page exactly once."""
    a, b = ctx.a, ctx.b
    a0, b0 = pages_read(a), pages_read(b)
    t0 = time.monotonic()
    job = post_job(a.url, ctx.pdf)
    events = Events(b.url, path_of(job, "events_url", "/events"), timeout_s=90)
    events.start()
    try:
        st, _ = wait_job(b.url, job, lambda s: (s.get("pages_done") or 0) >= 8, 60,
                         "kill -9 (before the kill)")
        a_read = pages_read(a)
        a.kill()  # SIGKILL to its process group
        t_kill = time.monotonic()
        done_at_kill = st.get("pages_done") or 0
        b_at_kill = pages_read(b)
        left = PAGES - done_at_kill
        bound = LEASE_S + left * ctx.page_s * 3 + 10
        st, seen = wait_job(b.url, job, lambda s: s.get("status") in FINISHED, bound + 30,
                            "kill -9 (after the kill)")
    except AssertionError:
        cancel_quietly([b.url], job)
        raise
    took = seen - t_kill
    events.join(timeout=15)
    b_after = pages_read(b)
    log(f"2 kill -9: A killed at pages_done {done_at_kill} (A had read {a_read - a0} pages, "
        f"B {b_at_kill - b0}); job {st['status']} {took:.1f} s after the kill "
        f"(bound {bound:.1f} s: lease {LEASE_S} s + {left} pages); B read {b_after - b_at_kill} "
        f"pages after the kill, {b_after - b0} in all; whole job {seen - t0:.1f} s")
    assert st["status"] == "succeeded", f"kill -9: job {st['status']} ({st.get('error')!r})"
    assert took <= bound, f"kill -9: job took {took:.1f} s after the kill (bound {bound:.1f} s)"
    check_document(result(b.url, job), ctx.reference, "kill -9: result from B")
    events.check(ctx.reference, "done", "kill -9: events on B")
    assert b_after - b_at_kill > 0, "kill -9: B read no page after the kill"
    assert (a_read - a0) + (b_after - b0) >= PAGES, \
        f"kill -9: A read {a_read - a0} pages before the kill and B {b_after - b0} in all: " \
        f"fewer than the {PAGES} pages of the job"
    ctx.a = start_replica(ctx.binary, ctx.models, ctx.tmp, "replica-a2", ctx.redis1)
    log(f"2 kill -9: replica A restarted as {ctx.a.url}")


def scenario_redis_down(ctx):
    """3. redis-server stopped mid-job and restarted with its data."""
    a, b = ctx.a, ctx.b
    job = post_job(a.url, ctx.pdf)
    try:
        wait_job(a.url, job, lambda s: (s.get("pages_done") or 0) >= 5, 60,
                 "redis down (before the stop)")
        code = ctx.redis1.stop()
        t_down = time.monotonic()
        log(f"3 redis down: redis-server stopped (exit {code}) mid-job")
        # Job routes: 503 not_ready on both replicas (allow a moment to notice).
        seen = {}
        deadline = time.monotonic() + 10
        while len(seen) < 2 and time.monotonic() < deadline:
            for name, s in (("A", a), ("B", b)):
                if name not in seen:
                    t = time.monotonic()
                    ans = status(s.url, job, timeout_s=15)
                    if ans.status == 503:
                        seen[name] = (ans, time.monotonic() - t)
            time.sleep(0.1)
        missing = [n for n in "AB" if n not in seen]
        assert not missing, f"redis down: GET /jobs/{{id}} never answered 503 on {missing}"
        for name, (ans, took) in seen.items():
            assert error_code(ans) == "not_ready", \
                f"redis down: GET /jobs/{{id}} on {name}: 503 code {error_code(ans)!r}, expected " \
                f"not_ready: {ans.body[:200]!r}"
            assert took < 5, f"redis down: GET /jobs/{{id}} on {name} took {took:.1f} s"
        others = {
            "GET result on B": request(b.url, "GET", path_of(job, "result_url", "/result"),
                                       timeout_s=15),
            "POST /jobs on B": request(b.url, "POST", "/jobs",
                                       *L.multipart_body(ctx.small_pdf, {}, "d.pdf"),
                                       timeout_s=15),
        }
        for what, ans in others.items():
            assert ans.status == 503 and error_code(ans) == "not_ready", \
                f"redis down: {what}: {ans.status} {ans.body[:200]!r} (expected 503 not_ready)"
        ocr = request(a.url, "POST", "/ocr", L.json_body(ctx.jpegs[0]), "application/json")
        assert ocr.status == 200 and ocr.texts(), \
            f"redis down: POST /ocr on A: {ocr.status} {ocr.body[:200]!r}"
        assert "4711" in " ".join(ocr.texts()), f"redis down: POST /ocr read {ocr.texts()}"
        for name, s in (("A", a), ("B", b)):
            r = request(s.url, "GET", "/readyz")
            assert r.status == 200, f"redis down: /readyz on {name} answered {r.status}"
        log(f"3 redis down: job routes 503 not_ready on A and B (GET in "
            f"{max(t for _, t in seen.values()) * 1000:.0f} ms), POST /ocr 200 "
            f"{ocr.seconds:.2f} s, /readyz 200")
        time.sleep(max(0.0, LEASE_S + 1.0 - (time.monotonic() - t_down)))  # outlive a lease
        ctx.redis1.start()
        t_up = time.monotonic()
        back = {}
        while len(back) < 2:
            for name, s in (("A", a), ("B", b)):
                if name not in back:
                    ans = status(s.url, job)
                    if ans.status == 200:
                        back[name] = round(time.monotonic() - t_up, 2)
                    assert time.monotonic() - t_up < 10, \
                        f"redis down: GET /jobs/{{id}} on {name} still {ans.status} " \
                        f"{ans.body[:200]!r} 10 s after Redis came back"
            time.sleep(0.1)
        st, seen_at = wait_job(b.url, job, lambda s: s.get("status") in FINISHED, 60,
                               "redis down (after the restart)")
    except AssertionError:
        try:
            if not ctx.redis1.running():
                ctx.redis1.start()
        except AssertionError as e:
            log(f"3 redis down: could not restart redis-server: {e}")
        cancel_quietly([a.url, b.url], job)
        raise
    log(f"3 redis down: down {t_up - t_down:.1f} s; GET /jobs/{{id}} answered 200 after the "
        f"restart within {back} s; job {st['status']} {seen_at - t_up:.1f} s after it")
    assert st["status"] == "succeeded", f"redis down: job {st['status']} ({st.get('error')!r})"
    assert st.get("pages_done") == PAGES, f"redis down: pages_done {st.get('pages_done')}"
    check_document(result(a.url, job), ctx.reference, "redis down: result from A")


def scenario_cancel_limits_ttl(ctx):
    """4. --max-jobs across replicas, DELETE from another replica, --job-ttl."""
    redis2 = Redis(ctx.redis_bin, os.path.join(ctx.tmp, "redis2"), "redis2").start()
    extra = ["--max-jobs", "1", "--job-ttl", str(TTL_S)]
    c = start_replica(ctx.binary, ctx.models, ctx.tmp, "replica-c", redis2, extra)
    d = start_replica(ctx.binary, ctx.models, ctx.tmp, "replica-d", redis2, extra)
    try:
        job = post_job(c.url, ctx.pdf)
        events = Events(c.url, path_of(job, "events_url", "/events"))
        events.start()
        wait_job(d.url, job, lambda s: (s.get("pages_done") or 0) >= 3, 60,
                 "cancel (before the DELETE)")
        # --max-jobs 1 counts the job on C on both replicas.
        for name, s in (("D", d), ("C", c)):
            ans = request(s.url, "POST", "/jobs", *L.multipart_body(ctx.small_pdf, {}, "d.pdf"))
            assert ans.status == 503 and error_code(ans) == "server_busy", \
                f"max-jobs: second POST /jobs on {name}: {ans.status} {ans.body[:200]!r} " \
                f"(expected 503 server_busy)"
            assert ans.headers.get("retry-after"), f"max-jobs: 503 on {name} has no Retry-After"
        log("4 max-jobs: a second POST /jobs on D and on C: 503 server_busy")
        # DELETE on D cancels the job that C (and D) work on.
        dl = request(d.url, "DELETE", f"/jobs/{job['id']}")
        t_del = time.monotonic()
        assert dl.status in (200, 202, 204), f"cancel: DELETE on D: {dl.status} {dl.body[:200]!r}"
        states = {}
        for name, s in (("D", d), ("C", c)):
            st, _ = wait_job(s.url, job, lambda j: j.get("status") in FINISHED, 5,
                             f"cancel (status on {name})", poll_s=0.05)
            states[name] = st
        took = time.monotonic() - t_del
        events.join(timeout=5)
        time.sleep(1.0)
        c1, d1 = pages_read(c), pages_read(d)
        time.sleep(2.0)
        c2, d2 = pages_read(c), pages_read(d)
        done = {n: s.get("pages_done") for n, s in states.items()}
        log(f"4 cancel: DELETE on D -> {dl.status}; cancelled on both within {took:.2f} s at "
            f"pages_done {done}; events on C end with {events.names()[-1:]}; pages read 1 s and "
            f"3 s after: C {c1} -> {c2}, D {d1} -> {d2}")
        for name, st in states.items():
            assert st["status"] == "cancelled", f"cancel: status on {name} is {st['status']}"
        events.check(None, "cancelled", "cancel: events on C")
        assert c2 == c1 and d2 == d1, \
            f"cancel: replicas still read pages of the cancelled job (C {c1} -> {c2}, D {d1} " \
            f"-> {d2} between 1 s and 3 s after the DELETE)"
        # The cancelled job no longer counts: a small job is accepted, then expires.
        deadline = time.monotonic() + 3
        while True:
            body, ctype = L.multipart_body(ctx.small_pdf, {}, "small.pdf")
            ans = request(d.url, "POST", "/jobs", body, ctype)
            if ans.status != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert ans.status == 202, \
            f"max-jobs: POST /jobs after the cancel: {ans.status} {ans.body[:200]!r}"
        small = ans.json()
        st, t_end = wait_job(c.url, small, lambda s: s.get("status") in FINISHED, 30,
                             "ttl (small job)", poll_s=0.05)
        assert st["status"] == "succeeded", f"ttl: small job {st['status']}"
        res = result(d.url, small)
        n = len(res.get("pages", []))
        assert n == 2, f"ttl: the small job's result has {n} pages, expected 2"
        gone = {}
        while len(gone) < 2 and time.monotonic() - t_end < TTL_S + 6:
            for name, s in (("C", c), ("D", d)):
                if name in gone:
                    continue
                ans = status(s.url, small)
                if ans.status == 404:
                    gone[name] = (time.monotonic() - t_end, error_code(ans))
                else:
                    assert ans.status == 200, f"ttl: status on {name}: {ans.status}"
            time.sleep(0.1)
        log(f"4 ttl: small job succeeded; its status answered 404 after {gone} s "
            f"(--job-ttl {TTL_S})")
        assert len(gone) == 2, f"ttl: status still 200 {TTL_S + 6} s after the end: {gone}"
        for name, (after, code) in gone.items():
            assert code == "not_found", f"ttl: 404 on {name} has code {code!r}"
            assert TTL_S - 1 <= after <= TTL_S + 2, \
                f"ttl: status on {name} gone {after:.1f} s after the end (--job-ttl {TTL_S})"
        old = status(c.url, job)  # cancelled more than TTL_S ago
        assert old.status == 404, f"ttl: the cancelled job still answers {old.status}"
    finally:
        for s in (c, d):
            s.stop()
        redis2.stop()


def scenario_nginx(ctx):
    """5. Through nginx: a replica gets SIGTERM mid-job; the survivor finishes."""
    nginx = NF.find_nginx()
    if nginx is None:
        log("5 nginx: SKIPPED (nginx is missing)")
        return "skipped"
    with open(NF.CONF) as f:
        conf = f.read()
    replicas = {ctx.a.port: ("A", ctx.a), ctx.b.port: ("B", ctx.b)}
    prefix = os.path.join(ctx.tmp, "nginx")
    os.makedirs(prefix)
    os.chmod(ctx.tmp, 0o755)  # nginx workers drop to an unprivileged user when started as root
    os.chmod(prefix, 0o777)
    proc, url = NF.start_nginx(
        nginx, conf, [f"127.0.0.1:{p}" for p in replicas], prefix,
        edit=lambda text: text.replace("log_format failover '$status", "log_format failover "
                                       "'$request_method $request_uri $status"),
        preexec_fn=L._die_with_parent)
    _procs.append(proc)
    deadline = time.monotonic() + 10
    while request(url, "GET", "/healthz", timeout_s=2).status != 200:
        assert time.monotonic() < deadline, "nginx: /healthz never answered 200"
        time.sleep(0.1)

    before = {name: pages_read(s) for name, s in replicas.values()}
    t0 = time.monotonic()
    job = post_job(url, ctx.pdf)
    time.sleep(0.2)  # the access log line
    with open(f"{prefix}/access.log") as f:
        line = next((x for x in f.read().splitlines() if x.startswith("POST /jobs ")), "")
    m = re.search(r"upstream=127\.0\.0\.1:(\d+)", line)
    victim_name, victim = replicas.get(int(m.group(1)) if m else 0, replicas[ctx.a.port])
    survivor_name, survivor = next(v for v in replicas.values() if v[1] is not victim)
    polls = []
    try:
        wait_job(url, job, lambda s: (s.get("pages_done") or 0) >= 8, 60,
                 "nginx (before the SIGTERM)")
        surv0 = pages_read(survivor)
        victim.signal(signal.SIGTERM)
        t_term = time.monotonic()
        statuses = []
        exited = None
        while True:
            if exited is None and victim.proc.poll() is not None:
                exited = time.monotonic() - t_term
            a = status(url, job)
            statuses.append(a.status)
            j = a.json() if a.status == 200 else None
            if a.status != 200:
                polls.append(f"{a.status} {a.body[:120]!r}")
            if isinstance(j, dict) and j.get("status") in FINISHED:
                st, seen = j, time.monotonic()
                break
            assert time.monotonic() - t_term < 60, \
                f"nginx: job not finished 60 s after the SIGTERM ({j})"
            time.sleep(0.1)
    except AssertionError:
        cancel_quietly([url], job)
        raise
    code = victim.wait(max(1.0, DRAIN_S + 10 - (time.monotonic() - t_term)))
    if exited is None:
        exited = time.monotonic() - t_term
    surv1 = pages_read(survivor)
    log(f"5 nginx: POST /jobs went to {victim_name}; SIGTERM to {victim_name} at pages_done "
        f">= 8; job {st['status']} {seen - t_term:.1f} s after the SIGTERM ({seen - t0:.1f} s in "
        f"all); {victim_name} exited ({code}) {exited:.1f} s after the SIGTERM; "
        f"{survivor_name} read {surv1 - surv0} pages after the SIGTERM "
        f"({surv1 - before[survivor_name]} in all); {len(statuses)} status polls through "
        f"nginx, {len(polls)} not 200")
    for p in polls[:5]:
        log(f"  status poll through nginx: {p}")
    assert st["status"] == "succeeded", f"nginx: job {st['status']} ({st.get('error')!r})"
    check_document(result(url, job), ctx.reference, "nginx: result through nginx")
    assert not polls, f"nginx: {len(polls)} status polls through nginx were not 200"
    assert code == 0, f"nginx: {victim_name} (SIGTERM) exit code {code} after {exited:.1f} s; " \
        f"log: {victim.log_text()[-1500:]}"
    assert "draining" in victim.log_text(), f"nginx: {victim_name} did not log its drain"
    assert surv1 - surv0 > 0, f"nginx: {survivor_name} read no page after the SIGTERM"
    return None


# --- main ----------------------------------------------------------------------------------------

def run(ctx):
    tmp = ctx.tmp
    t = time.monotonic()
    ctx.jpegs = [L.render_jpeg(tmp, text, font_pt=22, dpi=120) for text in TEXTS]
    ctx.pdf = D.scanned_pdf(ctx.jpegs, PAGES)
    ctx.small_pdf = D.scanned_pdf(ctx.jpegs, 2)
    log(f"rendered {len(TEXTS)} pages {[L.jpeg_frame(j)[:2] for j in ctx.jpegs]}; "
        f"{PAGES}-page PDF of {len(ctx.pdf) // 1024} KiB in {time.monotonic() - t:.1f} s")

    ctx.redis1 = Redis(ctx.redis_bin, os.path.join(tmp, "redis1"), "redis1").start()
    log(f"redis-server on {ctx.redis1.url} (appendonly, dir {ctx.redis1.dir})")
    ctx.a = start_replica(ctx.binary, ctx.models, tmp, "replica-a", ctx.redis1)
    ctx.b = start_replica(ctx.binary, ctx.models, tmp, "replica-b", ctx.redis1)
    log(f"replicas A {ctx.a.url}, B {ctx.b.url} (--threads 1 --job-lease {LEASE_S})")

    body, ctype = L.multipart_body(ctx.pdf, {}, filename="document.pdf")
    ref = request(ctx.a.url, "POST", "/ocr", body, ctype, timeout_s=120)
    doc = ref.json()
    assert ref.status == 200 and isinstance(doc, dict) and len(doc.get("pages", [])) == PAGES, \
        f"reference: synchronous POST /ocr on A: {ref.status} {ref.body[:300]!r}"
    ctx.reference = page_texts(doc)
    ctx.page_s = ref.seconds / PAGES
    assert all(ctx.reference), "reference: a page without text"
    log(f"reference: synchronous POST /ocr of the PDF on A: {ref.seconds:.1f} s "
        f"({ctx.page_s:.2f} s/page); page 0 reads {ctx.reference[0]}")

    failures, skipped = [], []
    for name, fn in (("1 shared", scenario_shared), ("2 kill -9", scenario_kill),
                     ("3 redis down", scenario_redis_down),
                     ("4 cancel/limits/ttl", scenario_cancel_limits_ttl),
                     ("5 nginx", scenario_nginx)):
        if remaining_s() < 20:
            failures.append(f"{name}: not run, out of time")
            continue
        t = time.monotonic()
        try:
            if not ctx.redis1.running():
                ctx.redis1.start()
            for attr, label in (("a", "replica-a"), ("b", "replica-b")):
                s = getattr(ctx, attr)
                if s.proc.poll() is not None:
                    log(f"{label} is not running (exit {s.proc.returncode}); starting another")
                    setattr(ctx, attr, start_replica(ctx.binary, ctx.models, tmp,
                                                     f"{label}-{int(time.monotonic())}",
                                                     ctx.redis1))
            if fn(ctx) == "skipped":
                skipped.append(name)
            log(f"{name}: ok ({time.monotonic() - t:.1f} s)")
        except (AssertionError, KeyError, TypeError, OSError,
                subprocess.CalledProcessError) as e:
            log(f"{name}: FAILED ({time.monotonic() - t:.1f} s): {e}")
            failures.append(f"{name}: {e}")
    for label, s in (("A", ctx.a), ("B", ctx.b)):
        notable = s.notable_log_lines(8)
        if notable:
            log(f"replica {label} log, notable lines:")
            for line in notable:
                print("    " + line, flush=True)
    return failures, skipped


def main():
    binary = L.default_binary()
    redis_bin = find_redis()
    if redis_bin is None:
        L.skip("redis-server is missing (apt-get install redis-server)")
    L.require(binary, models=True, pango=True, ghostscript=True)
    help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True,
                               timeout=20).stdout
    if "--redis" not in help_text or "--job-lease" not in help_text:
        print(f"FAIL: {binary} has no --redis/--job-lease flags (shared jobs, issue 14)")
        return 1
    ctx = Ctx()
    ctx.binary, ctx.redis_bin, ctx.models = binary, redis_bin, L.default_models()
    ctx.tmp = tempfile.mkdtemp(prefix="onnxocr-redis-jobs-")
    timer = threading.Timer(DEADLINE_S, lambda: (print("FAIL: over the time limit", flush=True),
                                                 cleanup(), os._exit(1)))
    timer.daemon = True
    timer.start()
    try:
        failures, skipped = run(ctx)
    except (AssertionError, OSError, subprocess.CalledProcessError) as e:
        failures, skipped = [f"setup: {e}"], []
    finally:
        timer.cancel()
        cleanup()
    log(f"total {time.monotonic() - START:.1f} s")
    if failures:
        for f in failures:
            print(f"FAIL: {f}")
        print(f"(logs kept in {ctx.tmp})")
        return 1
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    print("PASS: jobs shared through Redis" + (f" (skipped: {', '.join(skipped)})"
                                               if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
