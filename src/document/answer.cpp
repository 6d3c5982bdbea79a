#include "document/answer.h"

#include <array>
#include <string>

#include "common/text.h"

namespace ocr::document {
namespace {

struct NamedFormat {
  std::string_view name;
  OutputFormat format;
};

constexpr std::array<NamedFormat, 8> kFormats = {{
    {"json", OutputFormat::kJson},
    {"markdown", OutputFormat::kMarkdown},
    {"html", OutputFormat::kHtml},
    {"text", OutputFormat::kText},
    {"hocr", OutputFormat::kHocr},
    {"alto", OutputFormat::kAlto},
    {"pdf", OutputFormat::kPdf},
    {"csv", OutputFormat::kCsv},
}};

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (const NamedFormat& f : kFormats) {
    if (EqualsIgnoreCase(name, f.name)) {
      return f.format;
    }
  }
  std::string names;
  for (const NamedFormat& f : kFormats)
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  return InvalidArgument("output_format must be one of " + names + " (got '" + PrintableEcho(name) +
                         "')");
}

std::string_view OutputFormatName(OutputFormat format) {
  for (const NamedFormat& f : kFormats) {
    if (f.format == format) {
      return f.name;
    }
  }
  return "json";  // unreachable: every enumerator is in kFormats
}

bool NeedsWordBoxes(OutputFormat format) {
  return format == OutputFormat::kHocr || format == OutputFormat::kAlto ||
         format == OutputFormat::kPdf;
}

}  // namespace ocr::document
