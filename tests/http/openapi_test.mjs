// /openapi.json against the real server: the document validates with an OpenAPI 3.0 validator
// from npm (@seriousme/openapi-schema-validator), then every route is called (successes and
// representative errors, raw-socket protocol errors, HEAD, the connection cap) and each answer
// must be documented for its operation: its status listed, its required headers sent, and its
// body valid, strictly, against the schema of its content type (Ajv: oneOf matches exactly one,
// closed schemas refuse extra keys; NDJSON and SSE are checked line by line and event by event).
// Finally every operation of the document must have been exercised.
//
// Run: node tests/http/openapi_test.mjs (exit 77 = skipped: node_modules packages, pango-view,
// the binary or the models missing). ONNXOCR_BINARY selects the server binary (default
// build/release/onnxocr); ONNXOCR_MODELS the model set (default models/ppocrv4); OPENAPI_JSON_FILE
// checks that file instead of the served document (an edit tried before rebuilding the binary).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { grayPng, hasCommand } from '../support/node_test_helpers.mjs';
import { startServer, stopServer } from '../support/server_process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const binary = process.env.ONNXOCR_BINARY || path.join(repoRoot, 'build', 'release', 'onnxocr');
const modelsDir = process.env.ONNXOCR_MODELS || path.join(repoRoot, 'models', 'ppocrv4');
const kStartTimeoutMs = 60_000;
const kRequestTimeoutMs = 30_000;
const kMaxConnections = 8; // small, so the over-cap lane is reachable with a few sockets
// Every error code of spec/API.md section 3 (the Error schema's enum must be exactly these).
const kErrorCodes = [
  'invalid_json', 'missing_field', 'invalid_base64', 'invalid_option', 'invalid_multipart',
  'invalid_request', 'not_found', 'method_not_allowed', 'job_not_finished', 'payload_too_large',
  'unsupported_media_type', 'undecodable_image', 'image_too_large', 'invalid_pdf',
  'encrypted_pdf', 'too_many_pages', 'header_too_large', 'internal', 'server_busy', 'not_ready',
  'deadline_exceeded', 'http_version_not_supported',
];
// Statuses any request can get, whatever its route.
const kProtocolStatuses = ['400', '405', '413', '431', '505'];

// The packages live in the repository's node_modules (scripts/bootstrap), found from here
// whatever the working directory.
const requireHere = createRequire(path.join(repoRoot, 'node_modules', '/'));
async function loadPackages() {
  try {
    const Ajv = requireHere('ajv').default;
    const addFormats = requireHere('ajv-formats').default;
    const entry = path.join(repoRoot, 'node_modules', '@seriousme', 'openapi-schema-validator',
      'index.js');
    const { Validator } = await import(pathToFileURL(entry).href);
    return { Ajv, addFormats, Validator };
  } catch {
    return null;
  }
}

const packages = await loadPackages();
let skipReason = null;
if (!packages) {
  skipReason = `${repoRoot}/node_modules lacks @seriousme/openapi-schema-validator, ajv or ` +
    'ajv-formats (scripts/bootstrap installs them)';
} else if (!hasCommand('pango-view')) {
  skipReason = 'pango-view is missing (apt-get install pango1.0-tools)';
} else if (!fs.existsSync(binary)) {
  skipReason = `server binary ${binary} is missing (build it, or set ONNXOCR_BINARY)`;
} else if (!fs.existsSync(path.join(modelsDir, 'det', 'det.onnx'))) {
  skipReason = `model set ${modelsDir} is missing (scripts/bootstrap installs it)`;
}
if (skipReason && !process.env.NODE_TEST_CONTEXT) {
  // Run directly by ctest: SKIP_RETURN_CODE 77.
  console.log(`SKIP: ${skipReason}`);
  process.exit(77);
}

// ---- fixtures -----------------------------------------------------------------------------------

let tmpDir;
let receiptPng;

function renderReceipt() {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxocr-openapi-'));
  receiptPng = path.join(tmpDir, 'receipt.png');
  const textFile = path.join(tmpDir, 'receipt.txt');
  fs.writeFileSync(textFile, 'Receipt 2026-11-21\nTotal amount: 1,234.50 EUR');
  execFileSync('pango-view', ['-q', '--background=white', '--font', 'DejaVu Sans 28',
    '--margin', '30', '-o', receiptPng, textFile]);
  return fs.readFileSync(receiptPng);
}

