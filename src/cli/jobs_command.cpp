#include "cli/jobs_command.h"

#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "jobs/job_database.h"
#include "jobs/spool.h"
#include "jobs/sqlite_jobs.h"

namespace ocr::cli {
namespace {

int Fail(const Status& status) {
  std::cerr << "onnxocr jobs: " << status.message() << "\n";
  return 1;
}

int Check(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "jobs.sqlite";
  if (!std::filesystem::exists(file))
    return Fail(Status(StatusCode::kNotFound, "no job database at " + file.string()));
  auto database = jobs::JobDatabase::Open(file);
  if (!database.ok())
    return Fail(database.status());
  auto verdict = (*database)->IntegrityCheck();
  if (!verdict.ok())
    return Fail(verdict.status());
  std::cout << file.string() << ": integrity " << *verdict << "\n";
  auto counts = (*database)->Counts();
  if (!counts.ok())
    return Fail(counts.status());
  for (const auto& [what, n] : *counts)
    std::cout << "  " << what << ": " << n << "\n";
  auto uploads = (*database)->Uploads();
  if (!uploads.ok())
    return Fail(uploads.status());
  const std::vector<std::string> spooled = jobs::Spool::IdsIn(dir / "spool");
  const std::set<std::string> files(spooled.begin(), spooled.end());
  int missing = 0;
  for (const auto& [id, bytes] : *uploads)
    missing += files.contains(id) ? 0 : 1;
  int orphans = 0;
  for (const std::string& name : files)
    orphans += uploads->contains(name) ? 0 : 1;
  std::cout << "  uploads: " << files.size() << " in the spool, " << missing
            << " jobs without theirs, " << orphans
            << " without a job (removed at the next start)\n";
  return *verdict == "ok" && missing == 0 ? kExitOk : 1;
}

int Vacuum(const std::filesystem::path& dir) {
  auto folder = jobs::JobFolder::Open(dir);  // its lock: no server uses it meanwhile
  if (!folder.ok())
    return Fail(folder.status());
  const std::filesystem::path file = dir / "jobs.sqlite";
  std::error_code error;
  const auto before = std::filesystem::file_size(file, error);
  if (Status vacuumed = (*folder)->database()->Vacuum(); !vacuumed.ok())
    return Fail(vacuumed);
  const auto after = std::filesystem::file_size(file, error);
  std::cout << file.string() << ": " << before << " -> " << after << " bytes\n";
  return kExitOk;
}

}  // namespace

CLI::App* AddJobsCommand(CLI::App& app, JobsOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "jobs", "Check or compact the job folder of a server without --redis (--data-dir)");
  cmd->require_subcommand(1);
  for (CLI::App* sub :
       {cmd->add_subcommand("check", "Integrity, jobs by state and uploads; safe while serving")
            ->callback([&o] { o.check = true; }),
        cmd->add_subcommand("vacuum",
                            "Rewrite the database without its free pages; only while "
                            "no server uses the folder")
            ->callback([&o] { o.vacuum = true; })}) {
    sub->add_option("--data-dir", o.data_dir, "The server's --data-dir")
        ->envname("ONNXOCR_DATA_DIR")
        ->capture_default_str();
  }
  return cmd;
}

int Jobs(const JobsOptions& o) {
  if (o.vacuum)
    return Vacuum(o.data_dir);
  return Check(o.data_dir);
}

}  // namespace ocr::cli
