// Renders the table-recognition test set: about 32 pages holding one HTML table each (ruled,
// unruled, booktabs; spans, wrapped cells; English, Chinese, mixed; some rotated or scan-like)
// and 6 pages without a table, with headless chromium. For each page NAME it writes NAME.png (or
// NAME.jpg for the noisy ones), NAME.pdf (the same page without the image degradations: a
// born-digital PDF with a text layer) and html/NAME.html, plus manifest.json with each page's
// tags and ground-truth tables as normalized HTML (what tests/tables/teds.py reads).
//
// Everything comes from a seeded PRNG, so every run writes the same files (on the same chromium
// and fonts): the PDFs' creation dates are pinned, nothing else in them changes between runs.
//
// Run: node tests/tables/make_table_set.mjs OUT_DIR (exit 77 = skipped: chromium or
// playwright-core missing). CHROMIUM_PATH selects the browser (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserSkipReason, loadPlaywright } from '../support/node_test_helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node tests/tables/make_table_set.mjs OUT_DIR');
  process.exit(2);
}
const playwright = loadPlaywright(repoRoot);
const skipReason = browserSkipReason(repoRoot, chromiumPath, playwright);
if (skipReason) {
  // ctest's SKIP_RETURN_CODE.
  console.error(`SKIP: ${skipReason}`);
  process.exit(77);
}

// ---- seeded randomness --------------------------------------------------------------------------

// mulberry32: a tiny 32-bit PRNG giving floats in [0, 1). Its source is also inlined into the
// noisy pages' HTML, so the specks come from the same generator and the saved HTML reproduces them.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Helpers over one PRNG stream. Each page gets its own stream (seeded from its index), so editing
// one page's plan does not change the content of the others.
function makeRng(seed) {
  const next = mulberry32(seed);
  return {
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
    // `n` distinct items of `list`, in a random order.
    sample: (list, n) => {
      const copy = [...list];
      for (let i = copy.length - 1; i > 0; --i) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy.slice(0, n);
    },
  };
}

// ---- content pools ------------------------------------------------------------------------------

const kEn = {
  companies: ['Northwind Traders', 'Contoso Ltd', 'Fabrikam Inc', 'Tailspin Toys',
    'Litware Systems', 'Adventure Works', 'Proseware Inc', 'Wide World Importers',
    'Alpine Ski House', 'Coho Vineyard', 'Fourth Coffee', 'Lucerne Publishing', 'Trey Research',
    'Woodgrove Bank', 'City Power & Light', 'Blue Yonder Airlines', 'Southridge Video',
    'Humongous Insurance'],
  people: ['Anna Berg', 'David Chen', 'Maria Lopez', 'James Okafor', 'Sofia Rossi',
    'Liam Walsh', 'Emma Novak', 'Noah Fischer', 'Olivia Grant', 'Lucas Martin', 'Mia Svensson',
    'Ethan Brooks', 'Chloe Dubois', 'Ravi Patel', 'Hannah Kim', 'Tomás Silva'],
  products: ['Steel Water Bottle', 'USB-C Cable 2 m', 'LED Desk Lamp', 'Wireless Mouse',
    'Notebook A5', 'Espresso Beans 1 kg', 'Salt & Pepper Mill', 'Office Chair', 'Monitor Arm',
    'Label Printer', 'Paper Clips (100)', 'Laptop Stand', 'Noise Barrier Headset',
    'Whiteboard 90 x 60', 'Filing Cabinet', 'Electric Kettle'],
  cities: ['Amsterdam', 'Berlin', 'Chicago', 'Dublin', 'Lisbon', 'Madrid', 'Oslo', 'Toronto',
    'Vienna', 'Zurich', 'Melbourne', 'Osaka', 'Seattle', 'Prague', 'Denver', 'Boston'],
  depts: ['Sales', 'Finance', 'Engineering', 'Marketing', 'Support', 'Logistics', 'Legal',
    'Purchasing'],
  statuses: ['Paid', 'Open', 'Overdue', 'Shipped', 'On hold', 'Cancelled', 'Pending'],
  notes: ['Delivered in two shipments after the supplier changed the packaging',
    'Awaiting approval from the regional finance office before payment',
    'Price includes installation and one year of on-site service',
    'Customer asked for a corrected invoice with the new address',
    'Contract renewed for another year at a three percent higher rate',
    'Damaged in transit; replacement sent and the claim filed with the carrier',
    'Settled quarterly with sixty days payment terms',
    'Discount applied for orders above five hundred units'],
  models: ['Model M220', 'Rev. B', 'Black', 'Pack of 12', 'Refurbished', 'EU plug'],
  total: 'Total',
  titles: ['Quarterly sales by region', 'Inventory summary', 'Shipping schedule',
    'Supplier invoices', 'Project budget overview', 'Monthly expenses', 'Open purchase orders',
    'Customer accounts', 'Warehouse stock levels', 'Regional performance report'],
  intros: ['The table below lists the figures reported for the current period.',
    'All amounts are shown in euros and were checked by the finance team.',
    'Figures are taken from the order system at the end of the month.',
    'The following overview was prepared for the quarterly review meeting.',
    'Values marked as pending have not been confirmed by the supplier yet.'],
  notesBelow: ['Amounts in EUR, excluding VAT.', 'Source: internal order system, unaudited.',
    'Figures may not add up due to rounding.', 'Prepared by the controlling department.'],
};

