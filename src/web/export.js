// The output of the file shown in the chosen format, and what can be done with it: copy it,
// download it, see Markdown and HTML rendered (Markdown by markdown.js, our HTML in a sandboxed
// frame without scripts), its tables as CSV, and the searchable PDF. The server writes every
// format; a format switch never reads the file again: a document's job renders its result again
// (GET /jobs/{id}/result?output_format=), and a single image's answer is sent back to be written
// in the new format (POST /render).

import { baseName, els, saveBlob, showError, state } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { renderMarkdown } from './markdown.js';
import { buildForm, describeError, getJson, networkMessage, parseJsonOrNull } from './request.js';

const kFormats = {
  json: { ext: 'json', type: 'application/json' },
  markdown: { ext: 'md', type: 'text/markdown' },
  html: { ext: 'html', type: 'text/html' },
  text: { ext: 'txt', type: 'text/plain' },
  hocr: { ext: 'hocr', type: 'text/html' },
  alto: { ext: 'alto.xml', type: 'application/xml' },
  csv: { ext: 'csv', type: 'text/csv' },
};

// Formats POST /render writes from an answer; the others place each word and need the file.
const kRendered = new Set(['text', 'markdown', 'html', 'csv']);

// Whether the answer holds a table (its CSV is then worth offering).
const hasTables = (resp) =>
  Array.isArray(resp?.pages) && resp.pages.some((p) => (p.blocks || []).some((b) => b.type === 'table'));

// A POST to `url` with `init` whose JSON answer has `output`: answers it, or throws an Error with
// the message to show.
async function postForOutput(url, init) {
  const res = await fetch(url, { method: 'POST', ...init }).catch((err) => {
    throw new Error(networkMessage(err));
  });
  const raw = await res.text();
  const body = parseJsonOrNull(raw);
  if (!res.ok || !body || typeof body.output !== 'string') throw new Error(describeError(res, body, raw));
  return body.output;
}

// The answer `resp` written in `format` by the server, from the answer itself.
const rendered = (resp, format, paginate) =>
  postForOutput('/render', {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ answer: resp, output_format: format, paginate_output: Boolean(paginate) }),
  });

let view = 'source'; // or 'preview', for Markdown and HTML
let shown = { format: '', text: '' };

// One result per line: readable without the thousands of lines JSON.stringify(x, null, 2) makes.
function compactJson(results) {
  if (!Array.isArray(results) || results.length === 0) return '[]';
  return `[\n${results.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n]`;
}

// The job's result rendered again in `format` by the server; null when it answers another format.
async function jobOutput(job, format) {
  const url = `${job.resultUrl}${job.resultUrl.includes('?') ? '&' : '?'}output_format=${format}`;
  const { res, body, text } = await getJson(url).catch((err) => {
    throw new Error(networkMessage(err));
  });
  if (!res.ok || !body) throw new Error(describeError(res, body, text));
  return body.format === format && typeof body.output === 'string' ? body.output : null;
}

// `entry`'s answer in `format`: from the answer itself when it is in that format, else from its
// job, else written by the server from the answer (also for the pages a cancelled job read); an
// image's hOCR or ALTO, which place each word, is asked of /ocr. Answers the text, or throws an
// Error with the message to show.
export async function outputOf(entry, format) {
  if (entry.outputs[format] !== undefined) return entry.outputs[format];
  const resp = entry.response;
  let text;
  if (format === 'json') {
    text = JSON.stringify(resp, null, 2);
  } else if (resp.format === format && typeof resp.output === 'string') {
    text = resp.output;
  } else if (entry.job && !entry.partial) {
    text = await jobOutput(entry.job, format);
    if (text === null) throw new Error(t('noRerender'));
  } else if (kRendered.has(format)) {
    text = await rendered(resp, format, entry.paginate);
  } else if (entry.partial) {
    throw new Error(t('needsWhole'));
  } else {
    text = await postForOutput('/ocr', { body: buildForm(entry.file, format) });
  }
  entry.outputs[format] = text;
  return text;
}

function showView() {
  const format = shown.format;
  const previewable = format === 'markdown' || format === 'html';
  const preview = previewable && view === 'preview';
  els.viewSwitch.hidden = !previewable;
  els.viewSource.setAttribute('aria-pressed', String(!preview));
  els.viewPreview.setAttribute('aria-pressed', String(preview));
  els.output.hidden = preview;
  els.mdPreview.hidden = !(preview && format === 'markdown');
  els.htmlPreview.hidden = !(preview && format === 'html');
  if (preview && format === 'markdown') els.mdPreview.replaceChildren(renderMarkdown(shown.text));
  if (preview && format === 'html' && els.htmlPreview.srcdoc !== shown.text) els.htmlPreview.srcdoc = shown.text;
}

