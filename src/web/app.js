// OnnxOCR Web UI: upload (picker, drag and drop, paste), POST /ocr as multipart/form-data, and show
// the recognized lines over the image. PDFs and multi-page TIFFs go through an asynchronous job
// instead (POST /jobs, then its Server-Sent Events): a progress bar, each page's lines as soon as
// the page is read, and a Cancel button. Plain JS, no dependencies. Server text is only ever
// inserted with textContent or as SVG attributes, never as HTML.
//
// The entry module: it wires up the others, one concern each (see their headers).

import { setupJobs } from './jobs.js';
import { setupResultsControls } from './results-controls.js';
import { loadInfo, setupUpload } from './upload.js';

setupUpload();
setupJobs();
setupResultsControls();
loadInfo();
