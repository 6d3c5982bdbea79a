#include "http/multipart.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "common/text.h"
#include "common/utf8.h"

namespace ocr::http {
namespace {

constexpr std::size_t kMaxBoundaryChars = 70;  // RFC 2046 section 5.1.1
constexpr std::size_t kNpos = std::string_view::npos;

bool IsOws(char c) {
  return c == ' ' || c == '\t';
}

// Control bytes other than HTAB: never legitimate in a header line, and CR/LF/NUL in a value we
// hand on could split log lines or truncate C strings downstream.
bool IsCtl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7F;
}

// RFC 9110 tchar.
bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != kNpos;
}

Status Malformed(std::string_view what) {
  return InvalidArgument("malformed multipart body: " + std::string(what));
}

// Splits "type; params" into the OWS-trimmed leading value and the rest from the first ';'.
std::pair<std::string_view, std::string_view> SplitLeadingValue(std::string_view text) {
  const std::size_t semi = text.find(';');
  if (semi == kNpos)
    return {TrimOws(text), {}};
  return {TrimOws(text.substr(0, semi)), text.substr(semi)};
}

// Reads a quoted-string starting at text[*i] == '"' into `out`, leaving *i past the closing quote.
// A backslash escapes only '"' and '\': browsers send filenames with bare backslashes unescaped,
// and RFC-style senders only ever need to escape those two.
Status ReadQuoted(std::string_view text, std::size_t* i, std::string* out) {
  for (std::size_t k = *i + 1; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '"') {
      *i = k + 1;
      return Status::Ok();
    }
    if (c == '\\' && k + 1 < text.size() && (text[k + 1] == '"' || text[k + 1] == '\\')) {
      out->push_back(text[++k]);
      continue;
    }
    if (IsCtl(c))
      return InvalidArgument("control character in a quoted parameter value");
    out->push_back(c);
  }
  return InvalidArgument("unterminated quoted parameter value");
}

// Parses `*( OWS ";" OWS [ name OWS "=" OWS value ] ) OWS` (RFC 9110 section 5.6.6, with OWS
// around '=' tolerated) and calls `on_param(name, value)` -> Status for each parameter. Callers
// detect duplicates of the names they read; other parameters are only syntax-checked, which keeps
// this linear however many parameters a hostile header carries.
template <typename OnParam>
Status ParseParameters(std::string_view text, OnParam&& on_param) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  const auto skip_ows = [&] {
    while (i < n && IsOws(text[i]))
      ++i;
  };
  while (true) {
    skip_ows();
    if (i == n)
      return Status::Ok();
    if (text[i] != ';')
      return InvalidArgument("expected ';' between parameters");
    ++i;
    skip_ows();
    if (i == n || text[i] == ';')
      continue;  // empty parameter, allowed by RFC 9110
    const std::size_t name_begin = i;
    while (i < n && IsTokenChar(text[i]))
      ++i;
    if (i == name_begin)
      return InvalidArgument("invalid character in a parameter name");
    const std::string_view name = text.substr(name_begin, i - name_begin);
    skip_ows();
    if (i == n || text[i] != '=')
      return InvalidArgument("parameter without '=' and a value");
    ++i;
    skip_ows();
    std::string value;
    if (i < n && text[i] == '"') {
      OCR_RETURN_IF_ERROR(ReadQuoted(text, &i, &value));
    } else {
      const std::size_t value_begin = i;
      while (i < n && text[i] != ';' && !IsOws(text[i])) {
        if (text[i] == '"' || IsCtl(text[i])) {
          return InvalidArgument("invalid character in an unquoted parameter value");
        }
        ++i;
      }
      if (i == value_begin)
        return InvalidArgument("parameter with an empty value");
      value.assign(text.substr(value_begin, i - value_begin));
    }
    OCR_RETURN_IF_ERROR(on_param(name, std::move(value)));
  }
}

// Stores `value` in `*slot`, refusing a second occurrence: two names or two filenames would let
// different components of a pipeline each see a different one.
Status SetOnce(std::optional<std::string>* slot, std::string value, std::string_view what) {
  if (slot->has_value())
    return InvalidArgument("repeated " + std::string(what) + " parameter");
  *slot = std::move(value);
  return Status::Ok();
}

