// The POSTs of a file (to /ocr or /jobs), the options drawer's fields, and the messages of error
// answers.

import { els, setStatus, showError, state } from './dom.js';
import { t } from './i18n.js';

// The multipart form of `file` with the chosen format and the options drawer's values; `format`
// overrides the chosen one.
export function buildForm(file, format = els.format.value) {
  const form = new FormData();
  form.append('file', file, file.name || 'upload');
  form.append('output_format', format);
  if (!els.modelField.hidden && els.model.value) form.append('model', els.model.value);
  const pages = els.optPages.value.trim();
  if (pages) form.append('page_range', pages);
  const score = els.optDropScore.value.trim();
  if (score) form.append('drop_score', score);
  if (els.optForceOcr.checked) form.append('force_ocr', 'true');
  if (els.optPaginate.checked) form.append('paginate_output', 'true');
  if (els.optWordBoxes.checked) form.append('return_word_boxes', 'true');
  return form;
}

export function networkMessage(err) {
  return t('networkError', { msg: err && err.message ? err.message : String(err) });
}

// POSTs `form` to `url`; answers {res, body, text}, or null once it has shown a network error
// or when the request was superseded (aborted).
export async function post(url, form, controller) {
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      body: form,
      headers: { Accept: 'application/json' },
      signal: controller.signal,
    });
  } catch (err) {
    if (controller.signal.aborted) return null;
    state.controller = null;
    setStatus('failed', 'error');
    showError(networkMessage(err));
    return null;
  }

  let body = null;
  let text = '';
  try {
    text = await res.text();
    body = JSON.parse(text);
  } catch {
    body = null; // not JSON: described from the status and text below
  }
  if (controller.signal.aborted) return null;
  state.controller = null;
  return { res, body, text };
}

// `text` parsed as JSON, or null when it is not JSON (an error page from a proxy, say).
export function parseJsonOrNull(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// GETs JSON; answers {res, body, text}; throws on a network error.
export async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  const text = await res.text();
  return { res, body: parseJsonOrNull(text), text };
}

// The message of an error answer: {"error": "message", "code"}, or "error_code" beside it (a
// job's status); `res` may be null (a job's failed event).
export function describeError(res, body, text) {
  const err = body && body.error;
  if (typeof err === 'string' && err) {
    const code = [body.code, body.error_code].find((c) => typeof c === 'string' && c);
    return code ? `${code}: ${err}` : err;
  }
  if (body && typeof body.message === 'string') return body.message;
  const snippet = (text || '').trim().slice(0, 200);
  if (!res) return snippet || t('jobFailed');
  return `HTTP ${res.status} ${res.statusText || ''}${snippet ? `: ${snippet}` : ''}`.trim();
}
