#include "pdf/layer_content.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/utf8.h"

namespace ocr::pdf {
namespace {

constexpr double kPi = 3.14159265358979323846;
// How far from horizontal or vertical a line may turn and still be drawn flat (FrameOf).
constexpr double kSnapDegrees = 5.0;

struct Vec {
  double x = 0;
  double y = 0;
};

Vec Sub(const std::array<double, 2>& a, const std::array<double, 2>& b) {
  return {a[0] - b[0], a[1] - b[1]};
}

double Length(const Vec& v) {
  return std::hypot(v.x, v.y);
}

// A number as PDF content writes it: no exponent, at most 4 decimals, no trailing zeros.
std::string Num(double v) {
  if (!std::isfinite(v))
    v = 0;
  char text[48];
  std::snprintf(text, sizeof(text), "%.4f", v);
  std::string s = text;
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.')
    s.pop_back();
  return s == "-0" || s.empty() ? "0" : s;
}

void AppendHex16(std::uint32_t v, std::string& out) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04X", static_cast<unsigned>(v & 0xFFFF));
  out += text;
}

// The hex string of `text`'s codes; empty when it has none (control characters have no code).
std::string Codes(std::string_view text, int& count) {
  constexpr char32_t kReplacement = 0xFFFD;
  std::string hex;
  count = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::optional<char32_t> cp = NextCodePoint(text, i);
    if (!cp || *cp < 0x20)
      continue;
    AppendHex16(*cp > 0xFFFF ? kReplacement : *cp, hex);
    ++count;
  }
  return hex;
}

double Dot(const std::array<double, 2>& p, const Vec& v) {
  return p[0] * v.x + p[1] * v.y;
}

// A word's baseline (bottom-left to bottom-right) and height, in user space, and its text.
struct Placed {
  std::array<double, 2> left, right;
  double height;
  std::string_view text;
};

// The line's words placed in user space; those too small to draw are left out.
std::vector<Placed> PlaceWords(const std::vector<LayerWord>& line, const PixelToUser& to_user) {
  std::vector<Placed> words;
  for (const LayerWord& word : line) {
    const std::array<float, 8>& c = word.corners;
    const Placed p{to_user(c[6], c[7]), to_user(c[4], c[5]),
                   Length(Sub(to_user(c[0], c[1]), to_user(c[6], c[7]))), word.text};
    if (Length(Sub(p.right, p.left)) > 0.01 && p.height > 0.01)
      words.push_back(p);
  }
  return words;
}

// How a line is drawn. A line within kSnapDegrees of an axis is drawn along the axis (`flat`),
// every word on the line's mean baseline and at its mean height: poppler's extraction
// (pdftotext, and the indexers built on it) scatters the characters of text turned a degree or
// two, while a flat line is read whole and in order; its highlight is off at the ends by half the
// line's drift. Steeper lines follow their angle.
struct LineFrame {
  bool flat = false;
  Vec axis;
  Vec up;
  double baseline = 0;
  double height = 0;
};

LineFrame FrameOf(const std::vector<Placed>& words) {
  const Vec span = Sub(words.back().right, words.front().left);
  const double angle = std::atan2(span.y, span.x);
  const double quarter = std::round(angle / (kPi / 2)) * (kPi / 2);
  LineFrame frame;
  frame.flat = std::abs(angle - quarter) <= kSnapDegrees * kPi / 180;
  frame.axis = {std::cos(quarter), std::sin(quarter)};
  frame.up = {-frame.axis.y, frame.axis.x};
  for (const Placed& w : words) {
    frame.baseline += (Dot(w.left, frame.up) + Dot(w.right, frame.up)) / 2;
    frame.height += w.height;
  }
  frame.baseline /= static_cast<double>(words.size());
  frame.height /= static_cast<double>(words.size());
  return frame;
}

// Word `w` of `words` as a text object (its font size, matrix, horizontal scale and codes),
// appended to `out`; nothing for a word with no width or no code.
void AppendWord(const std::vector<Placed>& words, std::size_t w, const LineFrame& frame,
                const std::string& font_name, std::string& out) {
  Vec dir;
  std::array<double, 2> origin;
  double width = 0;
  double height = 0;
  if (frame.flat) {
    dir = frame.axis;
    const double start = Dot(words[w].left, frame.axis);
    width = Dot(words[w].right, frame.axis) - start;
    origin = {frame.axis.x * start + frame.up.x * frame.baseline,
              frame.axis.y * start + frame.up.y * frame.baseline};
    height = frame.height;
  } else {
    const Vec along = Sub(words[w].right, words[w].left);
    width = Length(along);
    dir = {along.x / width, along.y / width};
    origin = words[w].left;
    height = words[w].height;
  }
  if (!(width > 0.01))
    return;
  // The word and the space after it reach the next word's start, so extraction sees a gap
  // where the space is (poppler drops space glyphs and finds words by their gaps): boxes of
  // neighbours that touch or overlap squeeze the word rather than the gap. The last word of
  // a line ends at its box.
  std::string text(words[w].text);
  double advance = width;
  if (w + 1 < words.size()) {
    const Vec to_next = Sub(words[w + 1].left, origin);
    const double next = to_next.x * dir.x + to_next.y * dir.y;
    advance = next > width / 2 ? next : width;
    text += ' ';
  }
  int count = 0;
  const std::string hex = Codes(text, count);
  if (count == 0)
    return;
  const double natural = count * kAdvance / 1000.0 * height;
  const double scale = std::clamp(100.0 * advance / natural, 1.0, 10000.0);
  if (out.empty())
    out = "BT\n3 Tr\n";
  out += fmt::format("{} {} Tf\n{} {} {} {} {} {} Tm\n{} Tz\n<{}> Tj\n", font_name, Num(height),
                     Num(dir.x), Num(dir.y), Num(-dir.y), Num(dir.x), Num(origin[0]),
                     Num(origin[1]), Num(scale), hex);
}

}  // namespace

std::string LayerContent(const LayerPage& page, const PixelToUser& to_user,
                         const std::string& font_name) {
  std::string out;
  for (const std::vector<LayerWord>& line : page.lines) {
    const std::vector<Placed> words = PlaceWords(line, to_user);
    if (words.empty())
      continue;
    const LineFrame frame = FrameOf(words);
    for (std::size_t w = 0; w < words.size(); ++w)
      AppendWord(words, w, frame, font_name, out);
  }
  if (!out.empty())
    out += "ET\n";
  return out;
}

const std::string& ToUnicodeCMap() {
  static const std::string cmap = [] {
    std::string out =
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n";
    // A range may vary only in its last byte: one per high byte, surrogates left out.
    std::vector<std::uint32_t> highs;
    for (std::uint32_t high = 0; high <= 0xFF; ++high) {
      if (high < 0xD8 || high > 0xDF)
        highs.push_back(high);
    }
    for (std::size_t first = 0; first < highs.size(); first += 100) {
      const std::size_t n = std::min<std::size_t>(100, highs.size() - first);
      out += std::to_string(n) + " beginbfrange\n";
      for (std::size_t i = first; i < first + n; ++i) {
        out += '<';
        AppendHex16(highs[i] << 8, out);
        out += "> <";
        AppendHex16(highs[i] << 8 | 0xFF, out);
        out += "> <";
        AppendHex16(highs[i] << 8, out);
        out += ">\n";
      }
      out += "endbfrange\n";
    }
    out += "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
    return out;
  }();
  return cmap;
}

}  // namespace ocr::pdf
