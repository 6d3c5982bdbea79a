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
// With --broad it writes a second, independent set instead (about 40 table pages, some with two
// tables, and 10 without): what the first set holds fixed varies there (fonts, sizes, zebra
// stripes, shaded and dark headers, rules under every row, borderless wrapped cells, padding,
// mixed-script cells, decimal columns, tables beside prose, blur and JPEG loss), so a detector
// tuned on the first set is checked on tables it was not tuned on. The default set does not
// change with it: its pages, seeds and files stay byte for byte what they were.
//
// Run: node tests/tables/make_table_set.mjs [--broad] OUT_DIR (exit 77 = skipped: chromium or
// playwright-core missing). CHROMIUM_PATH selects the browser (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserSkipReason, loadPlaywright } from '../support/node_test_helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const cliArgs = process.argv.slice(2);
const broad = cliArgs.includes('--broad');
const positional = cliArgs.filter((a) => a !== '--broad');
const outDir = positional[0];
if (!outDir || positional.length > 1 || outDir.startsWith('-')) {
  console.error('usage: node tests/tables/make_table_set.mjs [--broad] OUT_DIR');
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

// Broad set: Chinese and English inside one cell, as bilingual documents write names, products
// and statuses. A table with mixedCells draws some of its text columns from here.
const kMix = {
  companies: ['华为 Huawei', 'Tencent 腾讯', '联想 Lenovo', 'Alibaba 阿里巴巴', '小米 Xiaomi',
    'BYD 比亚迪', '海尔 Haier', 'JD 京东物流', '中信 CITIC Bank', 'Haitong 海通证券'],
  people: ['张伟 Zhang Wei', 'Anna 李', 'Li Na 李娜', '王芳 Wang Fang', 'David 陈',
    'Chen Jing 陈静', '刘洋 Liu Yang', 'Maria 赵'],
  products: ['USB-C 数据线', '无线 Mouse M220', 'LED 台灯', 'A4 复印纸', 'Type-C 充电器 65W',
    '4K 显示器', 'SSD 固态硬盘 1TB', 'Wi-Fi 路由器', 'Q3 预算', 'iPad 保护套'],
  cities: ['上海 Shanghai', '北京 Beijing', '深圳 Shenzhen', '广州 Guangzhou', 'Hangzhou 杭州',
    '成都 Chengdu', '香港 Hong Kong', '南京 Nanjing', 'Wuhan 武汉'],
  depts: ['销售部 Sales', 'R&D 研发', 'HR 人事部', '财务 Finance', 'IT 信息部', 'QA 质检部'],
  statuses: ['已付款 Paid', 'Open 待处理', '已发货 Shipped', 'On hold 暂停', 'OK 完成'],
  notes: kMixedNotes,
  models: ['黑色 Black', 'Pro 版', '12 只装', 'V2 升级款'],
};

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
// Broad set only (the first set never samples them): signed amounts and percentages with fixed
// decimals, the columns decimal-aligned tables are made of.
kKinds.delta = {
  en: 'Change', zh: '变动', align: 'r',
  gen: (r) => { const v = r.int(-900000, 900000) / 100; return { text: money(v), value: v }; },
};
kKinds.margin = {
  en: 'Margin', zh: '利润率', align: 'r',
  gen: (r) => ({ text: `${(r.int(-2500, 4500) / 100).toFixed(2)}%` }),
};
const kTextKinds = ['company', 'person', 'product', 'city'];
const kValueKinds = ['code', 'date', 'qty', 'price', 'amount', 'pct', 'status', 'city', 'person'];
const kDecimalKinds = ['price', 'amount', 'delta', 'margin', 'pct', 'qty', 'code'];
const kCentrable = ['code', 'date', 'status', 'pct', 'qty'];

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
  const poolFor = () => (opt.mixedCells ? rng.pick([kMix, kMix, pools])
    : opt.lang === 'mixed' ? rng.pick([kEn, kZh]) : pools);
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
  const free = (opt.valueKinds ?? kValueKinds).filter((k) => !used.has(k));
  const nValue = Math.max(0, opt.cols - cols.length - (opt.wrap ? 1 : 0) - must.length);
  for (const kind of [...rng.sample(free, nValue), ...must]) cols.push({ kind, pools: poolFor() });
  if (opt.wrap) {
    const notes = opt.mixedCells ? kMix : opt.lang === 'mixed' ? { notes: kMixedNotes } : pools;
    cols.push({ kind: 'note', pools: notes });
  }
  const ncols = cols.length;
  // Chinese tables write some date columns as 2024年3月15日 (the whole column, as people do).
  for (const col of cols) col.hanDate = col.kind === 'date' && col.pools === kZh && rng.chance(0.5);
  // Centred pages centre their short columns (codes, dates, statuses, shares, quantities).
  if (opt.center) {
    for (const col of cols) if (kCentrable.includes(col.kind)) col.align = 'c';
  }
  const fmt = (col) => ({ align: col.align ?? kKinds[col.kind].align ?? 'l',
    wrap: !!kKinds[col.kind].wrap });

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
  classes.push(...(spec.extraClasses ?? []));
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
  vars.push(...(spec.extraVars ?? []));
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

// A whole page. `degraded` adds the image-only degradations (rotation, paper tint and specks;
// on broad pages also blur, a filter on the page for a scanner's soft focus, and other tints);
// the PDF is rendered from the same page without them.
function pageHtml(spec, degraded) {
  const pageStyle = [degraded && spec.rotate ? `transform: rotate(${spec.rotate}deg)` : '',
    degraded && spec.blur ? `filter: blur(${spec.blur}px)` : ''].filter(Boolean).join('; ');
  const rotate = pageStyle ? ` style="${pageStyle}"` : '';
  const noisy = degraded && spec.noiseSeed != null;
  let bodyStyle = `font-family: ${spec.font.replace(/"/g, '&quot;')}; font-size: ${spec.fontSize}px`;
  if (degraded && spec.paper) bodyStyle += `; background: ${spec.paper}`;
  // A rotated page's corners reach past the viewport's sides: no scrollbar for them. The tint
  // goes on <html> as well, or a rotated page's corner would show white below <body>.
  const htmlCss = [degraded && spec.rotate ? 'overflow: hidden' : '',
    degraded && spec.paper ? `background: ${spec.paper}` : ''].filter(Boolean).join('; ');
  const htmlStyle = htmlCss ? ` style="${htmlCss}"` : '';
  return `<!DOCTYPE html>
<html lang="${spec.lang === 'en' ? 'en' : 'zh-CN'}"${htmlStyle}>
<head>
<meta charset="utf-8">
<title>${escapeHtml(spec.name)}</title>
<style>${kCss}${spec.css ?? ''}</style>
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

// makeTable's structure options from a plan line (sizes are the caller's: they take the PRNG).
function structureOptions(plan, lang) {
  const header = plan.header ?? true;
  return {
    lang,
    header,
    group: !!plan.group && header,
    rowGroups: !!plan.rowGroups,
    total: !!plan.total,
    wrap: !!plan.wrap,
    br: !!plan.br,
    empty: !!plan.empty,
  };
}

function tablePage(plan, index) {
  const rng = makeRng(1000 + index);
  const lang = plan.lang;
  const opt = {
    ...structureOptions(plan, lang),
    // Spanned layouts need room for 2 label columns and 2 groups of values.
    cols: plan.cols ?? rng.int(plan.group ? 5 : 3, plan.group || plan.wrap ? 7 : 6),
    // Short enough that the page stays one PDF page and the set stays quick.
    rows: plan.rows ?? rng.int(3, plan.wrap ? 8 : 12),
  };
  const { header } = opt;
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

// ---- the broad set (--broad) --------------------------------------------------------------------
//
// What the first set holds fixed varies here: fonts and sizes, zebra stripes in several tints,
// shaded and dark header rows, a rule under every row, borderless tables with wrapped cells,
// tighter and wider column gaps, mixed-script cells, decimal columns, two tables on a page,
// tables beside prose, blur and lower JPEG quality. Pages are seeded from 20000 + index (the
// pages without a table from 29000), so they share no content with the first set; its CSS is
// added to the first set's on its own pages only, so the first set's HTML stays as it was.

const kBroadCss = `
/* Broad set: padding per table. --padx each side; --pad0 the first cell's left padding, 0 where
   only the text marks the table's left edge (no rule, no fill). */
table.b td, table.b th { padding: var(--pady) var(--padx); }
table.b td:first-child, table.b th:first-child { padding-left: var(--pad0); }
table.stripes tbody tr:nth-child(even) { background: var(--stripe); }
table.hfill thead th { background: var(--headbg); color: var(--headfg); }
table.hrules thead tr, table.hrules tbody tr { border-bottom: var(--hrule); }
table.frame { border: 3px solid #111; }
table.tnum { font-variant-numeric: tabular-nums; }
table + p, table + h2 { margin-top: 24px; }
h2 { font-size: 1.15em; font-weight: bold; margin: 0 0 8px; }
.beside { display: flex; column-gap: 40px; align-items: flex-start; }
.besidegrid { display: grid; grid-template-columns: 1fr auto; column-gap: 36px; }
/* Not stretched to the text's height: a stretched table would spread its rows. */
.besidegrid { align-items: start; }
.beside .text { flex: 1 1 0; min-width: 0; }
.cols2 h2 { break-after: avoid; }
.kv { width: 640px; margin-bottom: 20px; }
.kv .row { display: flex; align-items: baseline; padding: 5px 0; }
.kv .k { font-weight: bold; }
.kv .lead { flex: 1; border-bottom: 2px dotted #777; margin: 0 10px; }
.kv .gap { flex: 1; }
.addr { line-height: 1.45; margin-bottom: 28px; }
.addr.right { text-align: right; }
.date { text-align: right; margin-bottom: 24px; }
.signs { display: flex; column-gap: 120px; margin-top: 56px; }
.signs .line { width: 280px; border-top: 1px solid #222; padding-top: 6px; line-height: 1.5; }
`;

// Latin fonts (with their generic family); Han text falls back to WenQuanYi, or is set in it.
const kBroadLatin = ['"DejaVu Sans", sans-serif', '"DejaVu Serif", serif',
  '"DejaVu Sans Condensed", sans-serif', '"Nimbus Sans", sans-serif',
  '"Nimbus Sans Narrow", sans-serif', '"Nimbus Roman", serif', '"URW Gothic", sans-serif',
  '"URW Bookman", serif', 'C059, serif', 'P052, serif'];
const kBroadHan = ['"WenQuanYi Micro Hei", sans-serif', '"WenQuanYi Micro Hei Mono", monospace'];

// Chromium matches Nimbus Sans Narrow (fontconfig width 87) only when asked for a condensed
// stretch; other fonts ignore it.
function broadCss(font) {
  return font.includes('Narrow') ? `${kBroadCss}body { font-stretch: condensed; }\n` : kBroadCss;
}

function broadFont(rng, lang, which) {
  if (which === 'mono') {
    return lang === 'en' ? '"Nimbus Mono PS", monospace'
      : '"Nimbus Mono PS", "WenQuanYi Micro Hei Mono", monospace';
  }
  if (lang === 'zh' && rng.chance(0.5)) return rng.pick(kBroadHan);
  const latin = rng.pick(kBroadLatin);
  if (lang === 'en') return latin;
  const [family, generic] = latin.split(', ');
  return `${family}, "WenQuanYi Micro Hei", ${generic}`;
}

const kStripes = { grey: '#f0f0f0', blue: '#e8f0fa', beige: '#f5eedc' };
// Header fill and text colour; the dark ones carry white bold text.
const kHeadFills = { light: ['#e4e4e4', '#1a1a1a'], blue: ['#dce6f2', '#1a1a1a'],
  beige: ['#eee5cf', '#1a1a1a'], dark: ['#1f3a5f', '#fff'], black: ['#333', '#fff'] };
// Paper tints for the scan-like pages.
const kPaperWarm = '#f1ede2';
const kPaperCool = '#e9ecef';
const kPaperGrey = '#ecebe7';

// One line per table page. theme: ruled (a full grid, `rule` its lines), zebra (stripe), headfill
// (head), hrules (a rule under every row), booktabs, borderless; stripe and head also combine
// with other themes. pad: each side's column padding (gaps of 2 x pad; 15-22 when not given).
// decimal: signed amounts and percentages; center: short columns centred; tnum: tabular digits;
// mixedCells: Chinese and English in one cell. layout: beside (a text column beside the table,
// flex), besideGrid (the same with a grid), prose (paragraphs above and below). second: a second
// table further down the page, under a heading and a paragraph. degrade: the image only.
const kBroadPlan = [
  { theme: 'zebra', lang: 'en', stripe: 'grey', pad: 12, decimal: true, tnum: true },
  { theme: 'zebra', lang: 'zh', stripe: 'blue', pad: 14 },
  { theme: 'zebra', lang: 'mixed', stripe: 'beige', mixedCells: true },
  { theme: 'zebra', lang: 'en', stripe: 'blue', head: 'dark', wrap: true },
  { theme: 'zebra', lang: 'en', stripe: 'grey', header: false, pad: 10,
    degrade: { blur: 0.6, q: 65 } },
  { theme: 'headfill', lang: 'en', head: 'light', pad: 16 },
  { theme: 'headfill', lang: 'zh', head: 'black' },
  { theme: 'headfill', lang: 'mixed', head: 'blue', mixedCells: true, decimal: true },
  { theme: 'hrules', lang: 'en', decimal: true, tnum: true, pad: 13 },
  { theme: 'hrules', lang: 'zh', wrap: true },
  { theme: 'hrules', lang: 'en', header: false, pad: 12, hrule: '1px solid #ccc' },
  { theme: 'hrules', lang: 'mixed', head: 'beige',
    degrade: { rotate: 0.8, noise: true, paper: kPaperWarm, q: 55 } },
  { theme: 'booktabs', lang: 'en', decimal: true, group: true },
  { theme: 'booktabs', lang: 'zh', mixedCells: true, pad: 12 },
  { theme: 'booktabs', lang: 'en', wrap: true, pad: 10,
    degrade: { blur: 0.7, paper: kPaperCool, q: 60 } },
  { theme: 'borderless', lang: 'en', wrap: true, pad: 14 },
  { theme: 'borderless', lang: 'zh', wrap: true },
  { theme: 'borderless', lang: 'mixed', mixedCells: true, wrap: true },
  { theme: 'borderless', lang: 'en', header: false, pad: 12 },
  { theme: 'borderless', lang: 'en', decimal: true, center: true, pad: 26 },
  { theme: 'borderless', lang: 'zh', header: false, degrade: { rotate: -0.5, q: 70 } },
  { theme: 'borderless', lang: 'en', font: 'mono', pad: 10, total: true },
  { theme: 'ruled', lang: 'en', rule: '1px solid #2b5c8a', head: 'blue' },
  { theme: 'ruled', lang: 'zh', rule: '1px solid #b5b5b5', stripe: 'grey' },
  { theme: 'ruled', lang: 'en', rule: '1.5px solid #000', head: 'dark', decimal: true, tnum: true },
  { theme: 'ruled', lang: 'mixed', rule: '1px solid #555', mixedCells: true, rowGroups: true },
  { theme: 'ruled', lang: 'zh', rule: '1px solid #444', frame: true, group: true, total: true },
  { theme: 'ruled', lang: 'en', rule: '1px solid #333', header: false,
    degrade: { rotate: 1.0, blur: 0.5, noise: true, paper: kPaperGrey, q: 50 } },
  { theme: 'ruled', lang: 'en', rule: '1px solid #8a7a5a', stripe: 'beige', wrap: true },
  { theme: 'ruled', lang: 'zh', rule: '2px solid #666', decimal: true, center: true },
  { theme: 'ruled', lang: 'mixed', rule: '1px solid #222', head: 'black',
    degrade: { noise: true, paper: kPaperGrey, q: 65 } },
  { theme: 'booktabs', lang: 'en', decimal: true,
    second: { theme: 'zebra', stripe: 'blue', pad: 14 } },
  { theme: 'ruled', lang: 'zh', rule: '1px solid #333',
    second: { theme: 'borderless', wrap: true } },
  { theme: 'hrules', lang: 'en',
    second: { theme: 'ruled', rule: '1px solid #999', decimal: true } },
  { theme: 'headfill', lang: 'mixed', head: 'light', mixedCells: true,
    second: { theme: 'ruled', rule: '1px solid #333', stripe: 'beige' } },
  { theme: 'borderless', lang: 'en', layout: 'beside', cols: 3 },
  { theme: 'zebra', lang: 'zh', stripe: 'beige', layout: 'besideGrid', cols: 3 },
  { theme: 'hrules', lang: 'en', layout: 'prose', decimal: true },
  { theme: 'ruled', lang: 'en', rule: '1px solid #666', layout: 'beside', cols: 3 },
  { theme: 'booktabs', lang: 'zh', layout: 'prose',
    degrade: { rotate: -0.9, blur: 0.5, q: 60 } },
];

// One table of a broad page: its HTML (classes and CSS variables for the theme), ground truth
// and tags. `small`: pages with two tables or with prose beside keep each table short.
function broadTable(rng, plan, lang, small) {
  const opt = {
    ...structureOptions(plan, lang),
    mixedCells: !!plan.mixedCells,
    center: !!plan.center,
    valueKinds: plan.decimal ? kDecimalKinds : undefined,
    cols: plan.cols ?? rng.int(plan.group ? 5 : 3, small ? 5 : 6),
    rows: plan.rows ?? rng.int(3, small || plan.wrap ? 7 : 12),
  };
  const { header } = opt;
  const table = makeTable(rng, opt);
  const theme = plan.theme;
  const tags = [theme === 'ruled' ? 'ruled' : 'unruled'];
  if (theme !== 'ruled') tags.push(theme);
  const padx = plan.pad ?? rng.int(15, 22);
  // Where a rule or a fill shows the table's edge, the first column is padded like the others.
  const edged = theme === 'ruled' || !!plan.stripe || (!!plan.head && header);
  const classes = ['b'];
  const vars = [`--padx: ${padx}px`, `--pady: ${theme === 'booktabs' ? 8 : 6}px`,
    `--pad0: ${edged ? padx : 0}px`];
  if (plan.stripe) {
    classes.push('stripes');
    vars.push(`--stripe: ${kStripes[plan.stripe]}`);
    if (!tags.includes('zebra')) tags.push('zebra');
  }
  if (plan.head && header) {
    const [bg, fg] = kHeadFills[plan.head];
    classes.push('hfill');
    vars.push(`--headbg: ${bg}`, `--headfg: ${fg}`);
    if (!tags.includes('headfill')) tags.push('headfill');
    if (fg === '#fff') tags.push('dark_header');
  }
  if (theme === 'hrules') {
    classes.push('hrules');
    vars.push(`--hrule: ${plan.hrule ?? '1px solid #aaa'}`);
  }
  if (plan.frame) classes.push('frame');
  if (plan.tnum) classes.push('tnum');
  if ([...table.head, ...table.body].flat().some((c) => c.colspan > 1 || c.rowspan > 1)) {
    tags.push('spans');
  }
  if (opt.wrap) tags.push('wrap');
  if (opt.mixedCells) tags.push('mixed_cells');
  if (plan.decimal) tags.push('decimal');
  if (!header) tags.push('no_header');
  const style = theme === 'ruled' ? 'ruled' : theme === 'booktabs' ? 'booktabs' : 'unruled';
  const html = tableHtml(table, { style, rule: plan.rule, lang, extraClasses: classes,
    extraVars: vars });
  return { html, gt: tableGt(table), tags };
}

// Sentences and paragraphs of a pool's notes and intros, for prose around the tables.
function proseMaker(rng) {
  const sentence = (s, p) => (/[.。]$/.test(s) ? s : `${s}${p === kZh ? '。' : '.'}`);
  const sentences = (p, n) => rng.sample([...p.notes, ...p.intros], n).map((s) => sentence(s, p));
  const para = (p, n) => sentences(p, n).join(p === kZh ? '' : ' ');
  return { sentence, sentences, para };
}

// A page's degradations (image only) and their tags.
function degradeSpec(d, noiseSeed) {
  if (!d) return { tags: [], spec: {} };
  const tags = ['degraded'];
  if (d.rotate) tags.push('rotated');
  if (d.blur) tags.push('blur');
  if (d.noise) tags.push('noise');
  return { tags, spec: { rotate: d.rotate, blur: d.blur, paper: d.paper,
    noiseSeed: d.noise ? noiseSeed : null, jpegQuality: d.q } };
}

function broadPage(plan, index) {
  const rng = makeRng(20000 + index);
  const lang = plan.lang;
  const pools = textPools(lang);
  const prose = proseMaker(rng);
  const small = !!plan.second || !!plan.layout;
  const tables = [broadTable(rng, plan, lang, small)];
  if (plan.second) tables.push(broadTable(rng, { lang, ...plan.second }, lang, small));
  const degrade = degradeSpec(plan.degrade, 25000 + index);

  const pageTags = [...degrade.tags];
  let content = tables[0].html;
  const p = (text) => `  <p>${escapeHtml(text)}</p>\n`;
  if (plan.second) {
    pageTags.push('two_tables');
    content += `  <h2>${escapeHtml(rng.pick(pools.titles))}</h2>\n${p(rng.pick(pools.intros))}${
      tables[1].html}`;
  } else if (plan.layout === 'beside' || plan.layout === 'besideGrid') {
    pageTags.push('beside_prose');
    const text = [0, 1, 2].map(() => `  ${p(prose.para(pools, 3))}`).join('');
    content = `  <div class="${plan.layout === 'beside' ? 'beside' : 'besidegrid'}">\n` +
      `    <div class="text">\n${text}    </div>\n${tables[0].html}  </div>\n`;
  } else if (plan.layout === 'prose') {
    pageTags.push('beside_prose');
    content = `${p(prose.para(pools, 3))}${tables[0].html}${p(prose.para(pools, 4))}`;
  }
  const tableTags = tables.map((t) => [...new Set([...t.tags, lang, ...pageTags])]);
  const themes = [plan.theme, ...(plan.second ? [plan.second.theme] : [])].join('_');
  const font = broadFont(rng, lang, plan.font);
  return {
    name: `b${String(index + 1).padStart(2, '0')}_${themes}_${lang}`,
    lang,
    tags: [...new Set(tableTags.flat())],
    tableTags,
    ...degrade.spec,
    font,
    fontSize: rng.int(15, 22),
    width: 1100 + 50 * rng.int(0, 4),
    title: rng.pick(pools.titles),
    intro: rng.pick(pools.intros),
    below: rng.chance(0.4) ? rng.pick(pools.notesBelow) : null,
    css: broadCss(font),
    content,
    tables: tables.map((t) => t.gt),
  };
}

// Pages without a table: prose in two columns, lists, key/value forms, letters, signature
// lines. None holds 3 or more aligned columns over 3 or more rows.
function broadNegativePages() {
  const rng = makeRng(29000);
  const { sentence, sentences, para } = proseMaker(rng);
  const pages = [];
  const add = (name, lang, kind, title, intro, content, d) => {
    const degrade = degradeSpec(d, 29500 + pages.length);
    const font = broadFont(rng, lang);
    pages.push({
      name, lang, tags: ['no_table', lang, kind, ...degrade.tags], ...degrade.spec, font,
      fontSize: rng.int(15, 22), width: 1100 + 50 * rng.int(0, 4), title, intro, below: null,
      css: broadCss(font), content, tables: [],
    });
  };
  const p = (text, cls = '') => `  <p${cls ? ` class="${cls}"` : ''}>${escapeHtml(text)}</p>\n`;
  const sections = (pools, n) => rng.sample(pools.titles, n).map((t) =>
    `    <h2>${escapeHtml(t)}</h2>\n    <p>${escapeHtml(para(pools, 3))}</p>\n`).join('');
  const streets = ['Harbour Road', 'Mill Lane', 'Station Street', 'Kingsway', 'Park Avenue',
    'Elm Grove'];
  const address = (cls) => {
    const lines = [rng.pick(kEn.people), rng.pick(kEn.companies),
      `${rng.int(1, 250)} ${rng.pick(streets)}`, `${rng.int(1000, 9899)} ${rng.pick(kEn.cities)}`];
    return `  <div class="addr${cls}">${lines.map(escapeHtml).join('<br>')}</div>\n`;
  };
  // Label left, value right, a dotted leader between on some rows.
  const keyValues = (rows) => `  <div class="kv">\n${rows.map(([k, v]) =>
    `    <div class="row"><span class="k">${escapeHtml(k)}</span><span class="${
      rng.chance(0.5) ? 'lead' : 'gap'}"></span><span>${escapeHtml(v)}</span></div>\n`)
    .join('')}  </div>\n`;

  add('bn01_twocol_en', 'en', 'columns', 'Annual report: operations',
    'This part of the report describes the year in the regional offices.',
    `  <div class="cols2">\n${sections(kEn, 3)}  </div>\n`);

  add('bn02_bullets_en', 'en', 'list', 'Checklist for the supplier audit',
    'Before the audit, make sure that:',
    `  <ul>\n${sentences(kEn, 7).map((s) => `    <li>${escapeHtml(s)}</li>\n`).join('')}  </ul>\n`);

  add('bn03_keyvalue_en', 'en', 'form', 'Account details',
    'The details we hold for your account are listed below.',
    keyValues([['Account holder', rng.pick(kEn.people)], ['Company', rng.pick(kEn.companies)],
      ['Account number', `${rng.int(10000000, 99999999)}`], ['Opened', '2021-04-12'],
      ['Branch', rng.pick(kEn.cities)], ['Currency', 'EUR'],
      ['Credit limit', money(rng.int(100000, 2000000) / 100)],
      ['Balance', money(rng.int(10000, 999999) / 100)], ['Status', 'Active']]));

  add('bn04_address_en', 'en', 'address', 'Delivery confirmation',
    'Please sign below to confirm the delivery described in this note.',
    `${address(' right')}${address('')}${p(para(kEn, 3))}  <div class="signs">\n${
      [0, 1].map(() => `    <div class="line">${escapeHtml(rng.pick(kEn.people))}<br>${
        escapeHtml(rng.pick(kEn.depts))}<br>Date</div>\n`).join('')}  </div>\n`);

  add('bn05_letter_en', 'en', 'letter', 'Re: renewal of the service contract',
    `Dear ${rng.pick(kEn.people)},`,
    `  <div class="date">${rng.pick(kEn.cities)}, 14 May 2024</div>\n${[0, 1, 2].map(() =>
      p(para(kEn, 3))).join('')}${p('Yours sincerely,')}${p(rng.pick(kEn.people))}`,
    { blur: 0.6, paper: kPaperWarm, q: 60 });

  add('bn06_numbered_zh', 'zh', 'list', '下一阶段工作安排', '请各部门按以下顺序落实：',
    `  <ol>\n${sentences(kZh, 8).map((s) => `    <li>${escapeHtml(s)}</li>\n`).join('')}  </ol>\n`);

  add('bn07_twocol_zh', 'zh', 'columns', '年度工作总结', '本部分介绍各区域办公室的年度运营情况。',
    `  <div class="cols2">\n${sections(kZh, 3)}  </div>\n`);

  add('bn08_keyvalue_zh', 'zh', 'form', '客户信息登记', '请核对以下信息，如有错误请及时联系我们。',
    keyValues([['客户名称', rng.pick(kZh.companies)], ['联系人', rng.pick(kZh.people)],
      ['所在城市', rng.pick(kZh.cities)], ['所属部门', rng.pick(kZh.depts)],
      ['订单编号', `PO-${rng.int(1000, 9999)}`], ['登记日期', '2024年6月18日'],
      ['信用额度', money(rng.int(100000, 2000000) / 100)], ['状态', rng.pick(kZh.statuses)]]));

  add('bn09_memo_mixed', 'mixed', 'memo', '内部备忘录 Memo', '以下事项请相关同事知悉。',
    `${keyValues([['To 收件人', rng.pick(kZh.depts)], ['From 发件人', rng.pick(kZh.people)],
      ['Date 日期', '2024-09-02'], ['Subject 主题', 'Q3 预算 review']])}${[0, 1, 2].map(() =>
      p(`${para(rng.chance(0.5) ? kZh : kEn, 2)} ${sentence(rng.pick(kMixedNotes), kZh)}`))
      .join('')}`,
    { rotate: 0.7, noise: true, paper: kPaperWarm, q: 55 });

  add('bn10_letter_zh', 'zh', 'letter', '关于续签服务合同的函', `尊敬的${rng.pick(kZh.people)}：`,
    `${[0, 1, 2].map(() => p(para(kZh, 3))).join('')}${p('此致')}${p('敬礼')}  <div class="date">${
      escapeHtml(rng.pick(kZh.companies))}<br>2024年5月14日</div>\n`,
    { blur: 0.5, q: 65 });
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
  const specs = broad ? [...kBroadPlan.map(broadPage), ...broadNegativePages()]
    : [...kTablePlan.map(tablePage), ...negativePages()];

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

      // The image: the degraded page where there is one (JPEG ~70 for the scan-like ones; the
      // broad set's jpegQuality goes down to 50).
      if (isDegraded) height = await load(page, degraded, spec.width);
      await page.setViewportSize({ width: spec.width, height });
      const jpeg = spec.noiseSeed != null || spec.jpegQuality != null;
      const image = `${spec.name}.${jpeg ? 'jpg' : 'png'}`;
      await page.screenshot({ path: path.join(outDir, image), type: jpeg ? 'jpeg' : 'png',
        ...(jpeg ? { quality: spec.jpegQuality ?? 70 } : {}) });
      fs.writeFileSync(path.join(outDir, 'html', `${spec.name}.html`), degraded);

      // table_tags (broad set): each table's own tags, where a page's two tables differ in style.
      manifest.pages.push({ name: spec.name, image, pdf: `${spec.name}.pdf`, tags: spec.tags,
        tables: spec.tables, ...(spec.tableTags ? { table_tags: spec.tableTags } : {}) });
    }
  } finally {
    await browser.close();
  }
  fs.writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const seconds = ((Date.now() - start) / 1000).toFixed(1);
  console.log(`wrote ${manifest.pages.length} pages to ${outDir} in ${seconds} s`);
}

await main();