// Decodes an RFC 8187 ext-value, charset'language'percent-encoded, into UTF-8.
Result<std::string> DecodeExtValue(std::string_view value) {
  const std::size_t quote1 = value.find('\'');
  const std::size_t quote2 = quote1 == kNpos ? kNpos : value.find('\'', quote1 + 1);
  if (quote2 == kNpos)
    return InvalidArgument("expected charset'language'value");
  const std::string_view charset = value.substr(0, quote1);
  const bool latin1 = EqualsIgnoreCase(charset, "iso-8859-1");
  if (!latin1 && !EqualsIgnoreCase(charset, "utf-8")) {
    return InvalidArgument("unsupported charset (only UTF-8 and ISO-8859-1)");
  }
  std::string bytes;
  for (std::size_t i = quote2 + 1; i < value.size(); ++i) {
    char c = value[i];
    if (c == '%') {
      const int high = i + 2 < value.size() ? HexDigitValue(value[i + 1]) : -1;
      const int low = high < 0 ? -1 : HexDigitValue(value[i + 2]);
      if (low < 0)
        return InvalidArgument("'%' not followed by two hex digits");
      c = static_cast<char>(high * 16 + low);
      i += 2;
    }
    // Decoding is how a CR, LF or NUL would sneak past the header-line check.
    if (IsCtl(c) || c == '\t')
      return InvalidArgument("decodes to a control character");
    bytes.push_back(c);
  }
  if (!latin1) {
    if (!IsValidUtf8(bytes))
      return InvalidArgument("not valid UTF-8");
    return bytes;
  }
  std::string utf8;
  utf8.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      utf8.push_back(c);
    } else {
      utf8.push_back(static_cast<char>(0xC0 | (u >> 6)));
      utf8.push_back(static_cast<char>(0x80 | (u & 0x3F)));
    }
  }
  return utf8;
}

struct PartHeaders {
  std::string name;
  std::string filename;
  std::string content_type;
  std::size_t body_begin = 0;  // index in the multipart body just past the blank line
};

// Fills name and filename from a Content-Disposition value.
Status ApplyContentDisposition(std::string_view value, PartHeaders* headers) {
  const auto [type, params] = SplitLeadingValue(value);
  if (!EqualsIgnoreCase(type, "form-data")) {
    return Malformed("Content-Disposition is not form-data");
  }
  std::optional<std::string> name;
  std::optional<std::string> filename;
  std::optional<std::string> filename_ext;
  const Status parsed = ParseParameters(params, [&](std::string_view key, std::string v) {
    if (EqualsIgnoreCase(key, "name"))
      return SetOnce(&name, std::move(v), "name");
    if (EqualsIgnoreCase(key, "filename"))
      return SetOnce(&filename, std::move(v), "filename");
    if (EqualsIgnoreCase(key, "filename*")) {
      return SetOnce(&filename_ext, std::move(v), "filename*");
    }
    return Status::Ok();
  });
  if (!parsed.ok())
    return Malformed("Content-Disposition: " + parsed.message());
  if (!name.has_value())
    return Malformed("Content-Disposition has no name");
  if (name->empty())
    return Malformed("Content-Disposition has an empty name");
  headers->name = std::move(*name);
  if (filename_ext.has_value()) {
    // RFC 6266 section 4.3: filename* wins; filename is the fallback for old recipients.
    Result<std::string> decoded = DecodeExtValue(*filename_ext);
    if (!decoded.ok())
      return Malformed("Content-Disposition filename*: " + decoded.status().message());
    headers->filename = std::move(decoded).value();
  } else if (filename.has_value()) {
    headers->filename = std::move(*filename);
  }
  return Status::Ok();
}

