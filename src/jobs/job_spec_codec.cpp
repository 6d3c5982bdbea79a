#include "jobs/job_spec_codec.h"

#include <algorithm>
#include <exception>

#include <nlohmann/json.hpp>

#include "document/request_options.h"

namespace ocr::jobs {
namespace {

using Json = nlohmann::json;

// The stored key of an option. Word boxes keep the key replicas wrote before the options were
// one table, so that a replica of either version reads the other's jobs.
std::string_view StoredKey(const document::RequestOption& option) {
  return option.name == "return_word_boxes" ? "word_boxes" : option.name;
}

Json ToJson(const document::OptionValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

// A stored value as the option's kind; nullopt when the JSON type does not fit it.
std::optional<document::OptionValue> FromJson(const document::RequestOption& option,
                                              const Json& j) {
  switch (option.kind) {
    case document::OptionKind::kBool:
      if (j.is_boolean())
        return j.get<bool>();
      break;
    case document::OptionKind::kNumber:
      if (j.is_number())
        return j.get<double>();
      break;
    case document::OptionKind::kWholeNumber:
      if (j.is_number_integer())
        return j.get<std::int64_t>();
      break;
    case document::OptionKind::kChoice:
    case document::OptionKind::kText:
      if (j.is_string())
        return j.get<std::string>();
      break;
  }
  return std::nullopt;
}

Status Corrupt(std::string_view why) {
  return {StatusCode::kInternal, "a stored job spec does not decode (" + std::string(why) + ")"};
}

}  // namespace

std::string EncodeJobSpec(const SharedJobSpec& spec) {
  Json j = {{"model", spec.model},
            {"format", document::OutputFormatName(spec.answer.format)},
            {"paginate", spec.answer.paginate},
            {"listed_word_boxes", spec.answer.list_words},
            {"pdfa", spec.answer.pdfa}};
  for (const document::RequestOption& option : document::RequestOptions())
    j[std::string(StoredKey(option))] = ToJson(option.get(spec.options));
  return j.dump();
}

Result<std::size_t> ModelIndex(const SharedJobSpec& spec,
                               const std::vector<std::string>& model_names) {
  if (spec.model.empty())
    return std::size_t{0};
  const auto model = std::find(model_names.begin(), model_names.end(), spec.model);
  if (model == model_names.end())
    return Status(StatusCode::kNotFound, "the model set '" + spec.model + "' is not loaded here");
  return static_cast<std::size_t>(model - model_names.begin());
}

Result<SharedJobSpec> DecodeJobSpec(std::string_view text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return Corrupt("not a JSON object");
  SharedJobSpec spec;
  const auto model = j.find("model");
  const auto format = j.find("format");
  const auto paginate = j.find("paginate");
  if (model == j.end() || !model->is_string() || format == j.end() || !format->is_string() ||
      paginate == j.end() || !paginate->is_boolean()) {
    return Corrupt("model, format or paginate missing");
  }
  spec.model = model->get<std::string>();
  const Result<document::OutputFormat> parsed =
      document::ParseOutputFormat(format->get_ref<const std::string&>());
  if (!parsed.ok())
    return Corrupt(parsed.status().message());
  spec.answer.format = *parsed;
  spec.answer.paginate = paginate->get<bool>();
  // Stored with the reading options until the answer was one value: the same key either way.
  const auto pdfa = j.find("pdfa");
  if (pdfa != j.end() && !pdfa->is_boolean())
    return Corrupt("pdfa has the wrong type");
  spec.answer.pdfa = pdfa != j.end() && pdfa->get<bool>();
  for (const document::RequestOption& option : document::RequestOptions()) {
    const auto stored = j.find(StoredKey(option));
    Result<document::OptionValue> value = Status(StatusCode::kInternal, "");
    if (stored != j.end()) {
      const std::optional<document::OptionValue> v = FromJson(option, *stored);
      if (!v)
        return Corrupt(std::string(option.name) + " has the wrong type");
      value = *v;
    } else if (!option.unstored.empty()) {
      value = document::ParseOptionText(option, option.unstored);
    } else {
      continue;  // the default, which the replica that stored it read with
    }
    if (!value.ok())
      return Corrupt(value.status().message());
    if (Status set = document::SetOption(option, *value, spec.options); !set.ok())
      return Corrupt(set.message());
  }
  // Stored before words could be read without being listed: they were listed when read.
  const auto listed = j.find("listed_word_boxes");
  spec.answer.list_words =
      listed != j.end() && listed->is_boolean() ? listed->get<bool>() : spec.options.ocr.read_words;
  return spec;
}

}  // namespace ocr::jobs
