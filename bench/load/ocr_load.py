"""Shared code of the load tools (bench/load/) and load tests (tests/load/): Python 3 standard
library only, plus Debian's pango-view and ghostscript for rendering inputs.

- Server: starts `onnxocr serve` on 127.0.0.1 with an ephemeral port in its own process group,
  parses "listening on 127.0.0.1:PORT" from its log, waits for /readyz, samples its RSS, and stops
  it by PID. Every server started here is killed when the Python process exits, even on an
  exception or a signal (atexit + SIGTERM/SIGINT handlers), and by the kernel when this process
  is killed outright (PR_SET_PDEATHSIG).
- Client: one keep-alive HTTP/1.1 connection (http.client) that reconnects after errors.
- Inputs: text rendered by pango-view (PNG) or pango-view + ghostscript (JPEG), request bodies,
  the API's bad inputs with the status and error code each must get.
- Load: a closed loop (N clients back to back) and an open loop (requests at a fixed rate from a
  pool of sender threads, whatever the server does), both recording every answer.
- Numbers: percentiles, RSS sampling, Prometheus text parsing.

Tests exit 77 (ctest's SKIP_RETURN_CODE) through skip() when something they need is missing.
"""
import atexit
import base64
import http.client
import json
import os
import queue
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:6.1f}s] {msg}", flush=True)


def skip(reason):
    print(f"SKIP: {reason}", flush=True)
    sys.exit(SKIP)


def default_binary():
    """$ONNXOCR_BINARY, else build/release/onnxocr in this checkout."""
    return os.environ.get("ONNXOCR_BINARY") or os.path.join(ROOT, "build", "release", "onnxocr")


def default_models():
    """$OCR_MODELS_DIR, else models/ppocrv4 in this checkout."""
    return os.environ.get("OCR_MODELS_DIR") or os.path.join(ROOT, "models", "ppocrv4")


def shared_testdata():
    """$OCR_SHARED_TESTDATA, else ../shared/testdata next to the checkout (None when absent)."""
    d = os.environ.get("OCR_SHARED_TESTDATA") or os.path.join(os.path.dirname(ROOT), "shared",
                                                               "testdata")
    return d if os.path.isdir(d) else None


def require(binary, models=True, pango=True, ghostscript=False):
    """Skips (exit 77) when the binary, the models or a rendering tool is missing."""
    if not os.access(binary, os.X_OK):
        skip(f"server binary {binary} is missing (build it, or set ONNXOCR_BINARY)")
    if models and not os.path.isfile(os.path.join(default_models(), "rec", "rec.onnx")):
        skip(f"models missing under {default_models()} (run scripts/bootstrap)")
    if pango and shutil.which("pango-view") is None:
        skip("pango-view is missing (apt-get install pango1.0-tools)")
    if ghostscript and shutil.which("gs") is None:
        skip("ghostscript is missing (apt-get install ghostscript)")


# --- the server ----------------------------------------------------------------------------------

_servers = []  # every Server started by this process, killed at exit


def _kill_all():
    for s in list(_servers):
        s.kill()


def _on_signal(signo, _frame):
    _kill_all()
    sys.exit(128 + signo)


atexit.register(_kill_all)
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    try:
        signal.signal(_sig, _on_signal)
    except ValueError:  # not the main thread (imported from a worker): atexit still applies
        pass


