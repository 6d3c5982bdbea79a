// The results' controls: the pager, linking each box to its line (hover, click, focus), copying
// all text, the JSON download and the searchable PDF's.

import { els, showError, state } from './dom.js';
import { buildForm, describeError } from './request.js';
import { applyHighlight, renderLines, renderPage, showPage } from './results.js';

// ---- linking boxes and lines --------------------------------------------------------------------

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

// ---- copy ---------------------------------------------------------------------------------------

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

async function copyAllText() {
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
}

// The file read again as a searchable PDF (output_format=pdf), saved by the browser.
async function downloadSearchablePdf() {
  const file = state.file;
  if (!file || els.downloadPdf.disabled) return;
  const label = els.downloadPdf.textContent;
  els.downloadPdf.disabled = true;
  els.downloadPdf.textContent = 'Making the PDF…';
  try {
    const form = buildForm(file);
    form.set('output_format', 'pdf');
    const res = await fetch('/ocr', { method: 'POST', body: form });
    if (!res.ok) {
      const text = await res.text();
      let body = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      showError(describeError(res, body, text));
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = `${(file.name || 'document').replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'document'}.pdf`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    showError(`Network error: could not reach the server (${err && err.message ? err.message : err}).`);
  } finally {
    els.downloadPdf.disabled = false;
    els.downloadPdf.textContent = label;
  }
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

  els.copyAll.addEventListener('click', copyAllText);
  els.downloadJson.addEventListener('click', (e) => {
    if (!state.jsonUrl) e.preventDefault();
  });
  els.downloadPdf.addEventListener('click', downloadSearchablePdf);
}