const kZh = {
  companies: ['华东电子有限公司', '北京智远科技', '深圳市新海贸易', '上海明德物流', '广州云帆信息技术',
    '杭州绿源食品', '成都天府软件', '南京金陵机械', '武汉长江化工', '西安古城文化传媒', '苏州精工模具',
    '青岛海联船务', '厦门鹭岛电器', '重庆山城建材'],
  people: ['张伟', '王芳', '李娜', '刘洋', '陈静', '杨磊', '赵敏', '黄强', '周杰', '吴霞', '徐涛',
    '孙丽', '马超', '朱琳', '胡斌', '郭婷'],
  products: ['不锈钢保温杯', '无线鼠标', '办公椅', '护眼台灯', '笔记本', '复印纸', '咖啡豆', '数据线',
    '显示器支架', '文件柜', '电热水壶', '空气净化器', '标签打印机', '白板'],
  cities: ['北京', '上海', '广州', '深圳', '杭州', '成都', '南京', '武汉', '西安', '重庆', '天津',
    '苏州', '青岛', '厦门', '长沙', '郑州'],
  depts: ['销售部', '财务部', '技术部', '人事部', '市场部', '采购部', '物流部', '法务部'],
  statuses: ['已完成', '进行中', '待审核', '已取消', '已发货', '已付款'],
  notes: ['货物已分两批发出，第二批预计下周到达', '客户要求开具增值税专用发票并更新地址',
    '等待财务部门审批后安排付款', '合同已续签一年，单价上调百分之三', '包装破损，已联系供应商补发',
    '按季度结算，账期六十天', '订单超过五百件享受批量折扣', '价格含安装费及一年上门服务'],
  models: ['白色', '标准版', '十二只装', '升级款', '大号'],
  total: '合计',
  titles: ['季度销售汇总', '库存明细表', '发货计划', '供应商发票清单', '项目预算概览', '月度费用报表',
    '采购订单一览', '客户账户信息', '仓库库存情况', '区域业绩报告'],
  intros: ['下表列出了本期各项数据的统计结果。', '所有金额均以人民币计价，并已由财务部门核对。',
    '以下数据取自月末的订单系统。', '本概览为季度评审会议准备。', '标注为待审核的数值尚未得到供应商确认。'],
  notesBelow: ['注：金额单位为人民币元，含税。', '数据来源：内部订单系统，未经审计。',
    '因四舍五入，合计可能略有出入。', '本表由财务部编制。'],
};

// Mixed pages: bilingual headers, and each text column drawn from one language or the other.
const kMixedNotes = ['已联系 DHL 安排取件，预计周五前完成', '发票 No. 4471 已寄出，请注意查收', 'Q3 预算已批准，下月初开始执行',
  '等待 ERP 系统更新后再核对库存', '客户 PO 号码待确认，暂不发货', '已按 FOB 条款报价，有效期三十天'];

// Column kinds: header per language, a cell generator (PRNG, pools, column), alignment. `value`
// is kept on numeric cells so a total row can add them up.
const kKinds = {
  company: { en: 'Company', zh: '公司名称', gen: (r, p) => ({ text: r.pick(p.companies) }) },
  person: { en: 'Contact', zh: '联系人', gen: (r, p) => ({ text: r.pick(p.people) }) },
  product: { en: 'Product', zh: '产品名称', gen: (r, p) => ({ text: r.pick(p.products) }) },
  city: { en: 'City', zh: '城市', gen: (r, p) => ({ text: r.pick(p.cities) }) },
  dept: { en: 'Department', zh: '部门', gen: (r, p) => ({ text: r.pick(p.depts) }) },
  status: { en: 'Status', zh: '状态', gen: (r, p) => ({ text: r.pick(p.statuses) }) },
  code: {
    en: 'Code', zh: '编号', align: 'c',
    gen: (r) => ({ text: `${r.pick(['AB', 'KX', 'PO', 'SKU', 'RT'])}-${r.int(100, 9999)}` }),
  },
  date: {
    en: 'Date', zh: '日期', align: 'r',
    gen: (r, p, col) => {
      const [y, m, d] = [r.int(2022, 2025), r.int(1, 12), r.int(1, 28)];
      if (col.hanDate) return { text: `${y}年${m}月${d}日` };
      return { text: `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}` };
    },
  },
  qty: {
    en: 'Qty', zh: '数量', align: 'r', sum: true,
    gen: (r) => { const v = r.int(1, 2500); return { text: groupThousands(String(v)), value: v }; },
  },
  price: {
    en: 'Unit price', zh: '单价', align: 'r',
    gen: (r) => { const v = r.int(99, 99999) / 100; return { text: money(v), value: v }; },
  },
  amount: {
    en: 'Amount', zh: '金额', align: 'r', sum: true,
    gen: (r) => { const v = r.int(1000, 9999999) / 100; return { text: money(v), value: v }; },
  },
  pct: {
    en: 'Share', zh: '占比', align: 'r',
    gen: (r) => ({ text: `${(r.int(1, 999) / 10).toFixed(1)}%` }),
  },
  note: { en: 'Remarks', zh: '备注', wrap: true, gen: (r, p) => ({ text: r.pick(p.notes) }) },
};
const kTextKinds = ['company', 'person', 'product', 'city'];
const kValueKinds = ['code', 'date', 'qty', 'price', 'amount', 'pct', 'status', 'city', 'person'];