def _die_with_parent():
    """Runs in the child before exec: SIGKILL it when this process dies, even by SIGKILL (a
    ctest timeout), so no server outlives its test. Linux only; elsewhere a no-op."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def raise_nofile(want):
    """Raises RLIMIT_NOFILE (soft) towards `want`, up to the hard limit; returns the new soft
    limit. Servers started afterwards inherit it."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            # Root may raise the hard limit too.
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            except (ValueError, OSError):
                pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Server:
    """One `onnxocr serve` process on 127.0.0.1. Use as a context manager, or call stop()."""

    def __init__(self, binary, args=(), port=0, models=None, log_dir=None, name="server",
                 env=None, log_format="text"):
        self.binary = binary
        self.name = name
        self.args = list(args)
        self.port = port
        self.models = models
        self.env = env
        self.log_format = log_format  # None: no --log-format (the server's default, json)
        self._own_dir = log_dir is None
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="onnxocr-load-")
        self.log_path = os.path.join(self.log_dir, f"{name}.log")
        # Its own job folder (one server per --data-dir), kept across its restarts.
        self.data_dir = tempfile.mkdtemp(prefix=f"{name}-data-", dir=self.log_dir)
        self.proc = None
        self.spawned_at = None

    def command(self):
        cmd = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        if not {"--data-dir", "--jobs", "--redis"} & set(self.args):
            cmd += ["--data-dir", self.data_dir]
        if self.log_format:
            cmd += ["--log-format", self.log_format]
        if self.models:
            for m in self.models:
                cmd += ["--models", m]
        return cmd + self.args

    def start(self, wait_ready=True, timeout_s=60):
        """Spawns the server; returns once it listens (and /readyz is 200 when wait_ready)."""
        with open(self.log_path, "ab") as err:
            self.spawned_at = time.monotonic()
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=err,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         env=self.env, preexec_fn=_die_with_parent)
        _servers.append(self)
        self.port = self.wait_listening(timeout_s)
        if wait_ready:
            self.wait_ready(timeout_s)
        return self

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.log_dir, ignore_errors=True)

    @property
    def pid(self):
        return self.proc.pid

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def log_text(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def notable_log_lines(self, limit=40):
        """The last `limit` log lines other than access lines, info lines and connections that
        ended normally (--log-level debug logs every connection's end and why)."""
        levels = {"trace", "debug", "warning", "warn", "error", "critical"}
        out = [line for line in self.log_text().splitlines()
               if line.split(" ", 2)[1:2] and line.split(" ", 2)[1] in levels and
               not line.endswith(": end of stream")]
        return out[-limit:]

    def wait_listening(self, timeout_s=60):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            # The last "listening on" line: a restarted server appends to the same log.
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log_text())
            if found and self.proc.poll() is None:
                return int(found.group(1))
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.proc.returncode} before "
                                     f"listening:\n{self.log_text()[-3000:]}")
            time.sleep(0.02)
        raise AssertionError(f"{self.name} did not log 'listening on' in {timeout_s} s")

    def wait_ready(self, timeout_s=60):
        """Polls /readyz until 200; returns seconds since the process was spawned."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if get(self.url, "/readyz", timeout_s=2).status == 200:
                    return time.monotonic() - self.spawned_at
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.proc.returncode}:\n"
                                     f"{self.log_text()[-3000:]}")
            time.sleep(0.01)
        raise AssertionError(f"{self.name}: /readyz not 200 within {timeout_s} s")

    def rss_kb(self):
        """VmRSS of the server process in KiB (None once it has exited)."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def signal(self, signo):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signo)

    def wait(self, timeout_s):
        """Exit code, or None when still running after timeout_s."""
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        """SIGKILL to the process group (the server and anything it started)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        if self in _servers:
            _servers.remove(self)

    def stop(self, timeout_s=15):
        """SIGTERM (drain), then SIGKILL after timeout_s; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            if self.wait(timeout_s) is None:
                log(f"{self.name} did not stop {timeout_s} s after SIGTERM; killing it")
        code = self.proc.poll()
        self.kill()
        return code

    def restart(self, port=None, wait_ready=True):
        """Spawns the same command again (with a fresh log file), on `port` if given."""
        self.restarts = getattr(self, "restarts", 0) + 1
        self.log_path = os.path.join(self.log_dir, f"{self.name}.{self.restarts}.log")
        if port is not None:
            self.port = port
        self.proc = None
        return self.start(wait_ready=wait_ready)


class _BackgroundLoop:
    """Runs self._run on a daemon thread between __enter__ and __exit__; _stop ends it."""

    def __init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.monotonic()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def elapsed_s(self):
        return time.monotonic() - self._t0


