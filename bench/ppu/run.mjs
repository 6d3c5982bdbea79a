// Reads a folder of images with ppu-paddle-ocr (npm) on one of our model sets, writes what our
// scorers read, and times the folder.
//
//     node bench/ppu/run.mjs --models DIR --images DIR [--out DIR] [--node-dir DIR]
//         [--concurrency 0|N|auto] [--intra-op-threads N] [--warmup N]
//
// --models DIR: one of our model folders (models/ppocrv4, models/ppocrv6-tiny): det/det.onnx,
//   rec/rec.onnx and the one *.txt dictionary in DIR. cls/ is not used: ppu-paddle-ocr has no
//   direction classifier. The models are given by path and the dictionary as an ArrayBuffer,
//   with a final newline added when the file has none (ppu-paddle-ocr splits the file on
//   newlines and needs the empty last entry for the CTC space class: without it every
//   character of ppocr_keys_v1.txt decodes one class off).
// --images DIR: every .jpg/.jpeg/.png/.bmp/.webp in DIR, in name order.
// --out DIR: one <stem>.json per image, {"results": [{"text", "confidence", "bounding_box"}]}
//   as POST /ocr answers (what ocr-score, funsd-wordf1 and tests/forms/word_f1.py read). The
//   boxes are ppu-paddle-ocr's axis-aligned, padded rectangles as four corners, clockwise from
//   the top left, in the image's pixels. Nothing is filtered or merged here: every result the
//   library returns (flatten: true) is written, empty texts included. No --out: timing only.
// --node-dir DIR: where `npm ci` installed ppu-paddle-ocr and onnxruntime-node (default
//   $PPU_NODE_DIR or /tmp/ppu/node; bench/ppu/setup makes it).
// --concurrency: 0 (default) a sequential loop of recognize(); N or auto: batchRecognize() with
//   that concurrency (auto is the library's CPU default, 4 images in flight).
// --intra-op-threads N: ONNX Runtime intra-op threads (default: the library's 0, ORT decides:
//   one per physical core). --warmup N: images read once, untimed, before the timed pass
//   (default 1, the first image).
//
// Everything else is ppu-paddle-ocr's default (see bench/ppu/README.md); noCache is set on every
// call so its result cache (keyed by a hash of the first 1 KiB and the length) can neither serve
// the warm-up image again nor confuse two files. The timed pass covers reading each file,
// decoding, detection, recognition and writing its JSON, in one process, after the models are
// loaded. Prints one JSON object on stdout: images, wall_s, images_per_s, cpu_ms_per_image
// (user + system of the whole process), failures, load averages and the settings used.
// Exit 0; 1 when an image fails; 2 on bad arguments or when the library cannot be loaded.

import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const kImageExtensions = new Set([".jpg", ".jpeg", ".png", ".bmp", ".webp"]);

function Usage(message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.stderr.write(
    "usage: node bench/ppu/run.mjs --models DIR --images DIR [--out DIR] [--node-dir DIR]\n" +
      "       [--concurrency 0|N|auto] [--intra-op-threads N] [--warmup N]\n");
  process.exit(2);
}

function ParseArgs(argv) {
  const args = {
    models: null,
    images: null,
    out: null,
    nodeDir: process.env.PPU_NODE_DIR || "/tmp/ppu/node",
    concurrency: "0",
    intraOpThreads: null,
    warmup: 1,
  };
  const flags = {
    "--models": "models",
    "--images": "images",
    "--out": "out",
    "--node-dir": "nodeDir",
    "--concurrency": "concurrency",
    "--intra-op-threads": "intraOpThreads",
    "--warmup": "warmup",
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = flags[argv[i]];
    if (key === undefined) Usage(`unknown argument ${argv[i]}`);
    if (i + 1 >= argv.length) Usage(`${argv[i]} needs a value`);
    args[key] = argv[i + 1];
  }
  if (!args.models || !args.images) Usage("--models and --images are required");
  if (!/^(auto|\d+)$/.test(args.concurrency)) Usage("--concurrency takes 0, N or auto");
  if (args.intraOpThreads !== null && !/^\d+$/.test(args.intraOpThreads)) {
    Usage("--intra-op-threads takes a number");
  }
  if (!/^\d+$/.test(String(args.warmup))) Usage("--warmup takes a number");
  args.warmup = Number(args.warmup);
  return args;
}

// The dictionary as ppu-paddle-ocr needs it: the file's bytes with a final newline.
function LoadDictionary(models_dir) {
  const names = fs.readdirSync(models_dir).filter((n) => n.endsWith(".txt"));
  if (names.length !== 1) Usage(`${models_dir} must hold exactly one *.txt dictionary`);
  let text = fs.readFileSync(path.join(models_dir, names[0]), "utf8");
  const added_newline = !text.endsWith("\n");
  if (added_newline) text += "\n";
  const bytes = new TextEncoder().encode(text);
  return {
    name: names[0],
    entries: text.split(/\r?\n/).length - 1,
    added_newline,
    buffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  };
}

function ListImages(dir) {
  return fs
    .readdirSync(dir)
    .filter((n) => kImageExtensions.has(path.extname(n).toLowerCase()))
    .sort()
    .map((n) => path.join(dir, n));
}

