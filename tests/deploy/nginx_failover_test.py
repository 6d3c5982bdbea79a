#!/usr/bin/env python3
"""Failover through the shipped nginx configuration, for real: no Docker, no mocks.

Starts two `onnxocr serve --host 127.0.0.1 --port 0` processes and Debian's nginx with the
configuration generated FROM deploy/nginx/onnxocr.conf (only the upstream `server` line becomes
the two loopback servers, with the same parameters, and `listen` becomes a free loopback port;
a wrapper adds the pid, log and temp paths under a temporary prefix). Four client threads send
60 OCR requests through nginx; after a quarter of them, one server gets SIGTERM. Every request
must get 200 with the rendered text, the stopped server must drain and exit 0, and the other must
have taken over. Also checks that the file's limits match the server's defaults (serve --help).

Exit 0 pass, 1 fail, 77 skipped (nginx, pango-view or the server binary missing). Bounded: 90 s.
Environment: ONNXOCR_BINARY (default build/release/onnxocr), NGINX (default: nginx on PATH or
/usr/sbin/nginx).
"""
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ocr_client  # noqa: E402  (same directory)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONF = os.path.join(ROOT, "deploy", "nginx", "onnxocr.conf")
SKIP = 77
DEADLINE_S = 90
CLIENTS = 4
REQUESTS = 60
STOP_AFTER = REQUESTS // 4  # completed requests before the SIGTERM

START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:5.1f}s] {msg}", flush=True)


def remaining_s():
    return DEADLINE_S - (time.monotonic() - START)


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def find_program(env_var, name, fallback):
    """$env_var if set (None when not executable), else `name` on PATH, else `fallback`."""
    explicit = os.environ.get(env_var)
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which(name) or (fallback if os.access(fallback, os.X_OK) else None)


def find_nginx():
    return find_program("NGINX", "nginx", "/usr/sbin/nginx")


def serve_defaults(binary):
    """Flag -> default value, parsed from `onnxocr serve --help` (e.g. '--max-body-mb': '32')."""
    out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True,
                         timeout=20, check=True).stdout
    return dict(re.findall(r"^\s+(--[a-z-]+)\s[^=\n]*=(\S+)", out, re.M))


def check_limits(conf, defaults):
    """The shipped file's limits and retry policy agree with the server's defaults."""
    def value(directive):
        m = re.search(rf"^\s*{directive}\s+([^;]+);", conf, re.M)
        assert m, f"{directive} missing from {CONF}"
        return m.group(1).strip()

    def seconds(v):
        return int(v.rstrip("s"))

    assert "least_conn;" in conf, "upstream must use least_conn"
    assert re.search(r"^\s*server\s+\S+\s+.*max_fails=\d+.*fail_timeout=\d+s", conf, re.M), \
        "upstream server needs max_fails and fail_timeout (passive health checks)"
    assert value("client_max_body_size") == defaults["--max-body-mb"] + "m", \
        "client_max_body_size must equal --max-body-mb"
    read_s, request_s = int(defaults["--read-timeout"]), int(defaults["--request-timeout"])
    for d in ("client_body_timeout", "client_header_timeout", "send_timeout",
              "proxy_send_timeout"):
        assert seconds(value(d)) == read_s, f"{d} must equal --read-timeout ({read_s}s)"
    assert request_s < seconds(value("proxy_read_timeout")) <= request_s + 10, \
        "proxy_read_timeout must be a little over --request-timeout"
    retry = value("proxy_next_upstream").split()
    for word in ("error", "timeout", "http_503", "non_idempotent"):
        assert word in retry, f"proxy_next_upstream lacks {word}"
    assert int(value("proxy_next_upstream_tries")) >= 2, "proxy_next_upstream_tries must be >= 2"


