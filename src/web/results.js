// Showing an answer: the lines, the boxes over the image (or a blank sheet), the page selector, the
// output and the JSON download. Server text is only inserted with textContent or as SVG
// attributes, never as HTML.

import { els, formatSeconds, setStatus, state } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

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
export function render(resp, file, format, opts = {}) {
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
export function renderLines() {
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
export function renderPage() {
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
export function renderPager() {
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
