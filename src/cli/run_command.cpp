#include "cli/run_command.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <opencv2/core/utility.hpp>

#include "cli/exit_codes.h"
#include "cli/flag_wording.h"
#include "cli/inference_workers.h"
#include "cli/model_flags.h"
#include "cli/progress_bar.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/text.h"
#include "document/document.h"
#include "document/render.h"
#include "engine/ort_model.h"
#include "http/answer.h"
#include "http/error_mapping.h"
#include "image/decode.h"
#include "pipeline/pipeline.h"
#include "sched/scheduler.h"

namespace ocr::cli {

CLI::App* AddRunCommand(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "OCR image files and print the results to stdout");
  AddInputFlags(*cmd, o.input, document::kRunFlag);
  cmd->add_option("files", o.files,
                  "Images (JPEG, PNG, WebP, BMP, TIFF) or PDFs, told apart by their bytes; - reads "
                  "standard input")
      ->required();
  cmd->add_option("--model", o.model, "Model set to use (default: the first)");
  cmd->add_option("--format", o.format,
                  "Output: json, text, markdown, html, hocr, alto, csv (tables) or pdf")
      ->capture_default_str();
  cmd->add_option("--threads", o.threads, "Inference workers (0 = one per usable core)")
      ->envname("ONNXOCR_THREADS")
      ->check(CLI::Range(0, 4096));
  cmd->add_flag(
      "--reference", o.reference,
      "Read as the reference pipeline does, line for line: its fp32 models (ppocrv4 unless "
      "--model names a set), one detection pass at 960 px without contrast stretch, each line's "
      "direction on its own, its recognition batch "
      "shapes, raw recognizer text (slower; for parity checks; the reading flags given with "
      "it apply over it)");
  cmd->add_flag("--paginate", o.paginate, "Separate pages in text, markdown and html output");
  cmd->add_flag("--pdfa,!--no-pdfa", o.pdfa,
                "--format pdf: write PDF/A-2b (XMP metadata, an sRGB output intent) (off by "
                "default)")
      ->envname("ONNXOCR_PDFA");
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

// Opens the document and reads it, its pages (and each page's batches) spread over the idle
// workers of `worker`'s group; `progress` follows each page (0 once it is opened).
Result<document::DocumentResult> ReadOnWorker(const pipeline::Pipeline& pipe,
                                              std::span<const std::uint8_t> data,
                                              const document::DocumentOptions& options,
                                              TaskRunner& runner,
                                              const document::PageProgress& progress) {
  OCR_ASSIGN_OR_RETURN(const std::unique_ptr<document::PageReader> reader,
                       document::PageReader::Open(data, options));
  progress(0, reader->pages().size());
  return document::ReadDocument(*reader, pipe, {}, &runner, progress);
}

// One file of the run as read: its bytes (the PDF output is written over them) and its pages.
struct FileRead {
  Result<std::string> bytes = Cancelled();
  Result<document::DocumentResult> doc = Cancelled();
  double seconds = 0;  // reading it, from its bytes to its last page
};

// The files of one run, read side by side: each is a job on the workers (a document's pages, and
// a page's recognition batches, spread further over idle workers), so the next file's decoding
// and detection overlap this one's recognition; they are handed back in the order given.
// Thread-safety: Finish() from any thread, Take() from the run's thread.
class FilesInFlight {
 public:
  explicit FilesInFlight(std::size_t files) : files_(files), done_(files, false) {}

  void Finish(std::size_t index, FileRead read) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    files_[index] = std::move(read);
    done_[index] = true;
    finished_.SignalAll();
  }

  // Waits for file `index` and hands it over.
  FileRead Take(std::size_t index) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (!done_[index])
      finished_.Wait(&mu_);
    return std::move(files_[index]);
  }

 private:
  Mutex mu_;
  CondVar finished_;
  std::vector<FileRead> files_ GUARDED_BY(mu_);
  std::vector<bool> done_ GUARDED_BY(mu_);
};

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

