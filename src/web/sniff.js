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

// Whether the file goes through a job: a PDF ("%PDF-" within its first 1024 bytes, as the server
// sniffs it) or a TIFF, whose pages browsers cannot show, so the viewer shows the job's page images.
// Everything else, single images and files the server will refuse, is sent to /ocr directly.
// Decided from the bytes, not the name or type.
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
    return true;
  }
  for (let offset = 0; offset + 5 <= head.length; ++offset) {
    if (startsWith(head, offset, '%PDF-')) return true;
  }
  return false;
}