class RssSampler(_BackgroundLoop):
    """Samples a server's VmRSS every interval_s on a thread: (seconds since start, KiB)."""

    def __init__(self, server, interval_s=0.25):
        super().__init__()
        self.server = server
        self.interval_s = interval_s
        self.samples = []

    def _run(self):
        while not self._stop.is_set():
            kb = self.server.rss_kb()
            if kb is not None:
                self.samples.append((time.monotonic() - self._t0, kb))
            self._stop.wait(self.interval_s)

    def max_mb(self, since_s=0.0, until_s=float("inf")):
        vals = [kb for t, kb in self.samples if since_s <= t <= until_s]
        return round(max(vals) / 1024, 1) if vals else None

    def median_mb(self, since_s=0.0, until_s=float("inf")):
        vals = sorted(kb for t, kb in self.samples if since_s <= t <= until_s)
        return round(vals[len(vals) // 2] / 1024, 1) if vals else None


class StallMeter(_BackgroundLoop):
    """Watches the load generator's own scheduling: a thread sleeps tick_s at a time and records
    each wake-up more than threshold_s late as (seconds since start, seconds late). A stall here
    means this process, or the whole machine, did not run; latencies measured across it measure
    the machine, not the server."""

    def __init__(self, tick_s=0.01, threshold_s=0.05):
        super().__init__()
        self.tick_s = tick_s
        self.threshold_s = threshold_s
        self.stalls = []

    def _run(self):
        while True:
            before = time.monotonic()
            if self._stop.wait(self.tick_s):
                return
            late = time.monotonic() - before - self.tick_s
            if late > self.threshold_s:
                self.stalls.append((before - self._t0, late))

    def summary(self):
        return {"max_ms": ms(max((s for _, s in self.stalls), default=0.0)),
                "over_%g_ms" % (self.threshold_s * 1000): len(self.stalls)}


# --- HTTP ----------------------------------------------------------------------------------------

class Answer:
    """One HTTP answer: status (int, or a string such as 'error: ...' for a transport failure),
    lower-cased headers, body bytes, seconds from send to the full answer."""
    __slots__ = ("status", "headers", "body", "seconds", "sent_at", "tag")

    def __init__(self, status, headers, body, seconds, sent_at=0.0, tag=None):
        self.status = status
        self.headers = headers
        self.body = body
        self.seconds = seconds
        self.sent_at = sent_at
        self.tag = tag

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def error_code(self):
        j = self.json()
        if isinstance(j, dict) and isinstance(j.get("error"), str):
            return j.get("code")
        return None

    def texts(self):
        """The recognized lines' texts, in order (None when the body has no `results`)."""
        j = self.json()
        if not isinstance(j, dict) or not isinstance(j.get("results"), list):
            return None
        return tuple(str(r.get("text", "")) for r in j["results"])

    def __repr__(self):
        return f"Answer({self.status}, {self.seconds * 1000:.1f} ms, {self.body[:200]!r})"


class Client:
    """One keep-alive connection to the server; reconnects after any transport error."""

    def __init__(self, url, timeout_s=120):
        m = re.match(r"http://([^:/]+):(\d+)", url)
        self.host, self.port = m.group(1), int(m.group(2))
        self.timeout_s = timeout_s
        self.conn = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _closed_by_server(self):
        """True when the kept-alive connection became readable while idle: the server closed it
        (it closes idle connections after --read-timeout) or reset it. Sending on it would fail
        with a broken pipe, so like urllib3 before reusing a pooled connection, reconnect."""
        sock = self.conn.sock if self.conn is not None else None
        if sock is None:
            return False
        poller = select.poll()  # not select(): tests hold thousands of descriptors
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))

    def request(self, method, path, body=None, headers=None, tag=None):
        start = time.monotonic()
        try:
            if self.conn is not None and self._closed_by_server():
                self.close()
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port,
                                                       timeout=self.timeout_s)
            self.conn.request(method, path, body=body, headers=headers or {})
            resp = self.conn.getresponse()
            data = resp.read()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
            if resp.will_close:
                self.close()
            return Answer(resp.status, hdrs, data, time.monotonic() - start, start, tag)
        except (OSError, http.client.HTTPException) as e:
            self.close()
            return Answer(f"error: {type(e).__name__}: {e}", {}, b"", time.monotonic() - start,
                          start, tag)

    def request_header_only(self, method, path, content_length, headers, tag=None):
        """Sends a header declaring `content_length` bytes and no body, then reads the answer
        (the server must answer from the header alone, e.g. 413)."""
        start = time.monotonic()
        try:
            self.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
            self.conn.putrequest(method, path)
            for k, v in headers.items():
                self.conn.putheader(k, v)
            self.conn.putheader("Content-Length", str(content_length))
            self.conn.endheaders()
            resp = self.conn.getresponse()
            data = resp.read()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
            self.close()  # the body was never sent: this connection cannot be reused
            return Answer(resp.status, hdrs, data, time.monotonic() - start, start, tag)
        except (OSError, http.client.HTTPException) as e:
            self.close()
            return Answer(f"error: {type(e).__name__}: {e}", {}, b"", time.monotonic() - start,
                          start, tag)

    def post(self, path, body, content_type="application/json", tag=None):
        return self.request("POST", path, body, {"Content-Type": content_type}, tag)