// The model set --model names (the first by default). The exit code and message when none
// resolves.
Result<ModelSpec> ChooseModels(const RunOptions& o, int& exit_code) {
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok()) {
    exit_code =
        specs.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitModelsFailed;
    return specs.status();
  }
  if (o.model.empty())
    return o.reference ? ReferenceSet(*specs) : specs->front();
  for (const ModelSpec& spec : *specs) {
    if (spec.name == o.model)
      return spec;
  }
  exit_code = kExitUsage;
  return InvalidArgument("--model: no model set named '" + o.model + "'");
}

// True when `data` is a document of one page (after --pages): a run of it alone is best served
// by one worker whose model calls use every core.
bool IsLonePage(std::span<const std::uint8_t> data, const document::DocumentOptions& options) {
  const Result<std::unique_ptr<document::PageReader>> reader =
      document::PageReader::Open(data, options);
  return reader.ok() && (*reader)->pages().size() == 1;
}

// Submits a job per file to `workers`, each reading its file into `files` (the first file's
// bytes are `first` when the run read them already). Background jobs are always admitted; a
// worker takes a waiting file before it helps another's pages.
void SubmitFiles(const RunOptions& o, InferenceWorkers& workers,
                 const document::DocumentOptions& doc_options, ProgressBar& bar,
                 const std::atomic<std::size_t>& current, std::optional<Result<std::string>> first,
                 FilesInFlight& files) {
  const auto pipelines = workers.pipelines();
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    sched::Job job;
    job.priority = sched::Priority::kBackground;
    std::optional<Result<std::string>> bytes =
        i == 0 ? std::exchange(first, std::nullopt) : std::nullopt;
    job.run = [&, pipelines, i, bytes = std::make_shared<decltype(bytes)>(std::move(bytes))](
                  sched::WorkerContext& worker) {
      Stopwatch watch;
      FileRead read;
      read.bytes = *bytes ? std::move(**bytes) : ReadInput(o.files[i]);
      // The bar follows the file the output waits for.
      const document::PageProgress progress = [&bar, &current, i](std::size_t done,
                                                                  std::size_t total) {
        if (current.load() == i)
          bar.Update(done, total);
      };
      read.doc = read.bytes.ok()
                     ? ReadOnWorker(*pipelines.at(static_cast<std::size_t>(worker.group)).front(),
                                    AsBytes(*read.bytes), doc_options, worker.runner, progress)
                     : Result<document::DocumentResult>(read.bytes.status());
      read.seconds = watch.ElapsedMs() / 1000.0;
      files.Finish(i, std::move(read));
    };
    job.dropped = [&files, i](const Status& why) { files.Finish(i, FileRead{why, why}); };
    if (Status submitted = workers.scheduler().Submit(std::move(job)); !submitted.ok()) {
      files.Finish(i, FileRead{submitted, submitted});
    }
  }
}

