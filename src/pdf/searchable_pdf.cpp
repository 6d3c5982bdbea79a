#include "pdf/searchable_pdf.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "pdf/internal/embedded_files.h"
#include "pdf/internal/pdfa.h"
#include "pdf/internal/qpdf.h"
#include "pdf/internal/units.h"

namespace ocr::pdf {
namespace {

using Handle = QPDFObjectHandle;

using internal::kPointsPerInch;
// The resource name of the layer's font on every page: Tesseract's, which OCRmyPDF looks for when
// it grafts a text layer onto its output (another name is taken when a page already has it).
constexpr std::string_view kFontName = "/f-0-0";

std::string_view FontFile() {
  const internal::Asset* font = internal::FindAsset("/glyphless.ttf");
  return font != nullptr ? font->body : std::string_view();
}

Handle Name(std::string_view name) {
  return Handle::newName(std::string(name));
}

Handle Real(double v) {
  return Handle::newReal(std::isfinite(v) ? v : 0.0, 4, true);
}

// The layer's font, once per file: a Type 0 font over a CIDFontType2 (the glyphless TrueType
// font: every code draws its one empty glyph, half an em wide), codes 2 bytes (Identity-H) equal
// to the code points, and the identity ToUnicode map.
Handle MakeFont(QPDF& pdf) {
  Handle file = pdf.newStream(std::string(FontFile()));
  file.getDict().replaceKey("/Length1",
                            Handle::newInteger(static_cast<long long>(FontFile().size())));
  Handle descriptor = pdf.makeIndirectObject(Handle::parse(
      "<< /Type /FontDescriptor /FontName /GlyphLessFont /Flags 5 /FontBBox [0 0 500 1000] "
      "/ItalicAngle 0 /Ascent 1000 /Descent -1 /CapHeight 1000 /StemV 80 >>"));
  descriptor.replaceKey("/FontFile2", file);
  // Every code (CID) draws glyph 1, the blank one.
  constexpr std::size_t kCids = 0x10000;
  std::string to_gid(kCids * 2, '\0');
  for (std::size_t i = 0; i < kCids; ++i)
    to_gid[2 * i + 1] = '\1';
  Handle cid_font = pdf.makeIndirectObject(Handle::parse(
      "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /GlyphLessFont "
      "/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>"));
  cid_font.replaceKey("/FontDescriptor", descriptor);
  cid_font.replaceKey("/CIDToGIDMap", pdf.newStream(to_gid));
  Handle font = pdf.makeIndirectObject(Handle::parse(
      "<< /Type /Font /Subtype /Type0 /BaseFont /GlyphLessFont /Encoding /Identity-H >>"));
  font.replaceKey("/DescendantFonts", Handle::newArray({cid_font}));
  font.replaceKey("/ToUnicode", pdf.newStream(ToUnicodeCMap()));
  return font;
}

// The page's /Resources /Font dictionary, made on the page when it has none of its own.
Handle PageFonts(QPDFPageObjectHelper& page) {
  Handle resources = page.getAttribute("/Resources", true);
  if (!resources.isDictionary()) {
    resources = Handle::newDictionary();
    page.getObjectHandle().replaceKey("/Resources", resources);
  }
  Handle fonts = resources.getKey("/Font");
  if (!fonts.isDictionary()) {
    fonts = Handle::newDictionary();
    resources.replaceKey("/Font", fonts);
  }
  return fonts;
}

// A name for the layer's font that the page does not use yet.
std::string FreeFontName(Handle fonts) {
  std::string name(kFontName);
  for (int i = 1; fonts.hasKey(name); ++i)
    name = std::string(kFontName) + std::to_string(i);
  return name;
}

// The four numbers of a rectangle, ordered (llx, lly, urx, ury); nullopt when it is not one.
std::optional<std::array<double, 4>> RectOf(Handle box) {
  if (!box.isRectangle())
    return std::nullopt;
  const Handle::Rectangle r = box.getArrayAsRectangle();
  return std::array<double, 4>{std::min(r.llx, r.urx), std::min(r.lly, r.ury),
                               std::max(r.llx, r.urx), std::max(r.lly, r.ury)};
}

// The map from a rendering of `page` (crop box within the media box, turned by /Rotate
// clockwise, `width` x `height` pixels) to its user space.
std::optional<PixelToUser> RenderingToUser(QPDFPageObjectHelper& page, int width, int height) {
  auto media = RectOf(page.getMediaBox());
  auto crop = RectOf(page.getCropBox());
  if (!media || width < 1 || height < 1)
    return std::nullopt;
  std::array<double, 4> box = *media;
  if (crop) {
    box = {std::max((*crop)[0], box[0]), std::max((*crop)[1], box[1]), std::min((*crop)[2], box[2]),
           std::min((*crop)[3], box[3])};
  }
  const double llx = box[0];
  const double lly = box[1];
  const double urx = box[2];
  const double ury = box[3];
  if (!(urx > llx) || !(ury > lly))
    return std::nullopt;
  Handle rotate = page.getAttribute("/Rotate", false);
  const long long turns = rotate.isInteger() ? ((rotate.getIntValue() / 90) % 4 + 4) % 4 : 0;
  // Points of the displayed frame per pixel: its sides over the rendering's.
  const bool sideways = turns % 2 == 1;
  const double sx = (sideways ? ury - lly : urx - llx) / width;
  const double sy = (sideways ? urx - llx : ury - lly) / height;
  // Displayed (dx, dy) = (sx x, sy y), y down from the displayed top-left; back to user space
  // by the turn that /Rotate made.
  const std::array<PixelToUser, 4> by_turns = {{
      {sx, 0, 0, -sy, llx, ury},   // 0: user = (llx + dx, ury - dy)
      {0, sx, sy, 0, llx, lly},    // 1: user = (llx + dy, lly + dx)
      {-sx, 0, 0, sy, urx, lly},   // 2: user = (urx - dx, lly + dy)
      {0, -sx, -sy, 0, urx, ury},  // 3: user = (urx - dy, ury - dx)
  }};
  return by_turns[static_cast<std::size_t>(turns)];
}

// Adds the layer's content after the page's own, wrapped in q/Q so that no state it leaves
// (a transformation, a clip) moves the layer.
void AppendLayer(QPDF& pdf, QPDFPageObjectHelper& page, const std::string& content) {
  page.addPageContents(pdf.newStream(std::string("q\n")), /*first=*/true);
  page.addPageContents(pdf.newStream("Q\n" + content), /*first=*/false);
}

std::string Write(QPDF& pdf, bool keep_streams, bool pdfa) {
  QPDFWriter writer(pdf);
  writer.setOutputMemory();
  if (pdfa)
    writer.setPreserveEncryption(false);  // PDF/A forbids encryption (an owner password's)
  // The same input and reading give the same bytes, the /ID a hash of them (QPDF cannot hash
  // what it encrypts: an input kept encrypted gets a random one).
  if (pdfa || !pdf.isEncrypted())
    writer.setDeterministicID(true);
  if (keep_streams) {
    // The input's streams stay as they were; only the new ones are compressed.
    writer.setDecodeLevel(qpdf_dl_none);
    writer.setObjectStreamMode(qpdf_o_preserve);
  }
  writer.setCompressStreams(true);
  writer.write();
  const std::shared_ptr<Buffer> buffer = writer.getBufferSharedPointer();
  return {reinterpret_cast<const char*>(buffer->getBuffer()), buffer->getSize()};
}

// The page's pixels as the image stream's RGB samples, decoded now (QPDF asks while it writes).
void WritePixels(const ImagePage& page, Pipeline* out) {
  Result<cv::Mat> pixels = page.pixels();
  if (!pixels.ok())
    throw std::runtime_error(std::string(pixels.status().message()));
  if (pixels->cols != page.width || pixels->rows != page.height || pixels->type() != CV_8UC3)
    throw std::runtime_error("an image page's pixels are not the size it was read at");
  cv::Mat rgb;
  cv::cvtColor(*pixels, rgb, cv::COLOR_BGR2RGB);
  out->write(rgb.data, rgb.total() * rgb.elemSize());
  out->finish();
}

// Runs `f`, turning QPDF's exceptions into `code`.
template <typename F>
auto Guard(StatusCode code, std::string_view what, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Status(code, std::string(what) + ": " + e.what());
  }
}

}  // namespace

