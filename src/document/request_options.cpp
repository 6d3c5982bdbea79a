#include "document/request_options.h"

#include <array>
#include <charconv>
#include <optional>
#include <sstream>

#include "common/text.h"

namespace ocr::document {
namespace {

using pipeline::LimitType;

constexpr unsigned kEverywhere = kJsonForm | kMultipartForm | kRunFlag | kServerFlag;
constexpr unsigned kDocumentForms = kMultipartForm | kRunFlag | kServerFlag;

// Sized by its entries, so that taking one out leaves no empty entry behind.
const auto kOptions = std::to_array<RequestOption>({
    {"cls", OptionKind::kBool, kEverywhere, "cls", false, 0, 0, "",
     "Turn text lines that the direction classifier finds upside down (ignored by model sets "
     "without a classifier)",
     "", [](const DocumentOptions& o) -> OptionValue { return o.ocr.use_cls; },
     [](DocumentOptions& o, const OptionValue& v) { o.ocr.use_cls = std::get<bool>(v); }},
    {"drop_score", OptionKind::kNumber, kEverywhere, "drop-score", false, 0, 1, "",
     "Drop lines whose confidence is below this", "",
     [](const DocumentOptions& o) -> OptionValue { return double{o.ocr.drop_score}; },
     [](DocumentOptions& o, const OptionValue& v) {
       o.ocr.drop_score = static_cast<float>(std::get<double>(v));
     }},
    {"return_word_boxes", OptionKind::kBool, kEverywhere, "word-boxes", false, 0, 0, "",
     "Each line also lists its words with their own boxes", "",
     [](const DocumentOptions& o) -> OptionValue { return o.ocr.read_words; },
     [](DocumentOptions& o, const OptionValue& v) { o.ocr.read_words = std::get<bool>(v); }},
    {"det_limit_side_len", OptionKind::kWholeNumber, kEverywhere, "det-limit-side-len", false,
     pipeline::kMinDetLimitSideLen, pipeline::kMaxDetSide, "",
     "Detection resolution: the side --det-limit-type bounds, in pixels", "",
     [](const DocumentOptions& o) -> OptionValue { return std::int64_t{o.ocr.det.limit_side_len}; },
     [](DocumentOptions& o, const OptionValue& v) {
       o.ocr.det.limit_side_len = static_cast<int>(std::get<std::int64_t>(v));
     }},
    {"det_limit_type", OptionKind::kChoice, kEverywhere, "det-limit-type", false, 0, 0,
     "max|min|auto",
     "max: shrink the longer side to the limit (the reference's); min: grow the shorter side to "
     "it (PaddleOCR 3.x's); auto: max, then again finer where the text is small",
     "max",
     [](const DocumentOptions& o) -> OptionValue {
       return std::string(pipeline::LimitTypeName(o.ocr.det.limit_type));
     },
     [](DocumentOptions& o, const OptionValue& v) {
       o.ocr.det.limit_type =
           pipeline::ParseLimitType(std::get<std::string>(v)).value_or(LimitType::kAuto);
     }},
    {"text_normalization", OptionKind::kBool, kEverywhere, "text-normalization", true, 0, 0, "",
     "on: write the word spaces the recognizer saw but lost to the blank; off: its raw output, "
     "as the reference pipeline gives it",
     "false", [](const DocumentOptions& o) -> OptionValue { return o.ocr.text_normalization; },
     [](DocumentOptions& o, const OptionValue& v) {
       o.ocr.text_normalization = std::get<bool>(v);
     }},
    {"lexicon", OptionKind::kBool, kEverywhere, "lexicon", true, 0, 0, "",
     "on: a Latin word the recognizer is unsure of and that is no English word becomes the word "
     "of Debian's list, an edit or two away, that its columns nearly spell as well, and a period "
     "read in the gap after an English word becomes the space; off: the recognizer's best path, "
     "as the reference pipeline reads",
     "false", [](const DocumentOptions& o) -> OptionValue { return o.ocr.rec.lexicon; },
     [](DocumentOptions& o, const OptionValue& v) { o.ocr.rec.lexicon = std::get<bool>(v); }},
    {"force_ocr", OptionKind::kBool, kDocumentForms, "force-ocr", false, 0, 0, "",
     "PDFs: OCR every page, even where it has a text layer", "",
     [](const DocumentOptions& o) -> OptionValue { return o.force_ocr; },
     [](DocumentOptions& o, const OptionValue& v) { o.force_ocr = std::get<bool>(v); }},
    {"page_range", OptionKind::kText, kMultipartForm | kRunFlag, "pages", false, 0, 0, "",
     "Pages of a PDF or frames of a TIFF, e.g. 0-3,7 (from 0); all when absent", "",
     [](const DocumentOptions& o) -> OptionValue { return o.page_range; },
     [](DocumentOptions& o, const OptionValue& v) { o.page_range = std::get<std::string>(v); }},
    // Not a request's to choose (onnxocr run --reference turns them off), but they change what
    // is read, so a stored job carries them to the replicas that read its pages.
    {"page_vote", OptionKind::kBool, 0, "", false, 0, 0, "",
     "Read every line of a page in the direction 3/4 of its lines face", "",
     [](const DocumentOptions& o) -> OptionValue { return o.ocr.cls.page_vote; },
     [](DocumentOptions& o, const OptionValue& v) { o.ocr.cls.page_vote = std::get<bool>(v); }},
    {"stretch_contrast", OptionKind::kBool, 0, "", false, 0, 0, "",
     "Stretch a low-contrast page to the full range before detection", "",
     [](const DocumentOptions& o) -> OptionValue { return o.ocr.det.stretch_contrast; },
     [](DocumentOptions& o, const OptionValue& v) {
       o.ocr.det.stretch_contrast = std::get<bool>(v);
     }},
});

std::string NumberText(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "max|min|auto" -> "max, min or auto".
std::string ChoicesText(std::string_view choices) {
  std::string text;
  while (!choices.empty()) {
    const std::size_t bar = choices.find('|');
    const std::string_view choice = choices.substr(0, bar);
    choices = bar == std::string_view::npos ? std::string_view() : choices.substr(bar + 1);
    if (!text.empty())
      text += choices.empty() ? " or " : ", ";
    text += choice;
  }
  return text;
}

bool IsChoice(std::string_view choices, std::string_view value) {
  for (;;) {
    const std::size_t bar = choices.find('|');
    if (choices.substr(0, bar) == value)
      return true;
    if (bar == std::string_view::npos)
      return false;
    choices.remove_prefix(bar + 1);
  }
}

Status Broken(const RequestOption& option) {
  return InvalidArgument(OptionRule(option));
}

// Whole text as a number of type T; nullopt when it is not one.
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

}  // namespace

std::span<const RequestOption> RequestOptions() {
  return kOptions;
}

const RequestOption* FindRequestOption(std::string_view name) {
  for (const RequestOption& option : kOptions) {
    if (option.name == name)
      return &option;
  }
  return nullptr;
}

std::string OptionRule(const RequestOption& option, std::string_view as) {
  const std::string name(as.empty() ? option.name : as);
  switch (option.kind) {
    case OptionKind::kBool:
      return name + " must be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n";
    case OptionKind::kNumber:
      return name + " must be a number from " + NumberText(option.min) + " to " +
             NumberText(option.max);
    case OptionKind::kWholeNumber:
      return name + " must be a whole number from " + NumberText(option.min) + " to " +
             NumberText(option.max);
    case OptionKind::kChoice:
      return name + " must be " + ChoicesText(option.choices);
    case OptionKind::kText:
      return name + " must be text";
  }
  return name + " is not valid";
}

Status CheckOption(const RequestOption& option, const OptionValue& value) {
  switch (option.kind) {
    case OptionKind::kBool:
      return std::holds_alternative<bool>(value) ? Status::Ok() : Broken(option);
    case OptionKind::kNumber: {
      const double* v = std::get_if<double>(&value);
      return v != nullptr && *v >= option.min && *v <= option.max ? Status::Ok() : Broken(option);
    }
    case OptionKind::kWholeNumber: {
      const std::int64_t* v = std::get_if<std::int64_t>(&value);
      return v != nullptr && static_cast<double>(*v) >= option.min &&
                     static_cast<double>(*v) <= option.max
                 ? Status::Ok()
                 : Broken(option);
    }
    case OptionKind::kChoice: {
      const std::string* v = std::get_if<std::string>(&value);
      return v != nullptr && IsChoice(option.choices, *v) ? Status::Ok() : Broken(option);
    }
    case OptionKind::kText:
      return std::holds_alternative<std::string>(value) ? Status::Ok() : Broken(option);
  }
  return Broken(option);
}

Result<OptionValue> ParseOptionText(const RequestOption& option, std::string_view text) {
  OptionValue value;
  switch (option.kind) {
    case OptionKind::kBool: {
      const Result<bool> b = ParseBoolText(option.name, text);
      if (!b.ok())
        return Broken(option);
      value = *b;
      break;
    }
    case OptionKind::kNumber: {
      const std::optional<double> v = ParseWhole<double>(text);
      if (!v)
        return Broken(option);
      value = *v;
      break;
    }
    case OptionKind::kWholeNumber: {
      const std::optional<std::int64_t> v = ParseWhole<std::int64_t>(text);
      if (!v)
        return Broken(option);
      value = *v;
      break;
    }
    case OptionKind::kChoice:
    case OptionKind::kText:
      value = std::string(text);
      break;
  }
  OCR_RETURN_IF_ERROR(CheckOption(option, value));
  return value;
}

Status SetOption(const RequestOption& option, const OptionValue& value, DocumentOptions& options) {
  OCR_RETURN_IF_ERROR(CheckOption(option, value));
  option.set(options, value);
  return Status::Ok();
}

std::string OptionText(const OptionValue& value) {
  if (const bool* b = std::get_if<bool>(&value))
    return *b ? "true" : "false";
  if (const double* d = std::get_if<double>(&value))
    return NumberText(*d);
  if (const std::int64_t* i = std::get_if<std::int64_t>(&value))
    return std::to_string(*i);
  return std::get<std::string>(value);
}

Result<bool> ParseBoolText(std::string_view field, std::string_view value) {
  // The spellings marker's server takes (pydantic's booleans); an HTML checkbox sends "on".
  const std::string v = AsciiLower(value);
  for (const std::string_view yes : {"true", "1", "yes", "on", "t", "y"}) {
    if (v == yes)
      return true;
  }
  for (const std::string_view no : {"false", "0", "no", "off", "f", "n"}) {
    if (v == no)
      return false;
  }
  return InvalidArgument(std::string(field) +
                         " must be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n");
}

}  // namespace ocr::document