// Reads every file into `out` (the JSON, the text of each, or the one PDF), the files side by side
// on `workers`, answered in order, with the progress bar. Returns the exit code of the last file
// that failed (0 when none did); each failure is told on stderr (and, for JSON, put in the file's
// place).
int ReadAll(const RunOptions& o, InferenceWorkers& workers,
            const document::DocumentOptions& doc_options, const document::AnswerShape& answer,
            std::optional<Result<std::string>> first, std::string& out) {
  const document::OutputFormat format = answer.format;
  const bool pdf = format == document::OutputFormat::kPdf;
  int exit_code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  ProgressBar bar(stderr, ProgressWanted(o.progress), o.files.size());
  std::atomic<std::size_t> current{0};
  FilesInFlight files(o.files.size());
  SubmitFiles(o, workers, doc_options, bar, current, std::move(first), files);
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const std::string name = InputName(o.files[i]);
    bar.StartFile(i);
    current.store(i);
    FileRead read = files.Take(i);
    Result<document::DocumentResult>& doc = read.doc;
    if (doc.ok())
      bar.Update(doc->pages.size(), doc->pages.size());
    const std::span<const std::uint8_t> data =
        AsBytes(read.bytes.ok() ? *read.bytes : std::string_view());
    if (doc.ok() && pdf) {
      Stopwatch layer_watch;
      Result<http::Reply> written =
          http::AnswerReply(*doc, answer, read.seconds, false, {data, &doc_options, name});
      if (written.ok()) {
        out = std::move(written->body);
        // What the layer cost beside the reading, for anyone weighing the PDF against text.
        bar.Clear();
        std::cerr << fmt::format(
            "onnxocr run: {}: {} pages read in {:.2f} s, PDF written in {:.0f} ms\n", name,
            doc->pages.size(), read.seconds, layer_watch.ElapsedMs());
      } else {
        doc = written.status();
      }
    }
    if (!doc.ok()) {
      const Status failure = InCliTerms(doc.status());
      bar.Clear();
      // A file's own failures name it already.
      std::cerr << "onnxocr run: " << (read.bytes.ok() ? name + ": " : "") << failure.message()
                << "\n";
      exit_code = ExitCodeFor(failure);
      if (format == document::OutputFormat::kJson)
        all.push_back(http::ErrorJson(failure));
      continue;
    }
    if (format == document::OutputFormat::kJson) {
      // Images print the JSON form's answer; PDFs and multi-frame TIFFs the multipart form's,
      // with pages.
      const bool is_pdf = image::SniffFormat(data) == image::Format::kPdf;
      all.push_back(http::AnswerJson(*doc, answer, read.seconds,
                                     /*one_page=*/!is_pdf && doc->page_count <= 1));
    } else if (!pdf) {
      if (o.files.size() > 1)
        out += "==> " + name + " <==\n";
      out += document::FormatDocument(*doc, format, answer.paginate);
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
  const document::AnswerShape answer{*format, o.paginate, doc_options.ocr.read_words, o.pdfa};
  if (document::NeedsWordBoxes(*format))
    doc_options.ocr.read_words = true;

  image::QuietCodecWarnings();
  // OpenCV's loops run on the calling worker, as in the server: its own pool beside the workers
  // would oversubscribe the cores.
  cv::setNumThreads(0);
  int load_exit = kExitOk;
  auto spec = ChooseModels(o, load_exit);
  if (!spec.ok()) {
    std::cerr << "onnxocr run: " << spec.status().message() << "\n";
    return load_exit;
  }
  // One worker per core, as in the server: files and pages side by side, one model call per core.
  // A lone page instead gets one worker whose model calls use every core, so that its detection
  // does not run on one core while the others wait.
  WorkerFlags flags;
  flags.threads = o.threads;
  engine::SessionConfig session;
  std::optional<Result<std::string>> first;
  if (o.files.size() == 1) {
    first = ReadInput(o.files.front());
    if (first->ok() && IsLonePage(AsBytes(**first), doc_options)) {
      flags.threads = 1;
      session.intra_op_threads = o.threads;
    }
  }
  // A run reads its pages and exits: a freed page's buffers are kept for the next page rather
  // than unmapped and faulted in again (a third of a scanned PDF's time was the kernel's).
  // mallopt is not thread-safe, and no thread of ours runs yet.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // NOLINT(concurrency-mt-unsafe)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // NOLINT(concurrency-mt-unsafe)
  auto workers = InferenceWorkers::Start({*spec}, flags, session, /*warm_up=*/false);
  if (!workers.ok()) {
    std::cerr << "onnxocr run: " << workers.status().message() << "\n";
    return kExitModelsFailed;
  }

  std::string out;
  const int exit_code = ReadAll(o, **workers, doc_options, answer, std::move(first), out);
  if (pdf && exit_code != kExitOk)
    return exit_code;  // no PDF was made: write nothing
  if (!WriteOutput(o.output, out)) {
    std::cerr << "onnxocr run: cannot write " << (o.output.empty() ? "stdout" : o.output) << "\n";
    return kExitInputUnreadable;
  }
  return exit_code;
}

}  // namespace ocr::cli