function groupThousands(digits) {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// "1,234.50": written out here rather than with toLocaleString, so the output does not depend on
// the ICU data node was built with.
function money(v) {
  const [int, frac] = v.toFixed(2).split('.');
  return `${groupThousands(int)}.${frac}`;
}

// ---- table model --------------------------------------------------------------------------------
//
// table = { head: [row], body: [row], ncols }, row = [cell], cell = { text, colspan, rowspan,
// align ('l' | 'r' | 'c'), wrap }. Rows list only the cells that start in them, as HTML does.
// A '\n' in a cell's text is a <br> in the page and a single space in the ground truth.

function cell(text, extra = {}) {
  return { text, colspan: 1, rowspan: 1, align: 'l', wrap: false, ...extra };
}

// Checks that the rows tile an ncols-wide grid exactly (no holes, no overlaps), so a generator
// bug cannot produce a table whose ground truth means something other than intended.
function checkGrid(rows, ncols, what) {
  const taken = [];
  rows.forEach((row, y) => {
    taken[y] ??= [];
    let x = 0;
    for (const c of row) {
      while (taken[y][x]) ++x;
      for (let dy = 0; dy < c.rowspan; ++dy) {
        assert.ok(y + dy < rows.length, `${what}: rowspan runs past the last row`);
        taken[y + dy] ??= [];
        for (let dx = 0; dx < c.colspan; ++dx) {
          assert.ok(!taken[y + dy][x + dx], `${what}: overlapping cells at row ${y}`);
          taken[y + dy][x + dx] = true;
        }
      }
      x += c.colspan;
    }
  });
  taken.forEach((row, y) => assert.equal(row.filter(Boolean).length, ncols,
    `${what}: row ${y} does not cover ${ncols} columns`));
}

// Builds a table from a page's options:
//   lang: 'en' | 'zh' | 'mixed'; cols, rows: sizes (before span structure is added);
//   header: a <thead>; group: a two-row header whose value columns sit under colspan group names;
//   rowGroups: the first column holds group labels with rowspan 2-3; total: a last row whose
//   label spans the label columns; wrap: a fixed-width long-text column; br: line breaks inside
//   some cells; empty: a few empty cells.
function makeTable(rng, opt) {
  const pools = opt.lang === 'zh' ? kZh : kEn;
  // Mixed: each column draws from one language; headers carry both ("数量 Qty").
  const poolFor = () => (opt.lang === 'mixed' ? rng.pick([kEn, kZh]) : pools);
  const headText = (kind) => {
    const k = kKinds[kind];
    return opt.lang === 'en' ? k.en : opt.lang === 'zh' ? k.zh : `${k.zh} ${k.en}`;
  };

  // Label columns first: a group column (rowGroups) and/or a text column.
  const cols = [];
  if (opt.rowGroups) cols.push({ kind: rng.pick(['dept', 'city']), pools: poolFor(), label: true });
  cols.push({ kind: rng.pick(kTextKinds.filter((k) => !cols.some((c) => c.kind === k))),
    pools: poolFor(), label: true });

  let groupNames = null;
  if (opt.group) {
    // Value columns come in groups (years, halves) of the same measures (qty + amount, ...).
    const zh = opt.lang === 'zh';
    groupNames = rng.pick(zh
      ? [['2023年', '2024年'], ['上半年', '下半年'], ['一季度', '二季度', '三季度']]
      : [['2023', '2024'], ['H1', 'H2'], ['Q1', 'Q2', 'Q3']]);
    const room = opt.cols - cols.length;
    const measures = groupNames.length * 2 <= room ? rng.pick([['qty', 'amount'], ['qty', 'pct']])
      : ['amount'];
    for (const g of groupNames) {
      for (const m of measures) cols.push({ kind: m, pools, group: g });
    }
  }
  // A total row needs something to add up: an amount column unless the groups brought one.
  const must = opt.total && !cols.some((c) => kKinds[c.kind].sum) ? ['amount'] : [];
  const used = new Set([...cols.map((c) => c.kind), ...must]);
  const free = kValueKinds.filter((k) => !used.has(k));
  const nValue = Math.max(0, opt.cols - cols.length - (opt.wrap ? 1 : 0) - must.length);
  for (const kind of [...rng.sample(free, nValue), ...must]) cols.push({ kind, pools: poolFor() });
  if (opt.wrap) {
    const notes = opt.lang === 'mixed' ? { notes: kMixedNotes } : pools;
    cols.push({ kind: 'note', pools: notes });
  }
  const ncols = cols.length;
  // Chinese tables write some date columns as 2024年3月15日 (the whole column, as people do).
  for (const col of cols) col.hanDate = col.kind === 'date' && col.pools === kZh && rng.chance(0.5);
  const fmt = (col) => ({ align: kKinds[col.kind].align ?? 'l', wrap: !!kKinds[col.kind].wrap });

  // Header rows.
  const head = [];
  if (opt.header) {
    const headCell = (col) => {
      let text = headText(col.kind);
      // A header broken by hand ("Unit<br>price") is common in narrow numeric columns.
      if (opt.br && /^\S+ \S+$/.test(text)) text = text.replace(' ', '\n');
      return cell(text, fmt(col));
    };
    if (groupNames) {
      const top = [];
      const bottom = [];
      for (let i = 0; i < ncols; ++i) {
        const col = cols[i];
        if (!col.group) {
          top.push({ ...headCell(col), rowspan: 2 });
        } else {
          if (col.group !== cols[i - 1]?.group) {
            const span = cols.filter((c) => c.group === col.group).length;
            top.push(cell(col.group, { colspan: span, align: 'c' }));
          }
          bottom.push(headCell(col));
        }
      }
      head.push(top, bottom);
    } else {
      head.push(cols.map(headCell));
    }
  }

  // Body rows: plain values, then the rowspan labels laid over the first column.
  const values = [];
  for (let y = 0; y < opt.rows; ++y) {
    values.push(cols.map((col) => {
      const v = kKinds[col.kind].gen(rng, col.pools, col);
      let text = v.text;
      if (opt.br && col.label && rng.chance(0.5)) {
        text += `\n${rng.pick(col.pools.models ?? kEn.models)}`;
      }
      if (opt.empty && !col.label && rng.chance(0.08)) text = '';
      return { ...cell(text, fmt(col)), value: v.value };
    }));
  }
  const body = values.map((row) => [...row]);
  if (opt.rowGroups) {
    const labels = rng.sample(cols[0].pools[cols[0].kind === 'dept' ? 'depts' : 'cities'], 8);
    // Groups of 1-3 rows, at least one of them really spanning.
    for (let y = 0, g = 0; y < opt.rows; ++g) {
      const size = Math.min(opt.rows - y, g === 0 ? rng.int(2, 3) : rng.int(1, 3));
      body[y][0] = { ...body[y][0], text: labels[g % labels.length], rowspan: size };
      for (let dy = 1; dy < size; ++dy) body[y + dy].shift();
      y += size;
    }
  }
  if (opt.total) {
    const nLabel = cols.filter((c) => c.label).length;
    const totals = [cell(pools.total, { colspan: nLabel })];
    for (let i = nLabel; i < ncols; ++i) {
      const k = kKinds[cols[i].kind];
      let text = '';
      if (k.sum) {
        const s = values.reduce((acc, row) => acc + (row[i].text ? row[i].value : 0), 0);
        text = cols[i].kind === 'qty' ? groupThousands(String(s)) : money(s);
      }
      totals.push(cell(text, fmt(cols[i])));
    }
    body.push(totals);
  }

  checkGrid(head, ncols, 'head');
  checkGrid(body, ncols, 'body');
  return { head, body, ncols };
}

// ---- HTML and ground truth ----------------------------------------------------------------------

function escapeHtml(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// The page's <table>: cells carry classes for alignment and wrapping only.
function tableHtml(table, spec) {
  const classes = [spec.style === 'ruled' ? 'ruled' : 'unruled'];
  if (spec.style === 'booktabs') classes.push('booktabs');
  if (spec.zebra) classes.push('zebra');
  if (spec.headFill) classes.push('headfill');
  if (spec.full) classes.push('full');
  const cellHtml = (tag, c) => {
    const attrs = [];
    if (c.colspan > 1) attrs.push(` colspan="${c.colspan}"`);
    if (c.rowspan > 1) attrs.push(` rowspan="${c.rowspan}"`);
    const cls = [c.align !== 'l' ? c.align : '', c.wrap ? 'w' : ''].filter(Boolean).join(' ');
    if (cls) attrs.push(` class="${cls}"`);
    return `<${tag}${attrs.join('')}>${c.text.split('\n').map(escapeHtml).join('<br>')}</${tag}>`;
  };
  const rowsHtml = (rows, tag) =>
    rows.map((r) => `      <tr>${r.map((c) => cellHtml(tag, c)).join('')}</tr>\n`).join('');
  const vars = [`--wrap: ${spec.lang === 'en' ? 300 : 180}px`];
  if (spec.style === 'ruled') vars.push(`--rule: ${spec.rule}`);
  let html = `  <table class="${classes.join(' ')}" style="${vars.join('; ')}">\n`;
  if (table.head.length) html += `    <thead>\n${rowsHtml(table.head, 'th')}    </thead>\n`;
  html += `    <tbody>\n${rowsHtml(table.body, 'td')}    </tbody>\n  </table>\n`;
  return html;
}

// Ground truth in the normalized form the manifest promises: table/thead/tbody/tr/th/td only,
// spans only when > 1, text escaped with whitespace collapsed and <br> read as a space.
function tableGt(table) {
  const cellGt = (tag, c) => {
    const span = (c.colspan > 1 ? ` colspan="${c.colspan}"` : '') +
      (c.rowspan > 1 ? ` rowspan="${c.rowspan}"` : '');
    return `<${tag}${span}>${escapeHtml(c.text.replace(/\s+/g, ' ').trim())}</${tag}>`;
  };
  const rowsGt = (rows, tag) => rows.map((r) => `<tr>${r.map((c) => cellGt(tag, c)).join('')}</tr>`)
    .join('');
  const head = table.head.length ? `<thead>${rowsGt(table.head, 'th')}</thead>` : '';
  return `<table>${head}<tbody>${rowsGt(table.body, 'td')}</tbody></table>`;
}

// Run in the page: the same normalization, read back from the rendered DOM.
function normalizeDomTables() {
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const walk = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'td' || tag === 'th') {
      const copy = el.cloneNode(true);
      for (const br of copy.querySelectorAll('br')) br.replaceWith(' ');
      const span = (el.colSpan > 1 ? ` colspan="${el.colSpan}"` : '') +
        (el.rowSpan > 1 ? ` rowspan="${el.rowSpan}"` : '');
      return `<${tag}${span}>${esc(copy.textContent.replace(/\s+/g, ' ').trim())}</${tag}>`;
    }
    if (!['table', 'thead', 'tbody', 'tr'].includes(tag)) return '';
    return `<${tag}>${[...el.children].map(walk).join('')}</${tag}>`;
  };
  return [...document.querySelectorAll('table')].map(walk);
}

