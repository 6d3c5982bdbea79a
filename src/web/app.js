// OnnxOCR Web UI: upload (picker, drag and drop, paste; several files read one after another),
// POST /ocr as multipart/form-data for an image, and show the recognized lines over the image.
// PDFs and TIFFs go through an asynchronous job instead (POST /jobs, then its Server-Sent Events):
// a progress bar, each page's lines over its image as soon as the page is read, and a Cancel
// button. Plain JS, no dependencies. Server text is only ever inserted with textContent or as SVG
// attributes, never as HTML; our own HTML output is previewed in a sandboxed frame.
//
// The entry module: it wires up the others, one concern each (see their headers).

import { els, formatSeconds, redrawStatus, state } from './dom.js';
import { renderOutput, setupExport } from './export.js';
import { onLangChange, setupI18n } from './i18n.js';
import { setupJobs } from './jobs.js';
import { setupRegion } from './region.js';
import { renderLines, renderPager } from './results.js';
import { setupResultsControls } from './results-controls.js';
import { loadInfo, setupUpload } from './upload.js';
import { setupViewer } from './viewer.js';

setupI18n(els.langToggle);
setupViewer();
setupRegion();
setupUpload();
setupJobs();
setupExport();
setupResultsControls();
loadInfo();

// What scripts wrote, in the new language.
onLangChange(() => {
  redrawStatus();
  if (els.results.hidden) return;
  if (state.response) els.processingTime.textContent = formatSeconds(state.response.processing_time);
  renderLines();
  renderPager();
  if (state.entry && state.entry.response) renderOutput();
});
