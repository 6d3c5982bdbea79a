// A small Markdown renderer for the preview of our own output: headings, paragraphs, lists, pipe
// tables and <br> in cells, backslash escapes. It builds DOM nodes and inserts every text with
// textContent, so nothing in the text can become markup. HTML tables (spanning cells) are shown as
// their source.

const kEscapable = /\\([\\`*_{}[\]<>#+\-|!~&.)])/g;
const unescape = (s) => s.replace(kEscapable, '$1');

// Text with <br> as line breaks, appended to `el`.
function appendInline(el, text) {
  text.split(/<br\s*\/?>/i).forEach((part, i) => {
    if (i > 0) el.append(document.createElement('br'));
    el.append(document.createTextNode(unescape(part)));
  });
}

// The cells of a pipe-table row, split at unescaped "|".
function cells(line) {
  const inner = line.trim().replace(/^\|/, '').replace(/(^|[^\\])\|$/, '$1');
  const out = [];
  let cur = '';
  for (let i = 0; i < inner.length; ++i) {
    if (inner[i] === '\\' && i + 1 < inner.length) {
      cur += inner[i] + inner[i + 1];
      i += 1;
    } else if (inner[i] === '|') {
      out.push(cur.trim());
      cur = '';
    } else {
      cur += inner[i];
    }
  }
  out.push(cur.trim());
  return out;
}

function table(rows) {
  const el = document.createElement('table');
  const head = el.createTHead().insertRow();
  for (const c of cells(rows[0])) {
    const th = document.createElement('th');
    appendInline(th, c);
    head.append(th);
  }
  const body = el.createTBody();
  for (const row of rows.slice(2)) {
    const tr = body.insertRow();
    for (const c of cells(row)) appendInline(tr.insertCell(), c);
  }
  return el;
}

// Renders `source` into a DocumentFragment.
export function renderMarkdown(source) {
  const frag = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) {
      const p = document.createElement('p');
      appendInline(p, para.join(' '));
      frag.append(p);
    }
    para = [];
  };
  for (let i = 0; i < lines.length; ++i) {
    const line = lines[i];
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    const item = /^(?:([-*+])|(\d{1,9})[.)]) (.*)$/.exec(line);
    if (!line.trim()) {
      flush();
      list = null;
    } else if (heading) {
      flush();
      list = null;
      const h = document.createElement(`h${heading[1].length}`);
      appendInline(h, heading[2]);
      frag.append(h);
    } else if (item) {
      flush();
      const tag = item[1] ? 'ul' : 'ol';
      if (!list || list.localName !== tag) {
        list = document.createElement(tag);
        if (item[2] && item[2] !== '1') list.start = Number(item[2]);
        frag.append(list);
      }
      const li = document.createElement('li');
      appendInline(li, item[3]);
      list.append(li);
    } else if (line.startsWith('|') && /^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1] ?? '')) {
      flush();
      list = null;
      const rows = [line, lines[i + 1]];
      for (i += 2; i < lines.length && lines[i].startsWith('|'); ++i) rows.push(lines[i]);
      i -= 1;
      frag.append(table(rows));
    } else if (/^-{3,}$/.test(line.trim()) || /^\{\d+\}-{48}$/.test(line.trim())) {
      flush();
      list = null;
      frag.append(document.createElement('hr'));
    } else {
      list = null;
      para.push(line);
    }
  }
  flush();
  return frag;
}
