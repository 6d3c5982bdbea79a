// What a chosen file is, read from its bytes.

async function readBytes(file, offset, length) {
  if (!(offset >= 0 && offset < file.size)) return new Uint8Array(0);
  const end = Math.min(file.size, offset + length);
  return new Uint8Array(await file.slice(offset, end).arrayBuffer());
}

function startsWith(bytes, offset, magic) {
  if (offset + magic.length > bytes.length) return false;
  for (let i = 0; i < magic.length; ++i) {
    if (bytes[offset + i] !== magic.charCodeAt(i)) return false;
  }
  return true;
}

// The frames of a classic TIFF, counted up to `max` by following the next-IFD links from the
// header's as the server does: the walk ends at a link of 0, or at one that leads out of the
// file, back to an IFD already met, or to an IFD whose entries do not fit in the file.
async function countTiffFrames(file, max) {
  const header = await readBytes(file, 0, 8);
  if (header.length < 8) return 0;
  const little = header[0] === 0x49; // "II"
  const view = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seen = new Set();
  let frames = 0;
  let ifd = view(header).getUint32(4, little);
  while (frames < max && ifd > 0 && !seen.has(ifd)) {
    seen.add(ifd);
    const count = await readBytes(file, ifd, 2);
    if (count.length < 2) break;
    const entries = view(count).getUint16(0, little);
    const nextField = ifd + 2 + 12 * entries;
    if (entries === 0 || nextField > file.size) break;
    frames += 1;
    const next = await readBytes(file, nextField, 4);
    if (next.length < 4) break;
    ifd = view(next).getUint32(0, little);
  }
  return frames;
}

// Whether the file goes through a job: a PDF ("%PDF-" within its first 1024 bytes, as the server
// sniffs it) or a TIFF of more than one frame. Everything else, single images and files the
// server will refuse, is sent to /ocr directly. Decided from the bytes, not the name or type.
export async function needsJob(file) {
  const head = await readBytes(file, 0, 1024 + 5);
  if (
    startsWith(head, 0, '\xFF\xD8\xFF') ||
    startsWith(head, 0, '\x89PNG\r\n\x1A\n') ||
    (startsWith(head, 0, 'RIFF') && startsWith(head, 8, 'WEBP')) ||
    startsWith(head, 0, 'BM')
  ) {
    return false;
  }
  if (startsWith(head, 0, 'II*\0') || startsWith(head, 0, 'MM\0*')) {
    return (await countTiffFrames(file, 2)) > 1;
  }
  for (let offset = 0; offset + 5 <= head.length; ++offset) {
    if (startsWith(head, offset, '%PDF-')) return true;
  }
  return false;
}
