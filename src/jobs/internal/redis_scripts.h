// The Lua scripts of the shared job store (jobs/redis_jobs.h), one per change, so that a job's
// log, counters and queue never disagree, and the small conversions of what they store. Every
// script runs after kPrelude (RedisJobs::Eval). The keys are listed in redis_jobs.h.
// Thread-safety: constants and pure functions.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "jobs/job_view.h"

namespace ocr::jobs::internal {

// Shared by every script: the key prefix, Redis's clock (so replicas' clocks never matter) and
// the one way a job ends (its log's end event, its keys' expiry).
inline constexpr std::string_view kPrelude = R"lua(
local P = 'onnxocr:'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live(state) return state == 'queued' or state == 'running' end
local function finish(id, state, code, message)
  local j = P .. 'job:' .. id
  redis.call('HSET', j, 'state', state, 'finished', now_ms(), 'error_code', code, 'error', message)
  redis.call('RPUSH', j .. ':events', 'e')
  redis.call('SREM', P .. 'unfinished', id)
  local ttl = tonumber(redis.call('HGET', j, 'ttl_ms'))
  -- The upload is kept as long as the results: a searchable PDF is made from it when the result
  -- is asked for, and viewers draw its pages.
  redis.call('PEXPIRE', j .. ':upload', ttl)
  redis.call('PEXPIRE', j, ttl)
  redis.call('PEXPIRE', j .. ':events', ttl)
  redis.call('PEXPIRE', j .. ':pages', ttl)
end
-- "<id>:<index>[:<claim>]" -> id, index
local function task_of(member)
  local a = string.find(member, ':', 1, true)
  local b = string.find(member, ':', a + 1, true)
  return string.sub(member, 1, a - 1), string.sub(member, a + 1, (b or 0) - 1)
end
local function pending(id, index)
  local j = P .. 'job:' .. id
  return live(redis.call('HGET', j, 'state')) and redis.call('HEXISTS', j .. ':pages', index) == 0
end
)lua";

// ARGV: id, max_jobs, ttl_ms, timeout_ms, page_count, pages_total, spec, max_result_bytes,
// upload. 1 admitted, 0 at --max-jobs.
inline constexpr std::string_view kCreate = R"lua(
local id = ARGV[1]
if redis.call('SCARD', P .. 'unfinished') >= tonumber(ARGV[2]) then return 0 end
local j = P .. 'job:' .. id
local now = now_ms()
local expire = tonumber(ARGV[3]) + tonumber(ARGV[4])
redis.call('HSET', j, 'state', 'queued', 'created', now, 'page_count', ARGV[5],
           'pages_total', ARGV[6], 'pages_done', 0, 'next_emit', 0, 'result_bytes', 0,
           'max_result_bytes', ARGV[8], 'spec', ARGV[7], 'ttl_ms', ARGV[3],
           'deadline', now + tonumber(ARGV[4]), 'error_code', '', 'error', '')
redis.call('PEXPIRE', j, expire)
redis.call('SET', j .. ':upload', ARGV[9], 'PX', expire)
for i = 0, tonumber(ARGV[6]) - 1 do redis.call('RPUSH', P .. 'queue', id .. ':' .. i) end
redis.call('SADD', P .. 'unfinished', id)
return 1
)lua";

// ARGV: lease_ms, claim name. {id, index, lease member, spec, ms to the job's deadline} or nil.
// Pages of jobs that ended, or already read, are dropped from the queue on the way.
inline constexpr std::string_view kClaim = R"lua(
local now = now_ms()
for n = 1, 64 do
  local task = redis.call('LPOP', P .. 'queue')
  if not task then return false end
  local id, index = task_of(task)
  if pending(id, index) then
    local j = P .. 'job:' .. id
    if redis.call('HGET', j, 'state') == 'queued' then
      redis.call('HSET', j, 'state', 'running', 'started', now)
    end
    local member = task .. ':' .. ARGV[2]
    redis.call('ZADD', P .. 'leases', now + tonumber(ARGV[1]), member)
    local left = tonumber(redis.call('HGET', j, 'deadline')) - now
    return {id, index, member, redis.call('HGET', j, 'spec'), left}
  end
end
return false
)lua";

// ARGV: lease_ms, lease members. Only leases still held are renewed.
inline constexpr std::string_view kRenew = R"lua(
local expiry = now_ms() + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', P .. 'leases', 'XX', expiry, ARGV[i]) end
return 0
)lua";

// Expired leases back to the queue's head; jobs past their deadline failed; ids of ended or
// vanished jobs out of the unfinished set.
inline constexpr std::string_view kReap = R"lua(
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', now, 'LIMIT', 0, 256)
for _, member in ipairs(expired) do
  redis.call('ZREM', P .. 'leases', member)
  local id, index = task_of(member)
  if pending(id, index) then redis.call('LPUSH', P .. 'queue', id .. ':' .. index) end
