// Browser tests of the Web UI's viewer, exports, languages, files and regions against the real
// server, each asserting what a person sees: a zoomed box still covers its word, a PDF's page
// image is drawn under its boxes, the downloaded Markdown is the API's output, a format switch
// reads nothing again, the Chinese page has no English string left, a region reads only its lines,
// a new upload clears the old result. Screenshots of each state, at 1280 and 390 px, go to
// ./screenshots (ctest: build/<preset>/tests/web/screenshots/).
//
// Run: node tests/web/ui_features_test.mjs (exit 77 = skipped). ONNXOCR_BINARY selects the server
// binary; ONNXOCR_WEB_DIR=src/web serves the UI's files from that folder instead of the binary's
// (with the server's CSP), to try a change without relinking.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { browserSkipReason, hasCommand, loadPlaywright } from '../support/node_test_helpers.mjs';
import { startServer, stopServer } from '../support/server_process.mjs';
import { buildPdf, decodePngGray, renderText } from './fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const binary = process.env.ONNXOCR_BINARY || path.join(repoRoot, 'build', 'release', 'onnxocr');
const webDir = process.env.ONNXOCR_WEB_DIR ? path.resolve(process.env.ONNXOCR_WEB_DIR) : '';
const shotDir = path.resolve(process.env.UI_SCREENSHOT_DIR || 'screenshots');
const kTimeoutMs = 60_000;
const kPageBudgetBytes = 150 * 1024;

const playwright = loadPlaywright(repoRoot);
let skipReason = browserSkipReason(repoRoot, chromiumPath, playwright);
if (!skipReason && !hasCommand('pango-view')) skipReason = 'pango-view is missing';
if (!skipReason && !fs.existsSync(binary)) skipReason = `server binary ${binary} is missing`;
if (skipReason && !process.env.NODE_TEST_CONTEXT) {
  console.log(`SKIP: ${skipReason}`);
  process.exit(77);
}

// The UI's English strings (not names like JSON or PDF): none may be left on the Chinese page.
const kEnglish = ['Extract text', 'API docs', 'Drop images', 'paste one', 'Choose files', 'Output format',
  'lines and boxes', 'Plain text', 'Options', 'Pages (e.g.', 'Read every page', 'Separate the pages',
  'Drop lines', 'Word boxes', 'Model set', 'Read again', 'Files', 'Cancel', 'Detected text', 'Zoom',
  'Fit width', 'Fit page', 'Select region', 'Full screen', 'Lines', 'Processed in', 'Output', 'Copy',
  'Download', 'Searchable PDF', 'Tables', 'Source', 'Preview', 'Done', 'lines in', 'Page ', 'of ',
  'Show', 'done', 'waiting', 'Recognized', 'uploaded document', 'Detected text boxes', 'Results',
  'Previous page', 'Next page', 'whole page', 'Region', 'Files are processed', 'Documentation',
  'Switch the page', 'Confidence', 'No text', 'drag to pan'];

let tmp;
const fx = {};

function makeFixtures() {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxocr-ui-features-'));
  fx.letter = renderText(tmp, 'letter', ['Invoice 4711 for Berlin', 'Delivery on Monday morning',
    'Apples 12 boxes', 'Pears 30 crates'], 'DejaVu Sans 28');
  fx.note = renderText(tmp, 'note', ['Second file here', 'Thanks for reading'], 'DejaVu Sans 28');
  // Columns aligned by spaces in a monospaced font: a table without rules.
  fx.table = renderText(tmp, 'table', ['Item          Qty     Price', 'Apples         12      3.50',
    'Pears           4      1.20', 'Plums          30      9.00', 'Cherries        7      2.75'],
  'DejaVu Sans Mono 24');
  const pages = [1, 2, 3].map((n) => decodePngGray(fs.readFileSync(renderText(tmp, `p${n}`, [
    `Chapter ${n} of the report`, `Order ${2000 + n} shipped to Hamburg`, `Total ${n * 7}.25 EUR`]))));
  fx.pdf = path.join(tmp, 'report.pdf');
  fs.writeFileSync(fx.pdf, buildPdf(pages, 200));
  fx.text = path.join(tmp, 'not-an-image.txt');
  fs.writeFileSync(fx.text, 'hello');
}

