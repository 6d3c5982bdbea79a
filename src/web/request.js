// The POSTs of a file (to /ocr or /jobs) and the messages of error answers.

import { els, setStatus, showError, state } from './dom.js';

export function buildForm(file) {
  const form = new FormData();
  form.append('file', file, file.name || 'upload');
  form.append('output_format', els.format.value);
  if (!els.modelField.hidden && els.model.value) form.append('model', els.model.value);
  return form;
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
    els.results.classList.remove('stale');
    setStatus('Failed.', 'error');
    showError(`Network error: could not reach the server (${err && err.message ? err.message : err}).`);
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
  if (!res) return snippet || 'The job failed.';
  return `HTTP ${res.status} ${res.statusText || ''}${snippet ? `: ${snippet}` : ''}`.trim();
}
