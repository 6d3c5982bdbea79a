// The archive formats that libraries, archives and OCRmyPDF read, from the same page / block /
// line / word structure as the other writers: hOCR 1.2 (XHTML with ocr_page, ocr_carea, ocr_par,
// ocr_line and ocrx_word, each with its bbox; words with x_wconf 0-100; lines with their
// baseline) and ALTO v4 (Page, PrintSpace, TextBlock, TextLine, String with CONTENT, HPOS, VPOS,
// WIDTH, HEIGHT and WC 0-1, SP between words; valid against the ALTO 4.4 schema). One document
// for all pages, coordinates in each page's pixels. A line without word boxes (read without
// them) is split at its spaces, the words' boxes cut from the line's in proportion to their
// characters. Text is XML-escaped, and characters XML cannot hold (C0 controls) are dropped.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "document/document.h"

namespace ocr::document {

std::string FormatHocr(const DocumentResult& document);

std::string FormatAlto(const DocumentResult& document);

}  // namespace ocr::document
