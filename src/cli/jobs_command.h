// `onnxocr jobs check|vacuum --data-dir DIR`: the durable job store's folder (jobs/sqlite_jobs.h)
// seen from outside the server. check: the database's integrity (PRAGMA integrity_check), the
// jobs by state, and uploads without a job or jobs without their upload; safe while a server runs.
// vacuum: rewrites the database without its free pages; only while no server uses the folder.
// Thread-safety: called from main() only.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace ocr::cli {

struct JobsOptions {
  std::string data_dir = "onnxocr-data";  // as serve's --data-dir
  bool check = false;
  bool vacuum = false;
};

CLI::App* AddJobsCommand(CLI::App& app, JobsOptions& options);

// Returns the process exit code: 0 when the folder is sound, 1 otherwise.
int Jobs(const JobsOptions& options);

}  // namespace ocr::cli
