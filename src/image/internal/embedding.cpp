#include "image/internal/embedding.h"

#include <cmath>
#include <optional>

namespace ocr::image::internal {
namespace {

// A header's unit, per inch: 1 inch, 2.54 cm, 39.37 m.
constexpr double kCmPerInch = 2.54;
constexpr double kMetresPerInch = 0.0254;
// Markers, chunks or IFD entries read at most.
constexpr int kMaxSegments = 256;

// A resolution a page can be drawn at: positive and under 100,000 dpi (a larger value is a
// broken header, and would make a page a few pixels wide).
bool Plausible(double dpi) {
  return std::isfinite(dpi) && dpi >= 1 && dpi < 100'000;
}

void SetDpi(EmbeddingInfo& info, double x, double y) {
  if (Plausible(x) && Plausible(y)) {
    info.dpi_x = x;
    info.dpi_y = y;
  }
}

// The EXIF orientation in an APP1 segment's data [pos, pos + size); nullopt when it has none.
std::optional<std::uint32_t> ExifOrientation(Bytes b, std::size_t pos, std::size_t size) {
  if (size < 14 || !StartsWith(b, pos, std::string_view("Exif\0\0", 6)))
    return std::nullopt;
  const std::size_t tiff = pos + 6;
  const std::size_t end = pos + size;
  const bool big = b[tiff] == 'M';
  const auto u16 = [&](std::size_t i) { return big ? Be16(b, i) : Le16(b, i); };
  const auto u32 = [&](std::size_t i) { return big ? Be32(b, i) : Le32(b, i); };
  const std::size_t ifd = tiff + u32(tiff + 4);
  if (ifd < tiff || ifd + 2 > end)
    return std::nullopt;
  const std::uint32_t entries = u16(ifd);
  for (std::uint32_t e = 0; e < entries && e < kMaxSegments; ++e) {
    const std::size_t at = ifd + 2 + std::size_t{e} * 12;
    if (at + 12 > end)
      return std::nullopt;
    if (u16(at) == 0x0112)  // Orientation, a SHORT in the value field's first bytes
      return u16(at + 8);
  }
  return std::nullopt;
}

}  // namespace

EmbeddingInfo ProbeJpegEmbedding(Bytes b) {
  EmbeddingInfo info;
  if (!StartsWith(b, 0, "\xFF\xD8"))
    return info;
  bool adobe = false;
  std::uint32_t orientation = 1;
  std::size_t pos = 2;
  for (int count = 0; count < kMaxSegments; ++count) {
    while (pos < b.size() && b[pos] != 0xFF)
      ++pos;
    while (pos < b.size() && b[pos] == 0xFF)
      ++pos;
    if (pos >= b.size())
      return info;
    const std::uint8_t marker = b[pos++];
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7))
      continue;  // no length
    if (marker == 0xD8 || marker == 0xD9 || marker == 0xDA || !Has(b, pos, 2))
      return info;  // no frame header first
    const std::size_t length = Be16(b, pos);
    if (length < 2 || !Has(b, pos, length))
      return info;
    const std::size_t data = pos + 2;
    const std::size_t size = length - 2;
    if (marker == 0xE0 && size >= 12 && StartsWith(b, data, std::string_view("JFIF\0", 5))) {
      // version(2) units(1) Xdensity(2) Ydensity(2): units 1 dots per inch, 2 per cm.
      const std::uint8_t units = b[data + 7];
      const double x = Be16(b, data + 8);
      const double y = Be16(b, data + 10);
      if (units == 1)
        SetDpi(info, x, y);
      else if (units == 2)
        SetDpi(info, x * kCmPerInch, y * kCmPerInch);
    } else if (marker == 0xE1) {
      orientation = ExifOrientation(b, data, size).value_or(orientation);
    } else if (marker == 0xEE) {
      adobe = true;  // its colour transform flag is not one a PDF reader assumes
    } else if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
               marker != 0xCC) {
      // precision(1) height(2) width(2) components(1); baseline, extended or progressive DCT.
      if (size < 6)
        return info;
      const std::uint8_t precision = b[data];
      const std::uint8_t components = b[data + 5];
      const bool dct = marker == 0xC0 || marker == 0xC1 || marker == 0xC2;
      info.jpeg_as_is = dct && precision == 8 && (components == 1 || components == 3) && !adobe &&
                        orientation == 1;
      info.jpeg_components = components;
      return info;
    }
    pos += length;
  }
  return info;
}

EmbeddingInfo ProbePngEmbedding(Bytes b) {
  EmbeddingInfo info;
  std::size_t pos = 8;  // after the signature
  for (int count = 0; count < kMaxSegments && Has(b, pos, 12); ++count) {
    const std::size_t length = Be32(b, pos);
    if (StartsWith(b, pos + 4, "IDAT") || StartsWith(b, pos + 4, "IEND"))
      return info;
    if (StartsWith(b, pos + 4, "pHYs") && length == 9 && Has(b, pos + 8, 9)) {
      if (b[pos + 16] == 1) {  // unit: the metre
        SetDpi(info, Be32(b, pos + 8) * kMetresPerInch, Be32(b, pos + 12) * kMetresPerInch);
      }
      return info;
    }
    if (!Has(b, pos + 12, length))
      return info;
    pos += 12 + length;
  }
  return info;
}

EmbeddingInfo ProbeTiffEmbedding(Bytes b) {
  EmbeddingInfo info;
  if (!Has(b, 0, 8) || (b[0] != 'I' && b[0] != 'M'))
    return info;
  const bool big = b[0] == 'M';
  const auto u16 = [&](std::size_t i) { return big ? Be16(b, i) : Le16(b, i); };
  const auto u32 = [&](std::size_t i) { return big ? Be32(b, i) : Le32(b, i); };
  const std::size_t ifd = u32(4);
  if (!Has(b, ifd, 2))
    return info;
  // A RATIONAL's value, at the offset its entry holds; 0 when unreadable.
  const auto rational = [&](std::size_t entry) -> double {
    if (u16(entry + 2) != 5)
      return 0;
    const std::size_t at = u32(entry + 8);
    if (!Has(b, at, 8) || u32(at + 4) == 0)
      return 0;
    return static_cast<double>(u32(at)) / u32(at + 4);
  };
  double x = 0;
  double y = 0;
  std::uint32_t unit = 2;  // inches, the TIFF default
  const std::uint32_t entries = u16(ifd);
  for (std::uint32_t e = 0; e < entries && e < kMaxSegments; ++e) {
    const std::size_t at = ifd + 2 + std::size_t{e} * 12;
    if (!Has(b, at, 12))
      break;
    const std::uint32_t tag = u16(at);
    if (tag == 282)
      x = rational(at);
    else if (tag == 283)
      y = rational(at);
    else if (tag == 296)
      unit = u16(at + 8);
  }
  if (unit == 2)
    SetDpi(info, x, y);
  else if (unit == 3)
    SetDpi(info, x * kCmPerInch, y * kCmPerInch);
  return info;
}

}  // namespace ocr::image::internal
