#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "cli/flag_wording.h"
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
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"

namespace ocr::cli {

CLI::App* AddRunCommand(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "OCR image files and print the results to stdout");
  AddInputFlags(*cmd, o.input, document::kRunFlag);
  cmd->add_option("files", o.files,
                  "Images (JPEG, PNG, WebP, BMP, TIFF) or PDFs, told apart by their bytes; - reads "
                  "standard input")
      ->required();
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
                  "Write to this file instead of stdout (--format pdf: the searchable PDF; "
                  "without -o it goes to stdout when that is not a terminal)");
  cmd->add_option("--progress", o.progress,
                  "Progress on stderr (page N/M, file K/L, elapsed seconds, pages/s), redrawn in "
                  "place and erased at the end: auto (when stderr is a terminal), on or off")
      ->envname("ONNXOCR_PROGRESS")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  return cmd;
}

namespace {

constexpr std::string_view kStdin = "-";

// How messages and the text output's headers name an input.
std::string InputName(std::string_view path) {
  return path == kStdin ? "standard input" : std::string(path);
}

Result<std::string> ReadStdin() {
  std::string bytes;
  std::array<char, 1 << 16> chunk{};
  std::size_t n = 0;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), stdin)) > 0)
    bytes.append(chunk.data(), n);
  if (std::ferror(stdin) != 0)
    return Status(StatusCode::kIoError, "cannot read standard input");
  return bytes;
}

// The whole file (or standard input for `-`). kNotFound when there is no such file, kIoError
// when it cannot be read (a directory, no permission); each message names the file.
Result<std::string> ReadInput(const std::string& path) {
  if (path == kStdin)
    return ReadStdin();
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    return Status(StatusCode::kNotFound, path + ": no such file");
  if (std::filesystem::is_directory(status))
    return Status(StatusCode::kIoError, path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(StatusCode::kIoError,
                  path + ": cannot open: " + std::generic_category().message(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    return Status(StatusCode::kIoError, path + ": cannot read");
  return bytes;
}

// Opens the document, shows its page count, then reads it with the bar following each page.
Result<document::DocumentResult> ReadWithProgress(const pipeline::Pipeline& pipe,
                                                  std::span<const std::uint8_t> data,
                                                  const document::DocumentOptions& options,
                                                  ProgressBar& bar) {
  OCR_ASSIGN_OR_RETURN(const std::unique_ptr<document::PageReader> reader,
                       document::PageReader::Open(data, options));
  bar.Update(0, reader->pages().size());
  return document::ReadDocument(
      *reader, pipe, {}, nullptr,
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

// A failure, worded with the CLI's flags rather than the API's fields.
Status InCliTerms(const Status& status) {
  return {status.code(), InFlagTerms(status.message())};
}

// For a file that could not be read: a flag that does not fit it (--pages past its last page) is
// a usage error, a failure of ours (inference) 1, anything about the input itself 4.
int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      return kExitUsage;
    case StatusCode::kInternal:
      return 1;
    default:
      return kExitInputUnreadable;
  }
}

// --pages is checked before any model loads, against every page a document may have under
// --max-pdf-pages: "abc" is a usage error whatever the documents.
Status CheckPages(const std::string& pages, int max_pages) {
  if (pages.empty())
    return Status::Ok();
  const Result<std::vector<int>> selected = document::ParsePageRange(pages, max_pages);
  if (selected.ok())
    return Status::Ok();
  const Status syntax = document::ParsePageRange("-", 1).status();
  if (selected.status().message() == syntax.message())
    return InCliTerms(syntax);
  return InvalidArgument(fmt::format(
      "--pages selects no page: pages are counted from 0, and --max-pdf-pages ({}) refuses any "
      "document longer than {} pages",
      max_pages, max_pages));
}

// The checks that need no model, so that a usage error is told at once. 0 when all pass, else
// the exit code, the message printed.
int CheckRunFlags(const RunOptions& o, const document::DocumentOptions& doc_options, bool pdf) {
  auto usage = [](std::string_view message) {
    std::cerr << "onnxocr run: " << message << "\n";
    return kExitUsage;
  };
  if (pdf && o.files.size() != 1)
    return usage("--format pdf makes one PDF of one file; give one file");
  if (pdf && o.output.empty() && isatty(STDOUT_FILENO) == 1)
    return usage("--format pdf writes a PDF file: give -o OUT.pdf, or redirect stdout");
  if (std::count(o.files.begin(), o.files.end(), kStdin) > 1)
    return usage("- (standard input) can be given only once");
  if (const Status pages = CheckPages(doc_options.page_range, doc_options.limits.max_pages);
      !pages.ok()) {
    return usage(pages.message());
  }
  return kExitOk;
}

bool ProgressWanted(const std::string& progress) {
  if (progress == "on")
    return true;
  return progress == "auto" && isatty(STDERR_FILENO) == 1;
}

// Loads the model set --model names (the first by default). The exit code and message when
// none loads.
Result<std::unique_ptr<pipeline::ModelSet>> LoadModels(const RunOptions& o,
                                                       engine::Runtime& runtime, int& exit_code) {
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok()) {
    exit_code =
        specs.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitModelsFailed;
    return specs.status();
  }
  const ModelSpec* spec = &specs->front();
  if (!o.model.empty()) {
    spec = nullptr;
    for (const auto& s : *specs) {
      if (s.name == o.model)
        spec = &s;
    }
    if (spec == nullptr) {
      exit_code = kExitUsage;
      return InvalidArgument("--model: no model set named '" + o.model + "'");
    }
  }
  engine::SessionConfig session;
  // One file at a time: let ONNX Runtime spread each model call over the cores.
  session.intra_op_threads = o.threads;
  exit_code = kExitModelsFailed;
  return pipeline::LoadModelSet(runtime, spec->name, spec->dir, session);
}

// Reads every file in order into `out` (the JSON, the text of each, or the one PDF), with the
// progress bar. Returns the exit code of the last file that failed (0 when none did); each failure
// is told on stderr (and, for JSON, put in the file's place).
int ReadAll(const RunOptions& o, const pipeline::Pipeline& pipe,
            const document::DocumentOptions& doc_options, document::OutputFormat format,
            bool word_boxes, std::string& out) {
  const bool pdf = format == document::OutputFormat::kPdf;
  int exit_code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  ProgressBar bar(stderr, ProgressWanted(o.progress), o.files.size());
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const std::string& path = o.files[i];
    const std::string name = InputName(path);
    bar.StartFile(i);
    Stopwatch watch;
    Result<std::string> bytes = ReadInput(path);
    const std::span<const std::uint8_t> data = AsBytes(bytes.ok() ? *bytes : std::string_view());
    Result<document::DocumentResult> doc = bytes.ok()
                                               ? ReadWithProgress(pipe, data, doc_options, bar)
                                               : Result<document::DocumentResult>(bytes.status());
    const double seconds = watch.ElapsedMs() / 1000.0;
    if (doc.ok() && pdf) {
      Stopwatch layer_watch;
      Result<std::string> written = document::WriteSearchablePdf(data, *doc, doc_options);
      if (written.ok()) {
        out = std::move(written).value();
        // What the layer cost beside the reading, for anyone weighing the PDF against text.
        bar.Clear();
        std::cerr << fmt::format(
            "onnxocr run: {}: {} pages read in {:.2f} s, PDF written in {:.0f} ms\n", name,
            doc->pages.size(), seconds, layer_watch.ElapsedMs());
      } else {
        doc = written.status();
      }
    }
    if (!doc.ok()) {
      const Status failure = InCliTerms(doc.status());
      bar.Clear();
      // A file's own failures name it already.
      std::cerr << "onnxocr run: " << (bytes.ok() ? name + ": " : "") << failure.message() << "\n";
      exit_code = ExitCodeFor(failure);
      if (format == document::OutputFormat::kJson)
        all.push_back(http::ErrorJson(failure));
      continue;
    }
    if (format == document::OutputFormat::kJson) {
      // Images print the JSON form's answer; PDFs and multi-frame TIFFs the multipart form's,
      // with pages.
      const bool is_pdf = image::SniffFormat(data) == image::Format::kPdf;
      all.push_back(is_pdf || doc->page_count > 1
                        ? http::DocumentResponseJson(*doc, format, false, seconds, word_boxes)
                        : http::OcrResponseJson(doc->pages.front().lines, seconds, word_boxes));
    } else if (!pdf) {
      if (o.files.size() > 1)
        out += "==> " + name + " <==\n";
      out += document::FormatDocument(*doc, format, o.paginate);
    }
  }
  bar.Clear();
  if (format == document::OutputFormat::kJson)
    out = (o.files.size() == 1 ? all[0] : all).dump() + "\n";
  return exit_code;
}

}  // namespace

