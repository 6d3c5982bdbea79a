// PDFs and multi-page TIFFs go through an asynchronous job: POST /jobs, then its Server-Sent
// Events (polling its status when they stop): a progress bar, each page's lines as soon as the page
// is read, the whole answer at the end, and a Cancel button.

import { els, formatBytes, setStatus, showError, state } from './dom.js';
import { renderOutput } from './export.js';
import { onLangChange, t } from './i18n.js';
import { buildForm, describeError, networkMessage, parseJsonOrNull, post } from './request.js';
import { cancelledText, render, renderLines, renderPage, renderPager, toPage } from './results.js';

const kFinalStatuses = new Set(['succeeded', 'failed', 'cancelled']);

// Reads `entry`'s file as a job; resolves with its final status once it has ended (or was
// superseded).
export function startJob(entry, controller) {
  return new Promise((resolve) => {
    runJob(entry, controller, resolve);
  });
}

async function runJob(entry, controller, resolve) {
  const file = entry.file;
  setStatus('uploading', 'loading', { name: entry.name, size: formatBytes(file.size) });
  const answer = await post('/jobs', buildForm(file), controller);
  if (!answer) return resolve('failed');
  const { res, body, text } = answer;
  if (!res.ok || !body || body.success === false || typeof body.id !== 'string') {
    setStatus('failed', 'error');
    showError(describeError(res, body, text));
    return resolve('failed');
  }
  const base = `/jobs/${encodeURIComponent(body.id)}`;
  const job = {
    id: body.id,
    entry,
    resolve,
    statusUrl: body.status_url || res.headers.get('Location') || base,
    resultUrl: body.result_url || `${base}/result`,
    eventsUrl: body.events_url || `${base}/events`,
    source: null, // the EventSource
    started: performance.now(),
    done: 0, // pages read
    total: 0, // pages the job reads, 0 until known
    ocrPixels: 0, // pixels of the pages read by OCR (a text layer's page costs next to nothing)
    ocrPages: 0,
    rawPages: [], // the page events' pages, the answer of a cancelled job
    lastPageAt: 0, // when the last page came
    finished: false,
    cancelled: false,
    cancelRequested: false,
    errors: 0, // EventSource errors since the last event
    timer: 0,
    poll: 0,
  };
  state.job = job;
  entry.job = job;
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
      handler(parseJsonOrNull(e.data), e.data);
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
    endJob(job, 'failed');
    setStatus('failed', 'error');
    showError(describeError(res, body, ''));
    return;
  } else if (++job.errors >= 10) {
    endJob(job, 'failed');
    setStatus('failed', 'error');
    showError(t('lostConnection'));
    return;
  }
  job.poll = setTimeout(() => pollStatus(job), 1000);
}

// Stops listening to a job; the page keeps what it has shown.
function endJob(job, status) {
  job.finished = true;
  job.resolve(status);
  if (job.source) job.source.close();
  clearInterval(job.timer);
  clearTimeout(job.poll);
  els.job.hidden = true;
}

