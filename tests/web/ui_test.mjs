// Browser test of the Web UI against the real server: starts `onnxocr serve` on a free port,
// drives Debian's chromium through playwright-core, uploads a rendered receipt, and checks the
// lines, the box overlay, hover linking, formats, paste, the error path and a phone-sized layout;
// then the job path: a 20-page PDF (built here from pango-view renders) read page by page with a
// progress bar, a cancelled one, and TIFFs routed by their frame count.
//
// Run: node tests/web/ui_test.mjs (exit 77 = skipped: chromium, playwright-core or pango-view
// missing), or under `node --test`, where a missing prerequisite marks the tests skipped.
// ONNXOCR_BINARY selects the server binary (default build/release/onnxocr).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { buildPdf, buildTiff, decodePngGray } from './fixtures.mjs';
import { browserSkipReason, hasCommand, loadPlaywright } from '../support/node_test_helpers.mjs';
import { startServer, stopServer } from '../support/server_process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const binary = process.env.ONNXOCR_BINARY || path.join(repoRoot, 'build', 'release', 'onnxocr');
const shotDir = path.resolve(process.env.UI_SCREENSHOT_DIR || 'screenshots'); // kept as artifacts
const kStartTimeoutMs = 90_000;
const kResultTimeoutMs = 60_000;
const kJobTimeoutMs = 120_000;
const kPdfPages = 20;
const kPdfDpi = 200; // the server's default --pdf-dpi: each page renders at its PNG's size

