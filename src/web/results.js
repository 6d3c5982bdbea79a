// Showing an answer: the lines, the page under its boxes (the uploaded image, or a document's
// page from GET /jobs/{id}/pages/{n}/image, or a blank sheet with the text drawn on it), and the
// page selector. Server text is only inserted with textContent or as SVG attributes, never as HTML.

import { els, formatSeconds, setStatus, state } from './dom.js';
import { renderOutput } from './export.js';
import { t } from './i18n.js';
import { setPageSize } from './viewer.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const kPageImageSide = 1600;

// One page of an answer (or of a job's `page` event); `nextIndex()` numbers its lines, which are
// numbered across the whole document.
export function toPage(p, position, nextIndex) {
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
    blocks: Array.isArray(p.blocks) ? p.blocks : [],
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

// Empties the results, before a new file is read or after it failed.
export function clearResults() {
  state.response = null;
  state.pages = [];
  state.allLines = [];
  state.currentPage = 0;
  state.pinned = -1;
  state.region = null;
  state.runs += 1; // the page selector is rebuilt; data-run changes only when a result is shown
  els.results.hidden = true;
  els.lines.replaceChildren();
  els.overlay.replaceChildren();
  els.preview.removeAttribute('src');
  els.regionBar.hidden = true;
}

// Shows `entry`'s answer. opts.keepPage: stay on the page shown (a job's answer, whose pages were
// shown as they came).
export function render(entry, opts = {}) {
  const resp = entry.response;
  const page = state.currentPage;
  state.entry = entry;
  state.response = resp;
  state.pages = normalize(resp);
  state.allLines = state.pages.flatMap((p) => p.lines);
  state.currentPage = opts.keepPage ? Math.min(page, state.pages.length - 1) : 0;
  state.pinned = -1;
  state.region = null;
  state.runs += 1;
  els.results.hidden = false;
  renderSummary();
  renderLines();
  renderOutput();
  renderPage();
  els.results.dataset.run = String(state.runs);
}

// The status line, the line count and the processing time of the answer shown.
export function renderSummary() {
  const resp = state.response;
  if (!resp) return;
  const n = state.allLines.length;
  const secs = resp.processing_time;
  els.processingTime.textContent = formatSeconds(secs);
  els.lineCount.textContent = `(${n})`;
  const pageCount = state.pages.length; // the pages read (a page_range may leave some out)
  setStatus(pageCount > 1 ? 'donePages' : 'done', 'done', { n, p: pageCount, t: () => formatSeconds(secs) });
}

// The job of the document shown, while it runs.
const runningJob = () => (state.job && !state.response ? state.job : null);

// The lines of the page shown (or of its region); a one-page answer without a page heading.
export function renderLines() {
  const frag = document.createDocumentFragment();
  const job = runningJob();
  const multi = state.pages.length > 1 || (job && job.total > 1);
  const page = state.pages[state.currentPage];
  const region = state.region && state.region.page === state.currentPage ? state.region : null;
  if (page && multi) {
    const head = document.createElement('li');
    head.className = 'page-head';
    head.textContent = t('page', { n: page.page + 1 }) + (page.source === 'text_layer' ? ` ${t('textLayer')}` : '');
    frag.append(head);
  }
  for (const line of page ? (region ? region.lines : page.lines) : []) {
    const li = document.createElement('li');
    li.className = 'line';
    li.dataset.index = String(line.index);
    li.tabIndex = 0;
    const text = document.createElement('span');
    text.className = 'line-text';
    text.textContent = line.text;
    const conf = document.createElement('span');
    conf.className = 'conf';
    if (Number.isFinite(line.confidence)) {
      conf.textContent = `${(line.confidence * 100).toFixed(1)}%`;
      conf.title = t('confidence', { c: line.confidence.toFixed(4) });
      if (line.confidence < 0.8) conf.classList.add('low');
    }
    li.append(text, conf);
    frag.append(li);
  }
  if (!page || (region ? region.lines : page.lines).length === 0) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    if (job && job.cancelled) empty.textContent = cancelledText(job);
    else if (!page) empty.textContent = job && !job.finished ? t('waitingFirst') : t('noText');
    else if (state.allLines.length === 0 && !job) empty.textContent = t('noText');
    else empty.textContent = t('noTextPage');
    frag.append(empty);
  }
  els.lines.replaceChildren(frag);
}

export function cancelledText(job) {
  const n = state.pages.length;
  return n > 0 ? t('cancelledAfter', { n, total: Math.max(job.total, n) }) : t('cancelledNone');
}

