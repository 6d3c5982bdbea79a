// The page's elements, the state the modules share, the status line and the error box.

import { t } from './i18n.js';

const $ = (id) => document.getElementById(id);

export const els = {
  langToggle: $('lang-toggle'),
  dropZone: $('drop-zone'),
  fileInput: $('file-input'),
  fileName: $('file-name'),
  format: $('format'),
  model: $('model'),
  modelField: $('model-field'),
  optPages: $('opt-pages'),
  optDropScore: $('opt-drop-score'),
  optForceOcr: $('opt-force-ocr'),
  optPaginate: $('opt-paginate'),
  optWordBoxes: $('opt-word-boxes'),
  rerun: $('rerun'),
  files: $('files'),
  fileList: $('file-list'),
  status: $('status'),
  error: $('error'),
  results: $('results'),
  imagePanel: $('image-panel'),
  viewer: $('viewer'),
  stage: $('stage'),
  preview: $('preview'),
  overlay: $('overlay'),
  zoomIn: $('zoom-in'),
  zoomOut: $('zoom-out'),
  zoomLevel: $('zoom-level'),
  fitWidth: $('fit-width'),
  fitPage: $('fit-page'),
  regionMode: $('region-mode'),
  fullscreen: $('fullscreen'),
  regionBar: $('region-bar'),
  regionText: $('region-text'),
  regionClear: $('region-clear'),
  pager: $('pager'),
  prevPage: $('prev-page'),
  nextPage: $('next-page'),
  pageSelect: $('page-select'),
  pageLabel: $('page-label'),
  job: $('job'),
  jobProgress: $('job-progress'),
  jobProgressText: $('job-progress-text'),
  jobTime: $('job-time'),
  jobCancel: $('job-cancel'),
  lines: $('lines'),
  lineCount: $('line-count'),
  processingTime: $('processing-time'),
  copyOutput: $('copy-output'),
  downloadOutput: $('download-output'),
  downloadPdf: $('download-pdf'),
  downloadCsv: $('download-csv'),
  viewSwitch: $('view-switch'),
  viewSource: $('view-source'),
  viewPreview: $('view-preview'),
  output: $('output'),
  outputFormat: $('output-format'),
  mdPreview: $('md-preview'),
  htmlPreview: $('html-preview'),
};

// What the modules share; they change its fields, never the object.
export const state = {
  entry: null, // the file shown: {file, name, status, response, job, outputs: {format: text}}
  entries: [], // every file chosen, in order (upload.js)
  queue: 0, // counts the choices of files: a reading of an older choice stops
  previewUrl: null,
  controller: null, // AbortController of the request in flight
  job: null, // the job in flight or last run (jobs.js), null for a direct /ocr answer
  response: null,
  pages: [], // [{page, width, height, source, blocks, lines: [{index, text, confidence, box}]}]
  allLines: [],
  currentPage: 0,
  pinned: -1, // index of the line selected by a click, -1 for none
  region: null, // {page, rect: [x, y, w, h], lines} while a region's lines are shown (region.js)
  runs: 0,
  status: null, // [key, vars, kind] of the status line, redrawn on a language switch
};

// ---- status and errors --------------------------------------------------------------------------

// `vars` may hold functions, called on each drawing (e.g. a duration in the page's language).
export function setStatus(key, kind, vars = {}) {
  state.status = key ? [key, vars, kind] : null;
  const values = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, typeof v === 'function' ? v() : v]));
  els.status.textContent = key ? t(key, values) : '';
  els.status.dataset.state = kind;
}

export function redrawStatus() {
  if (!state.status) return;
  const [key, vars, kind] = state.status;
  setStatus(key, kind, vars);
}

export function showError(text) {
  els.error.textContent = text;
  els.error.hidden = false;
}

export function clearError() {
  els.error.textContent = '';
  els.error.hidden = true;
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export function formatSeconds(s) {
  if (typeof s !== 'number' || !Number.isFinite(s)) return '–';
  return t('seconds', { s: s < 10 ? s.toFixed(3) : s.toFixed(1) });
}

// A file's name made safe for a download, without its extension.
export function baseName(name) {
  return (name || 'ocr').replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'ocr';
}

// Saves `blob` as `name` through a temporary link.
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