def get(url, path, timeout_s=10):
    c = Client(url, timeout_s)
    try:
        a = c.request("GET", path)
    finally:
        c.close()
    if isinstance(a.status, str):
        raise OSError(a.status)
    return a


def metrics(url):
    """GET /metrics parsed: {'name{labels}': value}."""
    out = {}
    for line in get(url, "/metrics").body.decode().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            try:
                out[key] = float(value)
            except ValueError:
                pass
    return out


def metric_sum(parsed, name, **labels):
    """Sum of a metric's samples whose labels include `labels`."""
    total = 0.0
    for key, value in parsed.items():
        if key != name and not key.startswith(name + "{"):
            continue
        if all(f'{k}="{v}"' in key for k, v in labels.items()):
            total += value
    return total


# --- inputs --------------------------------------------------------------------------------------

def render_png(directory, text, font_pt=28, margin_px=30, font="DejaVu Sans"):
    """Renders `text` with pango-view into a PNG (black on white); returns its bytes."""
    stem = os.path.join(directory, f"r{abs(hash((text, font_pt, margin_px, font)))}")
    with open(stem + ".txt", "w", encoding="utf-8") as f:
        f.write(text)
    subprocess.run(["pango-view", "-q", "--background=white", "--font", f"{font} {font_pt}",
                    "--margin", str(margin_px), "-o", stem + ".png", stem + ".txt"],
                   check=True, timeout=60)
    with open(stem + ".png", "rb") as f:
        return f.read()


def render_jpeg(directory, text, font_pt=28, dpi=72, quality=90, font="DejaVu Serif"):
    """Renders `text` with pango-view into a PDF, then ghostscript rasterizes it at `dpi` into
    a JPEG; returns its bytes (the image size scales with dpi)."""
    stem = os.path.join(directory, f"j{abs(hash((text, font_pt, dpi, font)))}")
    with open(stem + ".txt", "w", encoding="utf-8") as f:
        f.write(text)
    subprocess.run(["pango-view", "-q", "--background=white", "--font", f"{font} {font_pt}",
                    "--margin", "20", "-o", stem + ".pdf", stem + ".txt"], check=True, timeout=60)
    subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=jpeg",
                    f"-r{dpi}", f"-dJPEGQ={quality}", "-dTextAlphaBits=4",
                    "-dGraphicsAlphaBits=4", f"-sOutputFile={stem}.jpg", stem + ".pdf"],
                   check=True, timeout=60, stdout=subprocess.DEVNULL)
    with open(stem + ".jpg", "rb") as f:
        return f.read()


def jpeg_frame(data):
    """(width, height, components) from a JPEG's start-of-frame marker (any SOF kind); None when
    there is none."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h, data[i + 9]
        i += 2 + struct.unpack(">H", data[i + 2:i + 4])[0]
    return None


def image_size(data):
    """(width, height) of a PNG or a JPEG, from its header."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    frame = jpeg_frame(data)
    return frame[:2] if frame else None


