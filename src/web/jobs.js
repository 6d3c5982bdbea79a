// PDFs and multi-page TIFFs go through an asynchronous job: POST /jobs, then its Server-Sent
// Events (polling its status when they stop): a progress bar, each page's lines as soon as the page
// is read, the whole answer at the end, and a Cancel button.

import { els, formatBytes, setStatus, showError, state } from './dom.js';
import { buildForm, describeError, post } from './request.js';
import { render, renderLines, renderPage, renderPager, toPage } from './results.js';

const kFinalStatuses = new Set(['succeeded', 'failed', 'cancelled']);

export async function startJob(file, controller) {
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
export function abandonJob() {
  const job = state.job;
  if (!job || job.finished) return;
  endJob(job);
  fetch(`/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE', keepalive: true }).catch(() => {});
}

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

async function cancelJob() {
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
}

export function setupJobs() {
  window.addEventListener('pagehide', abandonJob);
  els.jobCancel.addEventListener('click', cancelJob);
}