def start_nginx(nginx, conf, upstreams, prefix, edit=lambda text: text, **popen):
    """nginx running `conf` as render_config makes it (then `edit`ed) in front of `upstreams`,
    on a free loopback port (tried again when the port is taken between the probe and nginx's
    bind). Returns (process, base URL)."""
    conf_path = os.path.join(prefix, "nginx.conf")
    proc = None
    for _ in range(3):
        port = free_port()
        with open(conf_path, "w") as f:
            f.write(edit(render_config(conf, upstreams, port, prefix)))
        subprocess.run([nginx, "-t", "-q", "-p", prefix, "-e", f"{prefix}/error.log", "-c",
                        conf_path], check=True, timeout=20)
        proc = subprocess.Popen([nginx, "-p", prefix, "-e", f"{prefix}/error.log", "-c", conf_path,
                                 "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True, **popen)
        time.sleep(0.3)
        if proc.poll() is None:
            break
    assert proc.poll() is None, open(f"{prefix}/error.log").read()
    return proc, f"http://127.0.0.1:{port}"


def render_config(conf, upstreams, port, prefix):
    """The shipped snippet with loopback upstreams and port, wrapped in a standalone config."""
    server_re = re.compile(r"^(\s*)server\s+\S+:\d+((?:\s+[^;\s]+)*)\s*;", re.M)
    m = server_re.search(conf)
    assert m and len(server_re.findall(conf)) == 1, "expected one upstream server line"
    lines = "\n".join(f"{m.group(1)}server {u}{m.group(2)};" for u in upstreams)
    body = conf[:m.start()] + lines + conf[m.end():]
    body, n = re.subn(r"^(\s*)listen\s+\d+\s*;", rf"\g<1>listen 127.0.0.1:{port};", body,
                      flags=re.M)
    assert n == 1, "expected one `listen PORT;` line"
    return f"""# generated by {os.path.basename(__file__)} from {CONF}
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 256; }}
http {{
    log_format failover '$status $request_time upstream=$upstream_addr '
                        'upstream_status=$upstream_status';
    access_log {prefix}/access.log failover;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
{body}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary, tmp, name, procs):
    err_path = os.path.join(tmp, f"{name}.log")
    err = open(err_path, "w")
    p = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0",
                          "--threads", "1", "--log-format", "text",
                          "--data-dir", os.path.join(tmp, f"{name}-data")],
                         stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    procs.append(p)
    return p, err_path


def wait_listening(p, err_path, name):
    while remaining_s() > 30:
        with open(err_path) as f:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
        if m:
            return int(m.group(1))
        if p.poll() is not None:
            raise AssertionError(f"{name} exited with {p.returncode}: {open(err_path).read()}")
        time.sleep(0.1)
    raise AssertionError(f"{name} did not start listening")


def wait_http_ok(url):
    while remaining_s() > 25:
        try:
            if ocr_client.get(url, "/healthz", timeout_s=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} never answered /healthz")


def run(tmp, binary, nginx, procs):
    with open(CONF) as f:
        conf = f.read()
    check_limits(conf, serve_defaults(binary))
    log("deploy/nginx/onnxocr.conf limits match `onnxocr serve --help` defaults")
    png = ocr_client.render_png(tmp)
    body = ocr_client.ocr_body(png)

    a, a_log = start_server(binary, tmp, "server-a", procs)
    b, b_log = start_server(binary, tmp, "server-b", procs)
    ports = [wait_listening(a, a_log, "server-a"), wait_listening(b, b_log, "server-b")]
    log(f"servers listening on {ports}")

    prefix = os.path.join(tmp, "nginx")
    os.makedirs(prefix)
    os.chmod(tmp, 0o755)  # nginx workers drop to an unprivileged user when started as root
    os.chmod(prefix, 0o777)
    nginx_proc, url = start_nginx(nginx, conf, [f"127.0.0.1:{p}" for p in ports], prefix)
    procs.append(nginx_proc)
    wait_http_ok(url)
    log(f"nginx {url} in front of both")

    lock = threading.Lock()
    next_index = [0]
    done = [0]
    results = []  # (index, status, missing words, finished after the SIGTERM)
    stopped = threading.Event()

    def client():
        while True:
            with lock:
                if next_index[0] >= REQUESTS or remaining_s() < 15:
                    return
                i = next_index[0]
                next_index[0] += 1
            try:
                status, answer = ocr_client.post_ocr(url, body, timeout_s=30)
            except OSError as e:
                status, answer = f"client error: {e}", None
            with lock:
                results.append((i, status, ocr_client.missing_words(answer), stopped.is_set()))
                done[0] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    while done[0] < STOP_AFTER and any(t.is_alive() for t in threads):
        time.sleep(0.01)
    with lock:
        in_flight = next_index[0] - done[0]
    a.send_signal(signal.SIGTERM)
    stopped.set()
    log(f"SIGTERM to server-a after {done[0]} answers, {in_flight} request(s) in flight")
    for t in threads:
        t.join(timeout=max(1.0, remaining_s() - 10))
    try:
        a_code = a.wait(timeout=max(1.0, remaining_s() - 8))
    except subprocess.TimeoutExpired:
        a_code = "still running"

    failures = [r for r in results if r[1] != 200 or r[2]]
    after = sum(1 for r in results if r[3])
    with open(f"{prefix}/access.log") as f:
        access = f.read().splitlines()
    retried = [line for line in access if "upstream=" in line and "," in line.split("upstream=")[1]]
    per_upstream = {p: sum(1 for line in access if f"127.0.0.1:{p}" in line) for p in ports}
    log(f"{len(results)}/{REQUESTS} answers, {len(failures)} failed, {after} finished after the "
        f"SIGTERM; nginx sent to upstreams {per_upstream}; {len(retried)} retried on another "
        f"replica; server-a exit code {a_code}")
    for line in retried[:5]:
        log(f"  retried: {line}")
    for r in failures[:10]:
        log(f"  FAILED request {r[0]}: status {r[1]}, missing {r[2]}")
    assert len(results) == REQUESTS, f"only {len(results)} of {REQUESTS} requests finished"
    assert not failures, f"{len(failures)} client request(s) failed"
    assert a_code == 0, f"server-a (SIGTERM) exit code {a_code}; log: {open(a_log).read()[-2000:]}"
    with open(a_log) as f:
        assert "draining" in f.read(), "server-a did not log its drain"
    assert after > 0, "no request finished after the SIGTERM"
    assert b.poll() is None, "server-b died"
    assert all(n > 0 for n in per_upstream.values()), "least_conn did not use both servers"


def main():
    binary = os.environ.get("ONNXOCR_BINARY", os.path.join(ROOT, "build", "release", "onnxocr"))
    nginx = find_nginx()
    if nginx is None:
        skip("nginx is missing (scripts/bootstrap installs Debian's nginx)")
    if shutil.which("pango-view") is None:
        skip("pango-view is missing (apt-get install pango1.0-tools)")
    if not os.access(binary, os.X_OK):
        skip(f"server binary {binary} is missing (build it, or set ONNXOCR_BINARY)")
    procs = []
    tmp = tempfile.mkdtemp(prefix="onnxocr-failover-")
    timer = threading.Timer(DEADLINE_S, lambda: (print("FAIL: over the time limit", flush=True),
                                                 cleanup(procs), os._exit(1)))
    timer.daemon = True
    timer.start()
    try:
        run(tmp, binary, nginx, procs)
        print("PASS: no client request failed while a replica drained")
        return 0
    except (AssertionError, KeyError, subprocess.CalledProcessError, OSError) as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        timer.cancel()
        cleanup(procs)
        shutil.rmtree(tmp, ignore_errors=True)


def cleanup(procs):
    """Stops every process this test started, by PID: SIGTERM, then SIGKILL after 5 s."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # nginx: fast shutdown; onnxocr: drain
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(main())