int Run(const RunOptions& o) {
  auto format = document::ParseOutputFormat(o.format);
  if (!format.ok()) {
    std::cerr << "onnxocr run: " << InFlagTerms(format.status().message()) << "\n";
    return kExitUsage;
  }
  const bool pdf = *format == document::OutputFormat::kPdf;
  document::DocumentOptions base;
  if (o.reference)
    base.ocr = pipeline::OcrOptions::Reference();
  document::DocumentOptions doc_options = o.input.Options(base);
  if (const int code = CheckRunFlags(o, doc_options, pdf); code != kExitOk)
    return code;
  const bool word_boxes = doc_options.ocr.word_boxes;
  if (document::NeedsWordBoxes(*format))
    doc_options.ocr.word_boxes = true;

  image::QuietCodecWarnings();
  engine::Runtime runtime;
  int load_exit = kExitOk;
  auto models = LoadModels(o, runtime, load_exit);
  if (!models.ok()) {
    std::cerr << "onnxocr run: " << models.status().message() << "\n";
    return load_exit;
  }
  const pipeline::Pipeline pipe(**models);

  std::string out;
  int exit_code = ReadAll(o, pipe, doc_options, *format, word_boxes, out);
  if (pdf && exit_code != kExitOk)
    return exit_code;  // no PDF was made: write nothing
  if (!WriteOutput(o.output, out)) {
    std::cerr << "onnxocr run: cannot write " << (o.output.empty() ? "stdout" : o.output) << "\n";
    return kExitInputUnreadable;
  }
  return exit_code;
}

}  // namespace ocr::cli
