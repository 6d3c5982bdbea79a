#include "cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "cli/model_flags.h"
#include "cli/progress_bar.h"
#include "common/clock.h"
#include "common/text.h"
#include "document/document.h"
#include "document/render.h"
#include "document/searchable_pdf.h"
#include "engine/ort_model.h"
#include "http/error_mapping.h"
#include "http/response_json.h"
#include "image/decode.h"
#include "pipeline/pipeline.h"

namespace ocr::cli {

CLI::App* AddRunCommand(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "OCR image files and print the results to stdout");
  AddInputFlags(*cmd, o.input, document::kRunFlag);
  cmd->add_option("files", o.files, "Images (JPEG, PNG, WebP, BMP, TIFF) or PDFs")->required();
  cmd->add_option("--model", o.model, "Model set to use (default: the first)");
  cmd->add_option("--format", o.format, "Output: json, text, markdown, html, hocr, alto or pdf")
      ->capture_default_str();
  cmd->add_option("--threads", o.threads, "Inference threads (0 = all usable cores)")
      ->envname("ONNXOCR_THREADS")
      ->check(CLI::Range(0, 4096));
  cmd->add_flag(
      "--reference", o.reference,
      "Read as the reference pipeline does, line for line: one detection pass at 960 px "
      "without contrast stretch, each line's direction on its own, its recognition batch "
      "shapes, raw recognizer text (slower; for parity checks; the reading flags given with "
      "it apply over it)");
  cmd->add_flag("--paginate", o.paginate, "Separate pages in text, markdown and html output");
  cmd->add_option("-o,--output", o.output,
                  "Write to this file instead of stdout (--format pdf: the searchable PDF)");
  return cmd;
}

namespace {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(StatusCode::kIoError, "cannot open " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    return Status(StatusCode::kIoError, "cannot read " + path);
  return bytes;
}

Result<document::DocumentResult> ReadWithProgress(const pipeline::Pipeline& pipe,
                                                  std::span<const std::uint8_t> data,
                                                  const document::DocumentOptions& options) {
  ProgressBar bar(stderr, isatty(STDERR_FILENO) == 1);
  return document::ReadDocument(
      data, pipe, options, {}, nullptr,
      [&bar](std::size_t done, std::size_t total) { bar.Update(done, total); });
}

// Writes `bytes` to `path`, or to stdout when it is empty.
bool WriteOutput(const std::string& path, const std::string& bytes) {
  if (path.empty()) {
    std::cout << bytes;
    return static_cast<bool>(std::cout.flush());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  return static_cast<bool>(out.flush());
}

}  // namespace

int Run(const RunOptions& o) {
  auto format = document::ParseOutputFormat(o.format);
  if (!format.ok()) {
    std::cerr << "onnxocr run: " << format.status().message() << "\n";
    return kExitUsage;
  }
  const bool pdf = *format == document::OutputFormat::kPdf;
  if (pdf && o.files.size() != 1) {
    std::cerr << "onnxocr run: --format pdf makes one PDF of one file; give one file\n";
    return kExitUsage;
  }
  if (pdf && o.output.empty() && isatty(STDOUT_FILENO) == 1) {
    std::cerr << "onnxocr run: --format pdf writes a PDF file: give -o OUT.pdf, or redirect "
                 "stdout\n";
    return kExitUsage;
  }
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok()) {
    std::cerr << "onnxocr run: " << specs.status().message() << "\n";
    return specs.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitModelsFailed;
  }
  const ModelSpec* spec = &specs->front();
  if (!o.model.empty()) {
    spec = nullptr;
    for (const auto& s : *specs) {
      if (s.name == o.model)
        spec = &s;
    }
    if (spec == nullptr) {
      std::cerr << "onnxocr run: no model set named '" << o.model << "'\n";
      return kExitUsage;
    }
  }

  image::QuietCodecWarnings();
  engine::Runtime runtime;
  engine::SessionConfig session;
  // One file at a time: let ONNX Runtime spread each model call over the cores.
  session.intra_op_threads = o.threads;
  auto models = pipeline::LoadModelSet(runtime, spec->name, spec->dir, session);
  if (!models.ok()) {
    std::cerr << "onnxocr run: " << models.status().message() << "\n";
    return kExitModelsFailed;
  }
  const pipeline::Pipeline pipe(**models);
  document::DocumentOptions base;
  if (o.reference)
    base.ocr = pipeline::OcrOptions::Reference();
  document::DocumentOptions doc_options = o.input.Options(base);
  const bool word_boxes = doc_options.ocr.word_boxes;
  if (document::NeedsWordBoxes(*format))
    doc_options.ocr.word_boxes = true;

  int exit_code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  std::string out;
  for (const std::string& path : o.files) {
    Stopwatch watch;
    Result<std::string> bytes = ReadFile(path);
    const std::span<const std::uint8_t> data = AsBytes(bytes.ok() ? *bytes : std::string_view());
    Result<document::DocumentResult> doc = bytes.ok()
                                               ? ReadWithProgress(pipe, data, doc_options)
                                               : Result<document::DocumentResult>(bytes.status());
    const double seconds = watch.ElapsedMs() / 1000.0;
    if (doc.ok() && pdf) {
      Stopwatch layer_watch;
      Result<std::string> written = document::WriteSearchablePdf(data, *doc, doc_options);
      if (written.ok()) {
        out = std::move(written).value();
        // What the layer cost beside the reading, for anyone weighing the PDF against text.
        std::cerr << fmt::format(
            "onnxocr run: {}: {} pages read in {:.2f} s, PDF written in {:.0f} ms\n", path,
            doc->pages.size(), seconds, layer_watch.ElapsedMs());
      } else {
        doc = written.status();
      }
    }
    if (!doc.ok()) {
      std::cerr << "onnxocr run: " << path << ": " << doc.status().message() << "\n";
      exit_code = doc.status().code() == StatusCode::kInternal ? 1 : kExitInputUnreadable;
      if (*format == document::OutputFormat::kJson)
        all.push_back(http::ErrorJson(doc.status()));
      continue;
    }
    if (*format == document::OutputFormat::kJson) {
      // Images print the JSON form's answer; PDFs and multi-frame TIFFs the multipart form's,
      // with pages.
      const bool is_pdf = image::SniffFormat(data) == image::Format::kPdf;
      all.push_back(is_pdf || doc->page_count > 1
                        ? http::DocumentResponseJson(*doc, *format, false, seconds, word_boxes)
                        : http::OcrResponseJson(doc->pages.front().lines, seconds, word_boxes));
    } else if (!pdf) {
      if (o.files.size() > 1)
        out += "==> " + path + " <==\n";
      out += document::FormatDocument(*doc, *format, o.paginate);
    }
  }
  if (*format == document::OutputFormat::kJson)
    out = (o.files.size() == 1 ? all[0] : all).dump() + "\n";
  if (pdf && exit_code != kExitOk)
    return exit_code;  // no PDF was made: write nothing
  if (!WriteOutput(o.output, out)) {
    std::cerr << "onnxocr run: cannot write " << (o.output.empty() ? "stdout" : o.output) << "\n";
    return kExitInputUnreadable;
  }
  return exit_code;
}

}  // namespace ocr::cli
