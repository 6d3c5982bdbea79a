#!/usr/bin/env python3
"""HTTP conformance (issue 15), with raw sockets against the real `onnxocr serve`.

One test method per protocol item of the issue, so each gap is reported on its own:
- every request that cannot be parsed (a header block over 16 KiB: a 40 KB cookie, 300 headers,
  a 20 KB target; a control character in the target, a header line without a colon, a garbage
  request line, an HTTP version other than 1.x, conflicting or negative Content-Length,
  Transfer-Encoding with Content-Length, a bad chunk size) gets a complete HTTP/1.1 answer with
  the right status, `Content-Type: application/json`, X-Request-Id and the body
  {"success": false, "error": <message>, "code": <code>} (exactly those keys; a printable
  message that echoes no more than about 64 characters of the request), and then the server
  closes the connection (recv returns b"" after the body); curl with a 40 KB
  cookie gets 431, not "Empty reply from server"; errors of parsed requests (a 404 for a long
  path, a 415 for a long media type) echo no more of the request either;
- HEAD on every GET route (the API's, the Web UI's /, /app.js, /style.css, and /jobs/<id> of an
  unknown job, 404): the same status and headers as GET, and no body bytes: HEAD and then
  GET /healthz are pipelined on one keep-alive connection and the second answer must start right
  after the first one's header;
- 405 lists HEAD next to GET in Allow;
- paths are percent-decoded (unreserved characters) before routing; %2F stays encoded; NUL,
  `..` segments and malformed escapes are 400 invalid_request;
- probes under a full --max-connections (a second server, --max-connections 8): with 8 idle
  connections held and a flood of idle connections beyond the cap going on, 20 GET /healthz and
  20 GET /readyz on fresh connections all get 200 within 2 s; GET /info over the cap gets 503
  server_busy; an over-cap connection that sends nothing is answered or closed within 3 s;
- /metrics after an OCR request passes `promtool check metrics` (Debian's `prometheus`
  package; the method is skipped when promtool is absent) and has the Content-Type
  `text/plain; version=0.0.4; charset=utf-8`.

Python 3 standard library only; the server is bench/load/ocr_load.py's Server. Exit 0 pass, 1 fail, 77 skipped (the binary or the models are
missing; the reason is printed). About 10 s. Environment: ONNXOCR_BINARY (default
build/release/onnxocr), OCR_MODELS_DIR (default models/ppocrv4). Arguments are unittest's (e.g.
`conformance_test.py MalformedRequestTest.test_bad_chunk_size`).
"""
import base64
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "load"))
import ocr_load as L  # noqa: E402  (bench/load: the server, skip/require)

JOB_ID = "0123456789abcdef0123456789abcdef"  # 32 hex digits: a well-formed id no job has
# An error message may repeat an excerpt of about 64 characters of the request: 64, plus a few
# characters next to it that happen to match the request too (the space before a quoted path).
MAX_ECHO = 64 + 8


# --- raw HTTP ------------------------------------------------------------------------------------

