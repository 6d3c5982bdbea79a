// The page's elements, the state the modules share, the status line and the error box.

const $ = (id) => document.getElementById(id);

export const els = {
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
  copyAll: $('copy-all'),
  downloadJson: $('download-json'),
  downloadPdf: $('download-pdf'),
  output: $('output'),
  outputFormat: $('output-format'),
};

// What the modules share; they change its fields, never the object.
export const state = {
  file: null, // the last file sent, re-sent when the format or model changes
  previewUrl: null,
  jsonUrl: null,
  controller: null, // AbortController of the request in flight
  job: null, // the job in flight or last run (jobs.js), null for a direct /ocr answer
  response: null,
  pages: [], // [{page, width, height, lines: [{index, text, confidence, box}]}]
  allLines: [],
  currentPage: 0,
  pinned: -1, // index of the line selected by a click, -1 for none
  runs: 0,
};

// ---- status and errors --------------------------------------------------------------------------

export function setStatus(text, kind) {
  els.status.textContent = text;
  els.status.dataset.state = kind;
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
  return s < 10 ? `${s.toFixed(3)} s` : `${s.toFixed(1)} s`;
}
