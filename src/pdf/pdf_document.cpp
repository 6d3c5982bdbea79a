#include "pdf/pdf_document.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <opencv2/core.hpp>
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>
#include <poppler/cpp/poppler-rectangle.h>
#include <spdlog/spdlog.h>

#include "pdf/internal/units.h"

namespace ocr::pdf {
namespace {

using internal::kPointsPerInch;
constexpr double kMaxDpi = 2400.0;
// PDF readers accept the "%PDF-" header anywhere in the first 1024 bytes.
constexpr std::size_t kHeaderSearchBytes = 1024;
constexpr std::string_view kPdfMagic = "%PDF-";
// A side longer than this cannot be a render we would ever allow (and keeps int math safe).
constexpr double kMaxSidePixels = 1 << 30;

Status InvalidPdf(std::string m) {
  return {StatusCode::kInvalidPdf, std::move(m)};
}

// poppler's complaints on this thread: calls into poppler are synchronous, so the count since a
// call began is that call's.
thread_local int t_poppler_errors = 0;

void RoutePopplerError(const std::string& message, void* /*closure*/) {
  ++t_poppler_errors;
  spdlog::debug("poppler: {}", message);
}

// poppler prints its errors to stderr unless given a handler; route them to debug logs, once.
void InstallPopplerErrorHandlerOnce() {
  static const bool installed = [] {
    poppler::set_debug_error_function(&RoutePopplerError, nullptr);
    return true;
  }();
  (void)installed;
}

// A PDF's last line is "%%EOF" (ISO 32000-1, 7.5.5), and a file cut short in transfer lacks it.
// Some writers append junk after it, as readers tolerate, so the last 1024 bytes are searched.
bool HasEofMarker(std::span<const std::uint8_t> bytes) {
  const std::size_t tail = std::min(bytes.size(), kHeaderSearchBytes);
  const std::string_view end(reinterpret_cast<const char*>(bytes.data() + bytes.size() - tail),
                             tail);
  return end.find("%%EOF") != std::string_view::npos;
}

// Why a PDF has no page to read: cut short, damaged, or truly empty.
Status NoPages(std::span<const std::uint8_t> bytes, bool complained) {
  if (!HasEofMarker(bytes)) {
    return InvalidPdf(
        "the PDF is damaged: it is truncated (it stops before its end, %%EOF) and no page could "
        "be recovered from what arrived; send the whole file");
  }
  if (complained) {
    return InvalidPdf(
        "the PDF is damaged: its page tree cannot be read and no page could be recovered");
  }
  return InvalidPdf("the PDF has no pages");
}

bool HasPdfHeader(std::span<const std::uint8_t> bytes) {
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()),
                              std::min(bytes.size(), kHeaderSearchBytes));
  return head.find(kPdfMagic) != std::string_view::npos;
}

std::string_view LimitsError(const PdfLimits& limits) {
  if (limits.max_pages < 1)
    return "max_pages must be at least 1";
  if (!(limits.dpi > 0 && limits.dpi <= kMaxDpi))
    return "dpi must be in (0, 2400]";
  if (limits.max_page_pixels < 1)
    return "max_page_pixels must be at least 1";
  return {};
}

// Size of the page's render at `dpi`: the crop box turned by /Rotate, rounded as poppler's
// Splash renderer rounds it (floor(x + 0.5)).
Result<cv::Size> RenderSize(const poppler::page& page, int index, double dpi) {
  const poppler::rectf box = page.page_rect(poppler::crop_box);
  double width_pt = std::abs(box.width());
  double height_pt = std::abs(box.height());
  const poppler::page::orientation_enum orientation = page.orientation();
  if (orientation == poppler::page::landscape || orientation == poppler::page::seascape) {
    std::swap(width_pt, height_pt);
  }
  const double scale = dpi / kPointsPerInch;
  const double width = std::floor(width_pt * scale + 0.5);
  const double height = std::floor(height_pt * scale + 0.5);
  if (!std::isfinite(width) || !std::isfinite(height) || width < 1 || height < 1) {
    return InvalidPdf(fmt::format("page {} has an empty or invalid crop box", index + 1));
  }
  if (width > kMaxSidePixels || height > kMaxSidePixels) {
    return Status(StatusCode::kImageTooLarge,
                  fmt::format("page {} is {:.0f} x {:.0f} points, too large to render at {} dpi",
                              index + 1, width_pt, height_pt, dpi));
  }
  return cv::Size(static_cast<int>(width), static_cast<int>(height));
}