// A PDF with a text layer: one page per entry, each line drawn in Helvetica. Small pages keep a
// force_ocr render cheap (300 x 120 pt is 833 x 333 px at the default 200 dpi).
function buildTextPdf(pages) {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1' +
    ' /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'];
  const kids = [];
  for (const lines of pages) {
    const ops = `BT /F1 20 Tf 20 80 Td 24 TL ${lines.map((l) => `(${l}) Tj T*`).join(' ')} ET`;
    objects.push(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 120] /Resources << /Font` +
      ` << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`);
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}]` +
    ` /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// A PNG whose header claims width x height and whose pixel data is missing: refused from the
// header (image_too_large) when large, undecodable otherwise.
function pngHeaderOnly(width, height) {
  return grayPng(width, height, Buffer.from([1, 2, 3]));
}

function multipart(fields) {
  const boundary = `----onnxocr${Math.random().toString(16).slice(2)}`;
  const parts = [];
  for (const [name, value] of fields) {
    if (typeof value === 'string') {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"` +
        `\r\n\r\n${value}\r\n`));
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}";` +
        ` filename="${value.filename}"\r\nContent-Type: ${value.type}\r\n\r\n`), value.data,
      Buffer.from('\r\n'));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

// ---- the server ---------------------------------------------------------------------------------

let port;

