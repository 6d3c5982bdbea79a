// Fixtures of the Web UI's browser tests: PNGs rendered by pango-view, and PDFs and TIFFs built
// from them here (each page an image the server must OCR), so the tests depend on no file.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// Renders `lines` with pango-view into `dir/name.png`; answers the PNG's path.
export function renderText(dir, name, lines, font = 'DejaVu Sans 24') {
  const textFile = path.join(dir, `${name}.txt`);
  const png = path.join(dir, `${name}.png`);
  fs.writeFileSync(textFile, lines.join('\n'));
  execFileSync('pango-view', ['-q', '--background=white', '--font', font, '--margin', '30', '-o', png,
    textFile]);
  return png;
}

// Decodes an 8-bit non-interlaced PNG (as pango-view writes) to 8-bit gray, alpha on white.
export function decodePngGray(buf) {
  if (buf.toString('latin1', 0, 8) !== '\x89PNG\r\n\x1a\n') throw new Error('not a PNG');
  let ihdr = null;
  const idat = [];
  for (let pos = 8; pos + 8 <= buf.length;) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      ihdr = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8],
        colorType: data[9], interlace: data[12] };
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[ihdr?.colorType];
  if (!ihdr || ihdr.depth !== 8 || ihdr.interlace !== 0 || !channels) {
    throw new Error(`unsupported PNG layout ${JSON.stringify(ihdr)}`);
  }
  const { width, height } = ihdr;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let prev = new Uint8Array(stride);
  let cur = new Uint8Array(stride);
  const gray = Buffer.alloc(width * height);
  for (let y = 0; y < height; ++y) {
    const row = y * (stride + 1);
    const filter = raw[row];
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? cur[x - channels] : 0;
      const b = prev[x];
      const c = x >= channels ? prev[x - channels] : 0;
      let p = 0;
      if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) {
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) {
        throw new Error(`bad PNG filter ${filter}`);
      }
      cur[x] = (raw[row + 1 + x] + p) & 0xff;
    }
    for (let x = 0; x < width; ++x) {
      const px = cur.subarray(x * channels, (x + 1) * channels);
      let g = channels >= 3 ? Math.round(0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2]) : px[0];
      if (channels === 2 || channels === 4) {
        const alpha = px[channels - 1];
        g = Math.round((g * alpha + 255 * (255 - alpha)) / 255);
      }
      gray[y * width + x] = g;
    }
    [prev, cur] = [cur, prev];
  }
  return { width, height, gray };
}

// A PDF of one gray Flate image per page, each page sized to render at its image's size at `dpi`.
export function buildPdf(images, dpi) {
  const objects = []; // each a list of Buffers; object number = position + 1
  const add = (...parts) => objects.push(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))));
  add(''); // 1: catalog, filled in below
  add(''); // 2: the page tree
  const kids = [];
  for (const img of images) {
    const data = zlib.deflateSync(img.gray);
    const image = add(`<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height}` +
      ` /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>` +
      '\nstream\n', data, '\nendstream');
    const w = ((img.width * 72) / dpi).toFixed(2);
    const h = ((img.height * 72) / dpi).toFixed(2);
    const ops = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q\n`;
    const content = add(`<< /Length ${ops.length} >>\nstream\n${ops}endstream`);
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}]` +
      ` /Resources << /XObject << /Im0 ${image} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[0] = [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>')];
  objects[1] = [Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}]` +
    ` /Count ${kids.length} >>`)];
  const chunks = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let size = chunks[0].length;
  const offsets = objects.map((parts, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), ...parts, Buffer.from('\nendobj\n')]);
    chunks.push(obj);
    const at = size;
    size += obj.length;
    return at;
  });
  chunks.push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(chunks);
}

// A little-endian TIFF of uncompressed 8-bit gray frames, one strip each, linked IFD to IFD.
export function buildTiff(images) {
  const tags = (img, dataAt) => [
    [256, 4, img.width], [257, 4, img.height], [258, 3, 8], [259, 3, 1], [262, 3, 1],
    [273, 4, dataAt], [277, 3, 1], [278, 4, img.height], [279, 4, img.gray.length],
  ];
  const ifdSize = 2 + 9 * 12 + 4;
  const header = Buffer.alloc(8);
  header.write('II*\0', 0, 'latin1');
  const parts = [header];
  let size = 8;
  let link = [header, 4]; // the next-IFD field to point at the frame written next
  for (const img of images) {
    const dataAt = size;
    parts.push(img.gray);
    size += img.gray.length;
    if (size % 2) {
      parts.push(Buffer.alloc(1));
      size += 1;
    }
    const ifd = Buffer.alloc(ifdSize);
    ifd.writeUInt16LE(9, 0);
    tags(img, dataAt).forEach(([tag, type, value], i) => {
      const at = 2 + i * 12;
      ifd.writeUInt16LE(tag, at);
      ifd.writeUInt16LE(type, at + 2);
      ifd.writeUInt32LE(1, at + 4);
      if (type === 3) ifd.writeUInt16LE(value, at + 8);
      else ifd.writeUInt32LE(value, at + 8);
    });
    link[0].writeUInt32LE(size, link[1]);
    link = [ifd, ifdSize - 4];
    parts.push(ifd);
    size += ifdSize;
  }
  return Buffer.concat(parts);
}

