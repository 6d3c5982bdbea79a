#include "http/request_path.h"

#include "common/text.h"

namespace ocr::http {
namespace {

// RFC 3986 section 2.3: the characters that mean the same whether encoded or not.
bool IsUnreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

Status Refused(std::string_view path, std::string_view why) {
  return InvalidArgument("the request path '" + PrintableEcho(path, 48) + "' " + std::string(why));
}

// A query's name or value decoded: '+' is a space, every escape decoded.
Result<std::string> FormDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
      continue;
    }
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 2 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    const int lo = hi >= 0 ? HexDigitValue(text[i + 2]) : -1;
    if (lo < 0) {
      return InvalidArgument("the query '" + PrintableEcho(text, 48) +
                             "' has a malformed percent escape (% must be followed by two hex "
                             "digits)");
    }
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0')
      return InvalidArgument("the query '" + PrintableEcho(text, 48) + "' contains an encoded NUL");
    out += c;
    i += 2;
  }
  return out;
}

}  // namespace

Result<std::optional<std::string>> QueryValue(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    const Result<std::string> key = FormDecode(pair.substr(0, eq));
    if (!key.ok() || *key != name)
      continue;
    if (eq == std::string_view::npos)
      return std::optional<std::string>(std::string());
    OCR_ASSIGN_OR_RETURN(std::string value, FormDecode(pair.substr(eq + 1)));
    return std::optional<std::string>(std::move(value));
  }
  return std::optional<std::string>();
}

Result<std::string> NormalizePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    const int hi = i + 2 < path.size() ? HexDigitValue(path[i + 1]) : -1;
    const int lo = hi >= 0 ? HexDigitValue(path[i + 2]) : -1;
    if (lo < 0)
      return Refused(path, "has a malformed percent escape (% must be followed by two hex digits)");
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0')
      return Refused(path, "contains an encoded NUL (%00)");
    if (IsUnreserved(c))
      out += c;
    else
      out.append(path.substr(i, 3));
    i += 2;
  }
  for (std::size_t start = 0; start < out.size();) {
    std::size_t end = out.find('/', start);
    if (end == std::string::npos)
      end = out.size();
    if (std::string_view(out).substr(start, end - start) == "..")
      return Refused(path, "has a \"..\" segment");
    start = end + 1;
  }
  return out;
}

}  // namespace ocr::http