const kFonts = {
  sans: '"DejaVu Sans", sans-serif',
  serif: '"DejaVu Serif", serif',
  zhSans: '"WenQuanYi Micro Hei", "DejaVu Sans", sans-serif',
  // Latin and digits in DejaVu, Han characters falling back to WenQuanYi.
  latinFirst: '"DejaVu Sans", "WenQuanYi Micro Hei", sans-serif',
  serifZh: '"DejaVu Serif", "WenQuanYi Micro Hei", serif',
};

const kCss = `
html, body { margin: 0; background: #fff; }
body { color: #1a1a1a; }
body.paper { background: #ecebe5; }
.page { padding: 40px 48px; }
h1 { font-size: 1.4em; font-weight: bold; margin: 0 0 10px; }
p { margin: 0 0 20px; line-height: 1.4; }
p.below { margin: 16px 0 0; font-size: 0.85em; color: #333; }
table { border-collapse: collapse; }
table.full { width: 100%; }
td, th { padding: 6px 12px; white-space: nowrap; text-align: left; vertical-align: top; }
th { font-weight: bold; vertical-align: bottom; }
.r { text-align: right; }
.c { text-align: center; }
/* A fixed width (per language, set on the table) makes the long text wrap onto 2-3 lines. */
td.w, th.w { white-space: normal; width: var(--wrap); }
table.ruled td, table.ruled th { border: var(--rule); }
table.headfill thead th { background: #e8e8e8; }
/* No rules at all: columns are told apart by at least 32px of padding between them. */
table.unruled td, table.unruled th { padding: 6px 18px; }
table.unruled td:first-child, table.unruled th:first-child { padding-left: 0; }
table.zebra tbody tr:nth-child(even) { background: #efefef; }
/* booktabs: a top rule, a rule under the header, a bottom rule; nothing vertical. */
table.booktabs { border-top: 2px solid #222; border-bottom: 2px solid #222; }
table.booktabs thead { border-bottom: 1px solid #222; }
table.booktabs td, table.booktabs th { padding-top: 8px; padding-bottom: 8px; }
/* Negative pages. */
.cols2 { column-count: 2; column-gap: 48px; text-align: justify; }
.form { display: grid; grid-template-columns: 1fr 1fr; column-gap: 80px; row-gap: 14px; }
.receipt { width: 460px; font-family: "DejaVu Sans Mono", monospace; }
.receipt .line { display: flex; justify-content: space-between; padding: 3px 0; }
.receipt .sum { border-top: 1px dashed #333; margin-top: 8px; padding-top: 8px; font-weight: bold; }
li { margin: 6px 0; line-height: 1.4; }
`;