function ReadArrayBuffer(file) {
  const b = fs.readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

// One library result ({text, confidence, box: {x, y, width, height}}) in POST /ocr's shape.
function ToAnswer(result, processing_time_s) {
  return {
    processing_time: processing_time_s,
    results: result.results.map((r) => {
      const { x, y, width, height } = r.box;
      return {
        text: r.text,
        confidence: r.confidence,
        bounding_box: [[x, y], [x + width, y], [x + width, y + height], [x, y + height]],
      };
    }),
  };
}

async function Main() {
  const args = ParseArgs(process.argv.slice(2));
  const models_dir = path.resolve(args.models);
  const det = path.join(models_dir, "det", "det.onnx");
  const rec = path.join(models_dir, "rec", "rec.onnx");
  for (const f of [det, rec]) {
    if (!fs.existsSync(f)) Usage(`${f} does not exist`);
  }
  const dict = LoadDictionary(models_dir);
  const images = ListImages(path.resolve(args.images));
  if (images.length === 0) Usage(`no images in ${args.images}`);
  if (args.out) fs.mkdirSync(args.out, { recursive: true });

  const node_dir = path.resolve(args.nodeDir);
  let ppu;
  let versions;
  try {
    const require = createRequire(path.join(node_dir, "package.json"));
    ppu = await import(pathToFileURL(require.resolve("ppu-paddle-ocr")).href);
    const version_of = (pkg) =>
      JSON.parse(fs.readFileSync(path.join(node_dir, "node_modules", pkg, "package.json"))).version;
    versions = {
      node: process.versions.node,
      "ppu-paddle-ocr": version_of("ppu-paddle-ocr"),
      "onnxruntime-node": version_of("onnxruntime-node"),
      "ppu-ocv": version_of("ppu-ocv"),
      "@techstark/opencv-js": version_of("@techstark/opencv-js"),
      "@napi-rs/canvas": version_of("@napi-rs/canvas"),
    };
  } catch (e) {
    process.stderr.write(`run.mjs: cannot load ppu-paddle-ocr from ${node_dir}: ${e.message}\n`);
    process.stderr.write("run bench/ppu/setup first\n");
    process.exit(2);
  }

  const options = {
    model: { detection: det, recognition: rec, charactersDictionary: dict.buffer },
  };
  if (args.intraOpThreads !== null) {
    options.session = { intraOpNumThreads: Number(args.intraOpThreads) };
  }
  const service = new ppu.PaddleOcrService(options);
  const load_start = performance.now();
  await service.initialize();
  const load_s = (performance.now() - load_start) / 1000;
  const settings = {
    detection: service.options.detection,
    recognition: { ...service.options.recognition, charactersDictionary: undefined },
    session: service.options.session,
    processing: service.options.processing,
    recognize_options: { flatten: true, noCache: true },
    concurrency: args.concurrency,
    warmup_images: args.warmup,
  };

  const call = { flatten: true, noCache: true };
  for (const f of images.slice(0, args.warmup)) await service.recognize(ReadArrayBuffer(f), call);

  const stem = (f) => path.basename(f, path.extname(f));
  const failures = [];
  let results = 0;
  let empty_texts = 0;
  const Write = (file, result, seconds) => {
    results += result.results.length;
    empty_texts += result.results.filter((r) => r.text === "").length;
    if (args.out) {
      fs.writeFileSync(path.join(args.out, `${stem(file)}.json`),
                       JSON.stringify(ToAnswer(result, seconds)));
    }
  };
  const load_before = os.loadavg();
  const cpu_start = process.cpuUsage();
  const start = performance.now();
  if (args.concurrency === "0") {
    for (const f of images) {
      const t0 = performance.now();
      try {
        const result = await service.recognize(ReadArrayBuffer(f), call);
        Write(f, result, (performance.now() - t0) / 1000);
      } catch (e) {
        failures.push(`${path.basename(f)}: ${e.message}`);
      }
    }
  } else {
    const concurrency = args.concurrency === "auto" ? "auto" : Number(args.concurrency);
    // Inputs are read lazily, as the pool asks for them.
    const inputs = (function* () {
      for (const f of images) yield ReadArrayBuffer(f);
    })();
    const settled = await service.batchRecognize(inputs, { ...call, concurrency, settle: true });
    settled.forEach((s, i) => {
      if (s.status === "fulfilled") {
        Write(images[i], s.value, null);
      } else {
        failures.push(`${path.basename(images[i])}: ${s.reason?.message ?? s.reason}`);
      }
    });
  }
  const wall_s = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu_start);
  await service.destroy();

  const summary = {
    tool: "ppu-paddle-ocr",
    versions,
    models: models_dir,
    dictionary: { file: dict.name, entries: dict.entries, added_final_newline: dict.added_newline },
    images_dir: path.resolve(args.images),
    images: images.length,
    results,
    empty_texts,
    failures,
    model_load_s: Number(load_s.toFixed(3)),
    wall_s: Number(wall_s.toFixed(3)),
    images_per_s: Number((images.length / wall_s).toFixed(3)),
    cpu_ms_per_image: Math.round((cpu.user + cpu.system) / 1000 / images.length),
    cpu_percent: Math.round(((cpu.user + cpu.system) / 1e6 / wall_s) * 100),
    machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model ?? "unknown" },
    loadavg_before: load_before.map((x) => Number(x.toFixed(2))),
    loadavg_after: os.loadavg().map((x) => Number(x.toFixed(2))),
    settings,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
  process.exit(failures.length > 0 ? 1 : 0);
}

await Main();
