// The page viewer: the image and its box overlay in one "stage", a box of the page's size in page
// pixels, moved and scaled by a single CSS transform, so the boxes stay on their words at every
// zoom. Zoom with the wheel, the + and - buttons or keys; fit width or page; pan by dragging or
// with the arrow keys; full screen through the Fullscreen API, or a fixed panel where it is
// missing or refused.

import { els } from './dom.js';
import { onLangChange, t } from './i18n.js';

const kMaxScale = 8;
const kStep = 1.25;

const view = { w: 1, h: 1, scale: 1, tx: 0, ty: 0, mode: 'width' }; // mode: width, page or free

const viewportSize = () => ({ vw: els.viewer.clientWidth, vh: els.viewer.clientHeight });
const fitScale = (mode) => {
  const { vw, vh } = viewportSize();
  return mode === 'page' ? Math.min(vw / view.w, vh / view.h) : vw / view.w;
};
const minScale = () => Math.min(fitScale('page'), 1) / 2;

// Keeps the page in view: centred along an axis where it is smaller than the viewer, else its
// edges no further in than the viewer's.
function clamp() {
  const { vw, vh } = viewportSize();
  const w = view.w * view.scale;
  const h = view.h * view.scale;
  view.tx = w <= vw ? (vw - w) / 2 : Math.min(0, Math.max(vw - w, view.tx));
  view.ty = h <= vh ? (vh - h) / 2 : Math.min(0, Math.max(vh - h, view.ty));
}

function apply() {
  clamp();
  els.stage.style.transform = `translate(${view.tx}px, ${view.ty}px) scale(${view.scale})`;
  els.zoomLevel.textContent = `${Math.round(view.scale * 100)}%`;
  els.viewer.classList.toggle('zoomed', view.scale > fitScale('width') + 1e-6 || view.h * view.scale > viewportSize().vh + 1);
  els.viewer.dataset.scale = String(view.scale);
}

export function fit(mode) {
  view.mode = mode;
  view.scale = fitScale(mode);
  view.tx = 0;
  view.ty = 0;
  apply();
}

// Scales by `factor` around the viewer point (cx, cy), its centre by default.
export function zoomBy(factor, cx, cy) {
  const { vw, vh } = viewportSize();
  const x = cx ?? vw / 2;
  const y = cy ?? vh / 2;
  const scale = Math.min(kMaxScale, Math.max(minScale(), view.scale * factor));
  view.tx = x - ((x - view.tx) / view.scale) * scale;
  view.ty = y - ((y - view.ty) / view.scale) * scale;
  view.scale = scale;
  view.mode = 'free';
  apply();
}

// A new page size (page pixels): the viewer's height follows the page at fit width, up to most of
// the window, and the page is fitted to the width again.
export function setPageSize(w, h) {
  const changed = w !== view.w || h !== view.h;
  view.w = w > 0 ? w : 1;
  view.h = h > 0 ? h : 1;
  els.stage.style.width = `${view.w}px`;
  els.stage.style.height = `${view.h}px`;
  if (!changed && view.mode === 'free') return apply();
  sizeViewer();
  fit(changed ? 'width' : view.mode);
}

function sizeViewer() {
  if (isFullscreen()) {
    els.viewer.style.removeProperty('height');
    return;
  }
  const vw = els.viewer.clientWidth || 1;
  const cap = Math.max(240, window.innerHeight * 0.75);
  els.viewer.style.height = `${Math.round(Math.max(120, Math.min(cap, (view.h * vw) / view.w)))}px`;
}

// The page point under the client point (clientX, clientY).
export function clientToPage(x, y) {
  const r = els.viewer.getBoundingClientRect();
  return [(x - r.left - view.tx) / view.scale, (y - r.top - view.ty) / view.scale];
}

// ---- full screen --------------------------------------------------------------------------------

const isFullscreen = () =>
  document.fullscreenElement === els.imagePanel || els.imagePanel.classList.contains('pseudo-fullscreen');

function fullscreenChanged() {
  const on = isFullscreen();
  els.imagePanel.classList.toggle('is-fullscreen', on);
  els.fullscreen.setAttribute('aria-pressed', String(on));
  els.fullscreen.textContent = t(on ? 'exitFullscreen' : 'fullscreen');
  sizeViewer();
  fit(view.mode === 'free' ? 'page' : view.mode);
}

function setPseudo(on) {
  els.imagePanel.classList.toggle('pseudo-fullscreen', on);
  document.body.classList.toggle('no-scroll', on);
  fullscreenChanged();
}

