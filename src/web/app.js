// OnnxOCR Web UI: upload (picker, drag and drop, paste), POST /ocr as multipart/form-data, and show
// the recognized lines over the image. PDFs and multi-page TIFFs go through an asynchronous job
// instead (POST /jobs, then its Server-Sent Events): a progress bar, each page's lines as soon as
// the page is read, and a Cancel button. Plain JS, no dependencies. Server text is only ever
// inserted with textContent or as SVG attributes, never as HTML.
'use strict';

(() => {
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);

  const els = {
    dropZone: $('drop-zone'),
    fileInput: $('file-input'),
    fileName: $('file-name'),
    format: $('format'),
    model: $('model'),
    modelField: $('model-field'),
    status: $('status'),
    error: $('error'),
    results: $('results'),
    preview: $('preview'),
    imageWrap: $('image-wrap'),
    overlay: $('overlay'),
    pager: $('pager'),
    prevPage: $('prev-page'),
    nextPage: $('next-page'),
    pageSelect: $('page-select'),
    pageLabel: $('page-label'),
    job: $('job'),
    jobProgress: $('job-progress'),
    jobProgressText: $('job-progress-text'),
    jobTime: $('job-time'),
    jobCancel: $('job-cancel'),
    lines: $('lines'),
    lineCount: $('line-count'),
    processingTime: $('processing-time'),
    copyAll: $('copy-all'),
    downloadJson: $('download-json'),
    output: $('output'),
    outputFormat: $('output-format'),
  };

  const state = {
    file: null, // the last file sent, re-sent when the format or model changes
    previewUrl: null,
    jsonUrl: null,
    controller: null, // AbortController of the request in flight
    job: null, // the job in flight or last run (see startJob), null for a direct /ocr answer
    response: null,
    pages: [], // [{page, width, height, lines: [{index, text, confidence, box}]}]
    allLines: [],
    currentPage: 0,
    pinned: -1, // index of the line selected by a click, -1 for none
    runs: 0,
  };

  // ---- status and errors ----------------------------------------------------------------------

  function setStatus(text, kind) {
    els.status.textContent = text;
    els.status.dataset.state = kind;
  }

  function showError(text) {
    els.error.textContent = text;
    els.error.hidden = false;
  }

  function clearError() {
    els.error.textContent = '';
    els.error.hidden = true;
  }

  function formatBytes(n) {
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
    return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  }

  function formatSeconds(s) {
    if (typeof s !== 'number' || !Number.isFinite(s)) return '–';
    return s < 10 ? `${s.toFixed(3)} s` : `${s.toFixed(1)} s`;
  }

  // ---- model sets from /info ------------------------------------------------------------------

  async function loadInfo() {
    try {
      const res = await fetch('/info', { headers: { Accept: 'application/json' } });
      if (!res.ok) return;
      const info = await res.json();
      const sets = Array.isArray(info.model_sets) ? info.model_sets : [];
      const names = sets
        .map((s) => (typeof s === 'string' ? s : s && typeof s.name === 'string' ? s.name : null))
        .filter((n) => n);
      if (names.length <= 1) return;
      els.model.replaceChildren();
      for (const name of names) {
        const opt = document.createElement('option');
        opt.value = name;
        opt.textContent = name;
        if (name === info.default_model) opt.selected = true;
        els.model.append(opt);
      }
      els.modelField.hidden = false;
    } catch {
      // /info is optional for the page: without it the server's default model is used.
    }
  }

  // ---- choosing a file ------------------------------------------------------------------------

  function pickFile(file) {
    if (!file) return;
    state.file = file;
    els.fileName.textContent = `${file.name || 'pasted image'} · ${formatBytes(file.size)}`;
    els.fileName.hidden = false;
    upload();
  }

  els.fileInput.addEventListener('change', () => {
    const file = els.fileInput.files && els.fileInput.files[0];
    if (file) pickFile(file);
    // Let the same file be chosen again (e.g. after changing the format).
    els.fileInput.value = '';
  });

  // A click anywhere in the drop zone opens the picker (the label already does it itself).
  els.dropZone.addEventListener('click', (e) => {
    if (e.target.closest('label, input, a, button')) return;
    els.fileInput.click();
  });

  for (const type of ['dragenter', 'dragover']) {
    els.dropZone.addEventListener(type, (e) => {
      e.preventDefault();
      els.dropZone.classList.add('dragging');
    });
  }
  for (const type of ['dragleave', 'dragend', 'drop']) {
    els.dropZone.addEventListener(type, (e) => {
      if (type === 'dragleave' && els.dropZone.contains(e.relatedTarget)) return;
      els.dropZone.classList.remove('dragging');
    });
  }
  els.dropZone.addEventListener('drop', (e) => {
    e.preventDefault();
    const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (file) pickFile(file);
  });
  // A file dropped outside the zone must not make the browser navigate away from the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  document.addEventListener('paste', (e) => {
    const data = e.clipboardData;
    if (!data) return;
    let file = null;
    for (const f of data.files || []) {
      file = f;
      break;
    }
    if (!file) {
      for (const item of data.items || []) {
        if (item.kind === 'file') {
          file = item.getAsFile();
          if (file) break;
        }
      }
    }
    if (!file) return; // plain text pasted somewhere: leave it alone
    e.preventDefault();
    if (!file.name) {
      const ext = (file.type.split('/')[1] || 'png').replace(/[^a-z0-9]/gi, '');
      file = new File([file], `pasted.${ext}`, { type: file.type });
    }
    pickFile(file);
  });

  els.format.addEventListener('change', () => {
    if (state.file) upload();
  });
  els.model.addEventListener('change', () => {
    if (state.file) upload();
  });

  // ---- what the file is ---------------------------------------------------------------------------

  async function readBytes(file, offset, length) {
    if (!(offset >= 0 && offset < file.size)) return new Uint8Array(0);
    const end = Math.min(file.size, offset + length);
    return new Uint8Array(await file.slice(offset, end).arrayBuffer());
  }

  function startsWith(bytes, offset, magic) {
    if (offset + magic.length > bytes.length) return false;
    for (let i = 0; i < magic.length; ++i) {
      if (bytes[offset + i] !== magic.charCodeAt(i)) return false;
    }
    return true;
  }

  // The frames of a classic TIFF, counted up to `max` by following the next-IFD links from the
  // header's as the server does: the walk ends at a link of 0, or at one that leads out of the
  // file, back to an IFD already met, or to an IFD whose entries do not fit in the file.
  async function countTiffFrames(file, max) {
    const header = await readBytes(file, 0, 8);
    if (header.length < 8) return 0;
    const little = header[0] === 0x49; // "II"
    const view = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const seen = new Set();
    let frames = 0;
    let ifd = view(header).getUint32(4, little);
    while (frames < max && ifd > 0 && !seen.has(ifd)) {
      seen.add(ifd);
      const count = await readBytes(file, ifd, 2);
      if (count.length < 2) break;
      const entries = view(count).getUint16(0, little);
      const nextField = ifd + 2 + 12 * entries;
      if (entries === 0 || nextField > file.size) break;
      frames += 1;
      const next = await readBytes(file, nextField, 4);
      if (next.length < 4) break;
      ifd = view(next).getUint32(0, little);
    }
    return frames;
  }

  // Whether the file goes through a job: a PDF ("%PDF-" within its first 1024 bytes, as the server
  // sniffs it) or a TIFF of more than one frame. Everything else, single images and files the
  // server will refuse, is sent to /ocr directly. Decided from the bytes, not the name or type.
  async function needsJob(file) {
    const head = await readBytes(file, 0, 1024 + 5);
    if (
      startsWith(head, 0, '\xFF\xD8\xFF') ||
      startsWith(head, 0, '\x89PNG\r\n\x1A\n') ||
      (startsWith(head, 0, 'RIFF') && startsWith(head, 8, 'WEBP')) ||
      startsWith(head, 0, 'BM')
    ) {
      return false;
    }
    if (startsWith(head, 0, 'II*\0') || startsWith(head, 0, 'MM\0*')) {
      return (await countTiffFrames(file, 2)) > 1;
    }
    for (let offset = 0; offset + 5 <= head.length; ++offset) {
      if (startsWith(head, offset, '%PDF-')) return true;
    }
    return false;
  }

  // ---- the request ----------------------------------------------------------------------------

  function buildForm(file) {
    const form = new FormData();
    form.append('file', file, file.name || 'upload');
    form.append('output_format', els.format.value);
    if (!els.modelField.hidden && els.model.value) form.append('model', els.model.value);
    return form;
  }

  // POSTs `form` to `url`; answers {res, body, text}, or null once it has shown a network error
  // or when the request was superseded (aborted).
  async function post(url, form, controller) {
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

  async function upload() {
    const file = state.file;
    if (!file) return;
    if (state.controller) state.controller.abort();
    abandonJob();
    const controller = new AbortController();
    state.controller = controller;

    clearError();
    els.results.classList.add('stale');
    setStatus(`Recognizing ${file.name || 'image'} (${formatBytes(file.size)})…`, 'loading');

    let viaJob = false;
    try {
      viaJob = await needsJob(file);
    } catch {
      viaJob = false; // unreadable here: let the server say what it makes of it
    }
    if (controller.signal.aborted) return;
    if (viaJob) {
      startJob(file, controller);
      return;
    }

    const format = els.format.value;
    const answer = await post('/ocr', buildForm(file), controller);
    if (!answer) return;
    const { res, body, text } = answer;
    els.results.classList.remove('stale');
    if (!res.ok || !body || body.success === false) {
      setStatus('Failed.', 'error');
      showError(describeError(res, body, text));
      return;
    }
    render(body, file, format);
  }

  // The message of an error answer: {"error": "message", "code"}, or "error_code" beside it (a
  // job's status); `res` may be null (a job's failed event).
  function describeError(res, body, text) {
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

  // ---- jobs: PDFs and multi-page TIFFs --------------------------------------------------------

  const kFinalStatuses = new Set(['succeeded', 'failed', 'cancelled']);

  async function startJob(file, controller) {
    const format = els.format.value;
    setStatus(`Uploading ${file.name || 'document'} (${formatBytes(file.size)})…`, 'loading');
    const answer = await post('/jobs', buildForm(file), controller);
    if (!answer) return;
    const { res, body, text } = answer;
    if (!res.ok || !body || body.success === false || typeof body.id !== 'string') {
      els.results.classList.remove('stale');
      setStatus('Failed.', 'error');
      showError(describeError(res, body, text));
      return;
    }
    const base = `/jobs/${encodeURIComponent(body.id)}`;
    const job = {
      id: body.id,
      file,
      format,
      statusUrl: body.status_url || res.headers.get('Location') || base,
      resultUrl: body.result_url || `${base}/result`,
      eventsUrl: body.events_url || `${base}/events`,
      source: null, // the EventSource
      started: performance.now(),
      done: 0, // pages read
      total: 0, // pages the job reads, 0 until known
      finished: false,
      cancelRequested: false,
      errors: 0, // EventSource errors since the last event
      timer: 0,
      poll: 0,
    };
    state.job = job;
    beginJobView(job);
    listen(job);
  }

  function listen(job) {
    const source = new EventSource(job.eventsUrl);
    job.source = source;
    const on = (type, handler) =>
      source.addEventListener(type, (e) => {
        if (state.job !== job || job.finished) return;
        job.errors = 0;
        let data = null;
        try {
          data = JSON.parse(e.data);
        } catch {
          data = null;
        }
        handler(data, e.data);
      });
    on('progress', (data) => {
      if (!data) return;
      updateProgress(job, data.pages_done, data.page_count);
    });
    on('page', (data) => {
      if (data) addJobPage(job, data);
    });
    on('done', (data) => {
      if (data && typeof data.result_url === 'string') job.resultUrl = data.result_url;
      jobSucceeded(job);
    });
    on('failed', (data, raw) => jobFailed(job, data, raw));
    on('cancelled', () => jobCancelled(job));
    source.addEventListener('error', () => {
      if (state.job !== job || job.finished) return;
      job.errors += 1;
      // The browser reconnects by itself (sending Last-Event-ID); when it gives up, or keeps
      // failing, ask the job's status instead.
      if (source.readyState === EventSource.CLOSED || job.errors >= 5) {
        source.close();
        pollStatus(job);
      }
    });
  }

  // Asks the job's status every second until it is final: the fallback when the events stop.
  async function pollStatus(job) {
    if (state.job !== job || job.finished) return;
    let res;
    let body = null;
    try {
      res = await fetch(job.statusUrl, { headers: { Accept: 'application/json' } });
      body = await res.json();
    } catch {
      body = null;
    }
    if (state.job !== job || job.finished) return;
    if (res && res.ok && body && typeof body.status === 'string') {
      job.errors = 0;
      updateProgress(job, body.pages_done, body.page_count);
      if (body.status === 'succeeded') return jobSucceeded(job);
      if (body.status === 'failed') return jobFailed(job, body, '');
      if (body.status === 'cancelled') return jobCancelled(job);
    } else if (res && res.status >= 400 && res.status < 500) {
      endJob(job);
      setStatus('Failed.', 'error');
      showError(describeError(res, body, ''));
      return;
    } else if (++job.errors >= 10) {
      endJob(job);
      setStatus('Failed.', 'error');
      showError('Network error: lost the connection to the server while the document was read.');
      return;
    }
    job.poll = setTimeout(() => pollStatus(job), 1000);
  }

  // Stops listening to a job; the page keeps what it has shown.
  function endJob(job) {
    job.finished = true;
    if (job.source) job.source.close();
    clearInterval(job.timer);
    clearTimeout(job.poll);
    els.job.hidden = true;
  }

  // A new upload replaces the job in flight: stop it on the server too.
  function abandonJob() {
    const job = state.job;
    if (!job || job.finished) return;
    endJob(job);
    fetch(`/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE', keepalive: true }).catch(() => {});
  }

  window.addEventListener('pagehide', abandonJob);

  function beginJobView(job) {
    state.response = null;
    state.pages = [];
    state.allLines = [];
    state.currentPage = 0;
    state.pinned = -1;
    if (state.jsonUrl) URL.revokeObjectURL(state.jsonUrl);
    state.jsonUrl = null;
    els.downloadJson.href = '#';
    els.downloadJson.setAttribute('aria-disabled', 'true'); // until the whole answer is here
    if (state.previewUrl) URL.revokeObjectURL(state.previewUrl);
    state.previewUrl = null;
    els.preview.onload = null;
    els.preview.onerror = null;
    els.preview.removeAttribute('src');
    els.preview.hidden = true;
    els.imageWrap.classList.add('sheet'); // no PDF or TIFF rendering here: boxes on a blank sheet

    els.processingTime.textContent = '–';
    els.lineCount.textContent = '(0)';
    els.output.textContent = '';
    els.output.dataset.format = '';
    els.outputFormat.textContent = '(when the whole document is read)';
    els.jobCancel.disabled = false;
    els.job.hidden = false;
    renderProgress(job);
    job.timer = setInterval(() => renderProgress(job), 500);
    setStatus(`Reading ${job.file.name || 'the document'}…`, 'loading');

    renderLines();
    renderPage();
    els.results.classList.remove('stale');
    els.results.hidden = false;
  }

  function updateProgress(job, done, total) {
    if (Number.isInteger(total) && total > 0) job.total = total;
    if (Number.isInteger(done) && done > job.done) job.done = done;
    renderProgress(job);
  }

  function formatDuration(s) {
    if (!Number.isFinite(s) || s < 0) return '–';
    if (s < 60) return `${Math.round(s)} s`;
    const m = Math.floor(s / 60);
    return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
  }

  function renderProgress(job) {
    const total = Math.max(job.total, job.done);
    const done = job.done;
    els.jobProgress.max = total > 0 ? total : 1;
    els.jobProgress.value = done;
    els.job.dataset.done = String(done);
    els.job.dataset.total = String(total);
    els.jobProgressText.textContent =
      total > 0 ? `${done} of ${total} page${total === 1 ? '' : 's'} done` : 'Waiting for the server…';
    const elapsed = (performance.now() - job.started) / 1000;
    let left = 'estimating time left…';
    if (done > 0 && total > 0) {
      left = done >= total ? 'finishing…' : `about ${formatDuration((elapsed / done) * (total - done))} left`;
    }
    els.jobTime.textContent = `${formatDuration(elapsed)} elapsed · ${left}`;
  }

  function addJobPage(job, data) {
    const position = Number.isInteger(data.index) ? data.index : state.pages.length;
    if (position < state.pages.length) return; // seen already (replayed after a reconnect)
    let index = state.allLines.length;
    const page = toPage(data, state.pages.length, () => index++);
    state.pages.push(page);
    state.allLines.push(...page.lines);
    updateProgress(job, state.pages.length, job.total);
    els.lineCount.textContent = `(${state.allLines.length})`;
    renderPager();
    if (state.currentPage === state.pages.length - 1) {
      renderLines();
      renderPage();
    }
  }

  async function jobSucceeded(job) {
    endJob(job);
    setStatus('Fetching the result…', 'loading');
    let res;
    let body = null;
    let text = '';
    try {
      res = await fetch(job.resultUrl, { headers: { Accept: 'application/json' } });
      text = await res.text();
      body = JSON.parse(text);
    } catch (err) {
      if (state.job !== job) return;
      if (!res) {
        setStatus('Failed.', 'error');
        showError(`Network error: could not fetch the result (${err && err.message ? err.message : err}).`);
        return;
      }
    }
    if (state.job !== job) return;
    if (res.status === 404 && job.cancelRequested) {
      // It ended just before the DELETE came, which then discarded the finished job's result.
      jobCancelled(job);
      return;
    }
    if (!res.ok || !body || body.success === false) {
      setStatus('Failed.', 'error');
      showError(describeError(res, body, text));
      return;
    }
    render(body, job.file, job.format, { keepPage: true, sheet: true });
  }

  function jobFailed(job, data, raw) {
    endJob(job);
    renderLines(); // the pages read stay; none read: no longer "waiting"
    setStatus('Failed.', 'error');
    showError(describeError(null, data, raw));
  }

  function jobCancelled(job) {
    endJob(job);
    renderLines();
    const n = state.pages.length;
    setStatus(`Cancelled${n > 0 ? ` after ${n} page${n === 1 ? '' : 's'}` : ''}.`, 'cancelled');
  }

  els.jobCancel.addEventListener('click', async () => {
    const job = state.job;
    if (!job || job.finished) return;
    els.jobCancel.disabled = true;
    job.cancelRequested = true;
    setStatus('Cancelling…', 'loading');
    let res;
    let body = null;
    try {
      res = await fetch(`/jobs/${encodeURIComponent(job.id)}`, {
        method: 'DELETE',
        headers: { Accept: 'application/json' },
      });
      body = await res.json().catch(() => null);
    } catch (err) {
      if (state.job !== job || job.finished) return;
      els.jobCancel.disabled = false;
      showError(`Network error: could not cancel (${err && err.message ? err.message : err}).`);
      return;
    }
    if (state.job !== job || job.finished) return; // its events ended it meanwhile
    const status = body && typeof body.status === 'string' ? body.status : '';
    if (res.ok && (status === 'cancelled' || status === '')) {
      jobCancelled(job);
    } else if (res.ok && kFinalStatuses.has(status)) {
      // It ended before the DELETE came, which then discarded it (a finished job's DELETE frees
      // its result): nothing more to fetch.
      jobCancelled(job);
    } else if (res.ok || res.status === 409) {
      // Cancelling: the events say how it ended.
    } else {
      job.cancelRequested = false;
      els.jobCancel.disabled = false;
      showError(describeError(res, body, ''));
    }
  });

  // ---- rendering a response -------------------------------------------------------------------

  // One page of an answer (or of a job's `page` event); `nextIndex()` numbers its lines, which are
  // numbered across the whole document.
  function toPage(p, position, nextIndex) {
    const toLine = (r) => ({
      index: nextIndex(),
      text: typeof r.text === 'string' ? r.text : String(r.text ?? ''),
      confidence: typeof r.confidence === 'number' ? r.confidence : NaN,
      box: Array.isArray(r.bounding_box) ? r.bounding_box : [],
    });
    return {
      page: typeof p.page === 'number' ? p.page : position,
      width: p.width,
      height: p.height,
      source: p.source,
      lines: (Array.isArray(p.results) ? p.results : []).map(toLine),
    };
  }

  function normalize(resp) {
    let index = 0;
    const nextIndex = () => index++;
    if (Array.isArray(resp.pages) && resp.pages.length > 0) {
      return resp.pages.map((p, i) => toPage(p, i, nextIndex));
    }
    return [toPage({ page: 0, results: resp.results }, 0, nextIndex)];
  }

  // opts.keepPage: stay on the page shown (a job's answer, whose pages were shown as they came);
  // opts.sheet: draw on a blank sheet whatever the file is.
  function render(resp, file, format, opts = {}) {
    const page = state.currentPage;
    state.response = resp;
    state.pages = normalize(resp);
    state.allLines = state.pages.flatMap((p) => p.lines);
    state.currentPage = opts.keepPage ? Math.min(page, state.pages.length - 1) : 0;
    state.pinned = -1;
    state.runs += 1;

    const n = state.allLines.length;
    const secs = resp.processing_time;
    els.processingTime.textContent = formatSeconds(secs);
    els.lineCount.textContent = `(${n})`;
    const pageCount = resp.page_count || state.pages.length;
    setStatus(
      `Done: ${n} line${n === 1 ? '' : 's'}` +
        (pageCount > 1 ? ` on ${pageCount} pages` : '') +
        ` in ${formatSeconds(secs)}.`,
      'done',
    );

    renderLines();
    renderOutput(resp, format);
    renderDownload(resp, file);
    renderPreview(file, opts.sheet);

    els.results.dataset.run = String(state.runs);
    els.results.hidden = false;
  }

  // The lines of the page shown; a one-page answer without a page heading.
  function renderLines() {
    const frag = document.createDocumentFragment();
    const job = state.job && !state.response ? state.job : null; // a job's pages, as they came
    const multi = state.pages.length > 1 || (job && job.total > 1);
    const page = state.pages[state.currentPage];
    for (const p of page ? [page] : []) {
      if (multi) {
        const head = document.createElement('li');
        head.className = 'page-head';
        head.textContent = `Page ${p.page + 1}` + (p.source === 'text_layer' ? ' (text layer)' : '');
        frag.append(head);
      }
      for (const line of p.lines) {
        const li = document.createElement('li');
        li.className = 'line';
        li.dataset.index = String(line.index);
        li.dataset.page = String(p.page);
        li.tabIndex = 0;
        const text = document.createElement('span');
        text.className = 'line-text';
        text.textContent = line.text;
        const conf = document.createElement('span');
        conf.className = 'conf';
        if (Number.isFinite(line.confidence)) {
          conf.textContent = `${(line.confidence * 100).toFixed(1)}%`;
          conf.title = `Confidence ${line.confidence.toFixed(4)}`;
          if (line.confidence < 0.8) conf.classList.add('low');
        }
        li.append(text, conf);
        frag.append(li);
      }
    }
    if (!page || page.lines.length === 0) {
      const empty = document.createElement('li');
      empty.className = 'empty';
      if (!page) empty.textContent = job && !job.finished ? 'Waiting for the first page…' : 'No text was found.';
      else if (state.allLines.length === 0 && !job) empty.textContent = 'No text was found.';
      else empty.textContent = 'No text was found on this page.';
      frag.append(empty);
    }
    els.lines.replaceChildren(frag);
  }

  function renderOutput(resp, format) {
    // markdown/html/text come as `output`; for json show the lines themselves.
    const text = typeof resp.output === 'string' ? resp.output : compactJson(resp.results ?? []);
    const shown = typeof resp.format === 'string' ? resp.format : format;
    els.output.textContent = text; // markdown, html and text are shown as source, never as markup
    els.output.dataset.format = shown;
    els.outputFormat.textContent = `(${shown})`;
  }

  // One result per line: readable without the thousands of lines JSON.stringify(x, null, 2) makes.
  function compactJson(results) {
    if (!Array.isArray(results) || results.length === 0) return '[]';
    return `[\n${results.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n]`;
  }

  function renderDownload(resp, file) {
    if (state.jsonUrl) URL.revokeObjectURL(state.jsonUrl);
    const blob = new Blob([JSON.stringify(resp, null, 2)], { type: 'application/json' });
    state.jsonUrl = URL.createObjectURL(blob);
    els.downloadJson.href = state.jsonUrl;
    els.downloadJson.removeAttribute('aria-disabled');
    const base = (file.name || 'ocr').replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'ocr';
    els.downloadJson.download = `${base}.ocr.json`;
  }

  function renderPreview(file, sheet) {
    if (state.previewUrl) {
      URL.revokeObjectURL(state.previewUrl);
      state.previewUrl = null;
    }
    const isPdf = sheet || file.type === 'application/pdf' || /\.pdf$/i.test(file.name || '');
    els.imageWrap.classList.toggle('sheet', isPdf);
    if (isPdf) {
      // No PDF renderer in the page: draw the boxes and their text on a blank sheet instead.
      els.preview.removeAttribute('src');
      els.preview.hidden = true;
      renderPage();
      return;
    }
    els.preview.hidden = false;
    state.previewUrl = URL.createObjectURL(file);
    els.preview.onload = () => renderPage();
    els.preview.onerror = () => {
      // A format the browser cannot show (e.g. TIFF): fall back to the blank sheet.
      els.preview.hidden = true;
      els.imageWrap.classList.add('sheet');
      renderPage();
    };
    els.preview.src = state.previewUrl;
    renderPage();
  }

  // Draws the boxes of the current page into the <svg> overlay; its viewBox is the page's size in
  // image pixels, so the boxes scale with the displayed image.
  function renderPage() {
    const page = state.pages[state.currentPage];
    renderPager();
    const sheet = els.imageWrap.classList.contains('sheet');
    if (!page) {
      els.overlay.replaceChildren();
      if (sheet) els.imageWrap.style.aspectRatio = '3 / 2'; // a blank sheet until a page comes
      return;
    }

    let w = page.width;
    let h = page.height;
    if (!(w > 0 && h > 0) && !sheet) {
      w = els.preview.naturalWidth;
      h = els.preview.naturalHeight;
    }
    if (!(w > 0 && h > 0)) {
      // Unknown size (not loaded yet, or no page size): bound the boxes themselves.
      w = 1;
      h = 1;
      for (const line of page.lines) {
        for (const [x, y] of line.box) {
          w = Math.max(w, x + 10);
          h = Math.max(h, y + 10);
        }
      }
    }
    els.overlay.setAttribute('viewBox', `0 0 ${w} ${h}`);
    if (sheet) els.imageWrap.style.aspectRatio = `${w} / ${h}`;
    else els.imageWrap.style.removeProperty('aspect-ratio');

    const frag = document.createDocumentFragment();
    const fontSize = (line) => {
      const ys = line.box.map((p) => p[1]);
      return Math.max(4, (Math.max(...ys) - Math.min(...ys)) * 0.7);
    };
    for (const line of page.lines) {
      if (line.box.length < 3) continue;
      const g = document.createElementNS(SVG_NS, 'g');
      const poly = document.createElementNS(SVG_NS, 'polygon');
      poly.setAttribute('points', line.box.map(([x, y]) => `${x},${y}`).join(' '));
      poly.setAttribute('class', 'box');
      poly.dataset.index = String(line.index);
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = line.text;
      poly.append(title);
      g.append(poly);
      if (sheet) {
        const t = document.createElementNS(SVG_NS, 'text');
        const size = fontSize(line);
        const bottom = Math.max(...line.box.map((p) => p[1]));
        t.setAttribute('x', String(line.box[0][0] + size * 0.1));
        t.setAttribute('y', String(bottom - size * 0.3));
        t.setAttribute('font-size', String(size));
        t.setAttribute('class', 'sheet-text');
        t.textContent = line.text;
        g.prepend(t);
      }
      frag.append(g);
    }
    els.overlay.replaceChildren(frag);
    applyHighlight(state.pinned, false);
  }

  // The page selector: one option per page read so far; while a job runs, the label counts the
  // pages it will read.
  function renderPager() {
    const job = state.job && !state.response ? state.job : null;
    const have = state.pages.length;
    const total = Math.max(have, job ? job.total : 0);
    els.pager.hidden = total <= 1;
    if (els.pageSelect.options.length !== have || els.pageSelect.dataset.run !== String(state.runs)) {
      const frag = document.createDocumentFragment();
      state.pages.forEach((p, i) => {
        const opt = document.createElement('option');
        opt.value = String(i);
        opt.textContent = `Page ${p.page + 1}`;
        frag.append(opt);
      });
      els.pageSelect.replaceChildren(frag);
      els.pageSelect.dataset.run = String(state.runs);
    }
    els.pageSelect.value = String(state.currentPage);
    els.pageSelect.disabled = have <= 1;
    els.pageLabel.textContent = `of ${total}`;
    els.prevPage.disabled = state.currentPage <= 0;
    els.nextPage.disabled = state.currentPage >= have - 1;
  }

  els.prevPage.addEventListener('click', () => showPage(state.currentPage - 1));
  els.nextPage.addEventListener('click', () => showPage(state.currentPage + 1));
  els.pageSelect.addEventListener('change', () => showPage(Number(els.pageSelect.value)));

  function showPage(i) {
    if (!(i >= 0 && i < state.pages.length) || i === state.currentPage) return;
    state.currentPage = i;
    renderLines();
    renderPage();
  }

  // ---- linking boxes and lines ----------------------------------------------------------------

  function applyHighlight(index, scroll) {
    for (const el of document.querySelectorAll('.line.active, .box.active')) {
      el.classList.remove('active');
    }
    if (index < 0) return;
    const line = els.lines.querySelector(`.line[data-index="${index}"]`);
    const box = els.overlay.querySelector(`.box[data-index="${index}"]`);
    if (line) {
      line.classList.add('active');
      if (scroll) line.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }
    if (box) box.classList.add('active');
  }

  function indexOf(el) {
    const target = el && el.closest ? el.closest('[data-index]') : null;
    return target ? Number(target.dataset.index) : -1;
  }

  function pageOfLine(index) {
    return state.pages.findIndex((p) => p.lines.some((l) => l.index === index));
  }

  els.overlay.addEventListener('mouseover', (e) => {
    const i = indexOf(e.target);
    if (i >= 0) applyHighlight(i, false);
  });
  els.overlay.addEventListener('mouseleave', () => applyHighlight(state.pinned, false));
  els.overlay.addEventListener('click', (e) => {
    const i = indexOf(e.target);
    state.pinned = i;
    applyHighlight(i, true);
  });

  els.lines.addEventListener('mouseover', (e) => {
    const i = indexOf(e.target);
    if (i >= 0) applyHighlight(i, false);
  });
  els.lines.addEventListener('mouseleave', () => applyHighlight(state.pinned, false));
  const selectLine = (e) => {
    const i = indexOf(e.target);
    if (i < 0) return;
    state.pinned = i;
    const p = pageOfLine(i);
    if (p >= 0 && p !== state.currentPage) {
      state.currentPage = p;
      renderLines();
      renderPage();
    }
    applyHighlight(i, false);
  };
  els.lines.addEventListener('click', selectLine);
  els.lines.addEventListener('focusin', selectLine);

  // ---- copy -----------------------------------------------------------------------------------

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

  els.copyAll.addEventListener('click', async () => {
    const text = state.allLines.map((l) => l.text).join('\n');
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
    const label = 'Copy all text';
    els.copyAll.textContent = ok ? 'Copied!' : 'Copy failed';
    setTimeout(() => {
      els.copyAll.textContent = label;
    }, 1500);
  });

  els.downloadJson.addEventListener('click', (e) => {
    if (!state.jsonUrl) e.preventDefault();
  });

  loadInfo();
})();
