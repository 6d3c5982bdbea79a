// The `onnxocr serve` process for the Node tests (tests/web/*.mjs, tests/http/openapi_test.mjs):
// start it on an ephemeral port, learn the port from its "listening on HOST:PORT" log line, and
// stop it. Imported relatively (`../support/server_process.mjs`), so the tests still run as plain
// `node FILE` from ctest.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const kLogLimit = 64 * 1024; // the stderr kept: its last 64 KiB
const kStopGraceMs = 15_000; // SIGTERM, then SIGKILL after this long

// Spawns `binary args...` (args should include `serve --host 127.0.0.1 --port 0`, and get a fresh
// --data-dir unless they name where jobs live) and resolves,
// once stderr says "listening on HOST:PORT", with {child, port, url, log}: url is
// http://127.0.0.1:PORT and log() the stderr so far (its last 64 KiB). stderr is read to the end,
// so the server never blocks on it. Rejects, with the end of stderr in the message, if the server
// exits or fails to spawn first, or does not listen within timeoutMs; the process is killed then.
export function startServer(binary, args, { timeoutMs = 60_000 } = {}) {
  // Its own job folder (one server per --data-dir), removed when it exits, unless the test chose
  // where jobs live.
  let dataDir = null;
  if (args[0] === 'serve' && !args.some((a) => ['--data-dir', '--jobs', '--redis'].includes(a))) {
    dataDir = mkdtempSync(join(tmpdir(), 'onnxocr-server-data-'));
    args = [...args, '--data-dir', dataDir];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    if (dataDir) child.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
    let log = '';
    let done = false;
    const finish = (err, port) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        child.kill('SIGKILL');
        reject(new Error(`${err.message}\n--- server stderr ---\n${log.slice(-4000)}`));
      } else {
        resolve({ child, port, url: `http://127.0.0.1:${port}`, log: () => log });
      }
    };
    const timer = setTimeout(
      () => finish(new Error(`server did not log "listening on" within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-kLogLimit);
      if (done) return;
      // A character must follow the port (a newline, or a quote in the JSON log format), so a
      // chunk that ends inside the number does not match early.
      const m = /listening on [^:\s]+:(\d+)\D/.exec(log);
      if (m) finish(null, Number(m[1]));
    });
    child.on('error', (err) => finish(err));
    child.on('exit', (code, signal) =>
      finish(new Error(`server exited early (code ${code}, signal ${signal})`)));
  });
}

// Sends SIGTERM and resolves when the process has exited; SIGKILL if it is still running after
// 15 s. Resolves at once if there is no child or it has already exited.
export function stopServer(child) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), kStopGraceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
