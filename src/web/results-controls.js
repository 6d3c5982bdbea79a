// The results' controls: the pager, and linking each box to its line (hover, click, focus).

import { els, state } from './dom.js';
import { applyHighlight, renderLines, renderPage, showPage } from './results.js';

function indexOf(el) {
  const target = el && el.closest ? el.closest('[data-index]') : null;
  return target ? Number(target.dataset.index) : -1;
}

function pageOfLine(index) {
  return state.pages.findIndex((p) => p.lines.some((l) => l.index === index));
}

function selectLine(e) {
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
}

export function setupResultsControls() {
  els.prevPage.addEventListener('click', () => showPage(state.currentPage - 1));
  els.nextPage.addEventListener('click', () => showPage(state.currentPage + 1));
  els.pageSelect.addEventListener('change', () => showPage(Number(els.pageSelect.value)));

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
  els.lines.addEventListener('click', selectLine);
  els.lines.addEventListener('focusin', selectLine);
}