end
for _, id in ipairs(redis.call('SMEMBERS', P .. 'unfinished')) do
  local j = P .. 'job:' .. id
  if not live(redis.call('HGET', j, 'state')) then
    redis.call('SREM', P .. 'unfinished', id)
  elseif tonumber(redis.call('HGET', j, 'deadline')) < now then
    finish(id, 'failed', 'deadline_exceeded',
           'the document took longer than --job-timeout; its work was stopped')
  end
end
return #expired
)lua";

// ARGV: lease members given up (shutdown, a stopped read): their pages back to the queue's head.
inline constexpr std::string_view kRelease = R"lua(
for i = 1, #ARGV do
  if redis.call('ZREM', P .. 'leases', ARGV[i]) == 1 then
    local id, index = task_of(ARGV[i])
    if pending(id, index) then redis.call('LPUSH', P .. 'queue', id .. ':' .. index) end
  end
end
return 0
)lua";

// ARGV: lease member, page. Stores the page once, logs progress and the pages now contiguous,
// ends the job after its last page. 1 stored, 0 not needed (the job ended, or read elsewhere).
inline constexpr std::string_view kComplete = R"lua(
local id, index = task_of(ARGV[1])
redis.call('ZREM', P .. 'leases', ARGV[1])
local j = P .. 'job:' .. id
if not live(redis.call('HGET', j, 'state')) then return 0 end
local pages = j .. ':pages'
if redis.call('HSETNX', pages, index, ARGV[2]) == 0 then return 0 end
local ttl = redis.call('PTTL', j)
if ttl > 0 then redis.call('PEXPIRE', pages, ttl) end
local limit = tonumber(redis.call('HGET', j, 'max_result_bytes'))
if redis.call('HINCRBY', j, 'result_bytes', #ARGV[2]) > limit then
  finish(id, 'failed', 'resource_exhausted', 'the results of this document passed ' ..
         math.floor(limit / 1048576) .. ' MB (--max-job-result-mb); send fewer pages at once')
  return 1
end
local events = j .. ':events'
redis.call('RPUSH', events, 'p' .. redis.call('HINCRBY', j, 'pages_done', 1))
local total = tonumber(redis.call('HGET', j, 'pages_total'))
local next = tonumber(redis.call('HGET', j, 'next_emit'))
while next < total and redis.call('HEXISTS', pages, next) == 1 do
  redis.call('RPUSH', events, 'g' .. next)
  next = next + 1
end
redis.call('HSET', j, 'next_emit', next)
if ttl > 0 then redis.call('PEXPIRE', events, ttl) end
if next == total then finish(id, 'succeeded', '', '') end
return 1
)lua";

// ARGV: lease member, error code, message. Fails the page's job.
inline constexpr std::string_view kFail = R"lua(
local id = task_of(ARGV[1])
redis.call('ZREM', P .. 'leases', ARGV[1])
if live(redis.call('HGET', P .. 'job:' .. id, 'state')) then finish(id, 'failed', ARGV[2], ARGV[3]) end
return 0
)lua";

// ARGV: id, message. Cancels an unfinished job or deletes a finished one; its state before, or
// nil when there is no such job.
inline constexpr std::string_view kDelete = R"lua(
local j = P .. 'job:' .. ARGV[1]
local state = redis.call('HGET', j, 'state')
if not state then return false end
if live(state) then
  finish(ARGV[1], 'cancelled', 'cancelled', ARGV[2])
else
  redis.call('DEL', j, j .. ':pages', j .. ':events', j .. ':upload')
end
return state
)lua";

// ARGV: job ids. Their states ("" for a job that is gone).
inline constexpr std::string_view kStates = R"lua(
local out = {}
for i = 1, #ARGV do out[i] = redis.call('HGET', P .. 'job:' .. ARGV[i], 'state') or '' end
return out
)lua";

inline std::string JobKey(std::string_view id) {
  return "onnxocr:job:" + std::string(id);
}

// A Status's code as stored with a failed job (StatusCodeName, which the scripts write too), and
// back, so a job failed on one replica reads the same on another.
inline std::string StoredCode(StatusCode code) {
  return std::string(StatusCodeName(code));
}

inline StatusCode CodeFromStored(std::string_view name) {
  return StatusCodeFromName(name).value_or(StatusCode::kInternal);
}

// A stored integer; 0 when the text is not one.
inline std::int64_t ToInt(std::string_view text) {
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// A time stored in Redis's milliseconds; nullopt when unset.
inline std::optional<std::chrono::system_clock::time_point> TimeOf(std::string_view ms) {
  const std::int64_t v = ToInt(ms);
  if (v <= 0)
    return std::nullopt;
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(v));
}

inline JobState StateFrom(std::string_view name) {
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded, JobState::kFailed,
                     JobState::kCancelled}) {
    if (StateName(s) == name)
      return s;
  }
  return JobState::kFailed;
}

}  // namespace ocr::jobs::internal
