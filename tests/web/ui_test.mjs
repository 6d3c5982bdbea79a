// Browser test of the Web UI against the real server: starts `onnxocr serve` on a free port,
// drives Debian's chromium through playwright-core, uploads a rendered receipt, and checks the
// lines, the box overlay, hover linking, formats, paste, the error path and a phone-sized layout.
//
// Run: node tests/web/ui_test.mjs (exit 77 = skipped: chromium, playwright-core or pango-view
// missing), or under `node --test`, where a missing prerequisite marks the tests skipped.
// ONNXOCR_BINARY selects the server binary (default build/release/onnxocr).

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const binary = process.env.ONNXOCR_BINARY || path.join(repoRoot, 'build', 'release', 'onnxocr');
const kStartTimeoutMs = 90_000;
const kResultTimeoutMs = 60_000;

function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function loadPlaywright() {
  try {
    return createRequire(path.join(repoRoot, 'node_modules', '/'))('playwright-core');
  } catch {
    return null;
  }
}

const playwright = loadPlaywright();
let skipReason = null;
if (!fs.existsSync(chromiumPath)) {
  skipReason = `${chromiumPath} is missing (apt-get install chromium)`;
} else if (!playwright) {
  skipReason = `${repoRoot}/node_modules/playwright-core is missing (scripts/bootstrap installs it)`;
} else if (!hasCommand('pango-view')) {
  skipReason = 'pango-view is missing (apt-get install pango1.0-tools)';
} else if (!fs.existsSync(binary)) {
  skipReason = `server binary ${binary} is missing (build it, or set ONNXOCR_BINARY)`;
}
if (skipReason && !process.env.NODE_TEST_CONTEXT) {
  // Run directly by ctest: SKIP_RETURN_CODE 77.
  console.log(`SKIP: ${skipReason}`);
  process.exit(77);
}

// ---- fixtures -----------------------------------------------------------------------------------

let tmpDir;
let receiptPng;
let notePath;

function renderReceipt() {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxocr-web-ui-'));
  receiptPng = path.join(tmpDir, 'receipt.png');
  notePath = path.join(tmpDir, 'note.txt');
  const textFile = path.join(tmpDir, 'receipt.txt');
  fs.writeFileSync(textFile, 'Receipt 2026-11-21\nTotal amount: 1,234.50 EUR');
  execFileSync('pango-view', ['-q', '--background=white', '--font', 'DejaVu Sans 28',
    '--margin', '30', '-o', receiptPng, textFile]);
  fs.writeFileSync(notePath, 'hello');
}

// Starts the server; resolves with its base URL once stderr says "listening on HOST:PORT".
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', '--host', '127.0.0.1', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    let done = false;
    const finish = (err, url) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        child.kill('SIGKILL');
        reject(new Error(`${err.message}\n--- server stderr ---\n${log.slice(-4000)}`));
      } else {
        resolve({ child, url, log: () => log });
      }
    };
    const timer = setTimeout(
      () => finish(new Error(`server did not log "listening on" within ${kStartTimeoutMs} ms`)),
      kStartTimeoutMs,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /listening on [^:\s]+:(\d+)/.exec(log);
      if (m) finish(null, `http://127.0.0.1:${m[1]}`);
    });
    child.on('error', (err) => finish(err));
    child.on('exit', (code, signal) =>
      finish(new Error(`server exited early (code ${code}, signal ${signal})`)));
  });
}

function stopServer(child) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---- the tests ----------------------------------------------------------------------------------