describe('web ui features', { skip: skipReason ?? false }, () => {
  let server;
  let browser;
  let context;
  let page;
  const errors = [];
  const requests = [];

  async function openPage(options = {}) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true,
      ...options });
    if (webDir) {
      const csp = (await ctx.request.get(`${server.url}/`)).headers()['content-security-policy'];
      await ctx.route(/\/([\w-]+\.(js|css))?$/, (route) => {
        const name = new URL(route.request().url()).pathname.slice(1) || 'index.html';
        const type = { js: 'text/javascript', css: 'text/css', html: 'text/html' }[name.split('.').pop()];
        route.fulfill({ body: fs.readFileSync(path.join(webDir, name)),
          headers: { 'content-type': `${type}; charset=utf-8`, 'content-security-policy': csp } });
      });
    }
    const p = await ctx.newPage();
    p.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      if (/status of [45]\d\d/.test(msg.text()) && /\/(ocr|info)$/.test(msg.location()?.url ?? '')) return;
      errors.push(`${msg.text()} (${msg.location()?.url ?? ''})`);
    });
    p.on('pageerror', (err) => errors.push(String(err)));
    p.on('request', (req) => requests.push(`${req.method()} ${new URL(req.url()).pathname}${new URL(req.url()).search}`));
    await p.goto(`${server.url}/`);
    return { ctx, p };
  }

  before(async () => {
    makeFixtures();
    fs.mkdirSync(shotDir, { recursive: true });
    server = await startServer(binary, ['serve', '--host', '127.0.0.1', '--port', '0'], { timeoutMs: kTimeoutMs });
    browser = await playwright.chromium.launch({ executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    ({ ctx: context, p: page } = await openPage({ locale: 'en-US' }));
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server.child);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  // Screenshots of the state shown, at desktop and phone width.
  async function shoot(name) {
    await page.screenshot({ path: path.join(shotDir, `${name}-1280.png`) });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(150);
    const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
    await page.screenshot({ path: path.join(shotDir, `${name}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForTimeout(150);
    assert.ok(width <= 390, `${name}: the page is ${width} px wide at 390 px`);
  }

  const run = () => page.evaluate(() => Number(document.getElementById('results').dataset.run || 0));

  async function readFile(file, { done = true } = {}) {
    const before = await run();
    await page.setInputFiles('#file-input', file);
    if (!done) return;
    await page.waitForFunction((prev) => {
      const status = document.getElementById('status').dataset.state;
      return (status === 'done' && Number(document.getElementById('results').dataset.run) > prev) ||
        !document.getElementById('error').hidden;
    }, before, { timeout: kTimeoutMs });
    const error = await page.locator('#error').evaluate((e) => (e.hidden ? '' : e.textContent));
    assert.equal(error, '', `the page shows an error: ${error}`);
  }

  const lineTexts = () => page.locator('#lines .line .line-text').allTextContents();
  const squash = (s) => s.replace(/\s+/g, '');

  // Each box's screen rectangle, and where its bounding_box says it is: the image's screen
  // rectangle scaled by the page's size (the result JSON) to the image shown.
  function boxGeometry() {
    return page.evaluate(() => {
      const img = document.getElementById('preview').getBoundingClientRect();
      const vb = document.getElementById('overlay').viewBox.baseVal;
      return [...document.querySelectorAll('#overlay .box')].map((poly) => {
        const pts = poly.getAttribute('points').split(' ').map((p) => p.split(',').map(Number));
        const xs = pts.map((p) => p[0]);
        const ys = pts.map((p) => p[1]);
        const sx = img.width / vb.width;
        const sy = img.height / vb.height;
        const r = poly.getBoundingClientRect();
        return { box: [r.left, r.top, r.right, r.bottom],
          word: [img.left + Math.min(...xs) * sx, img.top + Math.min(...ys) * sy,
            img.left + Math.max(...xs) * sx, img.top + Math.max(...ys) * sy] };
      });
    });
  }

  async function assertAligned(label) {
    const geoms = await boxGeometry();
    assert.ok(geoms.length > 0, `${label}: no boxes`);
    for (const g of geoms) {
      g.box.forEach((v, i) => assert.ok(Math.abs(v - g.word[i]) < 1.5,
        `${label}: box ${JSON.stringify(g.box)} is not on its word ${JSON.stringify(g.word)}`));
    }
    return geoms;
  }

  test('the page weighs under 150 KB, with no script or CSP error', async () => {
    const names = await page.evaluate(() => [
      '/', ...[...document.querySelectorAll('link[rel=stylesheet]')].map((l) => new URL(l.href).pathname)]);
    const modules = fs.readFileSync(path.join(repoRoot, 'src', 'web', 'CMakeLists.txt'), 'utf8')
      .match(/[\w-]+\.js/g).map((n) => `/${n}`);
    let total = 0;
    for (const name of [...names, ...modules]) {
      if (webDir) {
        total += fs.statSync(path.join(webDir, name === '/' ? 'index.html' : name)).size;
        continue;
      }
      const res = await page.request.get(`${server.url}${name}`);
      assert.equal(res.status(), 200, name);
      total += (await res.body()).length;
    }
    console.log(`# page weight: ${(total / 1024).toFixed(1)} KB`);
    assert.ok(total < kPageBudgetBytes, `the page weighs ${total} bytes`);
    assert.deepEqual(errors, []);
  });

  test('a new upload clears the old result; a failed one leaves none', async () => {
    await readFile(fx.letter);
    assert.ok((await lineTexts()).some((l) => squash(l).includes('Invoice4711')));
    await page.setInputFiles('#file-input', fx.note);
    // At once, before the answer: the old lines are gone.
    assert.ok(await page.locator('#results').isHidden(), 'the old result stays while the new one is read');
    await page.waitForSelector('#status[data-state="done"]', { timeout: kTimeoutMs });
    assert.ok(!(await lineTexts()).some((l) => squash(l).includes('Invoice')));
    await page.setInputFiles('#file-input', fx.text);
    await page.waitForSelector('#error:not([hidden])', { timeout: kTimeoutMs });
    assert.ok(await page.locator('#results').isHidden(), 'results of the previous file under the error');
    await shoot('error');
  });

  test('zoom, pan, fit and full screen keep every box on its word', async () => {
    await readFile(fx.letter);
    const fitted = await assertAligned('fit width');
    await shoot('image');
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    const zoomed = await assertAligned('zoomed in twice');
    const w0 = fitted[0].box[2] - fitted[0].box[0];
    const w1 = zoomed[0].box[2] - zoomed[0].box[0];
    assert.ok(Math.abs(w1 / w0 - 1.5625) < 0.02, `box width ${w0} -> ${w1}`);

    // The wheel zooms around the pointer; a drag pans by as much as the pointer moved.
    const v = await page.locator('#viewer').boundingBox();
    await page.mouse.move(v.x + v.width / 2, v.y + v.height / 2);
    await page.mouse.wheel(0, -300);
    await page.waitForTimeout(100);
    const wheeled = await assertAligned('after the wheel');
    assert.ok(wheeled[0].box[2] - wheeled[0].box[0] > w1 * 1.2, 'the wheel did not zoom in');
    await page.mouse.move(v.x + v.width / 2, v.y + v.height / 2);
    await page.mouse.down();
    await page.mouse.move(v.x + v.width / 2 + 60, v.y + v.height / 2 + 30, { steps: 5 });
    await page.mouse.up();
    const panned = await assertAligned('panned');
    assert.ok(Math.abs(panned[0].box[0] - wheeled[0].box[0] - 60) < 1.5, 'the drag did not pan by 60 px');
    await shoot('zoomed');

    // Keys on the focused viewer.
    await page.focus('#viewer');
    const scale = Number(await page.locator('#viewer').getAttribute('data-scale'));
    await page.keyboard.press('+');
    assert.ok(Number(await page.locator('#viewer').getAttribute('data-scale')) > scale);
    await page.click('#fit-page');
    await assertAligned('fit page');

    await page.click('#fullscreen');
    await page.waitForFunction(() => document.getElementById('fullscreen').getAttribute('aria-pressed') === 'true');
    const full = await page.locator('#viewer').boundingBox();
    assert.ok(full.height > 600, `the full-screen viewer is ${full.height} px high`);
    await assertAligned('full screen');
    await page.screenshot({ path: path.join(shotDir, 'fullscreen-1280.png') });
    await page.click('#fullscreen');
    await page.waitForFunction(() => document.getElementById('fullscreen').getAttribute('aria-pressed') === 'false');
    await page.click('#fit-width');
  });

  test('a region reads only the lines inside it', async () => {
    await readFile(fx.letter);
    const boxes = await boxGeometry();
    const texts = await page.locator('#overlay .box title').allTextContents();
    const last = texts.findIndex((s) => squash(s).includes('Pears'));
    const third = texts.findIndex((s) => squash(s).includes('Apples'));
    assert.ok(last >= 0 && third >= 0, JSON.stringify(texts));
    // Shift+drag around the last two lines.
    const top = boxes[third].word[1] - 6;
    const bottom = boxes[last].word[3] + 6;
    const left = Math.min(boxes[third].word[0], boxes[last].word[0]) - 6;
    const right = Math.max(boxes[third].word[2], boxes[last].word[2]) + 6;
    requests.length = 0;
    await page.keyboard.down('Shift');
    await page.mouse.move(left, top);
    await page.mouse.down();
    await page.mouse.move(right, bottom, { steps: 6 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForSelector('#region-bar:not([hidden])', { timeout: kTimeoutMs });
    assert.ok(requests.includes('POST /ocr'), JSON.stringify(requests));
    const lines = (await lineTexts()).map(squash);
    assert.ok(lines.some((l) => l.includes('Apples')) && lines.some((l) => l.includes('Pears')), JSON.stringify(lines));
    assert.ok(!lines.some((l) => /Invoice|Delivery/.test(l)), `lines outside the region: ${lines}`);
    for (const g of await assertAligned('region boxes')) {
      assert.ok(g.box[1] >= top - 2 && g.box[3] <= bottom + 2, `box ${g.box} outside ${top}..${bottom}`);
    }
    await shoot('region');
    await page.click('#region-clear');
    assert.equal((await lineTexts()).length, 4);
  });

  test('a PDF page is drawn under its boxes, from the job\'s page image', async () => {
    await readFile(fx.pdf);
    const src = await page.locator('#preview').getAttribute('src');
    assert.match(src, /^\/jobs\/[^/]+\/pages\/0\/image\?max_side=1600$/);
    const res = await page.request.get(`${server.url}${src}`);
    assert.equal(res.status(), 200, `GET ${src}: ${res.status()} ${await res.text()}`);
    await page.waitForFunction(() => !document.getElementById('viewer').classList.contains('sheet'), null,
      { timeout: kTimeoutMs });
    // Dark pixels of the drawn image under the first box.
    const dark = await page.evaluate(() => {
      const img = document.getElementById('preview');
      const vb = document.getElementById('overlay').viewBox.baseVal;
      const pts = document.querySelector('#overlay .box').getAttribute('points').split(' ')
        .map((p) => p.split(',').map(Number));
      const s = img.naturalWidth / vb.width;
      const x0 = Math.min(...pts.map((p) => p[0])) * s;
      const y0 = Math.min(...pts.map((p) => p[1])) * s;
      const w = Math.max(...pts.map((p) => p[0])) * s - x0;
      const h = Math.max(...pts.map((p) => p[1])) * s - y0;
      const c = document.createElement('canvas');
      c.width = Math.ceil(w);
      c.height = Math.ceil(h);
      c.getContext('2d').drawImage(img, x0, y0, w, h, 0, 0, c.width, c.height);
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) n += data[i] < 100 ? 1 : 0;
      return n / (data.length / 4);
    });
    assert.ok(dark > 0.03, `only ${(dark * 100).toFixed(1)}% dark pixels under the first box`);
    await page.click('#zoom-in');
    await assertAligned('PDF page zoomed');
    await shoot('pdf-page');
  });

  test('switching the format reads nothing again; the downloaded Markdown is the API\'s output', async () => {
    // The PDF read above is a job: its result is rendered again by the server.
    const jobId = (await page.locator('#preview').getAttribute('src')).split('/')[2];
    const api = await (await page.request.get(`${server.url}/jobs/${jobId}/result?output_format=markdown`)).json();
    assert.equal(api.format, 'markdown', `GET /jobs/{id}/result?output_format=markdown: ${JSON.stringify(api).slice(0, 200)}`);
    requests.length = 0;
    await page.selectOption('#format', 'markdown');
    await page.waitForSelector('#output[data-format="markdown"]', { state: 'attached', timeout: kTimeoutMs });
    assert.equal(await page.locator('#output').textContent(), api.output);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-output')]);
    assert.equal(download.suggestedFilename(), 'report.md');
    assert.equal(fs.readFileSync(await download.path(), 'utf8'), api.output);
    assert.ok(!requests.some((r) => /^POST/.test(r)), `a format switch sent ${requests}`);

    await page.click('#view-preview');
    assert.ok(await page.locator('#md-preview').isVisible());
    assert.match(await page.locator('#md-preview').textContent(), /Chapter 1 of the report/);
    await shoot('markdown-preview');

    await page.selectOption('#format', 'html');
    await page.waitForSelector('#output[data-format="html"]', { state: 'attached', timeout: kTimeoutMs });
    const frame = page.locator('#html-preview');
    assert.ok(await frame.isVisible());
    assert.equal(await frame.getAttribute('sandbox'), ''); // no scripts, an origin of its own
    await page.waitForFunction(() => document.getElementById('html-preview').srcdoc.includes('<!DOCTYPE html>'));
    // Setting srcdoc starts a navigation: until it commits, the frame still holds an empty document.
    const body = page.frameLocator('#html-preview').locator('body');
    await body.filter({ hasText: /Order\s*2001/ }).waitFor({ timeout: kTimeoutMs }).catch(() => {});
    const text = await body.textContent();
    assert.match(squash(text), /Order2001/);
    await shoot('html-preview');
    await page.click('#view-source');

    for (const format of ['text', 'hocr', 'alto']) {
      await page.selectOption('#format', format);
      await page.waitForSelector(`#output[data-format="${format}"]`, { state: 'attached', timeout: kTimeoutMs });
    }
    assert.match(await page.locator('#output').textContent(), /<alto/);
    // The searchable PDF of a finished job comes from its result, not from reading it again.
    const [pdf] = await Promise.all([page.waitForEvent('download'), page.click('#download-pdf')]);
    assert.equal(pdf.suggestedFilename(), 'report.pdf');
    assert.equal(fs.readFileSync(await pdf.path()).subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(requests.some((r) => r.includes('output_format=pdf')), `the PDF came from ${requests}`);
    assert.ok(!requests.some((r) => /^POST/.test(r)), `format switches sent ${requests}`);

    // A single image: its answer is sent back to be written (POST /render), never read again;
    // the same as /ocr's.
    await page.selectOption('#format', 'json');
    await readFile(fx.letter);
    requests.length = 0;
    await page.selectOption('#format', 'markdown');
    await page.waitForSelector('#output[data-format="markdown"]', { state: 'attached' });
    assert.deepEqual(requests, ['POST /render']);
    const ocr = await (await page.request.post(`${server.url}/ocr`, { multipart: {
      file: { name: 'letter.png', mimeType: 'image/png', buffer: fs.readFileSync(fx.letter) },
      output_format: 'markdown' } })).json();
    assert.equal(await page.locator('#output').textContent(), ocr.output);
    await page.selectOption('#format', 'json');
  });

  test('an image\'s tables download as CSV, written by the server', async () => {
    await readFile(fx.table);
    await page.waitForSelector('#download-csv:not([hidden])', { timeout: kTimeoutMs });
    requests.length = 0;
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    assert.equal(download.suggestedFilename(), 'table.csv');
    const csv = fs.readFileSync(await download.path(), 'utf8');
    const api = await (await page.request.post(`${server.url}/ocr`, { multipart: {
      file: { name: 'table.png', mimeType: 'image/png', buffer: fs.readFileSync(fx.table) },
      output_format: 'csv' } })).json();
    assert.equal(api.format, 'csv');
    assert.equal(csv, api.output);
    assert.match(csv, /\r\n/);
    assert.deepEqual(requests, ['POST /render']);
  });

  test('the options drawer sends its fields', async () => {
    await page.selectOption('#format', 'json');
    await page.click('#options summary');
    try {
      await readWithOptions();
    } finally {
      await page.fill('#opt-pages', '');
      await page.uncheck('#opt-word-boxes');
      await page.fill('#opt-drop-score', '');
      await page.click('#options summary');
    }
  });

  async function readWithOptions() {
    await page.fill('#opt-pages', '1');
    await page.check('#opt-word-boxes');
    await page.fill('#opt-drop-score', '0.6');
    // The fields of each form the page sends (a file's body is not visible to the test's requests).
    await page.evaluate(() => {
      const fetch = window.fetch;
      window.sentForms = [];
      window.fetch = (url, init) => {
        if (init && init.body instanceof FormData) window.sentForms.push(Object.fromEntries([...init.body].filter(([, v]) => typeof v === 'string')));
        return fetch(url, init);
      };
    });
    await readFile(fx.pdf);
    const [form] = await page.evaluate(() => window.sentForms);
    assert.deepEqual({ ...form, output_format: undefined, model: undefined },
      { page_range: '1', drop_score: '0.6', return_word_boxes: 'true', output_format: undefined, model: undefined });
    assert.match(await page.locator('#output').textContent(), /"words"/);
    assert.equal(await page.locator('#page-select option').count(), 1);
    assert.match(await page.locator('#status').textContent(), /Done/);
    assert.ok((await lineTexts()).some((l) => squash(l).includes('Chapter2')));
    await shoot('options');
  }

  test('several files are read one after another, each downloadable', async () => {
    await page.selectOption('#format', 'json');
    await page.setInputFiles('#file-input', [fx.letter, fx.note]);
    await page.waitForFunction(() => [...document.querySelectorAll('#file-list .file-item')]
      .filter((li) => li.dataset.status === 'fileDone').length === 2, null, { timeout: kTimeoutMs });
    assert.ok((await lineTexts()).some((l) => squash(l).includes('Secondfile')), 'the last file is shown');
    const [download] = await Promise.all([page.waitForEvent('download'),
      page.locator('#file-list button[data-action="download"]').first().click()]);
    assert.equal(download.suggestedFilename(), 'letter.json');
    assert.equal(JSON.parse(fs.readFileSync(await download.path(), 'utf8')).results.length, 4);
    await page.locator('#file-list button[data-action="show"]').first().click();
    assert.ok((await lineTexts()).some((l) => squash(l).includes('Invoice4711')));
    await shoot('files');
  });

  test('the zh toggle changes every string, is remembered, and is the default for zh browsers', async () => {
    await page.click('#lang-toggle');
    const visible = () => page.evaluate(() => {
      const shown = (el) => el.getClientRects().length > 0;
      const texts = [document.body.innerText];
      for (const el of document.querySelectorAll('[aria-label], [title], img[alt], option')) {
        if (!shown(el) && el.localName !== 'option') continue;
        texts.push(el.getAttribute('aria-label') || '', el.title || '', el.alt || '', el.localName === 'option' ? el.textContent : '');
      }
      // The OCR'd lines, the file's name and the server's messages are not the UI's strings.
      const ocr = new Set([...document.querySelectorAll('.line-text, #overlay title, .file-item-name, #output, #error')]
        .map((e) => e.textContent));
      return texts.join('\n').split('\n').filter((s) => !ocr.has(s) && ![...ocr].some((o) => o && o.includes(s.trim())));
    });
    const zh = await visible();
    const left = zh.filter((s) => kEnglish.some((en) => s.includes(en)));
    assert.deepEqual(left, [], 'English left on the Chinese page');
    assert.match(await page.locator('#status').textContent(), /完成/);
    await shoot('zh');
    await page.reload();
    assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
    await page.click('#lang-toggle');
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    const { ctx, p } = await openPage({ locale: 'zh-CN' });
    assert.equal(await p.locator('#fit-width').textContent(), '适合宽度');
    assert.equal(await p.locator('label[for="file-input"]').textContent(), '选择文件');
    await ctx.close();
  });

  test('the viewer and the exports work from the keyboard alone', async () => {
    await page.selectOption('#format', 'json');
    await readFile(fx.letter); // the page was reloaded by the test before
    await page.focus('#zoom-out');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'zoom-in');
    const scale = Number(await page.locator('#viewer').getAttribute('data-scale'));
    await page.keyboard.press('Enter');
    assert.ok(Number(await page.locator('#viewer').getAttribute('data-scale')) > scale);
    // Each control is labelled, in words a screen reader can say.
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('button, select, input, [tabindex="0"]')]
      .filter((el) => el.getClientRects().length && !(el.getAttribute('aria-label') || el.textContent.trim() ||
        (el.id && document.querySelector(`label[for="${el.id}"]`)) || el.closest('label')))
      .map((el) => el.id || el.outerHTML.slice(0, 60)));
    assert.deepEqual(unlabelled, []);
    // The output's buttons are reached with Tab and work with Enter.
    await page.focus('#copy-output');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'download-output');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.match(download.suggestedFilename(), /\.json$/);
  });

  test('on a phone, two fingers zoom the page', async () => {
    const { ctx, p } = await openPage({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    await p.setInputFiles('#file-input', fx.letter);
    await p.waitForSelector('#status[data-state="done"]', { timeout: kTimeoutMs });
    const v = await p.locator('#viewer').boundingBox();
    const before = Number(await p.locator('#viewer').getAttribute('data-scale'));
    const cdp = await ctx.newCDPSession(p);
    const fingers = (d) => [{ x: v.x + v.width / 2 - d, y: v.y + v.height / 2, id: 0 },
      { x: v.x + v.width / 2 + d, y: v.y + v.height / 2, id: 1 }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(20) });
    for (let d = 25; d <= 80; d += 5) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(d) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    const after = Number(await p.locator('#viewer').getAttribute('data-scale'));
    assert.ok(after > before * 2.5, `a pinch from 40 to 160 px zoomed ${before} -> ${after}`);
    await ctx.close();
  });

  test('no script or CSP errors were logged', () => {
    assert.deepEqual(errors, []);
  });
});
