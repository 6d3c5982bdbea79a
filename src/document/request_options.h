// The options of a request that change what is read, declared once: name, type, range, default
// (DocumentOptions{}'s), help, and where each may be set. The JSON form and the multipart form
// (http/ocr_request.cpp), the job spec stored in Redis (jobs/job_spec_codec.cpp) and the flags
// of `onnxocr run`, `serve` and `bench` (cli/input_flags.cpp) all read this table, so an option
// is added in one place and a job read by another replica is read with every option it was
// given. What shapes the answer instead (output_format, paginate_output, pdfa: answer.h's
// AnswerShape; stream, model) is not here.
// Thread-safety: a constant table and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "common/status.h"
#include "document/document.h"

namespace ocr::document {

enum class OptionKind {
  kBool,         // the spellings of ParseBoolText; a JSON boolean
  kNumber,       // a decimal number within [min, max]
  kWholeNumber,  // an integer within [min, max]
  kChoice,       // one of `choices`
  kText,         // any text, checked where it is used (page_range)
};

// Where an option may be set besides a stored job spec, which carries every option.
enum OptionWhere : unsigned {
  kJsonForm = 1u << 0,       // {"image": ...}: POST /ocr, /ocr_api
  kMultipartForm = 1u << 1,  // POST /ocr, /jobs, /marker/upload
  kRunFlag = 1u << 2,        // onnxocr run
  kServerFlag = 1u << 3,     // onnxocr serve and bench: the default of every request
};

using OptionValue = std::variant<bool, double, std::int64_t, std::string>;

struct RequestOption {
  std::string_view name;  // the forms' field and the job spec's key
  OptionKind kind;
  unsigned where;  // OptionWhere bits
  // The flag without its dashes. A kBool flag is a switch (--cls, and --no-cls to turn it off)
  // unless flag_value, where it takes on|off as the contract spells --text-normalization.
  std::string_view flag;
  bool flag_value = false;
  double min = 0;  // kNumber, kWholeNumber: the inclusive range
  double max = 0;
  std::string_view choices;  // kChoice: "max|min|auto"
  std::string_view help;
  // How a job spec stored by a replica without this option was read (its text; "": the
  // default), so that every replica reads an older job's pages as it was admitted.
  std::string_view unstored;
  // The option's field in DocumentOptions. set REQUIRES a value CheckOption accepts.
  OptionValue (*get)(const DocumentOptions& options);
  void (*set)(DocumentOptions& options, const OptionValue& value);
};

// Every option, in the order the forms document them.
std::span<const RequestOption> RequestOptions();

// The option called `name`; null when none is.
const RequestOption* FindRequestOption(std::string_view name);

// The rule a bad value breaks, naming the option as `as` (its name when empty): "drop_score must
// be a number from 0 to 1", "det_limit_type must be max, min or auto".
std::string OptionRule(const RequestOption& option, std::string_view as = {});

// A value of the option's kind within its range and choices; kInvalidArgument with OptionRule
// otherwise (and for a value of another kind: a string for kBool, ...).
Status CheckOption(const RequestOption& option, const OptionValue& value);

// Text as the multipart form and the flags spell it, checked; kInvalidArgument with the rule.
Result<OptionValue> ParseOptionText(const RequestOption& option, std::string_view text);

// Checks `value` and sets it in `options`.
Status SetOption(const RequestOption& option, const OptionValue& value, DocumentOptions& options);

// The value as ParseOptionText reads it back ("true", "0.5", "auto").
std::string OptionText(const OptionValue& value);

// The booleans marker's server takes (pydantic's): true/false, 1/0, yes/no, on/off, t/f, y/n in
// any case. kInvalidArgument naming `field` otherwise.
Result<bool> ParseBoolText(std::string_view field, std::string_view value);

}  // namespace ocr::document