// The script every page runs once its fonts are in: it records the height the image is cut to
// (the bottom of the page's box, rotated or not; its padding is the margin), draws the scan specks
// when asked for, then flags the page ready.
function pageScript(noiseSeed) {
  return `
${mulberry32.toString()}
document.fonts.ready.then(() => {
  const box = document.querySelector('.page').getBoundingClientRect();
  const height = Math.ceil(box.bottom);
  const width = document.documentElement.clientWidth;
  const noiseSeed = ${noiseSeed ?? 'null'};
  if (noiseSeed !== null) {
    // Scanner dust: a few thousand small grey specks, a few darker ones, none big enough to
    // hide a stroke.
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    canvas.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none';
    const ctx = canvas.getContext('2d');
    const rnd = mulberry32(noiseSeed);
    const count = Math.round(width * height / 250);
    for (let i = 0; i < count; ++i) {
      const x = rnd() * width;
      const y = rnd() * height;
      const r = 0.35 + rnd() ** 3 * (rnd() < 0.05 ? 1.6 : 0.9);
      const g = Math.floor(70 + rnd() * 120);
      ctx.fillStyle = 'rgba(' + g + ',' + g + ',' + g + ',' + (0.3 + rnd() * 0.5).toFixed(2) + ')';
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fill();
    }
    document.body.appendChild(canvas);
  }
  document.body.dataset.height = String(height);
  document.body.dataset.ready = '1';
});
`;
}

