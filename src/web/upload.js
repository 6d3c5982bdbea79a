// Choosing files (picker, drag and drop, paste) and reading them one after another: an image
// through POST /ocr, a PDF or a TIFF through a job (jobs.js). Each file read stays in the list of
// files, to be shown again or downloaded. Also the model sets offered, from /info.

import { clearError, els, formatBytes, setStatus, showError, state } from './dom.js';
import { downloadOutput } from './export.js';
import { onLangChange, t } from './i18n.js';
import { abandonJob, startJob } from './jobs.js';
import { buildForm, describeError, post } from './request.js';
import { clearResults, render } from './results.js';
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
    if (names.length === 0) return;
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

// A new choice replaces the files being read: the one in flight is stopped, the old results go.
function pickFiles(files) {
  const list = [...files].filter((f) => f);
  if (list.length === 0) return;
  if (state.controller) state.controller.abort();
  state.controller = null;
  abandonJob();
  for (const entry of state.entries) {
    if (entry.previewUrl) URL.revokeObjectURL(entry.previewUrl);
  }
  state.previewUrl = null;
  state.entries = list.map((file) => ({
    file,
    name: file.name || t('pastedImage'),
    status: 'fileWaiting',
    response: null,
    job: null,
    outputs: {},
    paginate: false,
  }));
  state.queue += 1;
  readAll(state.queue);
}

// The ways to choose a file: the picker, drag and drop, paste; and re-sending on a new option.
export function setupUpload() {
  els.fileInput.addEventListener('change', () => {
    if (els.fileInput.files) pickFiles(els.fileInput.files);
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
    if (e.dataTransfer && e.dataTransfer.files) pickFiles(e.dataTransfer.files);
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
    pickFiles([file]);
  });

  // The same files again, with the options changed since.
  els.rerun.addEventListener('click', () => pickFiles(state.entries.map((e) => e.file)));
  els.fileList.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-entry]');
    const entry = button && state.entries[Number(button.dataset.entry)];
    if (!entry || !entry.response) return;
    if (button.dataset.action === 'download') downloadOutput(entry);
    else showEntry(entry);
  });
  onLangChange(renderFileList);
}

// ---- the files ----------------------------------------------------------------------------------

const busy = () => state.entries.some((e) => e.status === 'fileReading');

function showEntry(entry) {
  if (busy()) return;
  clearError();
  state.job = entry.job;
  state.previewUrl = entry.previewUrl || null;
  render(entry);
}

// The list of files, shown when more than one was chosen: each one's state, and once read, Show
// and Download (in the chosen format).
function renderFileList() {
  els.files.hidden = state.entries.length <= 1;
  const frag = document.createDocumentFragment();
  state.entries.forEach((entry, i) => {
    const li = document.createElement('li');
    li.className = 'file-item';
    li.dataset.status = entry.status;
    const name = document.createElement('span');
    name.className = 'file-item-name';
    name.textContent = `${entry.name} · ${formatBytes(entry.file.size)}`;
    const status = document.createElement('span');
    status.className = 'file-item-status';
    status.textContent = t(entry.status);
    li.append(name, status);
    for (const action of ['show', 'download']) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'button small';
      b.dataset.entry = String(i);
      b.dataset.action = action;
      b.textContent = t(action);
      b.setAttribute('aria-label', `${t(action)}: ${entry.name}`);
      b.disabled = !entry.response || (action === 'show' && busy());
      li.append(b);
    }
    frag.append(li);
  });
  els.fileList.replaceChildren(frag);
  const one = state.entries.length === 1 ? state.entries[0] : null;
  els.fileName.hidden = !one;
  if (one) els.fileName.textContent = `${one.name} · ${formatBytes(one.file.size)}`;
}

async function readAll(queue) {
  for (const entry of state.entries) {
    if (state.queue !== queue) return;
    entry.status = 'fileReading';
    renderFileList();
    const status = await read(entry);
    if (state.queue !== queue) return;
    entry.status = { succeeded: 'fileDone', cancelled: 'fileCancelled' }[status] || 'fileFailed';
    renderFileList();
  }
  els.rerun.disabled = false;
}

// ---- the request --------------------------------------------------------------------------------

// Reads one file; resolves with succeeded, failed or cancelled.
async function read(entry) {
  const file = entry.file;
  const controller = new AbortController();
  state.controller = controller;
  state.job = null;
  entry.paginate = els.optPaginate.checked;
  entry.outputs = {};
  clearError();
  clearResults();
  state.previewUrl = null;
  setStatus('recognizing', 'loading', { name: entry.name, size: formatBytes(file.size) });

  let viaJob = false;
  try {
    viaJob = await needsJob(file);
  } catch {
    viaJob = false; // unreadable here: let the server say what it makes of it
  }
  if (controller.signal.aborted) return 'cancelled';
  if (viaJob) return startJob(entry, controller);

  const answer = await post('/ocr', buildForm(file), controller);
  if (!answer) return 'failed';
  const { res, body, text } = answer;
  if (!res.ok || !body || body.success === false) {
    setStatus('failed', 'error');
    showError(describeError(res, body, text));
    return 'failed';
  }
  entry.response = body;
  entry.previewUrl = URL.createObjectURL(file);
  state.previewUrl = entry.previewUrl;
  render(entry);
  return 'succeeded';
}
