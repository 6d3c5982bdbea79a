#include "pdf/scan_resolution.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pdf/internal/qpdf.h"
#include "pdf/internal/units.h"

namespace ocr::pdf {
namespace {

// Images must cover this share of the page for it to be a scan (a scanner's crop may leave a
// margin of paper; a fax's strips overlap).
constexpr double kScanCover = 0.9;
// Graphics-state nesting kept; deeper q's are not the shape of a scan.
constexpr std::size_t kMaxDepth = 64;

// An affine map as PDF writes it: x' = a x + c y + e, y' = b x + d y + f.
struct Matrix {
  double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;
};

// `m` applied first, then `ctm` (the cm operator: CTM' = m x CTM).
Matrix Then(const Matrix& m, const Matrix& ctm) {
  return {m.a * ctm.a + m.b * ctm.c,         m.a * ctm.b + m.b * ctm.d,
          m.c * ctm.a + m.d * ctm.c,         m.c * ctm.b + m.d * ctm.d,
          m.e * ctm.a + m.f * ctm.c + ctm.e, m.e * ctm.b + m.f * ctm.d + ctm.f};
}

struct State {
  Matrix ctm;
  int render_mode = 0;  // Tr: 3 draws text invisibly
};

// Walks a page's operators: the images it draws, where, and whether anything else shows.
class PageWalk final : public QPDFObjectHandle::ParserCallbacks {
 public:
  PageWalk(std::map<std::string, QPDFObjectHandle> images, QPDFObjectHandle::Rectangle crop)
      : images_(std::move(images)),
        crop_(std::min(crop.llx, crop.urx), std::min(crop.lly, crop.ury),
              std::max(crop.llx, crop.urx), std::max(crop.lly, crop.ury)) {}

  // The page's scan resolution, once walked.
  std::optional<double> Resolution() const {
    const double area = (crop_.urx - crop_.llx) * (crop_.ury - crop_.lly);
    if (other_ || dpi_ <= 0 || !(area > 0) || covered_ < kScanCover * area)
      return std::nullopt;
    return dpi_;
  }

  void handleObject(QPDFObjectHandle object, size_t /*offset*/, size_t /*length*/) override {
    if (other_)
      return;
    if (!object.isOperator()) {
      if (object.isInlineImage())
        other_ = true;
      else if (operands_.size() < 8)  // no operator we read takes more
        operands_.push_back(object);
      return;
    }
    Operator(object.getOperatorValue());
    operands_.clear();
  }

  void handleEOF() override {}

  // The one image the page draws and where, when it draws nothing else.
  std::optional<std::pair<QPDFObjectHandle, Matrix>> SoleImage() const {
    if (other_ || drawn_ != 1)
      return std::nullopt;
    return std::pair{last_image_, last_ctm_};
  }

 private:
  void Operator(const std::string& op) {
    State& state = stack_.back();
    if (op == "q") {
      if (stack_.size() >= kMaxDepth)
        other_ = true;
      else
        stack_.push_back(state);
    } else if (op == "Q") {
      if (stack_.size() > 1)
        stack_.pop_back();
    } else if (op == "cm") {
      std::array<double, 6> v{};
      if (!Numbers(v))
        return;
      state.ctm = Then({v[0], v[1], v[2], v[3], v[4], v[5]}, state.ctm);
    } else if (op == "Tr") {
      std::array<double, 1> v{};
      if (Numbers(v))
        state.render_mode = static_cast<int>(v[0]);
    } else if (op == "Tj" || op == "TJ" || op == "'" || op == "\"") {
      if (state.render_mode != 3)
        other_ = true;
    } else if (op == "S" || op == "s" || op == "f" || op == "F" || op == "f*" || op == "B" ||
               op == "B*" || op == "b" || op == "b*" || op == "sh" || op == "BI") {
      other_ = true;
    } else if (op == "Do") {
      Draw(state.ctm);
    }
  }

