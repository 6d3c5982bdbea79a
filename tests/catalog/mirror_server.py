#!/usr/bin/env python3
"""A model mirror for tests: serves the files under ROOT over HTTP on 127.0.0.1, on a port the
kernel picks (printed as the first line of standard output, "PORT 12345"), with Range requests
(206 and Content-Range; 416 past the end) as the publishers' servers answer them.

  mirror_server.py ROOT LOG [--truncate-once URL_PATH]...

Each request is appended to LOG as one line, "GET /path range=bytes=100-" (range=- without a
Range header). --truncate-once: the first GET of that path announces the whole length but sends
only half of it, then closes the connection (a download cut short). Stop it with SIGTERM.
"""
import http.server
import os
import re
import signal
import sys
import threading
import urllib.parse


def main():
    root, log_path = sys.argv[1], sys.argv[2]
    truncate = set()
    args = sys.argv[3:]
    while args:
        flag, value, args = args[0], args[1], args[2:]
        if flag != "--truncate-once":
            sys.exit(f"unknown flag {flag}")
        truncate.add(value)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            rng = self.headers.get("Range")
            with lock:
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(f"GET {path} range={rng or '-'}\n")
                cut = path in truncate
                truncate.discard(path)
            file = os.path.realpath(os.path.join(root, path.lstrip("/")))
            if ".." in path.split("/") or not os.path.isfile(file):
                self.send_error(404)
                return
            size = os.path.getsize(file)
            start = 0
            m = re.fullmatch(r"bytes=(\d+)-", rng or "")
            if m:
                start = int(m.group(1))
                if start >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
            else:
                self.send_response(200)
            length = size - start
            self.send_header("Content-Length", str(length))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            send = length // 2 if cut else length
            with open(file, "rb") as f:
                f.seek(start)
                while send > 0:
                    chunk = f.read(min(send, 1 << 16))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    send -= len(chunk)
            if cut:
                self.wfile.flush()
                self.close_connection = True

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