def request(method, target, headers=(), body=b"", version="HTTP/1.1"):
    lines = [f"{method} {target} {version}", "Host: 127.0.0.1"] + list(headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Response:
    """One parsed answer: version, status, headers (list of (name, value)), body bytes."""

    def __init__(self, version, status, headers, body, head_bytes):
        self.version, self.status, self.headers = version, status, headers
        self.body, self.head_bytes = body, head_bytes

    def header(self, name):
        vals = [v for k, v in self.headers if k.lower() == name.lower()]
        return vals[0] if vals else None

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def __repr__(self):
        return f"<{self.head_bytes.decode('latin-1')!r} + body {self.body[:300]!r}>"


class Incomplete(Exception):
    pass


def parse_head(data):
    """(version, status, headers, bytes after the header) of an answer at the start of data."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        raise Incomplete()
    lines = data[:end].decode("latin-1").split("\r\n")
    m = re.fullmatch(r"(HTTP/\d\.\d) (\d{3})(?: .*)?", lines[0])
    if not m:
        raise ValueError(f"not an HTTP status line: {lines[0]!r}")
    headers = []
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.append((k.strip(), v.strip()))
    return m.group(1), int(m.group(2)), headers, data[:end + 4], data[end + 4:]


def parse_response(data, head=False, closed=False):
    """(Response, the bytes after it); raises Incomplete when more bytes are needed."""
    version, status, headers, head_bytes, rest = parse_head(data)
    hmap = {k.lower(): v for k, v in headers}
    if head or status in (204, 304) or 100 <= status < 200:
        return Response(version, status, headers, b"", head_bytes), rest
    if "chunked" in hmap.get("transfer-encoding", "").lower():
        body, pos = b"", 0
        while True:
            eol = rest.find(b"\r\n", pos)
            if eol < 0:
                raise Incomplete()
            size = int(rest[pos:eol].split(b";")[0], 16)
            if len(rest) < eol + 2 + size + 2:
                raise Incomplete()
            body += rest[eol + 2:eol + 2 + size]
            pos = eol + 2 + size + 2
            if size == 0:
                return Response(version, status, headers, body, head_bytes), rest[pos:]
    if "content-length" in hmap:
        n = int(hmap["content-length"])
        if len(rest) < n:
            raise Incomplete()
        return Response(version, status, headers, rest[:n], head_bytes), rest[n:]
    if not closed:
        raise Incomplete()
    return Response(version, status, headers, rest, head_bytes), b""


def connect(port, timeout_s=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Exchange:
    """What one connection got: the parsed answer (None if none), how the connection ended
    after it ('fin', 'reset', 'open' or the error before any answer), extra bytes, seconds."""

    def __init__(self, response, ending, extra, raw, seconds):
        self.response, self.ending, self.extra, self.raw = response, ending, extra, raw
        self.seconds = seconds

    @property
    def status(self):
        return self.response.status if self.response else None

    def __repr__(self):
        return (f"answer {self.response!r}, then {self.ending} (extra {self.extra[:200]!r}); "
                f"all bytes: {self.raw[:600]!r}")


def read_answer(sock, deadline, head=False, data=b""):
    """Reads one answer (data: bytes already read); returns (Response or None, the bytes after
    it, all bytes read, how the connection ended: 'fin', 'reset', ... or None while open)."""
    ending = None
    while True:
        try:
            return (*parse_response(data, head=head, closed=ending is not None), data, ending)
        except Incomplete:
            if ending is not None:
                return None, data, data, ending
        except ValueError:
            return None, data, data, ending or "garbage"
        left = deadline - time.monotonic()
        if left <= 0:
            return None, data, data, "timeout"
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None, data, data, "timeout"
        except ConnectionResetError:
            ending = "reset"
            continue
        except OSError as e:
            ending = f"error {e}"
            continue
        if not chunk:
            ending = "fin"
        data += chunk


def wait_end(sock, timeout_s):
    """After an answer: 'fin' when the peer closes cleanly, 'reset', or 'open' with any bytes."""
    data = b""
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "open", data
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return "open", data
        except ConnectionResetError:
            return "reset", data
        except OSError as e:
            return f"error {e}", data
        if not chunk:
            return "fin", data
        data += chunk


def exchange(port, raw, timeout_s=5, wait_close_s=3.0, head=False):
    """Sends raw on a fresh connection, reads one answer, then waits up to wait_close_s for the
    server to close. A send that fails (the server answered early and closed) is not an error:
    what it answered is read anyway."""
    t0 = time.monotonic()
    with connect(port, timeout_s) as s:
        try:
            s.sendall(raw)
        except OSError:
            pass
        resp, rest, data, ending = read_answer(s, t0 + timeout_s, head=head)
        seconds = time.monotonic() - t0
        if resp is None:
            return Exchange(None, ending or "timeout", b"", data, seconds)
        if ending is None and wait_close_s > 0:
            ending, more = wait_end(s, wait_close_s)
            rest += more
        return Exchange(resp, ending or "open", rest, data, seconds)


def media_type(value):
    return (value or "").split(";")[0].strip().lower()


def white_png(width=160, height=48):
    """A white 8-bit grayscale PNG built here (no rendering tool needed)."""
    def chunk(kind, payload):
        return (struct.pack(">I", len(payload)) + kind + payload +
                struct.pack(">I", zlib.crc32(kind + payload) & 0xffffffff))
    raw = b"".join(b"\x00" + b"\xff" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0,
                                                              0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# --- shared checks -------------------------------------------------------------------------------

class ServerTest(unittest.TestCase):
    server_args = ()
    server = None

    @classmethod
    def setUpClass(cls):
        # `onnxocr serve` on 127.0.0.1, an ephemeral port, its log in a file; started by
        # ocr_load.Server, which waits for "listening on" and /readyz and stops it by PID.
        cls.server = L.Server(L.default_binary(), ["--threads", "1", *cls.server_args],
                              models=[f"ppocrv4={L.default_models()}"],
                              log_dir=tempfile.mkdtemp(prefix="onnxocr-conformance-"))
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            cls.server.stop()
            shutil.rmtree(cls.server.log_dir, ignore_errors=True)

    @property
    def port(self):
        return self.server.port

    def assert_error(self, ex, raw, status, code, closes=True):
        """ex is a complete HTTP/1.1 error answer of the issue's shape; with closes, the
        connection is closed cleanly after it."""
        where = f"request {raw[:200]!r}{'...' if len(raw) > 200 else ''} got {ex!r}"
        r = ex.response
        self.assertIsNotNone(r, f"no complete HTTP answer ({ex.ending}): {where}")
        self.assertEqual(r.version, "HTTP/1.1", f"answered as {r.version}: {where}")
        self.assertEqual(r.status, status, where)
        self.assertEqual(media_type(r.header("Content-Type")), "application/json", where)
        self.assertTrue(r.header("X-Request-Id"), f"no X-Request-Id: {where}")
        self.assertEqual(r.header("Content-Length"), str(len(r.body)), where)
        body = r.json()
        self.assertIsInstance(body, dict, f"body is not a JSON object: {where}")
        self.assertEqual(set(body), {"success", "error", "code"}, f"body keys: {where}")
        self.assertIs(body["success"], False, where)
        self.assertEqual(body["code"], code, where)
        msg = body["error"]
        self.assertIsInstance(msg, str, f"error is not a string: {where}")
        self.assertTrue(msg.strip(), f"empty error message: {where}")
        self.assertTrue(msg.isprintable(), f"error message has unprintable characters: {msg!r}")
        text = raw.decode("latin-1")
        for i in range(len(msg) - MAX_ECHO):
            if msg[i:i + MAX_ECHO + 1] in text:
                self.fail(f"the error message echoes more than {MAX_ECHO} characters of the "
                          f"request ({len(msg)} characters: {msg[:160]!r}...): {where}")
        if closes:
            self.assertEqual(ex.ending, "fin",
                             f"the connection was not closed cleanly after the answer "
                             f"(recv did not return b'' within 3 s): {where}")
            self.assertEqual(ex.extra, b"", f"bytes after the answer: {where}")
        return body

    def error_case(self, raw, status, code, closes=True):
        ex = exchange(self.port, raw, wait_close_s=3.0 if closes else 0)
        return self.assert_error(ex, raw, status, code, closes)

    def get(self, target, headers=()):
        ex = exchange(self.port, request("GET", target, headers), wait_close_s=0)
        self.assertIsNotNone(ex.response, f"GET {target}: {ex!r}")
        return ex.response


# --- requests that cannot be parsed --------------------------------------------------------------

class MalformedRequestTest(ServerTest):

    def test_header_block_over_16k_is_431(self):
        cases = {
            "40 KB Cookie": request("GET", "/healthz", ["Cookie: session=" + "c" * 40000]),
            "300 headers, 18 KB": request("GET", "/healthz",
                                          [f"X-Filler-{i:03d}: {'f' * 48}" for i in range(300)]),
            "20 KB request target": request("GET", "/healthz?q=" + "t" * 20000),
        }
        for name, raw in cases.items():
            with self.subTest(name):
                self.error_case(raw, 431, "header_too_large")

    def test_header_block_over_16k_curl(self):
        curl = shutil.which("curl")
        if curl is None:
            self.skipTest("curl is not installed")
        p = subprocess.run([curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                            "Cookie: session=" + "c" * 40000,
                            f"http://127.0.0.1:{self.port}/healthz"],
                           capture_output=True, text=True, timeout=20)
        self.assertNotIn("Empty reply from server", p.stderr)
        self.assertEqual((p.returncode, p.stdout), (0, "431"), f"curl: {p.stderr.strip()}")

    def test_control_character_in_target(self):
        for ch in (b"\x01", b"\x7f", b"\x1b"):
            with self.subTest(repr(ch)):
                self.error_case(b"GET /heal" + ch + b"thz HTTP/1.1\r\nHost: x\r\n\r\n", 400,
                                "invalid_request")

    def test_header_line_without_colon(self):
        self.error_case(b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n", 400,
                        "invalid_request")

    def test_garbage_request_line(self):
        for raw in (b"HELLO\r\n\r\n", b"GET\r\n\r\n", b"GET /healthz\r\nHost: x\r\n\r\n"):
            with self.subTest(raw):
                self.error_case(raw, 400, "invalid_request")

    def test_unsupported_http_version_is_505(self):
        for version in ("HTTP/2.0", "HTTP/3.0", "HTTP/0.9"):
            with self.subTest(version):
                self.error_case(request("GET", "/healthz", version=version), 505,
                                "http_version_not_supported")

    def test_conflicting_content_length(self):
        self.error_case(request("POST", "/ocr", ["Content-Type: application/json",
                                                 "Content-Length: 5", "Content-Length: 6"],
                                b"{}    "), 400, "invalid_request")

    def test_chunked_with_content_length(self):
        self.error_case(request("POST", "/ocr", ["Content-Type: application/json",
                                                 "Transfer-Encoding: chunked",
                                                 "Content-Length: 7"], b"2\r\n{}\r\n0\r\n\r\n"),
                        400, "invalid_request")

    def test_bad_chunk_size(self):
        self.error_case(request("POST", "/ocr", ["Content-Type: application/json",
                                                 "Transfer-Encoding: chunked"],
                                b"zz\r\n{}\r\n0\r\n\r\n"), 400, "invalid_request")

    def test_error_message_is_a_short_excerpt(self):
        # Parsed requests too: a message names what was wrong without repeating the request.
        cases = {
            "404 for a 2000-character path": (request("GET", "/nope-" + "p" * 2000), 404,
                                              "not_found"),
            "415 for a 300-character media type": (
                request("POST", "/ocr", ["Content-Type: text/" + "m" * 300, "Content-Length: 2"],
                        b"{}"), 415, "unsupported_media_type"),
        }
        for name, (raw, status, code) in cases.items():
            with self.subTest(name):
                self.error_case(raw, status, code, closes=False)

    def test_negative_content_length(self):
        self.error_case(request("POST", "/ocr", ["Content-Type: application/json",
                                                 "Content-Length: -5"], b"{}"),
                        400, "invalid_request")


# --- HEAD, 405 -----------------------------------------------------------------------------------

GET_ROUTES = ("/healthz", "/readyz", "/metrics", "/info", "/openapi.json", "/docs", "/docs.css",
              "/", "/app.js", "/style.css", f"/jobs/{JOB_ID}", f"/jobs/{JOB_ID}/result",
              f"/jobs/{JOB_ID}/events")
# Headers that differ between any two answers.
PER_ANSWER = {"date", "x-request-id"}


class HeadTest(ServerTest):

    def head_then_healthz(self, target):
        """HEAD target and GET /healthz pipelined in one write on one keep-alive connection;
        returns the HEAD answer. The GET's answer must start right after the HEAD's header."""
        raw = request("HEAD", target) + request("GET", "/healthz")
        with connect(self.port) as s:
            s.sendall(raw)
            deadline = time.monotonic() + 5
            head, rest, data, ending = read_answer(s, deadline, head=True)
            self.assertIsNotNone(head, f"HEAD {target}: no answer header ({ending}): {data!r}")
            while len(rest) < 9 and ending is None and time.monotonic() < deadline:
                s.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                rest += chunk
            self.assertTrue(rest.startswith(b"HTTP/1.1 "),
                            f"HEAD {target}: the bytes after its header are not the next answer "
                            f"(a body was sent?): header {head.head_bytes!r}, then {rest[:200]!r}")
            nxt, extra, data, ending = read_answer(s, deadline, data=rest)
            self.assertIsNotNone(nxt, f"HEAD {target}, then GET /healthz: {ending}: {data!r}")
            self.assertEqual(nxt.status, 200, f"HEAD {target}, then GET /healthz: {nxt!r}")
            self.assertEqual(nxt.json(), {"status": "ok"}, f"GET /healthz after HEAD {target}")
            _, more = wait_end(s, 0.2)
            self.assertEqual(extra + more, b"", f"HEAD {target}: bytes after the GET's answer")
        return head

    def test_head_on_every_get_route(self):
        for target in GET_ROUTES:
            with self.subTest(target):
                head = self.head_then_healthz(target)
                get = self.get(target)
                where = f"HEAD {target}: {head!r}\nGET {target}: {get!r}"
                self.assertEqual(head.status, get.status, where)
                if target.startswith("/jobs/"):
                    self.assertEqual(head.status, 404, where)
                self.assertEqual(head.header("Content-Type"), get.header("Content-Type"), where)
                cl = head.header("Content-Length")
                self.assertIsNotNone(cl, f"HEAD {target}: no Content-Length: {where}")
                if target == "/metrics":
                    # Counters move between the two requests (the HEAD itself is counted), so
                    # the lengths match within a few lines only.
                    self.assertLess(abs(int(cl) - len(get.body)), 1024, where)
                else:
                    self.assertEqual(int(cl), len(get.body), where)

                def rest(r):
                    skip = PER_ANSWER | ({"content-length"} if target == "/metrics" else set())
                    return sorted((k.lower(), v) for k, v in r.headers if k.lower() not in skip)
                self.assertEqual(rest(head), rest(get), f"headers differ: {where}")

    def test_405_allow_lists_head_with_get(self):
        for target, method, want in (("/healthz", "POST", {"GET", "HEAD"}),
                                     ("/metrics", "DELETE", {"GET", "HEAD"}),
                                     ("/app.js", "POST", {"GET", "HEAD"}),
                                     (f"/jobs/{JOB_ID}", "PUT", {"GET", "HEAD", "DELETE"})):
            with self.subTest(f"{method} {target}"):
                raw = request(method, target, ["Content-Length: 0"])
                ex = exchange(self.port, raw, wait_close_s=0)
                self.assert_error(ex, raw, 405, "method_not_allowed", closes=False)
                allow = {m.strip() for m in (ex.response.header("Allow") or "").split(",")}
                self.assertEqual(allow, want, f"Allow: {ex.response.header('Allow')!r}")


# --- percent-decoding ----------------------------------------------------------------------------

class PathDecodingTest(ServerTest):

    def path_error(self, target, status, code):
        raw = request("GET", target)
        self.assert_error(exchange(self.port, raw, wait_close_s=0), raw, status, code,
                          closes=False)

    def test_unreserved_escapes_are_decoded(self):
        for target in ("/%68ealthz", "/h%65althz", "/%68%65%61%6C%74%68%7A"):
            with self.subTest(target):
                r = self.get(target)
                self.assertEqual((r.status, r.json()), (200, {"status": "ok"}), repr(r))

    def test_encoded_slash_stays_encoded(self):
        for target in ("/%2Fhealthz", "/healthz%2F", "/jobs%2F" + JOB_ID):
            with self.subTest(target):
                self.path_error(target, 404, "not_found")

    def test_nul_in_path(self):
        for target in ("/%00", "/heal%00thz", "/healthz%00"):
            with self.subTest(target):
                self.path_error(target, 400, "invalid_request")

    def test_dot_dot_segment(self):
        for target in ("/%2e%2e/healthz", "/%2E%2E/healthz", "/../healthz", "/docs/../healthz",
                       "/.%2e/healthz"):
            with self.subTest(target):
                self.path_error(target, 400, "invalid_request")

    def test_malformed_escape(self):
        for target in ("/%zz", "/%4", "/healthz%", "/%g0healthz"):
            with self.subTest(target):
                self.path_error(target, 400, "invalid_request")


# --- /metrics ------------------------------------------------------------------------------------

class MetricsTest(ServerTest):

    def test_metrics_content_type(self):
        r = self.get("/metrics")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8")

    def test_promtool_check_metrics(self):
        promtool = shutil.which("promtool")
        if promtool is None:
            self.skipTest("promtool is missing (apt-get install prometheus)")
        body = json.dumps({"image": base64.b64encode(white_png()).decode("ascii")})
        raw = request("POST", "/ocr", ["Content-Type: application/json",
                                       f"Content-Length: {len(body)}"], body.encode())
        ex = exchange(self.port, raw, timeout_s=60, wait_close_s=0)
        self.assertEqual(ex.status, 200, f"POST /ocr (a white PNG): {ex!r}")
        for target in ("/healthz", "/nope", f"/jobs/{JOB_ID}"):
            self.get(target)
        r = self.get("/metrics")
        self.assertEqual(r.status, 200, repr(r))
        p = subprocess.run([promtool, "check", "metrics"], input=r.body, capture_output=True,
                           timeout=30)
        err = [l for l in p.stderr.decode("utf-8", "replace").splitlines()
               if l.strip() and l.strip() != "OK"]
        self.assertEqual((p.returncode, err), (0, []),
                         f"promtool check metrics: exit {p.returncode}, stdout "
                         f"{p.stdout.decode('utf-8', 'replace')!r}, stderr {err!r}")


# --- probes under a full --max-connections -------------------------------------------------------

CAP = 8
FLOOD = 200
PROBES = 20
PROBE_BOUND_S = 2.0
SILENT_BOUND_S = 3.0


class Flood:
    """Keeps about FLOOD idle connections (never a byte sent) beyond the cap, opening new ones as
    fast as it can on a thread and closing the oldest, until stopped."""

    def __init__(self, port):
        self.port = port
        self.socks = []
        self.opened = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def open_one(self):
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
            self.socks.append(s)
            self.opened += 1
        except OSError:
            self.failed += 1
        while len(self.socks) > FLOOD:
            self.socks.pop(0).close()

    def __enter__(self):
        for _ in range(FLOOD):  # the first wave, as fast as possible
            self.open_one()
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.open_one()

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)
        for s in self.socks:
            s.close()
        self.socks = []


class ConnectionCapTest(ServerTest):
    server_args = ("--max-connections", str(CAP), "--read-timeout", "60")

    def setUp(self):
        # CAP idle keep-alive connections, no byte sent: the server is full.
        time.sleep(0.3)  # the connections of the previous test are gone
        self.idle = [connect(self.port) for _ in range(CAP)]
        time.sleep(0.3)  # accepted and counted
        poller = select.poll()
        for s in self.idle:
            poller.register(s, select.POLLIN)
        self.assertEqual(poller.poll(0), [], "the server answered or closed one of the "
                                             f"{CAP} connections that fill it")

    def tearDown(self):
        for s in self.idle:
            s.close()
        time.sleep(0.3)  # the server sees them go

    def probe(self, target):
        t0 = time.monotonic()
        try:
            with connect(self.port, timeout_s=PROBE_BOUND_S) as s:
                s.sendall(request("GET", target, ["Connection: close"]))
                resp, _, data, ending = read_answer(s, t0 + PROBE_BOUND_S)
        except OSError as e:
            return time.monotonic() - t0, None, f"{type(e).__name__}: {e}"
        return time.monotonic() - t0, resp, f"{ending}: {data[:200]!r}"

    def test_probes_answered_while_flooded(self):
        results = []
        with Flood(self.port) as flood:
            for _ in range(PROBES):
                for target, ok in (("/healthz", {"status": "ok"}), ("/readyz",
                                                                   {"status": "ready"})):
                    seconds, resp, detail = self.probe(target)
                    results.append((target, seconds, resp, detail, ok))
            opened, failed = flood.opened, flood.failed
        worst = max(s for _, s, _, _, _ in results)
        print(f"\n  probes under a full cap ({CAP}) and a flood of idle connections "
              f"({opened} opened, {failed} connects failed): {len(results)} probes, slowest "
              f"{worst * 1000:.1f} ms", flush=True)
        bad = [f"{t}: {s * 1000:.0f} ms, {repr(r) if r else detail}"
               for t, s, r, detail, ok in results
               if r is None or r.status != 200 or r.json() != ok or s > PROBE_BOUND_S]
        if bad:
            self.fail(f"{len(bad)} of {len(results)} probes failed (bound "
                      f"{PROBE_BOUND_S:.0f} s); the first ones:\n" + "\n".join(bad[:3]))

    def test_over_cap_other_route_gets_503(self):
        raw = request("GET", "/info")
        ex = exchange(self.port, raw)
        body = self.assert_error(ex, raw, 503, "server_busy")
        self.assertEqual(ex.response.header("Retry-After"), "1", repr(ex))
        print(f"\n  GET /info over the cap: {body['error']!r}", flush=True)

    def test_over_cap_silent_connection_not_held(self):
        t0 = time.monotonic()
        with connect(self.port) as s:
            resp, _, data, ending = read_answer(s, t0 + SILENT_BOUND_S + 2)
            seconds = time.monotonic() - t0
            if resp is not None and ending is None:
                ending, _ = wait_end(s, 1.0)
        print(f"\n  a silent over-cap connection: {resp.status if resp else 'no answer'}, "
              f"{ending} after {seconds * 1000:.0f} ms", flush=True)
        self.assertTrue(resp is not None or ending in ("fin", "reset"),
                        f"neither answered nor closed ({ending}): {data[:200]!r}")
        self.assertLessEqual(seconds, SILENT_BOUND_S, f"held {seconds:.1f} s")
        if resp is not None:
            self.assertEqual(resp.status, 503, repr(resp))
            self.assertEqual(resp.json().get("code") if isinstance(resp.json(), dict) else None,
                             "server_busy", repr(resp))


if __name__ == "__main__":
    L.require(L.default_binary(), pango=False)  # exits 77 with the reason
    unittest.main(verbosity=2)