  // The operands, when there are as many as `v` holds and all are numbers.
  template <std::size_t N>
  bool Numbers(std::array<double, N>& v) {
    if (operands_.size() != N)
      return false;
    for (std::size_t i = 0; i < N; ++i) {
      if (!operands_[i].isNumber())
        return false;
      v[i] = operands_[i].getNumericValue();
      if (!std::isfinite(v[i]))
        return false;
    }
    return true;
  }

  // An XObject drawn with `ctm`: an image counts toward the cover, anything else shows.
  void Draw(const Matrix& ctm) {
    if (operands_.size() != 1 || !operands_[0].isName()) {
      other_ = true;
      return;
    }
    const auto image = images_.find(operands_[0].getName());
    if (image == images_.end()) {
      other_ = true;  // a form, or a name the page does not have
      return;
    }
    QPDFObjectHandle dict = image->second.getDict();
    QPDFObjectHandle width = dict.getKey("/Width");
    QPDFObjectHandle height = dict.getKey("/Height");
    if (!width.isInteger() || !height.isInteger() || width.getIntValue() < 1 ||
        height.getIntValue() < 1) {
      other_ = true;
      return;
    }
    // The image fills the unit square; its sides as drawn, in points.
    const double across = std::hypot(ctm.a, ctm.b);
    const double down = std::hypot(ctm.c, ctm.d);
    if (!(across > 0) || !(down > 0))
      return;  // drawn with no area: shows nothing
    const double dpi = std::max(static_cast<double>(width.getIntValue()) / across,
                                static_cast<double>(height.getIntValue()) / down) *
                       internal::kPointsPerInch;
    dpi_ = std::max(dpi_, dpi);
    // Its bounding box on the page, within the crop box.
    double x0 = ctm.e;
    double x1 = ctm.e;
    double y0 = ctm.f;
    double y1 = ctm.f;
    for (const auto& [u, v] : {std::pair{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}) {
      const double x = ctm.a * u + ctm.c * v + ctm.e;
      const double y = ctm.b * u + ctm.d * v + ctm.f;
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
    const double w = std::min(x1, crop_.urx) - std::max(x0, crop_.llx);
    const double h = std::min(y1, crop_.ury) - std::max(y0, crop_.lly);
    if (w > 0 && h > 0)
      covered_ += w * h;
    ++drawn_;
    last_image_ = image->second;
    last_ctm_ = ctm;
  }

  std::map<std::string, QPDFObjectHandle> images_;
  QPDFObjectHandle::Rectangle crop_;
  std::vector<State> stack_{State{}};
  std::vector<QPDFObjectHandle> operands_;
  double covered_ = 0;  // square points of the crop box under images (overlaps counted twice)
  double dpi_ = 0;
  bool other_ = false;  // something besides images shows
  int drawn_ = 0;       // images drawn with an area
  QPDFObjectHandle last_image_;
  Matrix last_ctm_;
};

// The components of an image's colour space when its samples are grey or RGB as stored: 1, 3, or
// 0 for anything else (CMYK, indexed, Lab, separations).
int GreyOrRgbComponents(QPDFObjectHandle space) {
  if (space.isName()) {
    const std::string name = space.getName();
    return name == "/DeviceGray" ? 1 : name == "/DeviceRGB" ? 3 : 0;
  }
  if (space.isArray() && space.getArrayNItems() == 2 && space.getArrayItem(0).isName() &&
      space.getArrayItem(0).getName() == "/ICCBased" && space.getArrayItem(1).isStream()) {
    QPDFObjectHandle n = space.getArrayItem(1).getDict().getKey("/N");
    if (n.isInteger() && (n.getIntValue() == 1 || n.getIntValue() == 3))
      return static_cast<int>(n.getIntValue());
  }
  return 0;
}

bool IsDctOnly(QPDFObjectHandle filter) {
  if (filter.isArray() && filter.getArrayNItems() == 1)
    filter = filter.getArrayItem(0);
  return filter.isName() && filter.getName() == "/DCTDecode";
}

// `image`, drawn with `m` on a page whose crop box is `box`, as ScanResolutions::Jpeg describes
// it; nullopt when it is not one.
std::optional<ScanResolutions::Jpeg> JpegOver(QPDFObjectHandle image, const Matrix& m,
                                              const QPDFObjectHandle::Rectangle& box) {
  // Within this much of the crop box's edges, in points, the image covers the page.
  constexpr double kEdge = 1;
  // Upright and unflipped: the unit square scaled and moved onto the crop box.
  if (m.b != 0 || m.c != 0 || !(m.a > 0) || !(m.d > 0) ||
      std::abs(m.e - std::min(box.llx, box.urx)) > kEdge ||
      std::abs(m.f - std::min(box.lly, box.ury)) > kEdge ||
      std::abs(m.e + m.a - std::max(box.llx, box.urx)) > kEdge ||
      std::abs(m.f + m.d - std::max(box.lly, box.ury)) > kEdge) {
    return std::nullopt;
  }
  QPDFObjectHandle dict = image.getDict();
  QPDFObjectHandle bits = dict.getKey("/BitsPerComponent");
  QPDFObjectHandle parms = dict.getKey("/DecodeParms");
  const int components = GreyOrRgbComponents(dict.getKey("/ColorSpace"));
  if (!IsDctOnly(dict.getKey("/Filter")) || !(parms.isNull() || parms.isDictionary()) ||
      (parms.isDictionary() && parms.hasKey("/ColorTransform")) || !bits.isInteger() ||
      bits.getIntValue() != 8 || components == 0 || dict.hasKey("/Decode") ||
      dict.hasKey("/SMask") || dict.hasKey("/Mask") || dict.getKey("/ImageMask").isBool()) {
    return std::nullopt;
  }
  const double across = static_cast<double>(dict.getKey("/Width").getIntValue()) / m.a;
  const double down = static_cast<double>(dict.getKey("/Height").getIntValue()) / m.d;
  if (std::abs(across - down) > 0.01 * std::max(across, down))
    return std::nullopt;
  const std::shared_ptr<Buffer> data = image.getRawStreamData();
  ScanResolutions::Jpeg jpeg;
  jpeg.bytes.assign(reinterpret_cast<const char*>(data->getBuffer()), data->getSize());
  jpeg.components = components;
  return jpeg;
}

}  // namespace

struct ScanResolutions::Impl {
  QPDF pdf;
  std::vector<QPDFPageObjectHelper> pages;
};

ScanResolutions::ScanResolutions(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ScanResolutions::~ScanResolutions() = default;

Result<std::unique_ptr<ScanResolutions>> ScanResolutions::Open(
    std::span<const std::uint8_t> bytes) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->pdf.setSuppressWarnings(true);
    impl->pdf.processMemoryFile("input.pdf", reinterpret_cast<const char*>(bytes.data()),
                                bytes.size());
    impl->pages = QPDFPageDocumentHelper(impl->pdf).getAllPages();
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidPdf, std::string("QPDF cannot read the PDF: ") + e.what());
  }
  return std::unique_ptr<ScanResolutions>(new ScanResolutions(std::move(impl)));
}

std::optional<ScanResolutions::Scan> ScanResolutions::Of(int page) const {
  if (page < 0 || static_cast<std::size_t>(page) >= impl_->pages.size())
    return std::nullopt;
  try {
    QPDFPageObjectHelper& helper = impl_->pages[static_cast<std::size_t>(page)];
    QPDFObjectHandle crop = helper.getCropBox();
    if (!crop.isRectangle())
      return std::nullopt;
    const QPDFObjectHandle::Rectangle box = crop.getArrayAsRectangle();
    PageWalk walk(helper.getImages(), box);
    helper.parseContents(&walk);
    const std::optional<double> dpi = walk.Resolution();
    if (!dpi)
      return std::nullopt;
    Scan scan{*dpi, std::nullopt};
    if (const auto sole = walk.SoleImage()) {
      QPDFObjectHandle rotate = helper.getAttribute("/Rotate", false);
      if (!rotate.isInteger() || rotate.getIntValue() % 360 == 0)
        scan.jpeg = JpegOver(sole->first, sole->second, box);
    }
    return scan;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable content: rendered as any other page
  }
}

}  // namespace ocr::pdf
