#include "cli/input_flags.h"

#include <string>

#include "cli/flag_wording.h"
#include "common/text.h"

namespace ocr::cli {
namespace {

// "det_limit_side_len" -> "ONNXOCR_DET_LIMIT_SIDE_LEN".
std::string EnvName(std::string_view flag) {
  std::string env = "ONNXOCR_";
  for (const char c : flag)
    env += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return env;
}

// Checks a flag's text with the option's own rule (and lower-cases a choice, as flags always
// took any case).
CLI::Validator RuleOf(const document::RequestOption& option) {
  return CLI::Validator(
      [&option](std::string& text) -> std::string {
        if (option.kind == document::OptionKind::kChoice)
          text = AsciiLower(text);
        const Result<document::OptionValue> value = document::ParseOptionText(option, text);
        return value.ok() ? std::string() : document::OptionRule(option, "the value");
      },
      "");
}

}  // namespace

document::DocumentOptions InputFlags::Options(document::DocumentOptions base) const {
  for (const auto& [option, flag] : flags) {
    if (flag->count() == 0)
      continue;
    const auto text = values.find(option->name);
    const Result<document::OptionValue> value = document::ParseOptionText(*option, text->second);
    if (value.ok())
      option->set(base, *value);
  }
  base.limits = limits;
  return base;
}

void AddInputFlags(CLI::App& cmd, InputFlags& f, unsigned where) {
  cmd.add_option("--models", f.models, "Model set NAME=DIR (repeatable; first is the default)")
      ->envname("ONNXOCR_MODELS")
      ->delimiter(',');
  cmd.add_option("--max-image-pixels", f.limits.max_image_pixels, "Largest image or page (w x h)")
      ->envname("ONNXOCR_MAX_IMAGE_PIXELS")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--max-pdf-pages", f.limits.max_pages,
                 "Longest PDF (pages) or TIFF (frames) accepted")
      ->envname("ONNXOCR_MAX_PDF_PAGES")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--pdf-dpi", f.limits.pdf_dpi,
                 "Resolution PDF pages are rendered at for OCR (a scanned page at its scan's own "
                 "resolution when that is lower)")
      ->envname("ONNXOCR_PDF_DPI")
      ->check(CLI::Range(36.0, 1200.0))
      ->capture_default_str();
  const document::DocumentOptions defaults;
  for (const document::RequestOption& option : document::RequestOptions()) {
    if ((option.where & where) == 0 || option.flag.empty())
      continue;
    std::string& text = f.values[std::string(option.name)];
    const std::string name = "--" + std::string(option.flag);
    const std::string shown = document::OptionText(option.get(defaults));
    // `run` speaks of its own flags (--format pdf), the server of the fields its flags default.
    std::string help =
        where == document::kRunFlag ? InFlagTerms(option.help) : std::string(option.help);
    CLI::Option* flag = nullptr;
    if (option.kind == document::OptionKind::kBool && !option.flag_value) {
      // A switch and its negation: --cls / --no-cls.
      help += shown == "true"
                  ? " (on by default; --no-" + std::string(option.flag) + " turns it off)"
                  : " (off by default)";
      flag = cmd.add_flag(name + ",!--no-" + std::string(option.flag), text, help);
    } else {
      flag = cmd.add_option(name, text, help)->check(RuleOf(option));
      switch (option.kind) {
        case document::OptionKind::kBool:
          flag->type_name("on|off")->default_str(shown == "true" ? "on" : "off");
          break;
        case document::OptionKind::kNumber:
          flag->type_name("NUMBER")->default_str(shown);
          break;
        case document::OptionKind::kWholeNumber:
          flag->type_name("INT")->default_str(shown);
          break;
        case document::OptionKind::kChoice:
          flag->type_name(std::string(option.choices))->default_str(shown);
          break;
        case document::OptionKind::kText:
          flag->type_name("TEXT")->default_str(shown);
          break;
      }
    }
    flag->envname(EnvName(option.flag));
    f.flags.emplace_back(&option, flag);
  }
}

}  // namespace ocr::cli