// One request on its own connection (agent: false), so no pooled socket counts against
// --max-connections later.
function request(method, target, { headers = {}, body = null, sendBody = true } = {}) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (body !== null) h['Content-Length'] = String(body.length);
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers: h,
      agent: false, timeout: kRequestTimeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
        body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${target}: no answer in time`)));
    req.on('error', reject);
    if (body !== null && sendBody) req.end(body);
    else if (body !== null) req.flushHeaders(); // the answer comes from the header alone
    else req.end();
  });
}

function postMultipart(target, fields) {
  const form = multipart(fields);
  return request('POST', target, { headers: { 'Content-Type': form.type }, body: form.body });
}

function postJson(target, value) {
  const body = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  return request('POST', target, { headers: { 'Content-Type': 'application/json' }, body });
}

// Writes bytes on a fresh connection and collects everything until the server closes it.
function raw(bytes, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${Buffer.concat(chunks).length} ` +
        `bytes: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      // A reset after the answer (the server closing with unread bytes) still leaves the answer.
      clearTimeout(timer);
      if (chunks.length) resolve(Buffer.concat(chunks));
      else reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(bytes);
  });
}

// Parses one HTTP/1.1 response at `at`; `head` says it answers a HEAD (no body follows).
function parseResponse(buf, at = 0, { head = false } = {}) {
  const end = buf.indexOf('\r\n\r\n', at, 'latin1');
  assert.ok(end >= 0, `no complete response header in ${JSON.stringify(buf.toString('latin1',
    at, at + 300))}`);
  const lines = buf.toString('latin1', at, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(lines[0]);
  assert.ok(m, `bad status line ${JSON.stringify(lines[0])}`);
  const headers = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const status = Number(m[1]);
  let pos = end + 4;
  let body = Buffer.alloc(0);
  if (!head && status !== 204 && status !== 304 && status >= 200) {
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts = [];
      for (;;) {
        const eol = buf.indexOf('\r\n', pos, 'latin1');
        const size = parseInt(buf.toString('latin1', pos, eol), 16);
        pos = eol + 2;
        if (!size) break;
        parts.push(buf.subarray(pos, pos + size));
        pos += size + 2;
      }
      body = Buffer.concat(parts);
      pos = buf.indexOf('\r\n', pos, 'latin1') + 2;
    } else if ('content-length' in headers) {
      const n = Number(headers['content-length']);
      body = buf.subarray(pos, pos + n);
      pos += n;
    } else {
      body = buf.subarray(pos);
      pos = buf.length;
    }
  }
  return { status, headers, body, end: pos };
}

// ---- the document and its checker ---------------------------------------------------------------

const kMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// OpenAPI 3.0 schema objects to JSON Schema (draft-07) for Ajv: nullable becomes a null type,
// annotations Ajv does not know (example, x-*) go, and component refs point into one document.
function toJsonSchema(node) {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'nullable' || key.startsWith('x-')) continue;
    if (key === 'format' && value === 'binary') continue; // request bodies only
    if (key === '$ref') {
      assert.match(value, /^#\/components\/schemas\/[^/]+$/, `unexpected $ref ${value}`);
      out.$ref = value.replace('#/components/schemas/', 'api#/definitions/');
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) =>
        [name, toJsonSchema(schema)]));
    } else {
      out[key] = toJsonSchema(value);
    }
  }
  if (node.nullable === true) {
    assert.ok(typeof node.type === 'string', `nullable without a type: ${JSON.stringify(node)}`);
    out.type = [node.type, 'null'];
  }
  return out;
}

class ApiChecker {
  constructor(doc) {
    this.doc = doc;
    const { Ajv, addFormats } = packages;
    // strict: a typo in the document (an unknown keyword, a type-less "properties") fails here.
    this.ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'api', definitions: toJsonSchema(doc.components.schemas) });
    this.compiled = new Map();
    this.seen = new Map(); // operationId -> Set of statuses answered
    this.unmatched = []; // answers of paths the document does not have (404 on unknown routes)
  }

  validator(schema) {
    const key = JSON.stringify(schema);
    if (!this.compiled.has(key)) this.compiled.set(key, this.ajv.compile(toJsonSchema(schema)));
    return this.compiled.get(key);
  }

  validate(schema, value, what) {
    const v = this.validator(schema);
    if (!v(value)) {
      assert.fail(`${what} does not match its schema: ${this.ajv.errorsText(v.errors, {
        separator: '; ' })}\nvalue: ${JSON.stringify(value).slice(0, 1500)}`);
    }
  }

  ref(node) {
    let n = node;
    while (n && n.$ref) {
      n = n.$ref.slice(2).split('/').reduce((o, k) => o?.[k], this.doc);
      assert.ok(n, `dangling $ref ${node.$ref}`);
    }
    return n;
  }

  // The path template of the document that serves `target`, after the server's own
  // normalisation (unreserved percent escapes decoded).
  match(target) {
    const p = target.split('?')[0].replace(/%([0-9A-Fa-f]{2})/g, (all, hex) => {
      const c = String.fromCharCode(parseInt(hex, 16));
      return /[A-Za-z0-9\-._~]/.test(c) ? c : all;
    });
    for (const template of Object.keys(this.doc.paths)) {
      const re = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g,
        '[^/]+')}$`);
      if (re.test(p)) return template;
    }
    return null;
  }

  // Checks one answer against the document; `res` is {status, headers, body}.
  check(method, target, res, { head = method === 'HEAD' } = {}) {
    const label = `${method} ${target} -> ${res.status}`;
    const template = this.match(target);
    let response;
    if (!template) {
      // No such path: 404 not_found, as components.responses.NotFound says.
      assert.equal(res.status, 404, `${label}: a path the document lacks must answer 404`);
      response = this.ref(this.doc.components.responses.NotFound);
      this.unmatched.push(label);
    } else {
      const item = this.doc.paths[template];
      const op = item[method.toLowerCase()];
      if (!op) {
        // A method the path lacks: 405, documented on every operation of the path.
        assert.equal(res.status, 405, `${label}: no ${method} on ${template} in the document`);
        for (const m of kMethods.filter((k) => item[k])) {
          assert.ok(item[m].responses['405'], `${m} ${template} does not document 405`);
        }
        response = this.ref(item[kMethods.find((k) => item[k])].responses['405']);
        const allow = (res.headers.allow ?? '').split(',').map((s) => s.trim().toLowerCase());
        assert.deepEqual(allow.sort(), kMethods.filter((k) => item[k]).sort(),
          `${label}: Allow lists the document's methods for ${template}`);
      } else {
        const doc = op.responses[String(res.status)];
        assert.ok(doc, `${label}: status ${res.status} is not documented for ${op.operationId}` +
          ` (documented: ${Object.keys(op.responses).join(', ')}); body ` +
          `${res.body.toString('utf8').slice(0, 300)}`);
        response = this.ref(doc);
        if (!this.seen.has(op.operationId)) this.seen.set(op.operationId, new Set());
        this.seen.get(op.operationId).add(String(res.status));
      }
    }
    // RFC 9110 8.6: never a Content-Length on a 204.
    if (res.status === 204) {
      assert.ok(!('content-length' in res.headers), `${label}: a 204 with Content-Length`);
    }
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      const header = this.ref(h);
      const value = res.headers[name.toLowerCase()];
      if (header.required) assert.ok(value !== undefined, `${label}: header ${name} missing`);
      if (value !== undefined && header.schema?.type === 'integer') {
        assert.match(value, /^\d+$/, `${label}: header ${name} is not an integer`);
      }
    }
    if (head || !response.content) {
      assert.ok(!response.content || head, `${label}: documented with a body`);
      assert.equal(res.body.length, 0, `${label}: a body where none is documented`);
      return null;
    }
    const type = res.headers['content-type'] ?? '';
    const essence = type.split(';')[0].trim().toLowerCase();
    // The exact header, or a parameter-less media type equal to the header's essence.
    const key = Object.keys(response.content).find((k) => k === type) ??
      Object.keys(response.content).find((k) => !k.includes(';') && k.toLowerCase() === essence);
    assert.ok(key, `${label}: Content-Type ${JSON.stringify(type)} is not documented ` +
      `(documented: ${Object.keys(response.content).join(', ')})`);
    const schema = response.content[key].schema;
    const text = res.body.toString('utf8');
    if (essence === 'application/json') {
      let value;
      try {
        value = JSON.parse(text);
      } catch (e) {
        assert.fail(`${label}: body is not JSON (${e.message}): ${text.slice(0, 200)}`);
      }
      this.validate(schema, value, label);
      return value;
    }
    if (essence === 'application/x-ndjson') {
      assert.ok(schema['x-ndjson-line'], `${label}: no x-ndjson-line schema`);
      const lines = text.split('\n');
      assert.equal(lines.pop(), '', `${label}: NDJSON must end with a newline`);
      const values = lines.map((line, i) => {
        const value = JSON.parse(line);
        this.validate(schema['x-ndjson-line'], value, `${label} line ${i + 1}`);
        return value;
      });
      return values;
    }
    if (essence === 'text/event-stream') {
      const events = parseSse(text);
      for (const e of events) {
        const s = schema['x-events']?.[e.event];
        assert.ok(s, `${label}: event ${e.event} is not documented`);
        this.validate(s, JSON.parse(e.data), `${label} event ${e.id} (${e.event})`);
      }
      return events;
    }
    assert.equal(schema.type, 'string', `${label}: ${key} is not documented as text`);
    assert.ok(text.length > 0, `${label}: empty body`);
    return text;
  }
}

