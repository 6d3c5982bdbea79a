// Reading one region of the page: Shift+drag on the page, or drag in "Select region" mode. The
// region is cut from the page image here (canvas → PNG), sent to POST /ocr, and its lines, moved
// back into page pixels, are shown instead of the page's until "Show the whole page".

import { els, setStatus, showError, state } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { buildForm, describeError, networkMessage, parseJsonOrNull } from './request.js';
import { renderLines, renderPage } from './results.js';
import { clientToPage } from './viewer.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const kMinSide = 8; // page pixels: a smaller drag is a click
let nextIndex = 1_000_000; // region lines are numbered apart from the document's

const regionMode = () => els.regionMode.getAttribute('aria-pressed') === 'true';

function setMode(on) {
  els.regionMode.setAttribute('aria-pressed', String(on));
  els.viewer.classList.toggle('selecting', on);
}

// The page image at full size where the server has it: the uploaded image, or the job's page at
// the page's own size.
function loadSource(page) {
  const entry = state.entry;
  const src = entry && entry.job
    ? `/jobs/${encodeURIComponent(entry.job.id)}/pages/${page.page}/image?max_side=${Math.max(page.width, page.height)}`
    : state.previewUrl;
  return new Promise((resolve, reject) => {
    if (!src) return reject(new Error(t('regionNoImage')));
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(t('regionNoImage')));
    img.src = src;
    return undefined;
  });
}

async function readRegion(rect) {
  const pageIndex = state.currentPage;
  const page = state.pages[pageIndex];
  const entry = state.entry;
  if (!page || !entry) return;
  setStatus('regionReading', 'loading');
  try {
    const img = await loadSource(page);
    const pw = page.width > 0 ? page.width : img.naturalWidth;
    const scale = img.naturalWidth / pw; // image pixels per page pixel
    const [x, y, w, h] = rect;
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(w * scale));
    canvas.height = Math.max(1, Math.round(h * scale));
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, x * scale, y * scale, w * scale, h * scale, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    const form = buildForm(new File([blob], 'region.png', { type: 'image/png' }), 'json');
    form.delete('page_range');
    const res = await fetch('/ocr', { method: 'POST', body: form, headers: { Accept: 'application/json' } });
    const text = await res.text();
    const body = parseJsonOrNull(text);
    if (!res.ok || !body || !Array.isArray(body.results)) throw new Error(describeError(res, body, text));
    if (state.entry !== entry || state.currentPage !== pageIndex) return;
    const lines = body.results.map((r) => ({
      index: nextIndex++,
      text: String(r.text ?? ''),
      confidence: typeof r.confidence === 'number' ? r.confidence : NaN,
      box: (r.bounding_box || []).map(([px, py]) => [px / scale + x, py / scale + y]),
    }));
    state.region = { page: pageIndex, rect, lines };
    state.pinned = -1;
    renderRegionBar();
    renderLines();
    renderPage();
    setStatus('regionDone', 'done', { n: lines.length });
  } catch (err) {
    setStatus('failed', 'error');
    showError(err instanceof TypeError ? networkMessage(err) : err.message);
  }
}

function renderRegionBar() {
  const r = state.region;
  els.regionBar.hidden = !r;
  if (r) els.regionText.textContent = t('regionDone', { n: r.lines.length });
}

export function clearRegion() {
  if (!state.region) return;
  state.region = null;
  renderRegionBar();
  renderLines();
  renderPage();
}

export function setupRegion() {
  els.regionMode.addEventListener('click', () => setMode(!regionMode()));
  els.regionClear.addEventListener('click', clearRegion);
  onLangChange(renderRegionBar);

  let drag = null;
  // Capture phase: a region drag is not a pan (viewer.js).
  els.viewer.addEventListener(
    'pointerdown',
    (e) => {
      if (e.button !== 0 || !(e.shiftKey || regionMode()) || !state.pages[state.currentPage]) return;
      e.preventDefault();
      e.stopPropagation();
      const [x, y] = clientToPage(e.clientX, e.clientY);
      const el = document.createElementNS(SVG_NS, 'rect');
      el.setAttribute('class', 'region selecting');
      els.overlay.append(el);
      drag = { id: e.pointerId, x, y, el, rect: [x, y, 0, 0] };
      els.viewer.setPointerCapture(e.pointerId);
    },
    true,
  );
  els.viewer.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const page = state.pages[state.currentPage];
    const [px, py] = clientToPage(e.clientX, e.clientY);
    const cx = Math.min(Math.max(px, 0), page.width || px);
    const cy = Math.min(Math.max(py, 0), page.height || py);
    drag.rect = [Math.min(drag.x, cx), Math.min(drag.y, cy), Math.abs(cx - drag.x), Math.abs(cy - drag.y)];
    const [x, y, w, h] = drag.rect;
    Object.entries({ x, y, width: w, height: h }).forEach(([k, v]) => drag.el.setAttribute(k, String(v)));
  });
  const end = (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const { rect, el } = drag;
    drag = null;
    el.remove();
    if (e.type === 'pointerup' && rect[2] >= kMinSide && rect[3] >= kMinSide) {
      setMode(false);
      readRegion(rect.map((v) => Math.round(v)));
    }
  };
  els.viewer.addEventListener('pointerup', end);
  els.viewer.addEventListener('pointercancel', end);
}
