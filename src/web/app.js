// OnnxOCR Web UI: upload (picker, drag and drop, paste), POST /ocr as multipart/form-data, and show
// the recognized lines over the image. Plain JS, no dependencies. Server text is only ever inserted
// with textContent or as SVG attributes, never as HTML.
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
    pageLabel: $('page-label'),
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

  // ---- the request ----------------------------------------------------------------------------

  async function upload() {
    const file = state.file;
    if (!file) return;
    if (state.controller) state.controller.abort();
    const controller = new AbortController();
    state.controller = controller;

    const form = new FormData();
    form.append('file', file, file.name || 'upload');
    form.append('output_format', els.format.value);
    if (!els.modelField.hidden && els.model.value) form.append('model', els.model.value);

    clearError();
    els.results.classList.add('stale');
    setStatus(`Recognizing ${file.name || 'image'} (${formatBytes(file.size)})…`, 'loading');

    let res;
    try {
      res = await fetch('/ocr', {
        method: 'POST',
        body: form,
        headers: { Accept: 'application/json' },
        signal: controller.signal,
      });
    } catch (err) {
      if (controller.signal.aborted) return;
      state.controller = null;
      els.results.classList.remove('stale');
      setStatus('Failed.', 'error');
      showError(`Network error: could not reach the server (${err && err.message ? err.message : err}).`);
      return;
    }

    let body = null;
    let text = '';
    try {
      text = await res.text();
      body = JSON.parse(text);
    } catch {
      body = null; // not JSON: described from the status and text below
    }
    if (controller.signal.aborted) return;
    state.controller = null;
    els.results.classList.remove('stale');

    if (!res.ok || !body || body.success === false) {
      setStatus('Failed.', 'error');
      showError(describeError(res, body, text));
      return;
    }
    render(body, file, els.format.value);
  }

  function describeError(res, body, text) {
    const err = body && body.error;
    if (err && (err.code || err.message)) {
      const parts = [err.code, err.message].filter((p) => typeof p === 'string' && p);
      return parts.join(': ');
    }
    if (body && typeof body.message === 'string') return body.message;
    const snippet = (text || '').trim().slice(0, 200);
    return `HTTP ${res.status} ${res.statusText || ''}${snippet ? `: ${snippet}` : ''}`.trim();
  }

  // ---- rendering a response -------------------------------------------------------------------

  function normalize(resp) {
    const pages = [];
    let index = 0;
    const toLine = (r) => ({
      index: index++,
      text: typeof r.text === 'string' ? r.text : String(r.text ?? ''),
      confidence: typeof r.confidence === 'number' ? r.confidence : NaN,
      box: Array.isArray(r.bounding_box) ? r.bounding_box : [],
    });
    if (Array.isArray(resp.pages) && resp.pages.length > 0) {
      for (const p of resp.pages) {
        pages.push({
          page: typeof p.page === 'number' ? p.page : pages.length,
          width: p.width,
          height: p.height,
          source: p.source,
          lines: (Array.isArray(p.results) ? p.results : []).map(toLine),
        });
      }
    } else {
      pages.push({
        page: 0,
        width: undefined,
        height: undefined,
        lines: (Array.isArray(resp.results) ? resp.results : []).map(toLine),
      });
    }
    return pages;
  }

  function render(resp, file, format) {
    state.response = resp;
    state.pages = normalize(resp);
    state.allLines = state.pages.flatMap((p) => p.lines);
    state.currentPage = 0;
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
    renderPreview(file);

    els.results.dataset.run = String(state.runs);
    els.results.hidden = false;
  }

  function renderLines() {
    const frag = document.createDocumentFragment();
    const multi = state.pages.length > 1;
    for (const page of state.pages) {
      if (multi) {
        const head = document.createElement('li');
        head.className = 'page-head';
        head.textContent = `Page ${page.page + 1}` + (page.source === 'text_layer' ? ' (text layer)' : '');
        frag.append(head);
      }
      for (const line of page.lines) {
        const li = document.createElement('li');
        li.className = 'line';
        li.dataset.index = String(line.index);
        li.dataset.page = String(page.page);
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
    if (state.allLines.length === 0) {
      const empty = document.createElement('li');
      empty.className = 'empty';
      empty.textContent = 'No text was found.';
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
    const base = (file.name || 'ocr').replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'ocr';
    els.downloadJson.download = `${base}.ocr.json`;
  }

  function renderPreview(file) {
    if (state.previewUrl) {
      URL.revokeObjectURL(state.previewUrl);
      state.previewUrl = null;
    }
    const isPdf = file.type === 'application/pdf' || /\.pdf$/i.test(file.name || '');
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
    const total = state.pages.length;
    els.pager.hidden = total <= 1;
    els.pageLabel.textContent = `Page ${state.currentPage + 1} of ${total}`;
    els.prevPage.disabled = state.currentPage <= 0;
    els.nextPage.disabled = state.currentPage >= total - 1;
    if (!page) return;

    const sheet = els.imageWrap.classList.contains('sheet');
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

  els.prevPage.addEventListener('click', () => showPage(state.currentPage - 1));
  els.nextPage.addEventListener('click', () => showPage(state.currentPage + 1));

  function showPage(i) {
    if (i < 0 || i >= state.pages.length || i === state.currentPage) return;
    state.currentPage = i;
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