// A whole page. `degraded` adds the image-only degradations (rotation, paper tint and specks);
// the PDF is rendered from the same page without them.
function pageHtml(spec, degraded) {
  const rotate = degraded && spec.rotate ? ` style="transform: rotate(${spec.rotate}deg)"` : '';
  const noisy = degraded && spec.noiseSeed != null;
  const bodyStyle = `font-family: ${spec.font.replace(/"/g, '&quot;')}; font-size: ${spec.fontSize}px`;
  // A rotated page's corners reach past the viewport's sides: no scrollbar for them.
  const htmlStyle = rotate ? ' style="overflow: hidden"' : '';
  return `<!DOCTYPE html>
<html lang="${spec.lang === 'en' ? 'en' : 'zh-CN'}"${htmlStyle}>
<head>
<meta charset="utf-8">
<title>${escapeHtml(spec.name)}</title>
<style>${kCss}</style>
</head>
<body${noisy ? ' class="paper"' : ''} style="${bodyStyle}">
<div class="page"${rotate}>
  <h1>${escapeHtml(spec.title)}</h1>
  <p>${escapeHtml(spec.intro)}</p>
${spec.content}${spec.below ? `  <p class="below">${escapeHtml(spec.below)}</p>\n` : ''}</div>
<script>${pageScript(noisy ? spec.noiseSeed : null)}</script>
</body>
</html>
`;
}

// ---- the set ------------------------------------------------------------------------------------

// One line per table page: style, language, structure options and degradations. Sizes and
// content come from the page's PRNG. rule: the ruled tables' cell border.
const kThin = '1px solid #333';
const kThick = '2px solid #333';
const kGrey = '1px solid #999';
const kTablePlan = [
  { style: 'ruled', lang: 'en', rule: kThin },
  { style: 'ruled', lang: 'zh', rule: kThin, headFill: true },
  { style: 'ruled', lang: 'en', rule: kThin, group: true },
  { style: 'ruled', lang: 'zh', rule: kThin, group: true, rowGroups: true },
  { style: 'ruled', lang: 'mixed', rule: kThin, group: true, wrap: true },
  { style: 'ruled', lang: 'en', rule: kThick, header: false, cols: 3 },
  { style: 'ruled', lang: 'zh', rule: kGrey, wrap: true },
  { style: 'ruled', lang: 'en', rule: kThin, rowGroups: true, wrap: true, rotate: 0.9 },
  { style: 'ruled', lang: 'en', rule: kThin, cols: 8, rows: 16, noise: true, empty: true },
  { style: 'ruled', lang: 'zh', rule: kThin, group: true, total: true, noise: true },
  { style: 'ruled', lang: 'en', rule: kThick, cols: 2, rotate: -0.6 },
  { style: 'ruled', lang: 'mixed', rule: kGrey, headFill: true },
  { style: 'ruled', lang: 'zh', rule: kThin, rowGroups: true, total: true },
  { style: 'ruled', lang: 'en', rule: kThick, group: true, total: true, full: true },
  { style: 'ruled', lang: 'zh', rule: kThin, header: false, noise: true },
  { style: 'ruled', lang: 'en', rule: kGrey, wrap: true, br: true },
  { style: 'unruled', lang: 'en' },
  { style: 'unruled', lang: 'zh', wrap: true },
  { style: 'unruled', lang: 'en', header: false, cols: 3, rotate: 1.1 },
  { style: 'unruled', lang: 'mixed', zebra: true, full: true },
  { style: 'unruled', lang: 'zh', noise: true },
  { style: 'unruled', lang: 'en', wrap: true, cols: 7, empty: true },
  { style: 'unruled', lang: 'zh', cols: 2 },
  { style: 'unruled', lang: 'en', zebra: true, noise: true },
  { style: 'booktabs', lang: 'en', group: true },
  { style: 'booktabs', lang: 'zh', group: true },
  { style: 'booktabs', lang: 'en', br: true },
  { style: 'booktabs', lang: 'zh', rotate: -1.2 },
  { style: 'booktabs', lang: 'mixed', wrap: true },
  { style: 'booktabs', lang: 'en', noise: true, rotate: 0.5, full: true },
  { style: 'unruled', lang: 'zh', header: false },
  { style: 'unruled', lang: 'mixed' },
];