// Copies poppler's ARGB32 (native-endian 0xAARRGGBB words, white opaque paper) into BGR.
cv::Mat ArgbToBgr(poppler::image& image) {
  const cv::Mat argb(image.height(), image.width(), CV_8UC4, image.data(),
                     static_cast<std::size_t>(image.bytes_per_row()));
  cv::Mat bgr(argb.size(), CV_8UC3);
  // Little-endian bytes are B, G, R, A; big-endian A, R, G, B.
  constexpr bool kLittle = std::endian::native == std::endian::little;
  const std::array<int, 6> from_to =
      kLittle ? std::array<int, 6>{0, 0, 1, 1, 2, 2} : std::array<int, 6>{3, 0, 2, 1, 1, 2};
  cv::mixChannels(&argb, 1, &bgr, 1, from_to.data(), 3);
  return bgr;
}

std::string Utf8(const poppler::ustring& s) {
  const poppler::byte_array bytes = s.to_utf8();
  std::string out(bytes.begin(), bytes.end());
  // Drop NULs that some producers put in their ToUnicode maps.
  std::erase(out, '\0');
  return out;
}

// poppler reports failures through return values, but may throw std::bad_alloc and friends:
// nothing escapes this module.
template <typename F>
auto Guard(std::string_view what, int page, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kImageTooLarge,
                  fmt::format("out of memory while {} page {}", what, page + 1));
  } catch (const std::exception& e) {
    return InvalidPdf(fmt::format("poppler failed while {} page {}: {}", what, page + 1, e.what()));
  } catch (...) {
    return InvalidPdf(fmt::format("poppler failed while {} page {}", what, page + 1));
  }
}

}  // namespace

struct PdfDocument::Impl {
  std::unique_ptr<poppler::document> doc;
  PdfLimits limits;
  int page_count = 0;

  Result<std::unique_ptr<poppler::page>> LoadPage(int index) const {
    if (index < 0 || index >= page_count) {
      return InvalidArgument(
          fmt::format("page {} is out of range; the document has {} pages", index, page_count));
    }
    std::unique_ptr<poppler::page> page(doc->create_page(index));
    if (!page)
      return InvalidPdf(fmt::format("page {} cannot be read", index + 1));
    return page;
  }

  Result<cv::Size> PageSize(int index) const {
    OCR_ASSIGN_OR_RETURN(const std::unique_ptr<poppler::page> page, LoadPage(index));
    return RenderSize(*page, index, limits.dpi);
  }

  Result<cv::Mat> Render(int index, double dpi) const {
    if (!(dpi > 0 && dpi <= kMaxDpi))
      return InvalidArgument(fmt::format("cannot render at {} dpi: the range is (0, 2400]", dpi));
    OCR_ASSIGN_OR_RETURN(const std::unique_ptr<poppler::page> page, LoadPage(index));
    OCR_ASSIGN_OR_RETURN(const cv::Size size, RenderSize(*page, index, dpi));
    const std::int64_t pixels = std::int64_t{size.width} * size.height;
    if (pixels > limits.max_page_pixels) {
      return Status(
          StatusCode::kImageTooLarge,
          fmt::format("page {} would render to {} x {} = {} pixels at {} dpi, over the "
                      "limit of {}",
                      index + 1, size.width, size.height, pixels, dpi, limits.max_page_pixels));
    }
    if (!poppler::page_renderer::can_render()) {
      return Internal("poppler was built without a renderer (Splash)");
    }
    poppler::page_renderer renderer;
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    renderer.set_image_format(poppler::image::format_argb32);
    poppler::image image = renderer.render_page(page.get(), dpi, dpi);
    if (!image.is_valid() || image.format() != poppler::image::format_argb32 || image.width() < 1 ||
        image.height() < 1 || image.bytes_per_row() < 4 * image.width()) {
      return InvalidPdf(fmt::format("poppler failed to render page {}", index + 1));
    }
    return ArgbToBgr(image);
  }