function parseSse(text) {
  const events = [];
  for (const block of text.split('\n\n')) {
    const e = { id: null, event: 'message', data: null };
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':') || line.startsWith('retry:')) continue;
      const colon = line.indexOf(':');
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') e.data = e.data === null ? value : `${e.data}\n${value}`;
      else e[field] = value;
    }
    if (e.data !== null) events.push(e);
  }
  return events;
}

function jsonBody(res) {
  return JSON.parse(res.body.toString('utf8'));
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- the tests ----------------------------------------------------------------------------------

describe('openapi', { skip: skipReason ?? false }, () => {
  let server;
  let api;
  let png;
  const pdf = buildTextPdf([['Invoice 4711', 'Berlin office'], ['Total 9.50 EUR']]);
  const pngFile = () => ({ filename: 'receipt.png', type: 'image/png', data: png });
  const pdfFile = () => ({ filename: 'invoice.pdf', type: 'application/pdf', data: pdf });

  // Sends a request and checks its answer against the document; returns the answer and its
  // parsed body.
  async function call(method, target, options = {}) {
    const res = await request(method, target, options);
    return { ...res, value: api.check(method, target, res) };
  }
  async function callMultipart(target, fields) {
    const form = multipart(fields);
    const res = await request('POST', target, { headers: { 'Content-Type': form.type },
      body: form.body });
    return { ...res, value: api.check('POST', target, res) };
  }
  async function callJson(target, value) {
    const res = await postJson(target, value);
    return { ...res, value: api.check('POST', target, res) };
  }

  // HEAD pipelined with a GET on one connection: the HEAD answer must end at its header (the
  // GET's status line follows at once) and match GET's status, Content-Type and length.
  async function checkHead(target, headers = {}) {
    const get = await request('GET', target, { headers });
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const bytes = await raw(`HEAD ${target} HTTP/1.1\r\nHost: test\r\n${extra}\r\n` +
      'GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
    const res = parseResponse(bytes, 0, { head: true });
    assert.equal(bytes.toString('latin1', res.end, res.end + 9), 'HTTP/1.1 ',
      `HEAD ${target}: bytes after the header: ${JSON.stringify(bytes.toString('latin1',
        res.end, res.end + 80))}`);
    api.check('HEAD', target, res);
    assert.equal(res.status, get.status, `HEAD ${target} status`);
    assert.equal(res.headers['content-type'], get.headers['content-type'],
      `HEAD ${target} Content-Type`);
    // /metrics counts the GET itself, so its length moves between the two.
    if (get.headers['content-length'] !== undefined && target !== '/metrics' &&
      get.status !== 204) {
      assert.equal(Number(res.headers['content-length']), get.body.length,
        `HEAD ${target} Content-Length`);
    }
    return res;
  }

  before(async () => {
    png = renderReceipt();
    server = await startServer(binary, ['serve', '--host', '127.0.0.1', '--port', '0', '--models',
      `ppocrv4=${modelsDir}`, '--threads', '1', '--max-body-mb', '1', '--max-connections',
      String(kMaxConnections)], { timeoutMs: kStartTimeoutMs });
    port = server.port;
  });

  after(async () => {
    await stopServer(server?.child);
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  test('the document is valid OpenAPI 3.0 and says what the issue asks', async () => {
    const res = await request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    const doc = process.env.OPENAPI_JSON_FILE
      ? JSON.parse(fs.readFileSync(process.env.OPENAPI_JSON_FILE, 'utf8')) : jsonBody(res);
    api = new ApiChecker(doc);
    const validator = new packages.Validator();
    const result = await validator.validate(structuredClone(doc));
    if (!result.valid) {
      assert.fail(`not a valid OpenAPI document: ${JSON.stringify(result.errors, null, 1)
        .slice(0, 3000)}`);
    }
    assert.equal(validator.version, '3.0');
    api.check('GET', '/openapi.json', res);

    assert.ok(doc.servers?.length > 0, 'servers');
    // Every $ref resolves.
    const walk = (node) => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node && typeof node === 'object') {
        if (typeof node.$ref === 'string') api.ref(node);
        Object.values(node).forEach(walk);
      }
      return undefined;
    };
    walk(doc);
    // Every component schema compiles under Ajv's strict mode.
    for (const name of Object.keys(doc.components.schemas)) {
      api.validator({ $ref: `#/components/schemas/${name}` });
    }
    const error = doc.components.schemas.Error;
    assert.deepEqual([...error.required].sort(), ['code', 'error', 'success']);
    assert.equal(error.properties.error.type, 'string');
    assert.deepEqual([...error.properties.code.enum].sort(), [...kErrorCodes].sort());

    const ids = new Set();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const m of kMethods.filter((k) => item[k])) {
        const op = item[m];
        assert.ok(op.operationId, `${m} ${p}: no operationId`);
        assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} twice`);
        ids.add(op.operationId);
        for (const status of kProtocolStatuses) {
          assert.ok(op.responses[status], `${m} ${p}: status ${status} not documented`);
        }
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
        for (const [, name] of p.matchAll(/\{([^}]+)\}/g)) {
          assert.ok(params.some((x) => x.in === 'path' && x.name === name && x.required),
            `${m} ${p}: path parameter ${name} not declared`);
        }
      }
      if (item.get) {
        assert.ok(item.head, `GET ${p} without HEAD`);
        assert.deepEqual(Object.keys(item.head.responses).sort(),
          Object.keys(item.get.responses).sort(), `HEAD ${p} answers as GET`);
      }
    }
  });

  test('probes, metrics, info and the docs', async () => {
    await call('GET', '/healthz');
    const ready = await call('GET', '/readyz');
    assert.equal(ready.status, 200);
    const metrics = await call('GET', '/metrics');
    assert.equal(metrics.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    await call('GET', '/info');
    const docs = await call('GET', '/docs');
    for (const p of Object.keys(api.doc.paths)) {
      assert.ok(docs.value.includes(`<code>${p.replace(/&/g, '&amp;')}</code>`), `/docs: ${p}`);
    }
    await call('GET', '/docs.css');
    const page = await call('GET', '/');
    const notModified = await call('GET', '/', { headers: { 'If-None-Match': page.headers.etag } });
    assert.equal(notModified.status, 304);
    // Percent-encoded unreserved characters are decoded before routing.
    assert.equal((await call('GET', '/%68ealthz')).status, 200);
    for (const target of ['/healthz', '/readyz', '/metrics', '/info', '/openapi.json', '/docs',
      '/docs.css', '/']) {
      await checkHead(target);
    }
    // RFC 9110 8.6: a 304's Content-Length, if any, is the 200's.
    const length = notModified.headers['content-length'];
    assert.ok(length === undefined || Number(length) === page.body.length,
      `304 with Content-Length ${length}; the 200 has ${page.body.length} bytes`);
  });

  test('POST /ocr and /ocr_api, JSON form', async () => {
    const image = png.toString('base64');
    const plain = await callJson('/ocr', { image });
    assert.equal(plain.status, 200);
    assert.deepEqual(Object.keys(plain.value).sort(), ['processing_time', 'results']);
    assert.ok(plain.value.results.some((r) => /Total/.test(r.text)), JSON.stringify(plain.value));
    const words = await callJson('/ocr_api', { image: `data:image/png;base64,${image}`,
      return_word_boxes: true, cls: false, drop_score: 0.3 });
    assert.equal(words.status, 200);
    assert.ok(words.value.results[0].words.length > 0);

    assert.equal((await callJson('/ocr', '{"image": ')).value.code, 'invalid_json');
    assert.equal((await callJson('/ocr', { model: 'ppocrv4' })).value.code, 'missing_field');
    assert.equal((await callJson('/ocr', { image: '!!not base64!!' })).value.code,
      'invalid_base64');
    assert.equal((await callJson('/ocr_api', { image, drop_score: 7 })).value.code,
      'invalid_option');
    assert.equal((await callJson('/ocr', { image, model: 'nope' })).status, 400);
    const undecodable = await callJson('/ocr', { image: pngHeaderOnly(64, 64).toString('base64') });
    assert.equal(undecodable.status, 422);
    const huge = await callJson('/ocr', { image: pngHeaderOnly(20000, 20000).toString('base64') });
    assert.equal(huge.value.code, 'image_too_large');
    const text = await call('POST', '/ocr', { headers: { 'Content-Type': 'text/plain' },
      body: Buffer.from('hello') });
    assert.equal(text.value.code, 'unsupported_media_type');
    assert.equal((await callMultipart('/ocr_api', [['file', pngFile()]])).status, 415);
    assert.equal((await call('GET', '/ocr')).status, 405);
    assert.equal((await call('PUT', '/ocr_api')).status, 405);
  });

  test('POST /render: an answer written again in another format', async () => {
    const answer = (await callMultipart('/ocr', [['file', pngFile()]])).value;
    for (const format of ['markdown', 'html', 'text', 'csv']) {
      const res = await callJson('/render', { answer, output_format: format, paginate_output: true });
      assert.equal(res.status, 200, JSON.stringify(res.value));
      assert.equal(res.value.format, format);
    }
    const plain = (await callJson('/ocr', { image: png.toString('base64') })).value;
    assert.match((await callJson('/render', { answer: plain, output_format: 'text' })).value.output,
      /Total/);
    assert.equal((await callJson('/render', '{"answer": ')).value.code, 'invalid_json');
    assert.equal((await callJson('/render', { answer })).value.code, 'missing_field');
    assert.equal((await callJson('/render', { answer, output_format: 'hocr' })).value.code,
      'invalid_option');
    assert.equal((await call('GET', '/render')).status, 405);
  });

  test('POST /ocr, multipart form: image, PDF, every format, booleans and errors', async () => {
    const md = await callMultipart('/ocr', [['file', pngFile()], ['output_format', 'markdown']]);
    assert.equal(md.status, 200);
    assert.equal(md.value.format, 'markdown');
    const json = await callMultipart('/ocr', [['file', pngFile()]]);
    assert.equal(json.value.format, 'json'); // /ocr's default stays json
    const html = await callMultipart('/ocr', [['file', pdfFile()], ['output_format', 'html'],
      ['paginate_output', 'on']]);
    assert.equal(html.status, 200);
    assert.match(html.value.output, /^<!DOCTYPE html>/i);
    assert.match(html.value.output, /<div class='page' data-page-id='1'>/);
    assert.equal(html.value.pages[0].source, 'text_layer');
    const txt = await callMultipart('/ocr', [['file', pdfFile()], ['output_format', 'text'],
      ['paginate_output', 'Y'], ['force_ocr', 'T'], ['page_range', '1']]);
    assert.equal(txt.status, 200);
    assert.equal(txt.value.pages.length, 1);
    assert.equal(txt.value.pages[0].source, 'ocr');
    assert.match(txt.value.output, /^\n\n\{1\}-{48}\n\n/);

    for (const spelling of ['TRUE', 'off', 'No', '1', 'n']) {
      const res = await callMultipart('/ocr', [['file', pngFile()], ['cls', spelling]]);
      assert.equal(res.status, 200, `cls=${spelling}`);
    }
    assert.equal((await callMultipart('/ocr', [['file', pngFile()], ['force_ocr', 'maybe']]))
      .value.code, 'invalid_option');
    assert.equal((await callMultipart('/ocr', [['output_format', 'json']])).value.code,
      'missing_field');
    assert.equal((await callMultipart('/ocr', [['file', pngFile()], ['output_format', 'chunks']]))
      .status, 400);
    const broken = await call('POST', '/ocr', { headers: {
      'Content-Type': 'multipart/form-data; boundary=zz' }, body: Buffer.from('no parts here') });
    assert.equal(broken.value.code, 'invalid_multipart');
    const note = { filename: 'note.txt', type: 'text/plain', data: Buffer.from('hello') };
    assert.equal((await callMultipart('/ocr', [['file', note]])).value.code,
      'unsupported_media_type');
    const badPdf = { filename: 'x.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n' +
      'garbage') };
    assert.equal((await callMultipart('/ocr', [['file', badPdf]])).value.code, 'invalid_pdf');
  });

  test('POST /ocr, stream=true: NDJSON, line by line', async () => {
    const res = await callMultipart('/ocr', [['file', pdfFile()], ['stream', 'yes'],
      ['output_format', 'markdown']]);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'].split(';')[0], 'application/x-ndjson');
    assert.deepEqual(res.value.map((line) => line.page ?? 'end'), [0, 1, 'end']);
    assert.equal(res.value.at(-1).success, true);
  });

  test('jobs: create, status, result, events, HEAD, delete, cancel', async () => {
    const created = await callMultipart('/jobs', [['file', pdfFile()], ['force_ocr', 'true'],
      ['output_format', 'markdown']]);
    assert.equal(created.status, 202);
    const { id } = created.value;
    assert.equal(created.headers.location, `/jobs/${id}`);
    // Right away the result is either not finished (409) or there (200): both documented.
    await call('GET', `/jobs/${id}/result`);
    const events = await call('GET', `/jobs/${id}/events`);
    assert.equal(events.status, 200);
    assert.equal(events.value.at(-1).event, 'done');
    assert.ok(events.value.some((e) => e.event === 'page'));
    const status = await call('GET', `/jobs/${id}`);
    assert.equal(status.value.status, 'succeeded');
    const last = events.value.at(-1).id;
    assert.equal((await call('GET', `/jobs/${id}/events`, { headers: { 'Last-Event-ID': last } }))
      .status, 204);
    const result = await call('GET', `/jobs/${id}/result`);
    assert.equal(result.status, 200);
    assert.equal(result.value.page_count, 2);
    // Rendered again in another format, and its pages drawn.
    const again = await call('GET', `/jobs/${id}/result?output_format=text`);
    assert.equal(again.status, 200);
    assert.equal(again.value.format, 'text');
    assert.equal((await call('GET', `/jobs/${id}/result?output_format=docx`)).status, 400);
    const image = await call('GET', `/jobs/${id}/pages/1/image?max_side=400`);
    assert.equal(image.status, 200);
    assert.equal(image.headers['content-type'], 'image/jpeg');
    assert.equal((await call('GET', `/jobs/${id}/pages/7/image`)).status, 404);
    assert.equal((await call('GET', `/jobs/${id}/pages/0/image?max_side=2`)).status, 400);
    await checkHead(`/jobs/${id}/pages/0/image`);
    await checkHead(`/jobs/${id}`);
    await checkHead(`/jobs/${id}/result`);
    await checkHead(`/jobs/${id}/events`, { 'Last-Event-ID': last });
    await checkHead(`/jobs/${id}/events`);
    assert.equal((await call('DELETE', `/jobs/${id}`)).status, 200);
    assert.equal((await call('GET', `/jobs/${id}`)).value.code, 'not_found');
    await checkHead(`/jobs/${id}`);
    assert.equal((await call('GET', `/jobs/${'0'.repeat(32)}/result`)).status, 404);
    assert.equal((await call('GET', '/jobs/not-an-id/events')).status, 404);
    assert.equal((await call('DELETE', `/jobs/${'f'.repeat(32)}`)).status, 404);
    assert.equal((await call('POST', `/jobs/${'f'.repeat(32)}`)).status, 405);
    assert.equal((await call('GET', '/jobs')).status, 405);

    // A cancelled job: its events end with cancelled, its result is 409.
    const big = buildTextPdf(Array.from({ length: 12 }, (_, i) => [`Page ${i} of twelve`]));
    const second = await callMultipart('/jobs', [['file', { filename: 'b.pdf',
      type: 'application/pdf', data: big }], ['force_ocr', 'on']]);
    assert.equal(second.status, 202);
    const cancelled = await call('DELETE', `/jobs/${second.value.id}`);
    assert.equal(cancelled.status, 200);
    if (cancelled.value.status === 'cancelled') {
      const cancelEvents = await call('GET', `/jobs/${second.value.id}/events`);
      assert.equal(cancelEvents.value.at(-1).event, 'cancelled');
      assert.equal((await call('GET', `/jobs/${second.value.id}/result`)).status, 409);
    } // else it had already ended, and DELETE forgot it

    const json = await callJson('/jobs', { image: png.toString('base64') });
    assert.equal(json.status, 415);
    const badPdf = { filename: 'x.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n') };
    assert.equal((await callMultipart('/jobs', [['file', badPdf]])).status, 422);
    assert.equal((await callMultipart('/jobs', [['file', pngFile()], ['stream', 'sometimes']]))
      .status, 400);
  });

  test("marker's routes", async () => {
    for (const format of [null, 'markdown', 'json', 'html', 'chunks']) {
      const fields = [['file', format === 'json' ? pdfFile() : pngFile()]];
      if (format) fields.push(['output_format', format]);
      const res = await callMultipart('/marker/upload', fields);
      assert.equal(res.status, 200, `output_format=${format}`);
      assert.equal(res.value.success, true, `${format}: ${JSON.stringify(res.value)}`);
      assert.equal(res.value.format, format ?? 'markdown');
      if (format === 'json') {
        api.validate({ $ref: '#/components/schemas/MarkerDocument' }, JSON.parse(res.value.output),
          'marker json output');
        assert.equal(res.value.metadata.page_stats[0].text_extraction_method, 'pdftext');
      } else if (format === 'chunks') {
        api.validate({ $ref: '#/components/schemas/MarkerChunks' }, JSON.parse(res.value.output),
          'marker chunks output');
        assert.equal(res.value.metadata.page_stats[0].text_extraction_method, 'surya');
      }
    }
    const paged = await callMultipart('/marker/upload', [['file', pdfFile()],
      ['paginate_output', 'true'], ['force_ocr', 'false'], ['page_range', '0-1'],
      ['use_llm', 'false'], ['llm_service', 'x'], ['gemini_api_key', 'k'],
      ['openai_api_key', 'k'], ['groq_api_key', 'k']]);
    assert.equal(paged.value.success, true);
    assert.match(paged.value.output, /^\n\n\{0\}-{48}\n\n/);

    // A document that cannot be read: 200 with success false, as marker's server answers.
    const note = { filename: 'note.txt', type: 'text/plain', data: Buffer.from('hello') };
    for (const file of [note, { filename: 'x.pdf', type: 'application/pdf',
      data: Buffer.from('%PDF-1.4\n') }, { filename: 'x.png', type: 'image/png',
      data: pngHeaderOnly(64, 64) }]) {
      const res = await callMultipart('/marker/upload', [['file', file]]);
      assert.equal(res.status, 200);
      assert.equal(res.value.success, false);
    }
    const badRange = await callMultipart('/marker/upload', [['file', pdfFile()],
      ['page_range', '9-12']]);
    assert.deepEqual([badRange.status, badRange.value.success], [200, false]);
    // Requests that do not fit the form: 422.
    assert.equal((await callMultipart('/marker/upload', [['output_format', 'markdown']])).status,
      422);
    assert.equal((await callMultipart('/marker/upload', [['file', pngFile()],
      ['force_ocr', 'perhaps']])).status, 422);
    assert.equal((await callMultipart('/marker/upload', [['file', pngFile()],
      ['output_format', 'docx']])).status, 422);
    assert.equal((await call('GET', '/marker/upload')).status, 405);

    const refused = await callJson('/marker', { filepath: '/etc/passwd',
      output_format: 'markdown' });
    assert.equal(refused.status, 400);
    assert.equal(refused.value.code, 'invalid_option');
    assert.match(refused.value.error, /\/marker\/upload/);
    assert.equal((await call('GET', '/marker')).status, 405);
  });

  test('errors every route can answer: 404, 405, 413, and malformed requests', async () => {
    assert.equal((await call('GET', '/nope')).value.code, 'not_found');
    assert.equal((await call('GET', '/%2Fhealthz')).status, 404);
    const post = await call('POST', '/healthz');
    assert.equal(post.headers.allow, 'GET, HEAD');
    assert.equal((await call('DELETE', '/metrics')).status, 405);

    // Over --max-body-mb: refused from the header, before the body is sent.
    const big = await request('POST', '/ocr', { headers: { 'Content-Type': 'application/json' },
      body: Buffer.alloc(2 << 20, 0x20), sendBody: false });
    api.check('POST', '/ocr', big);
    assert.equal(big.status, 413);

    const cases = [
      ['GET /healthz HTTP/1.1\r\nHost: t\r\nCookie: ' + 'a'.repeat(40_000) + '\r\n\r\n',
        'GET', '/healthz', 431],
      ['GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n', 'GET', '/healthz', 505],
      ['GET /info HTTP/1.1\r\nHost: t\r\nBad Header Line\r\n\r\n', 'GET', '/info', 400],
      ['POST /ocr HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n' +
        'Content-Length: 3\r\n\r\n{}', 'POST', '/ocr', 400],
      ['POST /jobs HTTP/1.1\r\nHost: t\r\nContent-Length: -5\r\n\r\n', 'POST', '/jobs', 400],
      ['GET /docs/../metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n', 'GET',
        '/metrics', 400],
    ];
    for (const [bytes, method, target, status] of cases) {
      const res = parseResponse(await raw(bytes));
      api.check(method, target, res);
      assert.equal(res.status, status, `${JSON.stringify(bytes.slice(0, 60))}`);
    }
    // A request line that names no route at all: the InvalidRequest answer.
    const garbage = parseResponse(await raw('HELLO\r\n\r\n'));
    assert.equal(garbage.status, 400);
    api.validate(api.ref(api.doc.components.responses.InvalidRequest).content['application/json']
      .schema, jsonBody(garbage), 'HELLO');
  });

  test('over --max-connections: probes answered, other routes 503 server_busy', async () => {
    await sleep(300); // the connections of earlier requests are closed by now
    const idle = [];
    try {
      for (let i = 0; i < kMaxConnections; ++i) {
        idle.push(await new Promise((resolve, reject) => {
          const s = net.connect(port, '127.0.0.1', () => resolve(s));
          s.on('error', reject);
        }));
      }
      await sleep(300);
      const busy = parseResponse(await raw('GET /info HTTP/1.1\r\nHost: t\r\n\r\n'));
      api.check('GET', '/info', busy);
      assert.equal(busy.status, 503);
      assert.equal(jsonBody(busy).code, 'server_busy');
      for (const probe of ['/healthz', '/readyz']) {
        const res = parseResponse(await raw(`GET ${probe} HTTP/1.1\r\nHost: t\r\n` +
          'Connection: close\r\n\r\n'));
        api.check('GET', probe, res);
        assert.equal(res.status, 200, probe);
      }
    } finally {
      for (const s of idle) s.destroy();
    }
  });

  test('every operation of the document was exercised', () => {
    const missing = [];
    for (const [p, item] of Object.entries(api.doc.paths)) {
      for (const m of kMethods.filter((k) => item[k])) {
        const id = item[m].operationId;
        if (!api.seen.has(id)) missing.push(`${m.toUpperCase()} ${p} (${id})`);
        else console.log(`# ${id}: ${[...api.seen.get(id)].sort().join(', ')}`);
      }
    }
    assert.deepEqual(missing, [], 'operations no request reached');
  });
});