// Shows the chosen format's output of the file shown (fetched or written once, then kept).
export async function renderOutput() {
  const entry = state.entry;
  const format = els.format.value;
  const info = kFormats[format];
  els.downloadOutput.textContent = t('downloadAs', { ext: `.${info.ext}` });
  els.outputFormat.textContent = `(${format})`;
  const running = state.job && !state.response;
  els.downloadCsv.hidden = running || !hasTables(state.response);
  for (const b of [els.copyOutput, els.downloadOutput, els.downloadPdf]) b.disabled = running || !entry;
  if (running || !entry || !entry.response) {
    shown = { format: '', text: '' };
    els.output.textContent = '';
    els.output.dataset.format = '';
    if (running) els.outputFormat.textContent = t('outputPending');
    return showView();
  }
  els.output.dataset.format = '';
  if (entry.outputs[format] === undefined) els.output.textContent = t('rendering');
  let text;
  try {
    text = format === 'json' ? compactJson(entry.response.results ?? []) : await outputOf(entry, format);
  } catch (err) {
    if (state.entry !== entry || els.format.value !== format) return undefined;
    els.output.textContent = '';
    showError(err.message);
    return undefined;
  }
  if (state.entry !== entry || els.format.value !== format) return undefined; // switched meanwhile
  shown = { format, text };
  els.output.textContent = text; // shown as source, never as markup
  els.output.dataset.format = format;
  return showView();
}

// ---- copy and downloads -------------------------------------------------------------------------

function copyFallback(text) {
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.className = 'offscreen';
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

async function copyOutput() {
  const entry = state.entry;
  if (!entry || !entry.response) return;
  const format = els.format.value;
  let text = '';
  try {
    text = format === 'json' ? JSON.stringify(entry.response, null, 2) : await outputOf(entry, format);
  } catch (err) {
    showError(err.message);
    return;
  }
  let ok = false;
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      ok = false;
    }
  }
  if (!ok) ok = copyFallback(text);
  els.copyOutput.textContent = t(ok ? 'copied' : 'copyFailed');
  setTimeout(() => {
    els.copyOutput.textContent = t('copy');
  }, 1500);
}

// Saves `entry`'s output in `format` (the chosen one by default).
export async function downloadOutput(entry, format = els.format.value) {
  if (!entry || !entry.response) return;
  try {
    const text = await outputOf(entry, format);
    const info = kFormats[format];
    saveBlob(new Blob([text], { type: `${info.type};charset=utf-8` }), `${baseName(entry.name)}.${info.ext}`);
  } catch (err) {
    showError(err.message);
  }
}


// The searchable PDF, saved by the browser: a finished job's from its result (the pages are not
// read again), else the file read again with output_format=pdf.
async function downloadSearchablePdf() {
  const entry = state.entry;
  if (!entry || els.downloadPdf.disabled) return;
  els.downloadPdf.disabled = true;
  els.downloadPdf.textContent = t('makingPdf');
  try {
    const job = entry.job && !entry.partial ? entry.job : null;
    const res = job
      ? await fetch(`${job.resultUrl}${job.resultUrl.includes('?') ? '&' : '?'}output_format=pdf`)
      : await fetch('/ocr', { method: 'POST', body: buildForm(entry.file, 'pdf') });
    if (!res.ok) {
      const text = await res.text();
      showError(describeError(res, parseJsonOrNull(text), text));
      return;
    }
    saveBlob(await res.blob(), `${baseName(entry.name)}.pdf`);
  } catch (err) {
    showError(networkMessage(err));
  } finally {
    els.downloadPdf.disabled = false;
    els.downloadPdf.textContent = t('searchablePdf');
  }
}

export function setupExport() {
  els.format.addEventListener('change', () => renderOutput());
  els.copyOutput.addEventListener('click', copyOutput);
  els.downloadOutput.addEventListener('click', () => downloadOutput(state.entry));
  els.downloadCsv.addEventListener('click', () => downloadOutput(state.entry, 'csv'));
  els.downloadPdf.addEventListener('click', downloadSearchablePdf);
  els.viewSource.addEventListener('click', () => {
    view = 'source';
    showView();
  });
  els.viewPreview.addEventListener('click', () => {
    view = 'preview';
    showView();
  });
  onLangChange(() => {
    els.downloadOutput.textContent = t('downloadAs', { ext: `.${kFormats[els.format.value].ext}` });
    if (state.job && !state.response) els.outputFormat.textContent = t('outputPending');
  });
}
