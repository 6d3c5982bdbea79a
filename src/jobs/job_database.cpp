#include "jobs/job_database.h"

#include <utility>

#include <sqlite3.h>

namespace ocr::jobs {
namespace {

Status FromSqlite(sqlite3* db, int rc, std::string_view what) {
  const std::string message = std::string(what) + ": " + sqlite3_errmsg(db);
  if (rc == SQLITE_FULL)
    return {StatusCode::kResourceExhausted,
            message + " (the disk under --data-dir is full; retry later)"};
  return {StatusCode::kIoError, message};
}

// One prepared statement, finalized when it goes out of scope; binds count from 1, columns from 0.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }

  ~Statement() { sqlite3_finalize(stmt_); }

  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int i, std::string_view text) {
    if (rc_ == SQLITE_OK) {
      rc_ =
          sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    return *this;
  }

  Statement& Bind(int i, std::int64_t value) {
    if (rc_ == SQLITE_OK)
      rc_ = sqlite3_bind_int64(stmt_, i, value);
    return *this;
  }

  // NULL when `value` is empty.
  Statement& Bind(int i, const std::optional<std::int64_t>& value) {
    if (value)
      return Bind(i, *value);
    if (rc_ == SQLITE_OK)
      rc_ = sqlite3_bind_null(stmt_, i);
    return *this;
  }

  // The next row: true while there is one; Err() tells a failure from the end.
  bool Next() {
    if (rc_ != SQLITE_OK && rc_ != SQLITE_ROW)
      return false;
    rc_ = sqlite3_step(stmt_);
    return rc_ == SQLITE_ROW;
  }

  // Runs a statement without results.
  Status Run(std::string_view what) {
    Next();
    return Err(what);
  }

  Status Err(std::string_view what) const {
    if (rc_ == SQLITE_OK || rc_ == SQLITE_ROW || rc_ == SQLITE_DONE)
      return Status::Ok();
    return FromSqlite(db_, rc_, what);
  }

  std::int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }

  std::optional<std::int64_t> MaybeInt(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL)
      return std::nullopt;
    return Int(column);
  }

  std::string Text(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return text == nullptr
               ? std::string()
               : std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs(
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  started_ms INTEGER,
  finished_ms INTEGER,
  page_count INTEGER NOT NULL,
  pages_total INTEGER NOT NULL,
  pages_done INTEGER NOT NULL DEFAULT 0,
  spec TEXT NOT NULL,
  upload_bytes INTEGER NOT NULL,
  error_code TEXT,
  error TEXT);
CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs(finished_ms);
CREATE TABLE IF NOT EXISTS pages(
  job TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  page TEXT NOT NULL,
  PRIMARY KEY(job, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events(
  job TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  done INTEGER NOT NULL,
  PRIMARY KEY(job, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reading(
  job TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  starts INTEGER NOT NULL,
  PRIMARY KEY(job, idx)) WITHOUT ROWID;
)sql";

constexpr const char* kJobColumns =
    "id, state, created_ms, started_ms, finished_ms, page_count, pages_total, pages_done, spec, "
    "upload_bytes, error_code, error";

JobState StateFromName(std::string_view name) {
  for (const JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                           JobState::kFailed, JobState::kCancelled}) {
    if (StateName(s) == name)
      return s;
  }
  return JobState::kFailed;
}

// A row read with kJobColumns.
JobRow RowOf(const Statement& s) {
  JobRow row;
  row.id = s.Text(0);
  JobSnapshot& snap = row.snapshot;
  snap.state = StateFromName(s.Text(1));
  snap.created = JobDatabase::FromMs(s.Int(2));
  if (const auto started = s.MaybeInt(3))
    snap.started = JobDatabase::FromMs(*started);
  if (const auto finished = s.MaybeInt(4))
    snap.finished = JobDatabase::FromMs(*finished);
  snap.page_count = static_cast<int>(s.Int(5));
  snap.pages_total = static_cast<int>(s.Int(6));
  snap.pages_done = static_cast<int>(s.Int(7));
  row.spec = s.Text(8);
  row.upload_bytes = s.Int(9);
  if (const std::string code = s.Text(10); !code.empty())
    snap.error = Status(StatusCodeFromName(code).value_or(StatusCode::kInternal), s.Text(11));
  return row;
}

std::optional<std::int64_t> MsOf(const std::optional<std::chrono::system_clock::time_point>& t) {
  if (!t)
    return std::nullopt;
  return JobDatabase::ToMs(*t);
}

}  // namespace

std::int64_t JobDatabase::ToMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::chrono::system_clock::time_point JobDatabase::FromMs(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

Result<std::unique_ptr<JobDatabase>> JobDatabase::Open(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<JobDatabase> database(new JobDatabase(db));
  const std::string advice =
      "; move it away to start with an empty job store (jobs it held are lost), or restore it "
      "from a backup";
  if (rc != SQLITE_OK)
    return FromSqlite(db, rc, "cannot open the job database " + file.string());
  MutexLock lock(&database->mu_);
  sqlite3_busy_timeout(db, 5000);
  // WAL: readers do not wait for the writer; FULL: a commit is on disk when it returns.
  Status status = database->Exec(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
      "PRAGMA foreign_keys=ON;");
  if (status.ok()) {
    Statement check(db, "PRAGMA quick_check");
    std::string verdict;
    while (check.Next())
      verdict += (verdict.empty() ? "" : "; ") + check.Text(0);
    status = check.Err("cannot check the job database " + file.string());
    if (status.ok() && verdict != "ok") {
      status = Status(StatusCode::kIoError,
                      "the job database " + file.string() + " is damaged (" + verdict + ")");
    }
  }
  if (status.ok())
    status = database->Exec(kSchema);
  if (!status.ok()) {
    const std::string& message = status.message();
    return Status(StatusCode::kIoError,
                  (message.find(file.string()) == std::string::npos
                       ? "the job database " + file.string() + " cannot be used: "
                       : std::string()) +
                      message + advice);
  }
  return database;
}

JobDatabase::~JobDatabase() {
  MutexLock lock(&mu_);
  sqlite3_close_v2(db_);
}

Status JobDatabase::Exec(const char* sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  if (rc == SQLITE_OK)
    return Status::Ok();
  Status status = FromSqlite(db_, rc, "the job database");
  sqlite3_free(error);
  return status;
}

Status JobDatabase::Commit(const Status& status) {
  if (status.ok())
    return Exec("COMMIT");
  (void)Exec("ROLLBACK");
  return status;
}

Status JobDatabase::Insert(const JobRow& row) {
  MutexLock lock(&mu_);
  const JobSnapshot& s = row.snapshot;
  return Statement(db_,
                   "INSERT INTO jobs(id, state, created_ms, page_count, pages_total, spec, "
                   "upload_bytes) VALUES(?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, row.id)
      .Bind(2, StateName(s.state))
      .Bind(3, ToMs(s.created))
      .Bind(4, std::int64_t{s.page_count})
      .Bind(5, std::int64_t{s.pages_total})
      .Bind(6, row.spec)
      .Bind(7, row.upload_bytes)
      .Run("cannot store the job");
}

Result<std::optional<JobRow>> JobDatabase::Find(std::string_view id) {
  MutexLock lock(&mu_);
  Statement s(db_, (std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = ?").c_str());
  s.Bind(1, id);
  if (s.Next())
    return std::optional<JobRow>(RowOf(s));
  OCR_RETURN_IF_ERROR(s.Err("cannot read the job"));
  return std::optional<JobRow>();
}

Result<std::vector<JobRow>> JobDatabase::Unfinished() {
  MutexLock lock(&mu_);
  Statement s(db_, (std::string("SELECT ") + kJobColumns +
                    " FROM jobs WHERE finished_ms IS NULL ORDER BY created_ms")
                       .c_str());
  std::vector<JobRow> rows;
  while (s.Next())
    rows.push_back(RowOf(s));
  OCR_RETURN_IF_ERROR(s.Err("cannot read the unfinished jobs"));
  return rows;
}

Status JobDatabase::PageStarting(std::string_view id, std::size_t index) {
  MutexLock lock(&mu_);
  return Statement(db_,
                   "INSERT INTO reading(job, idx, starts) VALUES(?, ?, 1) "
                   "ON CONFLICT(job, idx) DO UPDATE SET starts = starts + 1")
      .Bind(1, id)
      .Bind(2, static_cast<std::int64_t>(index))
      .Run("cannot note the page being read");
}

Status JobDatabase::SavePage(std::string_view id, std::size_t index, std::string_view page) {
  MutexLock lock(&mu_);
  OCR_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Status status = Statement(db_, "INSERT OR REPLACE INTO pages(job, idx, page) VALUES(?, ?, ?)")
                      .Bind(1, id)
                      .Bind(2, static_cast<std::int64_t>(index))
                      .Bind(3, page)
                      .Run("cannot store the page");
  if (status.ok()) {
    status = Statement(db_, "DELETE FROM reading WHERE job = ? AND idx = ?")
                 .Bind(1, id)
                 .Bind(2, static_cast<std::int64_t>(index))
                 .Run("cannot store the page");
  }
  return Commit(status);
}

Status JobDatabase::SaveLog(std::string_view id, std::size_t first,
                            std::span<const JobEvent> events, const JobSnapshot& snapshot) {
  MutexLock lock(&mu_);
  OCR_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Status status;
  for (std::size_t i = 0; i < events.size() && status.ok(); ++i) {
    status = Statement(db_,
                       "INSERT OR REPLACE INTO events(job, seq, kind, idx, done) "
                       "VALUES(?, ?, ?, ?, ?)")
                 .Bind(1, id)
                 .Bind(2, static_cast<std::int64_t>(first + i))
                 .Bind(3, static_cast<std::int64_t>(events[i].kind))
                 .Bind(4, static_cast<std::int64_t>(events[i].index))
                 .Bind(5, std::int64_t{events[i].pages_done})
                 .Run("cannot store the job's events");
  }
  if (status.ok()) {
    const bool failed = !snapshot.error.ok();
    status = Statement(db_,
                       "UPDATE jobs SET state = ?, started_ms = ?, finished_ms = ?, "
                       "pages_done = ?, error_code = ?, error = ? WHERE id = ?")
                 .Bind(1, StateName(snapshot.state))
                 .Bind(2, MsOf(snapshot.started))
                 .Bind(3, MsOf(snapshot.finished))
                 .Bind(4, std::int64_t{snapshot.pages_done})
                 .Bind(5, failed ? StatusCodeName(snapshot.error.code()) : std::string_view())
                 .Bind(6, failed ? std::string_view(snapshot.error.message()) : std::string_view())
                 .Bind(7, id)
                 .Run("cannot store the job");
  }
  return Commit(status);
}

Status JobDatabase::SaveEnd(std::string_view id, const JobSnapshot& snapshot) {
  std::size_t events = 0;
  {
    MutexLock lock(&mu_);
    Statement count(db_, "SELECT COUNT(*) FROM events WHERE job = ?");
    count.Bind(1, id);
    if (count.Next())
      events = static_cast<std::size_t>(count.Int(0));
    OCR_RETURN_IF_ERROR(count.Err("cannot read the job's events"));
  }
  const JobEvent end{JobEvent::Kind::kEnd, 0, snapshot.pages_done};
  return SaveLog(id, events, {&end, 1}, snapshot);
}

Result<std::map<std::size_t, std::string>> JobDatabase::Pages(std::string_view id) {
  MutexLock lock(&mu_);
  Statement s(db_, "SELECT idx, page FROM pages WHERE job = ?");
  s.Bind(1, id);
  std::map<std::size_t, std::string> pages;
  while (s.Next())
    pages.emplace(static_cast<std::size_t>(s.Int(0)), s.Text(1));
  OCR_RETURN_IF_ERROR(s.Err("cannot read the job's pages"));
  return pages;
}

Result<std::vector<JobEvent>> JobDatabase::Events(std::string_view id) {
  MutexLock lock(&mu_);
  Statement s(db_, "SELECT kind, idx, done FROM events WHERE job = ? ORDER BY seq");
  s.Bind(1, id);
  std::vector<JobEvent> events;
  while (s.Next()) {
    events.push_back({static_cast<JobEvent::Kind>(s.Int(0)), static_cast<std::size_t>(s.Int(1)),
                      static_cast<int>(s.Int(2))});
  }
  OCR_RETURN_IF_ERROR(s.Err("cannot read the job's events"));
  return events;
}

Result<std::map<std::size_t, int>> JobDatabase::Reading(std::string_view id) {
  MutexLock lock(&mu_);
  Statement s(db_, "SELECT idx, starts FROM reading WHERE job = ?");
  s.Bind(1, id);
  std::map<std::size_t, int> reading;
  while (s.Next())
    reading.emplace(static_cast<std::size_t>(s.Int(0)), static_cast<int>(s.Int(1)));
  OCR_RETURN_IF_ERROR(s.Err("cannot read the pages being read"));
  return reading;
}

Status JobDatabase::ClearReading() {
  MutexLock lock(&mu_);
  return Exec("DELETE FROM reading");
}

Status JobDatabase::Delete(std::string_view id) {
  MutexLock lock(&mu_);
  return Statement(db_, "DELETE FROM jobs WHERE id = ?").Bind(1, id).Run("cannot delete the job");
}

Result<std::vector<std::string>> JobDatabase::DeleteFinishedBefore(std::int64_t before_ms) {
  MutexLock lock(&mu_);
  Statement s(db_, "DELETE FROM jobs WHERE finished_ms < ? RETURNING id");
  s.Bind(1, before_ms);
  std::vector<std::string> ids;
  while (s.Next())
    ids.push_back(s.Text(0));
  OCR_RETURN_IF_ERROR(s.Err("cannot delete expired jobs"));
  return ids;
}

Result<std::map<std::string, std::int64_t>> JobDatabase::Uploads() {
  MutexLock lock(&mu_);
  Statement s(db_, "SELECT id, upload_bytes FROM jobs");
  std::map<std::string, std::int64_t> uploads;
  while (s.Next())
    uploads.emplace(s.Text(0), s.Int(1));
  OCR_RETURN_IF_ERROR(s.Err("cannot read the jobs"));
  return uploads;
}

Result<std::string> JobDatabase::IntegrityCheck() {
  MutexLock lock(&mu_);
  Statement check(db_, "PRAGMA integrity_check");
  std::string verdict;
  while (check.Next())
    verdict += (verdict.empty() ? "" : "; ") + check.Text(0);
  OCR_RETURN_IF_ERROR(check.Err("cannot check the job database"));
  return verdict;
}

Result<std::map<std::string, std::int64_t>> JobDatabase::Counts() {
  MutexLock lock(&mu_);
  std::map<std::string, std::int64_t> counts;
  Statement states(db_, "SELECT state, COUNT(*) FROM jobs GROUP BY state");
  while (states.Next())
    counts[states.Text(0)] = states.Int(1);
  OCR_RETURN_IF_ERROR(states.Err("cannot count the jobs"));
  Statement pages(db_, "SELECT COUNT(*) FROM pages");
  if (pages.Next())
    counts["pages stored"] = pages.Int(0);
  OCR_RETURN_IF_ERROR(pages.Err("cannot count the pages"));
  return counts;
}

Status JobDatabase::Vacuum() {
  MutexLock lock(&mu_);
  return Exec("VACUUM");
}

}  // namespace ocr::jobs