// A new upload replaces the job in flight: stop it on the server too.
export function abandonJob() {
  const job = state.job;
  if (!job || job.finished) return;
  endJob(job, 'cancelled');
  fetch(`/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE', keepalive: true }).catch(() => {});
}

function beginJobView(job) {
  state.entry = job.entry;
  state.response = null;
  state.pages = [];
  state.allLines = [];
  state.currentPage = 0;
  state.pinned = -1;
  state.region = null;
  state.runs += 1;
  els.processingTime.textContent = '–';
  els.lineCount.textContent = '(0)';
  els.jobCancel.disabled = false;
  els.job.hidden = false;
  renderProgress(job);
  job.timer = setInterval(() => renderProgress(job), 500);
  setStatus('reading', 'loading', { name: job.entry.name });

  els.results.hidden = false;
  renderLines();
  renderPage();
  renderOutput();
}

function updateProgress(job, done, total) {
  if (Number.isInteger(total) && total > 0) job.total = total;
  if (Number.isInteger(done) && done > job.done) job.done = done;
  renderProgress(job);
}

function formatDuration(s) {
  if (!Number.isFinite(s) || s < 0) return '–';
  if (s < 60) return t('seconds', { s: Math.round(s) });
  const m = Math.floor(s / 60);
  return t('minutes', { m, s: String(Math.round(s - m * 60)).padStart(2, '0') });
}

// Seconds left, from the time per pixel of the pages read so far by OCR (the remaining pages
// taken as large as the average one), less the time since the last page came; null until a page
// read by OCR says how fast this server reads.
function secondsLeft(job, now) {
  const left = Math.max(job.total, job.done) - job.done;
  if (left <= 0 || job.ocrPages === 0) return null;
  const perPixel = (job.lastPageAt - job.started) / 1000 / job.ocrPixels;
  const remaining = left * (job.ocrPixels / job.ocrPages) * perPixel;
  return Math.max(1, remaining - (now - job.lastPageAt) / 1000);
}

function renderProgress(job) {
  const total = Math.max(job.total, job.done);
  const done = job.done;
  els.jobProgress.max = total > 0 ? total : 1;
  els.jobProgress.value = done;
  els.job.dataset.done = String(done);
  els.job.dataset.total = String(total);
  els.jobProgressText.textContent = total > 0 ? t('pagesDone', { done, total }) : t('waitingServer');
  const now = performance.now();
  const elapsed = (now - job.started) / 1000;
  const secs = secondsLeft(job, now);
  let left = t('estimating');
  if (total > 0 && done >= total) left = t('finishing');
  else if (secs !== null) left = t('left', { t: formatDuration(secs) });
  els.job.dataset.left = secs === null ? '' : secs.toFixed(1);
  els.jobTime.textContent = `${t('elapsed', { t: formatDuration(elapsed) })} · ${left}`;
}

function addJobPage(job, data) {
  const position = Number.isInteger(data.index) ? data.index : state.pages.length;
  if (position < state.pages.length) return; // seen already (replayed after a reconnect)
  let index = state.allLines.length;
  const page = toPage(data, state.pages.length, () => index++);
  job.rawPages.push(data);
  state.pages.push(page);
  job.lastPageAt = performance.now();
  if (page.source !== 'text_layer') {
    job.ocrPages += 1;
    job.ocrPixels += page.width > 0 && page.height > 0 ? page.width * page.height : 1;
  }
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
  endJob(job, 'succeeded');
  setStatus('fetching', 'loading');
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
      setStatus('failed', 'error');
      showError(networkMessage(err));
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
    setStatus('failed', 'error');
    showError(describeError(res, body, text));
    return;
  }
  job.entry.response = body;
  if (state.entry === job.entry) render(job.entry, { keepPage: true });
}

function jobFailed(job, data, raw) {
  endJob(job, 'failed');
  renderLines(); // the pages read stay; none read: no longer "waiting"
  setStatus('failed', 'error');
  showError(describeError(null, data, raw));
}

// Cancelled: the pages read stay, to be exported as the answer (written here: the server keeps no
// result of a cancelled job), and the status says how many of how many.
function jobCancelled(job) {
  if (!job.finished) endJob(job, 'cancelled');
  job.cancelled = true;
  if (job.rawPages.length > 0 && state.entry === job.entry) {
    job.entry.partial = true;
    job.entry.response = {
      success: true,
      page_count: job.rawPages.length,
      processing_time: (job.lastPageAt - job.started) / 1000,
      pages: job.rawPages,
      results: job.rawPages.flatMap((p) => p.results || []),
    };
    state.response = job.entry.response;
    renderOutput();
  }
  renderLines();
  renderPager();
  const n = state.pages.length;
  setStatus(n > 0 ? 'cancelledAfter' : 'cancelledNone', 'cancelled', { n, total: Math.max(job.total, n) });
  els.results.dataset.cancelled = cancelledText(job);
}

async function cancelJob() {
  const job = state.job;
  if (!job || job.finished) return;
  els.jobCancel.disabled = true;
  job.cancelRequested = true;
  setStatus('cancelling', 'loading');
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
    showError(networkMessage(err));
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
}

export function setupJobs() {
  window.addEventListener('pagehide', abandonJob);
  els.jobCancel.addEventListener('click', cancelJob);
  onLangChange(() => {
    if (state.job && !state.job.finished) renderProgress(state.job);
  });
}
