// Small helpers shared by the Node tests (tests/web/*.mjs, tests/http/openapi_test.mjs): probing
// prerequisites (a command on PATH, playwright-core in the repository's node_modules, chromium)
// and writing PNG files byte by byte. Imported relatively (`../support/node_test_helpers.mjs`), so
// the tests still run as plain `node FILE` from ctest.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// Whether `name` is a command the shell finds.
export function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// playwright-core from the repository's node_modules (scripts/bootstrap installs it), found from
// there whatever the working directory; null when it is not installed.
export function loadPlaywright(repoRoot) {
  try {
    return createRequire(path.join(repoRoot, 'node_modules', '/'))('playwright-core');
  } catch {
    return null;
  }
}

// The first reasons a browser test skips: chromium missing at `chromiumPath`, then playwright-core
// (`playwright`, as loadPlaywright returned it) missing. null when both are there.
export function browserSkipReason(repoRoot, chromiumPath, playwright) {
  if (!fs.existsSync(chromiumPath)) return `${chromiumPath} is missing (apt-get install chromium)`;
  if (!playwright) {
    return `${repoRoot}/node_modules/playwright-core is missing (scripts/bootstrap installs it)`;
  }
  return null;
}

// ---- PNG writing --------------------------------------------------------------------------------

const kCrcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

// The CRC-32 (ISO 3309, as PNG and zlib use) of the bytes of `buf`, as an unsigned 32-bit number.
export function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = kCrcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// One PNG chunk: length, the 4-letter type, `data`, and the CRC of type and data.
export function pngChunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

// A PNG file whose IHDR says width x height, 8-bit gray, non-interlaced, with one IDAT chunk
// holding `idat` as given (deflated, filtered rows for a real image; anything for a broken one).
export function grayPng(width, height, idat) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // gray
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
