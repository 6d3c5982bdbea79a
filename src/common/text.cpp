#include "common/text.h"

#include <algorithm>

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

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
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

}  // namespace ocr