def png_with_size(width, height):
    """A well-formed PNG header (valid CRCs) declaring width x height, with one tiny IDAT: a
    decompression-bomb shape the server must refuse from the header."""
    def chunk(kind, payload):
        return (struct.pack(">I", len(payload)) + kind + payload +
                struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def json_body(image_bytes, **options):
    return json.dumps({"image": base64.b64encode(image_bytes).decode("ascii"),
                       **options}).encode()


def multipart_body(image_bytes, fields=None, filename="upload.bin"):
    """(body, content type) of a multipart/form-data upload with `file` and extra fields."""
    boundary = "----onnxocr-load-" + os.urandom(8).hex()
    parts = []
    for name, value in (fields or {}).items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     f"{value}\r\n".encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                 .encode() + image_bytes + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Case:
    """One request of a workload: what to send and what must come back.

    For a good input `expect_status` is 200 and `reference` (texts at idle) is filled in by
    take_references(); for a bad one, expect_status/expect_code are those of spec/API.md."""

    def __init__(self, name, path, body, content_type="application/json", expect_status=200,
                 expect_code=None, method="POST", declared_length=None):
        self.name = name
        # When set: send only the header, declaring this Content-Length (for 413 checks).
        self.declared_length = declared_length
        self.path = path
        self.body = body
        self.content_type = content_type
        self.expect_status = expect_status
        self.expect_code = expect_code
        self.method = method
        self.reference = None
        self.idle_s = None  # seconds of the reference answer
        self.source = None  # free-form origin of the input, for reports

    def send(self, client):
        headers = {"Content-Type": self.content_type} if self.content_type else {}
        if self.declared_length is not None:
            return client.request_header_only(self.method, self.path, self.declared_length,
                                              headers, tag=self)
        return client.request(self.method, self.path, self.body, headers, tag=self)

    def check(self, answer):
        """None when the answer is right, else what is wrong."""
        if answer.status != self.expect_status:
            return f"status {answer.status}, expected {self.expect_status}: {answer.body[:200]!r}"
        if self.expect_code is not None and answer.error_code() != self.expect_code:
            return f"code {answer.error_code()}, expected {self.expect_code}"
        if self.expect_status == 200 and self.reference is not None:
            texts = answer.texts()
            if texts != self.reference:
                return f"texts {texts} differ from the idle reference {self.reference}"
        return None


def take_references(url, cases):
    """Sends each good case once, sequentially (an idle server), and stores its texts."""
    c = Client(url)
    try:
        for case in cases:
            if case.expect_status != 200:
                continue
            a = case.send(c)
            if a.status != 200 or a.texts() is None:
                raise AssertionError(f"reference answer for {case.name}: {a}")
            case.reference = a.texts()
            case.idle_s = a.seconds
    finally:
        c.close()


def bad_input_cases(text_png, max_image_pixels=50_000_000, max_body_mb=32):
    """The API's bad inputs (spec/API.md section 3), each with its status and error code."""
    big = int((max_image_pixels * 4) ** 0.5) + 1  # 4x over the pixel limit
    trunc = text_png[:len(text_png) // 2]
    garbage = bytes((i * 97 + 13) % 256 for i in range(4096))
    corrupt_jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + \
        garbage
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    form_ok, form_ct = multipart_body(text_png)
    return [
        Case("bad base64", "/ocr", b'{"image": "@@not*base64!!"}', expect_status=400,
             expect_code="invalid_base64"),
        Case("truncated png", "/ocr", json_body(trunc), expect_status=422,
             expect_code="undecodable_image"),
        Case("corrupt jpeg", "/ocr", json_body(corrupt_jpeg), expect_status=422,
             expect_code="undecodable_image"),
        Case("not an image", "/ocr", json_body(b"hello, this is plain text, not a picture\n" * 8),
             expect_status=415, expect_code="unsupported_media_type"),
        Case("huge declared dimensions", "/ocr", json_body(png_with_size(big, big)),
             expect_status=422, expect_code="image_too_large"),
        Case("huge declared dimensions (multipart)", "/ocr",
             *multipart_body(png_with_size(big, big)), expect_status=422,
             expect_code="image_too_large"),
        Case("pdf in the json form", "/ocr", json_body(pdf), expect_status=415,
             expect_code="unsupported_media_type"),
        Case("bad json", "/ocr", b'{"image": "iVBOR', expect_status=400,
             expect_code="invalid_json"),
        Case("json not an object", "/ocr_api", b'["image"]', expect_status=400,
             expect_code="invalid_json"),
        Case("missing image", "/ocr", b'{"cls": true}', expect_status=400,
             expect_code="missing_field"),
        Case("bad option", "/ocr", json_body(text_png, drop_score=7), expect_status=400,
             expect_code="invalid_option"),
        Case("unknown model", "/ocr", json_body(text_png, model="no-such-model"),
             expect_status=400, expect_code="invalid_option"),
        Case("wrong content type", "/ocr", b"image=abc", content_type="text/plain",
             expect_status=415, expect_code="unsupported_media_type"),
        Case("multipart without file", "/ocr",
             b"--b\r\nContent-Disposition: form-data; name=\"output_format\"\r\n\r\ntext\r\n"
             b"--b--\r\n", content_type="multipart/form-data; boundary=b", expect_status=400,
             expect_code="missing_field"),
        Case("broken multipart", "/ocr", b"--b\r\nno headers and no end",
             content_type="multipart/form-data; boundary=b", expect_status=400,
             expect_code="invalid_multipart"),
        Case("multipart to /ocr_api", "/ocr_api", form_ok, content_type=form_ct,
             expect_status=415, expect_code="unsupported_media_type"),
        Case("body over --max-body-mb (declared)", "/ocr", None,
             declared_length=(max_body_mb << 20) + 1, expect_status=413,
             expect_code="payload_too_large"),
        Case("GET /ocr", "/ocr", None, content_type=None, method="GET", expect_status=405,
             expect_code="method_not_allowed"),
        Case("unknown route", "/no/such/route", None, content_type=None, method="GET",
             expect_status=404, expect_code="not_found"),
    ]


# --- load ----------------------------------------------------------------------------------------

def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list; None for an empty one."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


def closed_loop(url, pick, clients, duration_s):
    """`clients` threads send back to back for duration_s; pick(i) gives the i-th Case.
    Returns the answers (tag = the Case)."""
    answers = []
    lock = threading.Lock()
    counter = [0]
    stop_at = time.monotonic() + duration_s

    def send(c):
        while time.monotonic() < stop_at:
            with lock:
                i = counter[0]
                counter[0] += 1
            a = pick(i).send(c)
            with lock:
                answers.append(a)

    on_clients(url, clients, send)
    return answers


def on_clients(url, clients, work):
    """Runs work(client) on `clients` threads at once, each with its own keep-alive Client, and
    waits for all of them."""

    def run():
        c = Client(url)
        try:
            work(c)
        finally:
            c.close()

    threads = [threading.Thread(target=run, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class OpenLoop:
    """Offers `rate_per_s` requests per second for duration_s, on a fixed schedule that does not
    wait for answers: request i is due at start + i / rate. A pool of `senders` threads (each
    with its own keep-alive connection) takes due requests in order; `max_outstanding` (if set)
    caps requests in flight, and a request that had to wait for that cap counts as `held`.
    `lag_s` lists how late each request left compared with its schedule."""

    def __init__(self, url, rate_per_s, duration_s, pick, senders, max_outstanding=None,
                 on_answer=None):
        self.url = url
        self.rate = rate_per_s
        self.duration_s = duration_s
        self.pick = pick
        self.senders = senders
        self.max_outstanding = max_outstanding
        self.on_answer = on_answer
        self.answers = []
        self.lag_s = []
        self.held = 0
        self._lock = threading.Lock()

    def run(self):
        tickets = queue.Queue()
        slots = threading.BoundedSemaphore(self.max_outstanding or 1_000_000)
        t0 = time.monotonic() + 0.05
        n = int(self.rate * self.duration_s)

        def sender():
            c = Client(self.url)
            try:
                while True:
                    i = tickets.get()
                    if i is None:
                        return
                    due = t0 + i / self.rate
                    now = time.monotonic()
                    if due > now:
                        time.sleep(due - now)
                    if not slots.acquire(blocking=False):
                        with self._lock:
                            self.held += 1
                        slots.acquire()
                    lag = time.monotonic() - due
                    a = self.pick(i).send(c)
                    slots.release()
                    if self.on_answer is not None:
                        self.on_answer(a)
                    with self._lock:
                        self.answers.append(a)
                        self.lag_s.append(lag)
            finally:
                c.close()

        threads = [threading.Thread(target=sender, daemon=True) for _ in range(self.senders)]
        for t in threads:
            t.start()
        for i in range(n):
            tickets.put(i)
        for _ in threads:
            tickets.put(None)
        for t in threads:
            t.join()
        return self.answers


def summarize_statuses(answers):
    out = {}
    for a in answers:
        key = str(a.status)
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def print_summary(summary):
    print("SUMMARY " + json.dumps(summary, indent=2, sort_keys=False), flush=True)


def report(summary, json_out=None):
    """Prints the summary and one PASS/FAIL line per check, saves it to `json_out` when given,
    and returns the exit code (0 when every check passed)."""
    print_summary(summary)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(summary, f, indent=2)
    for name, ok in summary["checks"].items():
        print(f"{'PASS' if ok else 'FAIL'}: {name}")
    return 0 if summary["pass"] else 1