function fontFor(rng, lang) {
  if (lang === 'en') return rng.pick([kFonts.sans, kFonts.serif]);
  if (lang === 'zh') return rng.pick([kFonts.zhSans, kFonts.latinFirst]);
  return rng.pick([kFonts.latinFirst, kFonts.serifZh, kFonts.zhSans]);
}

function textPools(lang) {
  return lang === 'en' ? kEn : kZh;
}

function tablePage(plan, index) {
  const rng = makeRng(1000 + index);
  const lang = plan.lang;
  const header = plan.header ?? true;
  const opt = {
    lang,
    header,
    group: !!plan.group && header,
    rowGroups: !!plan.rowGroups,
    total: !!plan.total,
    wrap: !!plan.wrap,
    br: !!plan.br,
    empty: !!plan.empty,
    // Spanned layouts need room for 2 label columns and 2 groups of values.
    cols: plan.cols ?? rng.int(plan.group ? 5 : 3, plan.group || plan.wrap ? 7 : 6),
    // Short enough that the page stays one PDF page and the set stays quick.
    rows: plan.rows ?? rng.int(3, plan.wrap ? 8 : 12),
  };
  const table = makeTable(rng, opt);
  const spans = [...table.head, ...table.body].flat().some((c) => c.colspan > 1 || c.rowspan > 1);
  const tags = [plan.style === 'ruled' ? 'ruled' : 'unruled'];
  if (plan.style === 'booktabs') tags.push('booktabs');
  tags.push(lang);
  if (spans) tags.push('spans');
  if (opt.wrap) tags.push('wrap');
  if (!header) tags.push('no_header');
  if (plan.zebra) tags.push('zebra');
  if (plan.rotate) tags.push('rotated');
  if (plan.noise) tags.push('noise');
  const pools = textPools(lang);
  const spec = {
    name: `t${String(index + 1).padStart(2, '0')}_${plan.style}_${lang}`,
    lang,
    tags,
    style: plan.style,
    rule: plan.rule,
    zebra: plan.zebra,
    headFill: plan.headFill,
    full: plan.full,
    rotate: plan.rotate,
    noiseSeed: plan.noise ? 5000 + index : null,
    font: fontFor(rng, lang),
    fontSize: rng.int(18, 22),
    width: 1100 + 50 * rng.int(0, 4),
    title: rng.pick(pools.titles),
    intro: rng.pick(pools.intros),
    below: rng.chance(0.5) ? rng.pick(pools.notesBelow) : null,
  };
  spec.content = tableHtml(table, spec);
  spec.tables = [tableGt(table)];
  return spec;
}

// Pages without a table, several of them laid out in ways a table detector might fall for.
function negativePages() {
  const rng = makeRng(9000);
  const sentence = (s, p) => (/[.。]$/.test(s) ? s : `${s}${p === kZh ? '。' : '.'}`);
  const sentences = (p, n) => rng.sample([...p.notes, ...p.intros], n).map((s) => sentence(s, p));
  const para = (p, n) => sentences(p, n).join(p === kZh ? '' : ' ');
  const pages = [];
  const add = (name, lang, kind, title, intro, content) => pages.push({
    name, lang, tags: ['no_table', lang, kind], font: fontFor(rng, lang),
    fontSize: rng.int(18, 22), width: 1100 + 50 * rng.int(0, 4), title, intro, below: null,
    content, tables: [],
  });

  add('n01_prose', 'en', 'columns', 'Notes from the quarterly review',
    'A summary of the points raised during the meeting on 12 March.',
    `  <div class="cols2">\n${[0, 1, 2, 3, 4].map(() => `    <p>${escapeHtml(para(kEn, 4))}</p>\n`)
      .join('')}  </div>\n`);

  const fields = [['Order', `${rng.int(100000, 999999)}`], ['Date', '2024-06-18'],
    ['Customer', rng.pick(kEn.companies)], ['Contact', rng.pick(kEn.people)],
    ['City', rng.pick(kEn.cities)], ['Payment', 'Bank transfer'], ['Terms', '30 days net'],
    ['Reference', `PO-${rng.int(1000, 9999)}`], ['Shipping', 'Standard, 3-5 days'],
    ['Amount due', money(rng.int(10000, 999999) / 100)]];
  add('n02_form', 'en', 'form', 'Order confirmation',
    'Please check the details below and tell us if anything is wrong.',
    `  <div class="form">\n${fields.map(([k, v]) =>
      `    <div><b>${escapeHtml(k)}:</b> ${escapeHtml(v)}</div>\n`).join('')}  </div>\n`);

  add('n03_bullets', 'zh', 'list', '会议纪要', '本次会议讨论了以下事项：',
    `  <ul>\n${sentences(kZh, 8).map((s) => `    <li>${escapeHtml(s)}</li>\n`)
      .join('')}  </ul>\n`);

  add('n04_numbered', 'en', 'list', 'Open points from the supplier review',
    'The points below are to be settled in this order.',
    `  <ol>\n${sentences(kEn, 8).map((s) => `    <li>${escapeHtml(s)}</li>\n`)
      .join('')}  </ol>\n`);

  // A receipt: name left, price right, a total. Aligned columns, but not a table.
  const items = rng.sample(kEn.products, 8).map((p) => [p, rng.int(99, 9999) / 100]);
  const total = items.reduce((acc, [, v]) => acc + v, 0);
  const line = (k, v, cls = '') =>
    `    <div class="line${cls}"><span>${escapeHtml(k)}</span><span>${money(v)}</span></div>\n`;
  add('n05_receipt', 'en', 'receipt', 'Fourth Coffee - Store 12',
    'Thank you for your visit. Prices include VAT.',
    `  <div class="receipt">\n${items.map(([k, v]) => line(k, v)).join('')}${
      line('TOTAL EUR', total, ' sum')}  </div>\n`);

  add('n06_paragraphs', 'mixed', 'paragraphs', '项目进展说明 Project update',
    '以下为本月项目进展的简要说明。',
    [0, 1, 2, 3].map(() => `  <p>${escapeHtml(para(rng.chance(0.5) ? kZh : kEn, 3))} ${
      escapeHtml(sentence(rng.pick(kMixedNotes), kZh))}</p>\n`).join(''));
  return pages;
}

