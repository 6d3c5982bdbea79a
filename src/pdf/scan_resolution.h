// ScanResolutions: which pages of a PDF are scans, and at what resolution they were scanned, read
// with QPDF from the page's drawing operators. A page is a scan when everything it shows is
// images that together cover most of it (a scanner's or a fax machine's page, one image or
// strips): no visible text, no painted path, no form, no shading, no inline image. Invisible text
// (render mode 3, an OCR layer) does not count. Its resolution is the highest of its images' pixels
// per inch as drawn, along either axis.
//
// Why: rendering a 100-dpi scan at 200 dpi invents pixels the scanner never saw, and blurs them;
// the OCR reads a scanned page best, and fastest, at the scan's own resolution.
//
// Thread-safety: not thread-safe (one QPDF document); use from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/status.h"

namespace ocr::pdf {

class ScanResolutions {
 public:
  // Reads the document's structure from `bytes`, which must outlive this object.
  // Errors: kInvalidPdf when QPDF cannot read it.
  static Result<std::unique_ptr<ScanResolutions>> Open(std::span<const std::uint8_t> bytes);

  ~ScanResolutions();
  ScanResolutions(const ScanResolutions&) = delete;
  ScanResolutions& operator=(const ScanResolutions&) = delete;

  // A scanned page that is one JPEG drawn upright over the whole crop box (within a point), its
  // pixels as stored: no /Decode, mask or colour key, 8-bit grey or RGB, the same resolution both
  // ways, a page without /Rotate. Decoding these bytes gives what rendering the page at the
  // scan's resolution shows, without the resampling poppler does even at that resolution.
  struct Jpeg {
    std::string bytes;   // the image stream's DCTDecode data, as in the file
    int components = 0;  // 1 grey, 3 RGB, as the colour space says
  };

  struct Scan {
    double dpi = 0;            // pixels per inch it was scanned at
    std::optional<Jpeg> jpeg;  // set when the page is one such JPEG
  };

  // Page `page` (from 0) as a scan, from one walk over its operators; nullopt when the page is not
  // a scan, is out of range, or its content cannot be read.
  std::optional<Scan> Of(int page) const;

 private:
  struct Impl;
  explicit ScanResolutions(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ocr::pdf