Result<std::string> AddTextLayers(std::span<const std::uint8_t> bytes,
                                  const std::map<int, LayerPage>& layers, bool pdfa) {
  if (FontFile().empty())
    return Status(StatusCode::kInternal, "the glyphless font was not embedded at build time");
  QPDF pdf;
  pdf.setSuppressWarnings(true);
  if (Status read = Guard(StatusCode::kInvalidPdf, "QPDF cannot read the PDF",
                          [&]() -> Status {
                            pdf.processMemoryFile("input.pdf",
                                                  reinterpret_cast<const char*>(bytes.data()),
                                                  bytes.size());
                            return Status::Ok();
                          });
      !read.ok()) {
    return read;
  }
  return Guard(
      StatusCode::kInternal, "QPDF cannot write the searchable PDF", [&]() -> Result<std::string> {
        std::vector<QPDFPageObjectHelper> pages = QPDFPageDocumentHelper(pdf).getAllPages();
        std::vector<std::pair<QPDFPageObjectHelper*, std::string>> drawn;
        std::vector<std::string> names;
        for (const auto& [index, layer] : layers) {
          if (index < 0 || static_cast<std::size_t>(index) >= pages.size())
            continue;
          QPDFPageObjectHelper& page = pages[static_cast<std::size_t>(index)];
          const auto to_user = RenderingToUser(page, layer.width, layer.height);
          if (!to_user)
            continue;
          const std::string name = FreeFontName(PageFonts(page));
          std::string content = LayerContent(layer, *to_user, name);
          if (content.empty())
            continue;
          drawn.emplace_back(&page, std::move(content));
          names.push_back(name);
        }
        if (!drawn.empty()) {
          const Handle font = MakeFont(pdf);
          for (std::size_t i = 0; i < drawn.size(); ++i) {
            PageFonts(*drawn[i].first).replaceKey(names[i], font);
            AppendLayer(pdf, *drawn[i].first, drawn[i].second);
          }
        }
        if (pdfa)
          OCR_RETURN_IF_ERROR(internal::MakePdfA(pdf));
        return Write(pdf, /*keep_streams=*/true, pdfa);
      });
}

