#include "cli/flag_wording.h"

#include <utility>
#include <vector>

#include "document/request_options.h"

namespace ocr::cli {
namespace {

// Field -> flag (without dashes) pairs: the shaping fields that are not request options, then
// every option of the table that `run` takes as a flag.
std::vector<std::pair<std::string_view, std::string_view>> FieldFlags() {
  std::vector<std::pair<std::string_view, std::string_view>> pairs = {
      {"output_format", "format"}, {"paginate_output", "paginate"}};
  for (const document::RequestOption& option : document::RequestOptions()) {
    if ((option.where & document::kRunFlag) != 0 && !option.flag.empty() &&
        option.name.find('_') != std::string_view::npos) {
      pairs.emplace_back(option.name, option.flag);
    }
  }
  return pairs;
}

bool IsNamePart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A field name starts at `at` only after a character that cannot continue a name or a path.
bool StartsName(std::string_view text, std::size_t at) {
  if (at == 0)
    return true;
  const char before = text[at - 1];
  return !IsNamePart(before) && before != '/' && before != '.' && before != '-';
}

// And it ends before one that cannot continue it (a sentence's full stop does not).
bool EndsName(std::string_view text, std::size_t end) {
  if (end == text.size())
    return true;
  const char after = text[end];
  if (IsNamePart(after) || after == '/' || after == '-')
    return false;
  return after != '.' || end + 1 == text.size() || !IsNamePart(text[end + 1]);
}

}  // namespace

std::string InFlagTerms(std::string_view message) {
  static const std::vector<std::pair<std::string_view, std::string_view>> pairs = FieldFlags();
  std::string out;
  out.reserve(message.size());
  std::size_t i = 0;
  while (i < message.size()) {
    bool replaced = false;
    if (StartsName(message, i)) {
      for (const auto& [field, flag] : pairs) {
        const std::size_t end = i + field.size();
        if (message.substr(i, field.size()) != field || !EndsName(message, end))
          continue;
        out += "--";
        out += flag;
        i = end;
        if (i < message.size() && message[i] == '=') {
          out += ' ';
          ++i;
        }
        replaced = true;
        break;
      }
    }
    if (!replaced)
      out += message[i++];
  }
  return out;
}

}  // namespace ocr::cli