  Result<std::vector<Word>> PageWords(int index) const {
    OCR_ASSIGN_OR_RETURN(const std::unique_ptr<poppler::page> page, LoadPage(index));
    OCR_ASSIGN_OR_RETURN(const cv::Size size, RenderSize(*page, index, limits.dpi));
    // text_list() reports words in points (72 dpi) in the displayed frame: crop box origin at
    // the top left, /Rotate applied, exactly the frame that render_page draws.
    const double scale = limits.dpi / kPointsPerInch;
    const auto width = static_cast<double>(size.width);
    const auto height = static_cast<double>(size.height);
    std::vector<Word> words;
    for (const poppler::text_box& box : page->text_list()) {
      const poppler::rectf r = box.bbox();
      Word w;
      w.x0 = std::clamp(r.left() * scale, 0.0, width);
      w.y0 = std::clamp(r.top() * scale, 0.0, height);
      w.x1 = std::clamp(r.right() * scale, 0.0, width);
      w.y1 = std::clamp(r.bottom() * scale, 0.0, height);
      w.rotation = box.rotation();
      w.space_after = box.has_space_after();
      w.text = Utf8(box.text());
      words.push_back(std::move(w));  // off the page: an empty box, for the caller to drop
    }
    return words;
  }
};

PdfDocument::PdfDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PdfDocument::~PdfDocument() = default;

Result<std::unique_ptr<PdfDocument>> PdfDocument::Open(std::span<const std::uint8_t> bytes,
                                                       const PdfLimits& limits) {
  if (const std::string_view error = LimitsError(limits); !error.empty()) {
    return InvalidArgument(std::string(error));
  }
  if (bytes.empty())
    return InvalidPdf("the document is empty");
  if (!HasPdfHeader(bytes))
    return InvalidPdf("not a PDF: no %PDF- header");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return InvalidPdf("the document is over 2 GiB, more than poppler can read");
  }
  InstallPopplerErrorHandlerOnce();
  try {
    auto impl = std::make_unique<Impl>();
    impl->limits = limits;
    t_poppler_errors = 0;
    impl->doc.reset(poppler::document::load_from_raw_data(
        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
    if (!impl->doc)
      return NoPages(bytes, /*complained=*/true);
    if (impl->doc->is_locked()) {
      return Status(StatusCode::kEncryptedPdf, "the PDF is encrypted and needs a password");
    }
    impl->page_count = impl->doc->pages();
    if (impl->page_count < 1)
      return NoPages(bytes, t_poppler_errors > 0);
    if (impl->page_count > limits.max_pages) {
      return Status(StatusCode::kTooManyPages,
                    fmt::format("the PDF has {} pages, over the limit of {}", impl->page_count,
                                limits.max_pages));
    }
    return std::unique_ptr<PdfDocument>(new PdfDocument(std::move(impl)));
  } catch (const std::exception& e) {
    return InvalidPdf(fmt::format("the PDF is damaged: poppler failed to open it ({})", e.what()));
  } catch (...) {
    return InvalidPdf("the PDF is damaged: poppler failed to open it");
  }
}

int PdfDocument::page_count() const {
  return impl_->page_count;
}

Result<cv::Size> PdfDocument::PageSize(int page) const {
  return Guard("measuring", page, [&] { return impl_->PageSize(page); });
}

Result<cv::Mat> PdfDocument::RenderPage(int page) const {
  return RenderPage(page, impl_->limits.dpi);
}

Result<cv::Mat> PdfDocument::RenderPage(int page, double dpi) const {
  return Guard("rendering", page, [&] { return impl_->Render(page, dpi); });
}

Result<std::vector<Word>> PdfDocument::Words(int page) const {
  return Guard("reading the text of", page, [&] { return impl_->PageWords(page); });
}

}  // namespace ocr::pdf