Result<std::string> ImagesToPdf(std::span<const ImagePage> pages, bool pdfa) {
  if (FontFile().empty())
    return Status(StatusCode::kInternal, "the glyphless font was not embedded at build time");
  for (const ImagePage& p : pages) {
    if (p.width < 1 || p.height < 1 || (p.jpeg.empty() && !p.pixels))
      return InvalidArgument("an image page needs an image and a size");
  }
  return Guard(
      StatusCode::kInternal, "QPDF cannot write the searchable PDF", [&]() -> Result<std::string> {
        QPDF pdf;
        pdf.emptyPDF();
        QPDFPageDocumentHelper doc(pdf);
        std::vector<Handle> page_fonts;
        for (const ImagePage& p : pages) {
          const double w = p.width * kPointsPerInch / std::max(1.0, p.dpi_x);
          const double h = p.height * kPointsPerInch / std::max(1.0, p.dpi_y);
          Handle image;
          if (!p.jpeg.empty()) {
            image = pdf.newStream();
            image.replaceStreamData(
                std::string(reinterpret_cast<const char*>(p.jpeg.data()), p.jpeg.size()),
                Name("/DCTDecode"), Handle::newNull());
            image.getDict().replaceKey("/ColorSpace",
                                       Name(p.jpeg_components == 1 ? "/DeviceGray" : "/DeviceRGB"));
          } else {
            image = pdf.newStream();
            image.replaceStreamData([&p](Pipeline* out) { WritePixels(p, out); }, Handle::newNull(),
                                    Handle::newNull());
            image.getDict().replaceKey("/ColorSpace", Name("/DeviceRGB"));
          }
          Handle dict = image.getDict();
          dict.replaceKey("/Type", Name("/XObject"));
          dict.replaceKey("/Subtype", Name("/Image"));
          dict.replaceKey("/Width", Handle::newInteger(p.width));
          dict.replaceKey("/Height", Handle::newInteger(p.height));
          dict.replaceKey("/BitsPerComponent", Handle::newInteger(8));
          const PixelToUser to_user{w / p.width, 0, 0, -h / p.height, 0, h};
          const std::string layer = LayerContent(p.layer, to_user, std::string(kFontName));
          const std::string content = "q\n" + std::to_string(w) + " 0 0 " + std::to_string(h) +
                                      " 0 0 cm\n/Im0 Do\nQ\n" + layer;
          Handle fonts = Handle::newDictionary();
          Handle page = pdf.makeIndirectObject(Handle::newDictionary());
          page.replaceKey("/Type", Name("/Page"));
          page.replaceKey("/MediaBox", Handle::newArray({Handle::newInteger(0),
                                                         Handle::newInteger(0), Real(w), Real(h)}));
          Handle resources = Handle::newDictionary();
          Handle xobjects = Handle::newDictionary();
          xobjects.replaceKey("/Im0", image);
          resources.replaceKey("/XObject", xobjects);
          resources.replaceKey("/Font", fonts);
          page.replaceKey("/Resources", resources);
          page.replaceKey("/Contents", pdf.newStream(content));
          doc.addPage(QPDFPageObjectHelper(page), /*first=*/false);
          page_fonts.push_back(fonts);
        }
        const Handle font = MakeFont(pdf);
        for (Handle& fonts : page_fonts)
          fonts.replaceKey(std::string(kFontName), font);
        if (pdfa)
          OCR_RETURN_IF_ERROR(internal::MakePdfA(pdf));
        return Write(pdf, /*keep_streams=*/false, pdfa);
      });
}

}  // namespace ocr::pdf