const playwright = loadPlaywright(repoRoot);
let skipReason = browserSkipReason(repoRoot, chromiumPath, playwright);
if (skipReason) {
  // chromium or playwright-core is missing: that is the reason
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

// ---- document fixtures: PDFs and TIFFs (fixtures.mjs), each page an image the server must OCR ----

let pdfPath;
let bigPdfPath;
let singleTiffPath;
let multiTiffPath;

// Page n reads "Page n of 20", "Order 10nn shipped to Berlin" and a few more lines.
function renderDocuments() {
  const images = [];
  for (let n = 1; n <= kPdfPages; ++n) {
    const textFile = path.join(tmpDir, `page${n}.txt`);
    const png = path.join(tmpDir, `page${n}.png`);
    fs.writeFileSync(textFile, [
      `Page ${n} of ${kPdfPages}`, `Order ${1000 + n} shipped to Berlin`,
      `Item A${n} blue widgets x ${n + 4}`, `Item B${n} red gadgets x ${n + 7}`,
      `Item C${n} green sprockets x ${n + 2}`, `Delivery week ${n + 10} by truck`,
      `Total ${n * 3}.50 EUR`,
    ].join('\n'));
    execFileSync('pango-view', ['-q', '--background=white', '--font', 'DejaVu Sans 24',
      '--margin', '30', '-o', png, textFile]);
    images.push(decodePngGray(fs.readFileSync(png)));
  }
  pdfPath = path.join(tmpDir, 'orders.pdf');
  fs.writeFileSync(pdfPath, buildPdf(images, kPdfDpi));
  // The one to cancel: twice as long, so it is still running when Cancel is clicked.
  bigPdfPath = path.join(tmpDir, 'orders-long.pdf');
  fs.writeFileSync(bigPdfPath, buildPdf([...images, ...images], kPdfDpi));
  singleTiffPath = path.join(tmpDir, 'one-frame.tif');
  fs.writeFileSync(singleTiffPath, buildTiff(images.slice(0, 1)));
  multiTiffPath = path.join(tmpDir, 'two-frames.tif');
  fs.writeFileSync(multiTiffPath, buildTiff(images.slice(0, 2)));
}

// ---- the tests ----------------------------------------------------------------------------------

describe('web ui', { skip: skipReason ?? false }, () => {
  let server;
  let browser;
  let page;
  const consoleErrors = [];
  const requests = []; // "METHOD /path" of every request the page made

  before(async () => {
    renderReceipt();
    renderDocuments();
    fs.mkdirSync(shotDir, { recursive: true });
    server = await startServer(binary, ['serve', '--host', '127.0.0.1', '--port', '0'],
      { timeoutMs: kStartTimeoutMs });
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
      if (/status of [45]\d\d/.test(msg.text()) && /\/(ocr|info|jobs)$/.test(url)) return;
      consoleErrors.push(`${msg.text()} (${url})`);
    });
    page.on('pageerror', (err) => consoleErrors.push(String(err)));
    page.on('request', (req) => requests.push(`${req.method()} ${new URL(req.url()).pathname}`));
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#drop-zone');
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server.child);
    if (!tmpDir) return;
    if (process.env.KEEP_UI_TEST_DIR) {
      console.log(`# fixtures kept in ${tmpDir}`);
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

    await page.screenshot({ path: path.join(shotDir, 'ui-desktop.png'), fullPage: true });
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

  test('download and copy buttons are ready', async () => {
    assert.match(await page.locator('#download-output').textContent(), /\.json/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#download-output').click(),
    ]);
    assert.match(download.suggestedFilename(), /\.json$/);
    const json = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    assert.equal(json.success, true);
    assert.equal(json.results.length, 2);
    assert.ok(await page.locator('#copy-output').isEnabled());
  });

  test('the searchable PDF downloads from the same file', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: kResultTimeoutMs }),
      page.locator('#download-pdf').click(),
    ]);
    assert.match(download.suggestedFilename(), /\.pdf$/);
    const pdf = fs.readFileSync(await download.path());
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match(pdf.toString('latin1'), /\/GlyphLessFont/); // the text layer's font
    assert.ok(await page.locator('#download-pdf').isEnabled());
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
    await page.screenshot({ path: path.join(shotDir, 'ui-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  // Records, from inside the page, each value #job's data-done takes, and the progress shown at
  // the moment the first recognized line appears in #lines.
  function traceJob() {
    return page.evaluate(() => {
      const job = document.getElementById('job');
      const lines = document.getElementById('lines');
      const trace = { done: [], first: null };
      window.jobTrace = trace;
      new MutationObserver(() => trace.done.push(Number(job.dataset.done))).observe(job, {
        attributes: true,
        attributeFilter: ['data-done'],
      });
      new MutationObserver(() => {
        if (trace.first || job.hidden || !lines.querySelector('.line')) return;
        trace.first = {
          done: Number(job.dataset.done),
          total: Number(job.dataset.total),
          progress: document.getElementById('job-progress-text').textContent,
          lines: [...lines.querySelectorAll('.line .line-text')].map((l) => l.textContent),
        };
      }).observe(lines, { childList: true });
    });
  }

  // Uploads `file` and answers the 202 reply of POST /jobs: {status, location, body}.
  async function uploadJob(file) {
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/jobs',
        { timeout: kResultTimeoutMs }),
      page.setInputFiles('#file-input', file),
    ]);
    return { status: res.status(), location: res.headers().location, body: await res.json() };
  }

  test('a 20-page PDF is read as a job: progress, pages as they come, the whole answer', async () => {
    const started = Date.now();
    await traceJob();
    const before = await currentRun();
    requests.length = 0;
    // The time left shown once a quarter of the pages is read, against the time it really took.
    await page.evaluate((quarter) => {
      const job = document.getElementById('job');
      new MutationObserver(() => {
        if (!window.estimate && Number(job.dataset.done) >= quarter && job.dataset.left) {
          window.estimate = { left: Number(job.dataset.left), at: performance.now() };
        }
      }).observe(job, { attributes: true, attributeFilter: ['data-left'] });
    }, kPdfPages / 4);
    const job = await uploadJob(pdfPath);
    assert.equal(job.status, 202, JSON.stringify(job.body));
    assert.equal(typeof job.body.id, 'string');
    assert.ok(job.location, 'no Location header on 202');
    assert.ok(!requests.includes('POST /ocr'), `a PDF went to /ocr: ${requests}`);
    assert.ok(await page.locator('#job-cancel').isVisible(), 'no Cancel button while the job runs');

    await waitForRun(before);
    const seconds = (Date.now() - started) / 1000;
    const trace = await page.evaluate(() => window.jobTrace);
    const estimate = await page.evaluate(() => window.estimate &&
      { ...window.estimate, actual: (performance.now() - window.estimate.at) / 1000 });
    assert.ok(estimate, 'no time left was shown');
    console.log(`# time left shown: ${estimate.left} s; it took ${estimate.actual.toFixed(1)} s`);
    assert.ok(estimate.left < estimate.actual * 3 + 3 && estimate.left > estimate.actual / 3 - 3,
      `estimated ${estimate.left} s left, took ${estimate.actual} s`);

    // Page 1 was on screen before the last page was read.
    assert.ok(trace.first, 'no line was shown while the job ran');
    assert.equal(trace.first.total, kPdfPages, JSON.stringify(trace.first));
    assert.ok(trace.first.done < trace.first.total,
      `page 1's lines appeared only when all pages were done: ${JSON.stringify(trace.first)}`);
    assert.match(trace.first.progress, new RegExp(`^\\d+ of ${kPdfPages} pages`));
    assert.ok(trace.first.lines.some((l) => normalized(l).includes('Order1001')),
      `page 1's lines: ${JSON.stringify(trace.first.lines)}`);

    // The bar advanced page by page, never back, up to all of them.
    const steps = trace.done.filter((d, i) => i === 0 || d !== trace.done[i - 1]);
    assert.ok(steps.every((d, i) => i === 0 || d > steps[i - 1]), `went back: ${steps}`);
    assert.ok(steps.length >= 3, `progress did not advance in steps: ${steps}`);
    assert.equal(steps.at(-1), kPdfPages);

    // The whole answer: every page, the job panel gone, GET /jobs/{id} succeeded.
    assert.match(await page.locator('#status').textContent(), new RegExp(`on ${kPdfPages} pages`));
    assert.equal(await page.locator('#status').getAttribute('data-state'), 'done');
    assert.ok(await page.locator('#job').isHidden());
    assert.equal(await page.locator('#page-select option').count(), kPdfPages);
    assert.match(await page.locator('#processing-time').textContent(), /\d/);
    const status = await page.request.get(`${server.url}/jobs/${job.body.id}`);
    assert.equal((await status.json()).status, 'succeeded');

    // The page selector switches the lines and boxes shown.
    await page.selectOption('#page-select', String(kPdfPages - 1));
    const last = await page.locator('#lines .line').allTextContents();
    assert.ok(last.some((l) => normalized(l).includes(`Order${1000 + kPdfPages}`)),
      `last page's lines: ${JSON.stringify(last)}`);
    assert.ok((await page.locator('#overlay .box').count()) >= 5);
    await page.screenshot({ path: path.join(shotDir, 'ui-pdf-job.png'), fullPage: true });
    console.log(`# 20-page PDF job: ${seconds.toFixed(1)} s`);
  });

  test('Cancel stops a job', async () => {
    await traceJob();
    const job = await uploadJob(bigPdfPath);
    assert.equal(job.status, 202, JSON.stringify(job.body));
    // Once the first page is shown, cancel.
    await page.waitForFunction(() => window.jobTrace.first !== null, null, { timeout: kJobTimeoutMs });
    await page.screenshot({ path: path.join(shotDir, 'ui-job-running.png'), fullPage: true });
    await page.locator('#job-cancel').click();
    await page.waitForSelector('#status[data-state="cancelled"]', { timeout: kResultTimeoutMs });
    assert.match(await page.locator('#status').textContent(),
      new RegExp(`^Cancelled after \\d+ of ${2 * kPdfPages} pages\\.$`));
    assert.doesNotMatch(await page.locator('#lines').textContent(), /No text was found/);
    // What was read can still be exported: its text, written by the page.
    await page.selectOption('#format', 'text');
    await page.waitForSelector('#output[data-format="text"]', { timeout: kResultTimeoutMs });
    assert.match(normalized(await page.locator('#output').textContent()), /Order1001/);
    await page.screenshot({ path: path.join(shotDir, 'ui-cancelled.png'), fullPage: true });
    await page.selectOption('#format', 'json');
    assert.ok(await page.locator('#job').isHidden());
    const res = await page.request.get(`${server.url}/jobs/${job.body.id}`);
    assert.equal(res.status(), 200);
    assert.equal((await res.json()).status, 'cancelled');
    const read = await page.locator('#page-select option').count();
    assert.ok(read >= 1 && read < 2 * kPdfPages, `${read} pages shown`);
    // Cancelled, then nothing else: no error and no result.
    await page.waitForTimeout(500);
    assert.ok(await page.locator('#error').isHidden());
    assert.equal(await page.locator('#status').getAttribute('data-state'), 'cancelled');
  });

  test('TIFFs go through a job, whose page images the browser can show', async () => {
    let before = await currentRun();
    requests.length = 0;
    const job = await uploadJob(multiTiffPath);
    assert.equal(job.status, 202);
    await waitForRun(before);
    assert.equal(await page.locator('#page-select option').count(), 2);
    assert.match(await page.locator('#status').textContent(), /on 2 pages/);

    before = await currentRun();
    requests.length = 0;
    await uploadJob(singleTiffPath);
    await waitForRun(before);
    assert.ok(requests.includes('POST /jobs'), `requests: ${requests}`);
    assert.ok(!requests.includes('POST /ocr'), `requests: ${requests}`);
    assert.ok(await page.locator('#pager').isHidden());
    const lines = await page.locator('#lines .line').allTextContents();
    assert.ok(lines.some((l) => /Page1of/i.test(normalized(l))), JSON.stringify(lines));
  });

  test('a PDF the server refuses shows its error', async () => {
    const badPdf = path.join(tmpDir, 'damaged.pdf');
    fs.writeFileSync(badPdf, '%PDF-1.4\nnot really a PDF\n');
    const job = await uploadJob(badPdf);
    assert.ok(job.status >= 400 && job.status < 500, `POST /jobs answered ${job.status}`);
    await page.waitForSelector('#error:not([hidden])', { timeout: kResultTimeoutMs });
    const error = await page.locator('#error').textContent();
    assert.equal(typeof job.body.error, 'string', JSON.stringify(job.body));
    assert.ok(error.includes(job.body.error), `shown: ${error}; answered: ${JSON.stringify(job.body)}`);
    assert.equal(await page.locator('#status').getAttribute('data-state'), 'error');
    assert.ok(await page.locator('#job').isHidden());
  });

  test('no script or CSP errors were logged', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