// Checks one header line (line break removed) and records Content-Disposition / Content-Type.
Status ReadHeaderLine(std::string_view line, std::optional<std::string_view>* disposition,
                      std::optional<std::string_view>* content_type) {
  // Folding is obsolete (RFC 9110) and forbidden in form-data (RFC 7578 section 4.8); accepting it
  // would mean guessing which header a continuation belongs to.
  if (IsOws(line.front()))
    return Malformed("folded part header line");
  const std::size_t colon = line.find(':');
  if (colon == kNpos)
    return Malformed("part header line without ':'");
  const std::string_view name = line.substr(0, colon);
  if (name.empty() || !std::all_of(name.begin(), name.end(), IsTokenChar)) {
    return Malformed("invalid part header name");
  }
  const std::string_view value = TrimOws(line.substr(colon + 1));
  if (std::any_of(value.begin(), value.end(), IsCtl)) {
    return Malformed("control character in a part header");
  }
  std::optional<std::string_view>* slot = nullptr;
  if (EqualsIgnoreCase(name, "content-disposition"))
    slot = disposition;
  if (EqualsIgnoreCase(name, "content-type"))
    slot = content_type;
  if (slot == nullptr)
    return Status::Ok();  // other headers carry nothing we use
  if (slot->has_value())
    return Malformed("repeated " + std::string(name) + " header");
  *slot = value;
  return Status::Ok();
}

// Parses the header block that starts at body[begin] (just past a delimiter line).
Result<PartHeaders> ParsePartHeaders(std::string_view body, std::size_t begin,
                                     std::size_t max_header_bytes) {
  // Only this window is ever scanned, so a header block that never ends costs at most
  // max_header_bytes, not the rest of a large upload.
  const std::size_t window_end = begin + std::min(body.size() - begin, max_header_bytes);
  const std::string_view window = body.substr(0, window_end);
  std::optional<std::string_view> disposition;
  std::optional<std::string_view> content_type;
  std::size_t pos = begin;
  while (true) {
    const std::size_t newline = window.find('\n', pos);
    if (newline == kNpos) {
      if (window_end == body.size())
        return Malformed("body ends inside part headers");
      return Malformed("part headers exceed " + std::to_string(max_header_bytes) + " bytes");
    }
    std::string_view line = window.substr(pos, newline - pos);
    pos = newline + 1;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);  // CRLF, or bare LF
    if (line.empty())
      break;
    OCR_RETURN_IF_ERROR(ReadHeaderLine(line, &disposition, &content_type));
  }
  if (!disposition.has_value())
    return Malformed("part without a Content-Disposition header");
  PartHeaders headers;
  OCR_RETURN_IF_ERROR(ApplyContentDisposition(*disposition, &headers));
  if (content_type.has_value())
    headers.content_type.assign(*content_type);
  headers.body_begin = pos;
  return headers;
}

// RFC 2046 limits, plus the framing rule FindDelimiter relies on.
Status CheckBoundary(std::string_view boundary) {
  if (boundary.empty())
    return InvalidArgument("multipart boundary is empty");
  if (boundary.size() > kMaxBoundaryChars) {
    return InvalidArgument("multipart boundary is " + std::to_string(boundary.size()) +
                           " characters, over the limit of 70");
  }
  // RFC 2046 bchars are narrower, but real clients quote boundaries with other printable
  // characters. Nothing beyond printable ASCII: above all no CR, which FindDelimiter needs.
  const bool printable = std::all_of(boundary.begin(), boundary.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F;
  });
  if (!printable)
    return InvalidArgument("multipart boundary has a non-printable character");
  // RFC 2046: a trailing space is indistinguishable from transport padding on the delimiter line.
  if (boundary.back() == ' ')
    return InvalidArgument("multipart boundary ends with a space");
  return Status::Ok();
}

// Returns the index of the first `delimiter` (CRLF "--" boundary) in body[from..], or kNpos.
// REQUIRES: delimiter[0] is its only CR (CheckBoundary passed).
// Not Boyer-Moore-Horspool: the client picks the boundary, and boundary "aaa...a" over a body of
// 'a's makes BMH compare ~70 bytes per byte (1.5 s for 20 MB). Here a partial match of k bytes
// holds no CR after its first, so no match can start inside it and the scan resumes past it: at
// most one comparison per byte, with memchr (string_view::find) skipping CR-free stretches.
std::size_t FindDelimiter(std::string_view body, std::string_view delimiter, std::size_t from) {
  const std::size_t length = delimiter.size();
  if (body.size() < length)
    return kNpos;
  const std::size_t last_start = body.size() - length;
  std::size_t i = from;
  while (i <= last_start) {
    if (body[i] != '\r') {
      i = body.find('\r', i);
      if (i == kNpos || i > last_start)
        return kNpos;
    }
    std::size_t matched = 1;
    while (matched < length && body[i + matched] == delimiter[matched])
      ++matched;
    if (matched == length)
      return i;
    i += matched;
  }
  return kNpos;
}

