// Every string the page shows, in English and Chinese, and the zh/en toggle. Elements of
// index.html name their string with data-i18n (text), data-i18n-aria (aria-label),
// data-i18n-title (title) or data-i18n-alt (alt); scripts call t(key, vars). The choice is kept
// in localStorage; without one, Chinese when the browser prefers it.

const kStrings = {
  en: {
    langToggle: '中文',
    langToggleLabel: 'Switch the page to Chinese',
    tagline: 'Extract text from images and PDFs',
    docs: 'API docs',
    docsNav: 'Documentation',
    uploadTitle: 'Upload documents',
    dropTitle: 'Drop images or PDFs here',
    dropHint: 'or paste one from the clipboard',
    chooseFiles: 'Choose files',
    formatLabel: 'Output format',
    fmtJson: 'JSON (lines and boxes)',
    fmtText: 'Plain text',
    options: 'Options',
    pageRange: 'Pages (e.g. 0-3,7; from 0)',
    forceOcr: 'Read every page, even one with a text layer',
    paginate: 'Separate the pages in the output',
    dropScore: 'Drop lines under this confidence',
    wordBoxes: 'Word boxes',
    model: 'Model set',
    rerun: 'Read again',
    files: 'Files',
    fileWaiting: 'waiting',
    fileReading: 'reading…',
    fileDone: 'done',
    fileFailed: 'failed',
    fileCancelled: 'cancelled',
    show: 'Show',
    download: 'Download',
    progressLabel: 'Progress of the document',
    cancel: 'Cancel',
    pagesDone: '{done} of {total} pages done',
    waitingServer: 'Waiting for the server…',
    elapsed: '{t} elapsed',
    estimating: 'estimating time left…',
    left: 'about {t} left',
    finishing: 'finishing…',
    seconds: '{s} s',
    minutes: '{m} min {s} s',
    recognizing: 'Recognizing {name} ({size})…',
    uploading: 'Uploading {name} ({size})…',
    reading: 'Reading {name}…',
    fetching: 'Fetching the result…',
    failed: 'Failed.',
    done: 'Done: {n} lines in {t}.',
    doneOne: 'Done: 1 line in {t}.',
    donePages: 'Done: {n} lines on {p} pages in {t}.',
    cancelling: 'Cancelling…',
    cancelledAfter: 'Cancelled after {n} of {total} pages.',
    cancelledNone: 'Cancelled before any page was read.',
    networkError: 'Network error: could not reach the server ({msg}).',
    lostConnection: 'Network error: lost the connection to the server while the document was read.',
    jobFailed: 'The job failed.',
    pastedImage: 'pasted image',
    document: 'the document',
    results: 'Results',
    detected: 'Detected text',
    prevPage: 'Previous page',
    nextPage: 'Next page',
    pageSelect: 'Page',
    page: 'Page {n}',
    ofPages: 'of {n}',
    textLayer: '(text layer)',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
    fitWidth: 'Fit width',
    fitPage: 'Fit page',
    fullscreen: 'Full screen',
    exitFullscreen: 'Exit full screen',
    selectRegion: 'Select region',
    viewerLabel: 'The page: drag to pan, wheel or + and - to zoom, Shift+drag to select a region',
    previewAlt: 'The uploaded document',
    boxesLabel: 'Detected text boxes',
    regionReading: 'Reading the region…',
    regionDone: 'Region: {n} lines',
    regionDoneOne: 'Region: 1 line',
    regionNoImage: 'The page image is not available, so no region can be read.',
    wholePage: 'Show the whole page',
    lines: 'Lines',
    processedIn: 'Processed in',
    linesLabel: 'Recognized lines',
    confidence: 'Confidence {c}',
    noText: 'No text was found.',
    noTextPage: 'No text was found on this page.',
    waitingFirst: 'Waiting for the first page…',
    output: 'Output',
    outputPending: '(when the whole document is read)',
    rendering: 'Rendering…',
    needsWhole: 'This format needs the whole document: read it again to get it.',
    noRerender: 'This server cannot write a finished document again in this format: choose it before reading.',
    copy: 'Copy',
    copied: 'Copied!',
    copyFailed: 'Copy failed',
    downloadAs: 'Download {ext}',
    searchablePdf: 'Searchable PDF',
    makingPdf: 'Making the PDF…',
    tablesCsv: 'Tables (CSV)',
    view: 'View',
    source: 'Source',
    preview: 'Preview',
    htmlPreview: 'HTML preview',
    footer:
      'Images are read in memory and not stored. Documents read page by page are kept on this ' +
      'server until their result expires, then deleted.',
  },
  zh: {
    langToggle: 'English',
    langToggleLabel: '将页面切换为英文',
    tagline: '从图片和 PDF 中提取文字',
    docs: 'API 文档',
    docsNav: '文档',
    uploadTitle: '上传文档',
    dropTitle: '将图片或 PDF 拖放到这里',
    dropHint: '或从剪贴板粘贴',
    chooseFiles: '选择文件',
    formatLabel: '输出格式',
    fmtJson: 'JSON（文字行和框）',
    fmtText: '纯文本',
    options: '选项',
    pageRange: '页码（如 0-3,7；从 0 开始）',
    forceOcr: '每页都识别，即使有文字层',
    paginate: '在输出中分隔各页',
    dropScore: '丢弃置信度低于此值的行',
    wordBoxes: '单词框',
    model: '模型',
    rerun: '重新识别',
    files: '文件',
    fileWaiting: '等待中',
    fileReading: '识别中…',
    fileDone: '完成',
    fileFailed: '失败',
    fileCancelled: '已取消',
    show: '查看',
    download: '下载',
    progressLabel: '文档进度',
    cancel: '取消',
    pagesDone: '已完成 {done}/{total} 页',
    waitingServer: '等待服务器…',
    elapsed: '已用 {t}',
    estimating: '正在估算剩余时间…',
    left: '约剩 {t}',
    finishing: '即将完成…',
    seconds: '{s} 秒',
    minutes: '{m} 分 {s} 秒',
    recognizing: '正在识别 {name}（{size}）…',
    uploading: '正在上传 {name}（{size}）…',
    reading: '正在读取 {name}…',
    fetching: '正在获取结果…',
    failed: '失败。',
    done: '完成：{n} 行，用时 {t}。',
    donePages: '完成：{p} 页共 {n} 行，用时 {t}。',
    cancelling: '正在取消…',
    cancelledAfter: '已取消：已读完 {n}/{total} 页。',
    cancelledNone: '已取消：尚未读完任何一页。',
    networkError: '网络错误：无法连接服务器（{msg}）。',
    lostConnection: '网络错误：读取文档时与服务器的连接中断。',
    jobFailed: '任务失败。',
    pastedImage: '粘贴的图片',
    document: '文档',
    results: '结果',
    detected: '识别的文字',
    prevPage: '上一页',
    nextPage: '下一页',
    pageSelect: '页',
    page: '第 {n} 页',
    ofPages: '共 {n} 页',
    textLayer: '（文字层）',
    zoomIn: '放大',
    zoomOut: '缩小',
    fitWidth: '适合宽度',
    fitPage: '适合页面',
    fullscreen: '全屏',
    exitFullscreen: '退出全屏',
    selectRegion: '框选区域',
    viewerLabel: '页面：拖动平移，滚轮或 + 和 - 缩放，Shift+拖动框选区域',
    previewAlt: '上传的文档',
    boxesLabel: '识别出的文字框',
    regionReading: '正在识别区域…',
    regionDone: '区域：{n} 行',
    regionNoImage: '没有页面图像，无法识别区域。',
    wholePage: '显示整页',
    lines: '文字行',
    processedIn: '处理用时',
    linesLabel: '识别出的行',
    confidence: '置信度 {c}',
    noText: '未找到文字。',
    noTextPage: '此页未找到文字。',
    waitingFirst: '等待第一页…',
    output: '输出',
    outputPending: '（整个文档读完后显示）',
    rendering: '正在生成…',
    needsWhole: '此格式需要完整的文档：请重新识别。',
    noRerender: '此服务器无法将已读完的文档重新生成为此格式：请在识别前选择该格式。',
    copy: '复制',
    copied: '已复制！',
    copyFailed: '复制失败',
    downloadAs: '下载 {ext}',
    searchablePdf: '可搜索 PDF',
    makingPdf: '正在生成 PDF…',
    tablesCsv: '表格（CSV）',
    view: '视图',
    source: '源码',
    preview: '预览',
    htmlPreview: 'HTML 预览',
    footer: '图片只在内存中识别，不会保存。逐页识别的文档保存在本服务器上，结果过期后删除。',
  },
};