// ---- rendering ----------------------------------------------------------------------------------

// Skia writes the wall-clock time into /CreationDate and /ModDate; the same-length fixed date
// keeps the xref offsets valid and the file identical from run to run.
function pinPdfDates(pdf) {
  const text = pdf.toString('latin1')
    .replace(/\/(CreationDate|ModDate) \(D:\d{14}([^)]*)\)/g,
      (m, key, tz) => `/${key} (D:20250101000000${tz})`);
  return Buffer.from(text, 'latin1');
}

function pdfPageCount(pdf) {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

// Loads `html` at `width`, waits for the page script, returns the height to cut the image at.
async function load(page, html, width) {
  await page.setViewportSize({ width, height: 800 });
  await page.setContent(html);
  await page.waitForSelector('body[data-ready="1"]');
  return Number(await page.evaluate(() => document.body.dataset.height));
}

async function main() {
  const start = Date.now();
  fs.mkdirSync(path.join(outDir, 'html'), { recursive: true });
  const specs = [...kTablePlan.map(tablePage), ...negativePages()];

  const browser = await playwright.chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const manifest = { pages: [] };
  try {
    const context = await browser.newContext({ deviceScaleFactor: 1 });
    const page = await context.newPage();
    for (const spec of specs) {
      const clean = pageHtml(spec, false);
      const degraded = pageHtml(spec, true);
      const isDegraded = degraded !== clean;

      // The clean render: check it against the ground truth, then print it to PDF.
      let height = await load(page, clean, spec.width);
      const dom = await page.evaluate(normalizeDomTables);
      assert.deepEqual(dom, spec.tables,
        `${spec.name}: the rendered table differs from the ground truth`);
      // A table wider than the page would be clipped in the image and reflowed in the PDF.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth >
        document.documentElement.clientWidth);
      assert.ok(!overflow, `${spec.name}: content is wider than the ${spec.width}px page`);
      // The paper is exactly the page's size (plus slack for print rounding): one page, no reflow.
      const pdf = pinPdfDates(await page.pdf({
        width: `${spec.width}px`, height: `${height + 8}px`, printBackground: true,
        margin: { top: '0', right: '0', bottom: '0', left: '0' },
      }));
      assert.equal(pdfPageCount(pdf), 1, `${spec.name}: the PDF has more than one page`);
      fs.writeFileSync(path.join(outDir, `${spec.name}.pdf`), pdf);

      // The image: the degraded page where there is one (JPEG ~70 for the scan-like ones).
      if (isDegraded) height = await load(page, degraded, spec.width);
      await page.setViewportSize({ width: spec.width, height });
      const jpeg = spec.noiseSeed != null;
      const image = `${spec.name}.${jpeg ? 'jpg' : 'png'}`;
      await page.screenshot({ path: path.join(outDir, image), type: jpeg ? 'jpeg' : 'png',
        ...(jpeg ? { quality: 70 } : {}) });
      fs.writeFileSync(path.join(outDir, 'html', `${spec.name}.html`), degraded);

      manifest.pages.push({ name: spec.name, image, pdf: `${spec.name}.pdf`, tags: spec.tags,
        tables: spec.tables });
    }
  } finally {
    await browser.close();
  }
  fs.writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const seconds = ((Date.now() - start) / 1000).toFixed(1);
  console.log(`wrote ${manifest.pages.length} pages to ${outDir} in ${seconds} s`);
}

await main();
