// A job's spec as stored in Redis with the job (jobs/redis_jobs.h), so that every replica reads
// its pages and shapes its answer alike: the model set's name, the answer's format and
// pagination, and every option of document/request_options.h. JSON with one key per option; a
// spec stored by a replica that lacked an option decodes to what that replica read with.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "document/answer.h"
#include "document/document.h"

namespace ocr::jobs {

// How a job reads its pages and shapes its answer, stored with it for any replica.
struct SharedJobSpec {
  std::string model;  // the model set's name; every replica must load the same sets
  document::AnswerShape answer;
  document::DocumentOptions options;  // the client's options (limits are each replica's own)
};

std::string EncodeJobSpec(const SharedJobSpec& spec);

// Where `spec`'s model set is in `model_names` (this server's sets, in their order; the first
// when the spec names none). Errors: kNotFound when this server has not loaded it.
Result<std::size_t> ModelIndex(const SharedJobSpec& spec,
                               const std::vector<std::string>& model_names);

// Errors: kInternal when `text` is not a spec (the store holds something else), or an option is
// out of its range.
Result<SharedJobSpec> DecodeJobSpec(std::string_view text);

}  // namespace ocr::jobs
