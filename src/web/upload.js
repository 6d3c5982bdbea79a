// Choosing a file (picker, drag and drop, paste) and sending it: an image to POST /ocr, a PDF or a
// multi-page TIFF to a job (jobs.js). Also the model sets offered, from /info.

import { clearError, els, formatBytes, setStatus, showError, state } from './dom.js';
import { abandonJob, startJob } from './jobs.js';
import { buildForm, describeError, post } from './request.js';
import { render } from './results.js';
import { needsJob } from './sniff.js';

// ---- model sets from /info ----------------------------------------------------------------------

export async function loadInfo() {
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

// ---- choosing a file ----------------------------------------------------------------------------

function pickFile(file) {
  if (!file) return;
  state.file = file;
  els.fileName.textContent = `${file.name || 'pasted image'} · ${formatBytes(file.size)}`;
  els.fileName.hidden = false;
  upload();
}

// The ways to choose a file: the picker, drag and drop, paste; and re-sending on a new option.
export function setupUpload() {
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
}

// ---- the request --------------------------------------------------------------------------------

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