enum class AfterDelimiter { kClose, kPart, kGarbage };

// Classifies the bytes after a dash-boundary at body[*pos]; for kPart, moves *pos past the line
// break that ends the delimiter line.
AfterDelimiter ReadDelimiterTail(std::string_view body, std::size_t* pos) {
  const std::string_view rest = body.substr(*pos);
  if (rest.starts_with("--"))
    return AfterDelimiter::kClose;  // the epilogue is ignored
  std::size_t i = 0;
  while (i < rest.size() && IsOws(rest[i]))
    ++i;  // transport padding (RFC 2046)
  // The body ends right after a delimiter: only the close marker is missing, and every part
  // before it was complete, so accept it as servers behind browsers do.
  if (i == rest.size())
    return AfterDelimiter::kClose;
  if (rest.substr(i).starts_with("\r\n")) {
    *pos += i + 2;
  } else if (rest[i] == '\n') {
    *pos += i + 1;
  } else {
    return AfterDelimiter::kGarbage;
  }
  return AfterDelimiter::kPart;
}

}  // namespace

Result<std::string> MultipartBoundary(std::string_view content_type) {
  if (TrimOws(content_type).empty())
    return InvalidArgument("Content-Type header is empty");
  const auto [media_type, params] = SplitLeadingValue(content_type);
  if (!EqualsIgnoreCase(media_type, "multipart/form-data")) {
    return InvalidArgument("Content-Type is not multipart/form-data");
  }
  std::optional<std::string> boundary;
  const Status parsed = ParseParameters(params, [&](std::string_view name, std::string value) {
    if (!EqualsIgnoreCase(name, "boundary"))
      return Status::Ok();
    return SetOnce(&boundary, std::move(value), "boundary");
  });
  if (!parsed.ok())
    return InvalidArgument("malformed Content-Type: " + parsed.message());
  if (!boundary.has_value())
    return InvalidArgument("multipart Content-Type has no boundary");
  OCR_RETURN_IF_ERROR(CheckBoundary(*boundary));
  return std::move(*boundary);
}

Result<std::vector<MultipartPart>> ParseMultipart(std::string_view body, std::string_view boundary,
                                                  const MultipartLimits& limits) {
  OCR_RETURN_IF_ERROR(CheckBoundary(boundary));
  if (body.empty())
    return Malformed("body is empty");
  const std::string delimiter = "\r\n--" + std::string(boundary);
  const std::string_view delimiter_view = delimiter;
  const std::string_view dash_boundary = delimiter_view.substr(2);

  std::size_t pos = 0;  // always just past the dash-boundary of the delimiter being read
  if (body.starts_with(dash_boundary)) {
    pos = dash_boundary.size();
  } else {
    const std::size_t first = FindDelimiter(body, delimiter, 0);
    if (first == kNpos)
      return Malformed("no opening boundary");
    pos = first + delimiter.size();
  }
  std::vector<MultipartPart> parts;
  while (true) {
    const AfterDelimiter after = ReadDelimiterTail(body, &pos);
    if (after == AfterDelimiter::kClose)
      break;
    if (after == AfterDelimiter::kGarbage) {
      return Malformed("a boundary delimiter is followed by neither \"--\" nor a line break");
    }
    if (parts.size() >= limits.max_parts) {
      return Malformed("more than " + std::to_string(limits.max_parts) + " parts");
    }
    OCR_ASSIGN_OR_RETURN(PartHeaders headers,
                         ParsePartHeaders(body, pos, limits.max_part_header_bytes));
    const std::size_t end = FindDelimiter(body, delimiter, headers.body_begin);
    if (end == kNpos) {
      return Malformed("part " + std::to_string(parts.size() + 1) +
                       " is not terminated by a boundary delimiter");
    }
    parts.push_back(MultipartPart{
        .name = std::move(headers.name),
        .filename = std::move(headers.filename),
        .content_type = std::move(headers.content_type),
        .body = body.substr(headers.body_begin, end - headers.body_begin),
    });
    pos = end + delimiter.size();
  }
  return parts;
}

}  // namespace ocr::http