async function toggleFullscreen() {
  if (document.fullscreenElement) return document.exitFullscreen();
  if (els.imagePanel.classList.contains('pseudo-fullscreen')) return setPseudo(false);
  if (els.imagePanel.requestFullscreen && document.fullscreenEnabled) {
    try {
      await els.imagePanel.requestFullscreen();
      return undefined;
    } catch {
      // refused (e.g. inside a frame): the fixed panel instead
    }
  }
  return setPseudo(true);
}

// ---- pointer and keys ---------------------------------------------------------------------------

// Two fingers on a touch screen: zoom by how much their distance changed, around their middle.
const touches = new Map();
let pinch = 0; // the distance at the last move, 0 when not pinching

function pinchMove(e) {
  if (!touches.has(e.pointerId)) return false;
  touches.set(e.pointerId, [e.clientX, e.clientY]);
  if (touches.size !== 2) return false;
  const [[x1, y1], [x2, y2]] = [...touches.values()];
  const d = Math.hypot(x2 - x1, y2 - y1);
  const r = els.viewer.getBoundingClientRect();
  if (pinch > 0 && d > 0) zoomBy(d / pinch, (x1 + x2) / 2 - r.left, (y1 + y2) / 2 - r.top);
  pinch = d;
  return true;
}

function setupPan() {
  let drag = null;
  let suppressClick = false;
  els.viewer.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'touch') touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2) {
      drag = null; // a second finger: a pinch, not a pan
      pinch = 0;
      return;
    }
    if (e.button !== 0 || e.shiftKey || els.regionMode.getAttribute('aria-pressed') === 'true') return;
    drag = { id: e.pointerId, x: e.clientX, y: e.clientY, tx: view.tx, ty: view.ty, moved: false };
  });
  els.viewer.addEventListener('pointermove', (e) => {
    if (pinchMove(e)) return;
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return; // a click on a box, not a drag
    if (!drag.moved) {
      drag.moved = true;
      els.viewer.setPointerCapture(e.pointerId);
      els.viewer.classList.add('panning');
    }
    view.tx = drag.tx + dx;
    view.ty = drag.ty + dy;
    apply();
  });
  const end = (e) => {
    touches.delete(e.pointerId);
    pinch = 0;
    if (!drag || e.pointerId !== drag.id) return;
    suppressClick = drag.moved;
    drag = null;
    els.viewer.classList.remove('panning');
  };
  els.viewer.addEventListener('pointerup', end);
  els.viewer.addEventListener('pointercancel', end);
  // A drag ends with a click on whatever is under the pointer: not a box selection.
  els.viewer.addEventListener(
    'click',
    (e) => {
      if (suppressClick) e.stopPropagation();
      suppressClick = false;
    },
    true,
  );

  els.viewer.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const r = els.viewer.getBoundingClientRect();
      const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      zoomBy(Math.exp(-delta * (e.ctrlKey ? 0.01 : 0.002)), e.clientX - r.left, e.clientY - r.top);
    },
    { passive: false },
  );

  els.viewer.addEventListener('keydown', (e) => {
    const pan = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] }[e.key];
    if (e.key === '+' || e.key === '=') zoomBy(kStep);
    else if (e.key === '-' || e.key === '_') zoomBy(1 / kStep);
    else if (e.key === '0') fit('width');
    else if (pan) {
      view.tx += pan[0];
      view.ty += pan[1];
      apply();
    } else return;
    e.preventDefault();
  });
}

export function setupViewer() {
  els.zoomIn.addEventListener('click', () => zoomBy(kStep));
  els.zoomOut.addEventListener('click', () => zoomBy(1 / kStep));
  els.fitWidth.addEventListener('click', () => fit('width'));
  els.fitPage.addEventListener('click', () => fit('page'));
  els.fullscreen.addEventListener('click', toggleFullscreen);
  document.addEventListener('fullscreenchange', fullscreenChanged);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && els.imagePanel.classList.contains('pseudo-fullscreen')) setPseudo(false);
  });
  setupPan();
  let lastWidth = 0;
  new ResizeObserver(() => {
    const w = els.viewer.clientWidth;
    if (w === lastWidth || els.results.hidden) return;
    lastWidth = w;
    sizeViewer();
    if (view.mode === 'free') apply();
    else fit(view.mode);
  }).observe(els.viewer);
  onLangChange(() => {
    els.fullscreen.textContent = t(isFullscreen() ? 'exitFullscreen' : 'fullscreen');
  });
}
