#include "common/text.h"

#include <algorithm>
#include <optional>

#include "common/utf8.h"

namespace ocr {

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = AsciiLower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return AsciiLower(x) == AsciiLower(y);
         });
}

std::string_view TrimOws(std::string_view s) {
  auto ows = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && ows(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && ows(s.back()))
    s.remove_suffix(1);
  return s;
}

namespace {

// The entity of a character markup must escape (the apostrophe as `apos` spells it); null for
// any other.
const char* MarkupEntity(char32_t c, const char* apos) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return apos;
    default:
      return nullptr;
  }
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    const char* entity = MarkupEntity(static_cast<unsigned char>(c), "&#39;");
    if (entity != nullptr)
      out += entity;
    else
      out += c;
  }
  return out;
}

std::string PrintableEcho(std::string_view value, std::size_t max_bytes) {
  std::string out;
  for (char c : value.substr(0, max_bytes))
    out += (c >= 0x20 && c <= 0x7e) ? c : '?';
  if (value.size() > max_bytes)
    out += "...";
  return out;
}

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t begin = i;
    const std::optional<char32_t> c = NextCodePoint(text, i);
    if (!c || (*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r') || *c == 0xFFFE ||
        *c == 0xFFFF) {
      continue;
    }
    const char* entity = MarkupEntity(*c, "&apos;");
    if (entity != nullptr)
      out += entity;
    else
      out.append(text.substr(begin, i - begin));
  }
  return out;
}

}  // namespace ocr