describe('web ui', { skip: skipReason ?? false }, () => {
  let server;
  let browser;
  let page;
  const consoleErrors = [];

  before(async () => {
    renderReceipt();
    server = await startServer();
    browser = await playwright.chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    // A CSP violation, a script error or a missing asset shows up here. The API's own error
    // statuses (a refused upload, /info not offered) are logged too, and are expected.
    page.on('console', (msg) => {
      const url = msg.location()?.url ?? '';
      if (msg.type() !== 'error') return;
      if (/status of [45]\d\d/.test(msg.text()) && /\/(ocr|info)$/.test(url)) return;
      consoleErrors.push(`${msg.text()} (${url})`);
    });
    page.on('pageerror', (err) => consoleErrors.push(String(err)));
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#drop-zone');
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server.child);
    if (!tmpDir) return;
    if (process.env.KEEP_UI_TEST_DIR) {
      console.log(`# screenshots kept in ${tmpDir}`);
    } else {
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  });

  // Waits until a request started after `previousRun` has been rendered, or fails with #error.
  async function waitForRun(previousRun) {
    await page.waitForFunction(
      (prev) => {
        const run = Number(document.getElementById('results').dataset.run || 0);
        return run > prev || !document.getElementById('error').hidden;
      },
      previousRun,
      { timeout: kResultTimeoutMs },
    );
    const error = await page.locator('#error').evaluate((e) => (e.hidden ? '' : e.textContent));
    assert.equal(error, '', `the page shows an error: ${error}`);
  }

  const currentRun = () =>
    page.evaluate(() => Number(document.getElementById('results').dataset.run || 0));

  const normalized = (s) => s.replace(/\s+/g, '');

  test('serves the page with a CSP and without script errors', async () => {
    const res = await page.request.get(`${server.url}/`);
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-type'] ?? '', /text\/html/);
    assert.match(res.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    assert.ok(await page.locator('label[for="file-input"]').isVisible());
    assert.deepEqual(consoleErrors, []);
  });

  test('upload via the file picker shows lines, boxes and the processing time', async () => {
    const before = await currentRun();
    await page.setInputFiles('#file-input', receiptPng);
    await waitForRun(before);

    const lines = await page.locator('#lines .line').allTextContents();
    assert.equal(lines.length, 2, `lines: ${JSON.stringify(lines)}`);
    assert.ok(
      lines.some((l) => normalized(l).includes('Receipt2026-11-21')),
      `no "Receipt 2026-11-21" in ${JSON.stringify(lines)}`,
    );
    assert.ok(lines.some((l) => /Total/.test(l)), `no "Total" in ${JSON.stringify(lines)}`);
    assert.equal(await page.locator('#overlay .box').count(), 2);

    const time = await page.locator('#processing-time').textContent();
    assert.match(time, /\d+(\.\d+)?/);

    // The overlay is scaled onto the displayed image: its viewBox is the image's size.
    const geom = await page.evaluate(() => {
      const img = document.getElementById('preview');
      const svg = document.getElementById('overlay');
      const a = img.getBoundingClientRect();
      const b = svg.getBoundingClientRect();
      return { vb: svg.getAttribute('viewBox'), nw: img.naturalWidth, nh: img.naturalHeight,
        dw: Math.abs(a.width - b.width), dh: Math.abs(a.height - b.height) };
    });
    assert.equal(geom.vb, `0 0 ${geom.nw} ${geom.nh}`);
    assert.ok(geom.dw < 1 && geom.dh < 1, `overlay does not cover the image: ${JSON.stringify(geom)}`);

    await page.screenshot({ path: path.join(tmpDir, 'desktop.png'), fullPage: true });
  });

  test('hovering a box highlights its line, and hovering a line its box', async () => {
    const box = page.locator('#overlay .box').nth(1);
    await box.hover();
    const index = await box.getAttribute('data-index');
    const line = page.locator(`#lines .line[data-index="${index}"]`);
    assert.match((await line.getAttribute('class')) ?? '', /\bactive\b/);
    assert.equal(await page.locator('#lines .line.active').count(), 1);

    const first = page.locator('#lines .line').first();
    await first.hover();
    const firstIndex = await first.getAttribute('data-index');
    assert.match(
      (await page.locator(`#overlay .box[data-index="${firstIndex}"]`).getAttribute('class')) ?? '',
      /\bactive\b/,
    );
  });

  test('download link and copy button are ready', async () => {
    const href = await page.locator('#download-json').getAttribute('href');
    assert.match(href ?? '', /^blob:/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#download-json').click(),
    ]);
    assert.match(download.suggestedFilename(), /\.json$/);
    const json = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    assert.equal(json.success, true);
    assert.equal(json.results.length, 2);
    assert.ok(await page.locator('#copy-all').isEnabled());
  });

  test('markdown output is shown as text', async () => {
    const before = await currentRun();
    await page.selectOption('#format', 'markdown');
    await page.setInputFiles('#file-input', receiptPng);
    await waitForRun(before);
    await page.waitForSelector('#output[data-format="markdown"]', { timeout: kResultTimeoutMs });
    const output = await page.locator('#output').textContent();
    assert.match(output, /Receipt/);
    await page.selectOption('#format', 'json');
    await page.waitForSelector('#output[data-format="json"]', { timeout: kResultTimeoutMs });
  });

  test('pasting an image from the clipboard runs OCR', async () => {
    const before = await currentRun();
    const base64 = fs.readFileSync(receiptPng).toString('base64');
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const file = new File([bytes], 'clipboard.png', { type: 'image/png' });
      const data = new DataTransfer();
      data.items.add(file);
      document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
    }, base64);
    await waitForRun(before);
    const lines = await page.locator('#lines .line').allTextContents();
    assert.equal(lines.length, 2);
    assert.ok(lines.some((l) => normalized(l).includes('Receipt2026-11-21')));
  });

  test('a file that is not an image shows the server error', async () => {
    await page.setInputFiles('#file-input', notePath);
    await page.waitForSelector('#error:not([hidden])', { timeout: kResultTimeoutMs });
    const error = await page.locator('#error').textContent();
    assert.match(error, /unsupported_media_type|image|PDF/i, error);
    assert.equal(await page.locator('#status').getAttribute('data-state'), 'error');
  });

  test('the layout fits a 375 px wide phone screen', async () => {
    const before = await currentRun();
    await page.setViewportSize({ width: 375, height: 667 });
    await page.setInputFiles('#file-input', receiptPng);
    await waitForRun(before);
    const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(width <= 375, `page is ${width} px wide at a 375 px viewport`);
    await page.screenshot({ path: path.join(tmpDir, 'phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('no script or CSP errors were logged', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