// The image under the boxes: the uploaded image, or the job's page image; the blank sheet (the
// text drawn in the boxes) until it loads, and where there is none.
function showPageImage(page) {
  const entry = state.entry;
  let src = '';
  if (entry && entry.job) {
    src = `/jobs/${encodeURIComponent(entry.job.id)}/pages/${page.page}/image?max_side=${kPageImageSide}`;
  } else if (state.previewUrl) {
    src = state.previewUrl;
  }
  if (!src) {
    els.viewer.classList.add('sheet');
    els.preview.removeAttribute('src');
    return;
  }
  if (els.preview.getAttribute('src') === src) return;
  els.viewer.classList.add('sheet');
  els.preview.onload = () => {
    els.viewer.classList.remove('sheet');
    const p = state.pages[state.currentPage];
    if (p && !(p.width > 0 && p.height > 0)) setPageSize(els.preview.naturalWidth, els.preview.naturalHeight);
  };
  els.preview.onerror = () => els.viewer.classList.add('sheet'); // e.g. a TIFF the browser cannot show
  els.preview.src = src;
}

// The page's size in page pixels: from the answer, else the image's, else the boxes' extent.
function pageSize(page) {
  if (page.width > 0 && page.height > 0) return [page.width, page.height];
  if (els.preview.naturalWidth > 0 && !els.viewer.classList.contains('sheet')) {
    return [els.preview.naturalWidth, els.preview.naturalHeight];
  }
  let w = 1;
  let h = 1;
  for (const line of page.lines) {
    for (const [x, y] of line.box) {
      w = Math.max(w, x + 10);
      h = Math.max(h, y + 10);
    }
  }
  return [w, h];
}

function boxGroup(line) {
  const g = document.createElementNS(SVG_NS, 'g');
  const poly = document.createElementNS(SVG_NS, 'polygon');
  poly.setAttribute('points', line.box.map(([x, y]) => `${x},${y}`).join(' '));
  poly.setAttribute('class', 'box');
  poly.dataset.index = String(line.index);
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = line.text;
  poly.append(title);
  // The text drawn in its box, seen only on the blank sheet (CSS).
  const ys = line.box.map((p) => p[1]);
  const size = Math.max(4, (Math.max(...ys) - Math.min(...ys)) * 0.7);
  const text = document.createElementNS(SVG_NS, 'text');
  text.setAttribute('x', String(line.box[0][0] + size * 0.1));
  text.setAttribute('y', String(Math.max(...ys) - size * 0.3));
  text.setAttribute('font-size', String(size));
  text.setAttribute('class', 'sheet-text');
  text.textContent = line.text;
  g.append(text, poly);
  return g;
}

// Draws the current page: its image and its boxes, in the viewer's stage (page pixels).
export function renderPage() {
  const page = state.pages[state.currentPage];
  renderPager();
  if (!page) {
    els.overlay.replaceChildren();
    els.viewer.classList.add('sheet');
    els.preview.removeAttribute('src');
    setPageSize(1500, 1000); // a blank sheet until a page comes
    return;
  }
  showPageImage(page);
  const [w, h] = pageSize(page);
  els.overlay.setAttribute('viewBox', `0 0 ${w} ${h}`);
  setPageSize(w, h);

  const region = state.region && state.region.page === state.currentPage ? state.region : null;
  const frag = document.createDocumentFragment();
  for (const line of region ? region.lines : page.lines) {
    if (line.box.length >= 3) frag.append(boxGroup(line));
  }
  if (region) {
    const r = document.createElementNS(SVG_NS, 'rect');
    const [x, y, rw, rh] = region.rect;
    Object.entries({ x, y, width: rw, height: rh, class: 'region' }).forEach(([k, v]) => r.setAttribute(k, String(v)));
    frag.append(r);
  }
  els.overlay.replaceChildren(frag);
  applyHighlight(state.pinned, false);
}

// The page selector: one option per page read so far; while a job runs, the label counts the
// pages it will read.
export function renderPager() {
  const job = runningJob();
  const have = state.pages.length;
  const total = Math.max(have, job ? job.total : 0);
  els.pager.hidden = total <= 1;
  const key = `${state.runs}:${document.documentElement.lang}`;
  if (els.pageSelect.options.length !== have || els.pageSelect.dataset.run !== key) {
    const frag = document.createDocumentFragment();
    state.pages.forEach((p, i) => {
      const opt = document.createElement('option');
      opt.value = String(i);
      opt.textContent = t('page', { n: p.page + 1 });
      frag.append(opt);
    });
    els.pageSelect.replaceChildren(frag);
    els.pageSelect.dataset.run = key;
  }
  els.pageSelect.value = String(state.currentPage);
  els.pageSelect.disabled = have <= 1;
  els.pageLabel.textContent = t('ofPages', { n: total });
  els.prevPage.disabled = state.currentPage <= 0;
  els.nextPage.disabled = state.currentPage >= have - 1;
}

export function showPage(i) {
  if (!(i >= 0 && i < state.pages.length) || i === state.currentPage) return;
  state.currentPage = i;
  renderLines();
  renderPage();
}

export function applyHighlight(index, scroll) {
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
