// Text, Markdown and HTML written here from an /ocr answer's pages (their lines and `blocks`), so
// switching the format of a single image needs no second OCR. They follow the server's writers
// (src/document/render.cpp); a block's rows are found again from its lines' boxes. Tables as CSV,
// for every answer, from the blocks' cells.

const kPageRule = '-'.repeat(48);
const kBullets = ['\u2022', '\u00B7', '\u25AA', '\u25CF', '\u25CB', '\u25A0', '\u25A1', '\u25C6',
  '\u25BA', '\u2013', '-', '*'];

export const normalizeText = (s) => String(s ?? '').replace(/[\t\n\v\f\r]/g, ' ').replace(/^ +| +$/g, '');

function escapeMarkdown(text, blockStart = true) {
  const digits = /^[0-9]*/.exec(text)[0].length;
  const listMarker = blockStart && digits > 0 && /[.)]/.test(text[digits] ?? '');
  let out = '';
  for (let i = 0; i < text.length; ++i) {
    if ('\\`*_{}[]<>#+-|!~&'.includes(text[i]) || (listMarker && i === digits)) out += '\\';
    out += text[i];
  }
  return out;
}

export const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// A list item's marker at the start of `text`: [its length with the space after it, number].
function listMarker(text) {
  for (const b of kBullets) {
    if (text.length > b.length + 1 && text.startsWith(b) && text[b.length] === ' ') return [b.length + 1, 0];
  }
  const m = /^([0-9]{1,2})[.)] ./.exec(text);
  return m ? [m[1].length + 2, Number(m[1])] : [0, 0];
}

// The block's lines grouped in rows: a line whose middle lies within the previous line's height
// continues its row.
function rows(page, indices) {
  const out = [];
  let last = null;
  for (const i of indices) {
    const line = page.results[i];
    if (!line || !normalizeText(line.text)) continue;
    const ys = (line.bounding_box || []).map((p) => p[1]);
    const top = Math.min(...ys);
    const bottom = Math.max(...ys);
    const mid = (top + bottom) / 2;
    if (last && mid >= last.top && mid <= last.bottom) out[out.length - 1].push(normalizeText(line.text));
    else out.push([normalizeText(line.text)]);
    last = { top, bottom };
  }
  return out;
}

const rowsText = (r, sep = ' ') => r.map((row) => row.join(' ')).join(sep);
const rowsHtml = (r) => r.map((row) => row.map(escapeHtml).join(' ')).join('<br>');

function tableHtml(page, block) {
  let out = '<table>\n';
  const header = block.header_rows || 0;
  for (let r = 0; r < block.rows; ++r) {
    const tag = r < header ? 'th' : 'td';
    if (r === 0 && header > 0) out += '<thead>\n';
    if (r === header) out += '<tbody>\n';
    out += '<tr>';
    for (const cell of block.cells.filter((c) => c.row === r)) {
      out += `<${tag}`;
      if (cell.row_span > 1) out += ` rowspan="${cell.row_span}"`;
      if (cell.col_span > 1) out += ` colspan="${cell.col_span}"`;
      out += `>${rowsHtml(rows(page, cell.lines))}</${tag}>`;
    }
    out += '</tr>\n';
    if (r < header && r + 1 === header) out += '</thead>\n';
  }
  return `${out}</tbody>\n</table>`;
}

function tableMarkdown(page, block) {
  if (block.cells.some((c) => c.row_span > 1 || c.col_span > 1)) return tableHtml(page, block);
  const grid = Array.from({ length: block.rows }, () => Array(block.columns).fill(''));
  for (const cell of block.cells) {
    grid[cell.row][cell.col] = rows(page, cell.lines).map((row) => escapeMarkdown(row.join(' '), false)).join('<br>');
  }
  return grid
    .map((row, r) => `|${row.map((c) => ` ${c} |`).join('')}` + (r === 0 ? `\n|${' --- |'.repeat(row.length)}` : ''))
    .join('\n');
}