const kStorageKey = 'onnxocr.lang';
const listeners = [];

function initialLang() {
  try {
    const saved = localStorage.getItem(kStorageKey);
    if (saved === 'en' || saved === 'zh') return saved;
  } catch {
    // storage refused (private mode): fall through to the browser's preference
  }
  const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  for (const l of langs) {
    const code = String(l || '').toLowerCase();
    if (code.startsWith('zh')) return 'zh';
    if (code.startsWith('en')) return 'en';
  }
  return 'en';
}

let lang = initialLang();

export const currentLang = () => lang;

// The string `key` with {name} replaced by vars.name; its `One` form for a count of 1 where the
// language has one; the English one when zh lacks it.
export function t(key, vars = {}) {
  const table = kStrings[lang];
  const s = (vars.n === 1 && table[`${key}One`]) || table[key] || kStrings.en[key] || key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

export function applyStrings(root = document) {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll('[data-i18n-alt]')) el.alt = t(el.dataset.i18nAlt);
}

// `fn` runs after each switch, to redraw what scripts wrote.
export function onLangChange(fn) {
  listeners.push(fn);
}

export function setLang(next) {
  lang = next === 'zh' ? 'zh' : 'en';
  try {
    localStorage.setItem(kStorageKey, lang);
  } catch {
    // not remembered, still switched
  }
  applyStrings();
  for (const fn of listeners) fn();
}

export function setupI18n(button) {
  applyStrings();
  button.addEventListener('click', () => setLang(lang === 'zh' ? 'en' : 'zh'));
}