function pageMarkdown(page) {
  let out = '';
  let prev = null;
  for (const block of page.blocks || []) {
    const item = block.type === 'list_item';
    const sameList = prev && prev.type === 'list_item' && item && prev.ordered === block.ordered;
    if (out && !sameList) out += '\n';
    prev = block;
    const text = rowsText(rows(page, block.lines || []));
    if (block.type === 'heading') {
      out += `${'#'.repeat(Math.min(6, Math.max(1, block.level || 1)))} ${escapeMarkdown(text)}`;
    } else if (item) {
      const [len, number] = listMarker(text);
      const rest = escapeMarkdown(text.slice(len));
      out += block.ordered ? `${number}. ${rest}` : `- ${rest}`;
    } else if (block.type === 'table') {
      out += tableMarkdown(page, block);
    } else {
      out += escapeMarkdown(text);
    }
    out += '\n';
  }
  return out;
}

function pageHtml(page) {
  let out = '';
  let list = null;
  for (const block of page.blocks || []) {
    const item = block.type === 'list_item';
    if (list && (!item || list.ordered !== block.ordered)) {
      out += list.ordered ? '</ol>\n' : '</ul>\n';
      list = null;
    }
    if (item && !list) {
      list = block;
      out += block.ordered ? '<ol>\n' : '<ul>\n';
    }
    const r = rows(page, block.lines || []);
    if (block.type === 'heading') {
      const tag = `h${Math.min(6, Math.max(1, block.level || 1))}`;
      out += `<${tag}>${escapeHtml(rowsText(r))}</${tag}>`;
    } else if (item) {
      if (r.length) r[0][0] = r[0][0].slice(listMarker(r[0][0])[0]);
      out += `<li>${rowsHtml(r)}</li>`;
    } else if (block.type === 'table') {
      out += tableHtml(page, block);
    } else {
      out += `<p>${rowsHtml(r)}</p>`;
    }
    out += '\n';
  }
  if (list) out += list.ordered ? '</ol>\n' : '</ul>\n';
  return out;
}

function pageText(page) {
  return page.results.map((l) => `${normalizeText(l.text)}\n`).join('');
}

// marker's pagination, as the server writes it.
function paginate(pages, write) {
  let joined = '';
  for (const p of pages) joined += `\n\n{${p.page}}${kPageRule}\n\n${write(p)}`;
  let out = `\n\n${joined.replace(/\n{3,}/g, '\n\n').replace(/^\s+|\s+$/g, '')}`;
  if (out.endsWith(kPageRule)) out += '\n\n';
  return out;
}

// The answer's pages with results and blocks (a one-page answer without `pages` gets one).
function pagesOf(resp) {
  if (Array.isArray(resp.pages) && resp.pages.length) {
    return resp.pages.map((p, i) => ({ page: p.page ?? i, results: p.results || [], blocks: p.blocks || [] }));
  }
  const results = resp.results || [];
  return [{ page: 0, results, blocks: [{ type: 'paragraph', lines: results.map((_, i) => i) }] }];
}

// `format` (text, markdown, html) of an /ocr answer; null for one this page cannot write.
export function writeFormat(resp, format, paginated) {
  const write = { text: pageText, markdown: pageMarkdown, html: pageHtml }[format];
  if (!write) return null;
  const pages = pagesOf(resp);
  if (format === 'html') {
    const body = pages
      .map((p) => (paginated ? `<div class='page' data-page-id='${p.page}'>\n${write(p)}</div>\n` : write(p)))
      .join('');
    return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n</head>\n<body>\n${body}</body>\n</html>\n`;
  }
  if (paginated) return paginate(pages, write);
  let out = '';
  for (const p of pages) {
    const text = write(p);
    if (out && text) out += '\n';
    out += text;
  }
  return out;
}

// Every table of the answer as CSV (RFC 4180), tables separated by a blank line; '' for none.
export function tablesCsv(resp) {
  const quote = (s) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const tables = [];
  for (const page of pagesOf(resp)) {
    for (const block of page.blocks) {
      if (block.type !== 'table' || !Array.isArray(block.cells)) continue;
      const grid = Array.from({ length: block.rows || 0 }, () => Array(block.columns || 0).fill(''));
      for (const cell of block.cells) {
        if (grid[cell.row]) grid[cell.row][cell.col] = rowsText(rows(page, cell.lines || []));
      }
      tables.push(grid.map((row) => row.map(quote).join(',')).join('\r\n'));
    }
  }
  return tables.length ? `${tables.join('\r\n\r\n')}\r\n` : '';
}
