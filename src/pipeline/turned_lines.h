// Lines turned 90 degrees that detection missed. PP-OCR's detector is trained on horizontal
// lines: a document number printed up a form's margin in small print is often not found at all,
// or only in part, while the same strip turned upright is found whole. The page's ink that no
// horizontal box covers is searched for columns shaped like a turned line of text; each is cut out
// and detected again turned both ways (Pipeline::Run), and what that finds is read as the page's
// other vertical lines are.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include <opencv2/core/mat.hpp>
#include <opencv2/core/types.hpp>

#include "pipeline/types.h"

namespace ocr::pipeline {

// A column of the page to detect again turned upright, and how high its text is (the width of
// its glyphs), in page pixels.
struct TurnedRegion {
  cv::Rect rect;
  double text_height = 0;
  cv::Rect line;  // the glyphs' columns, from the first mark along them to the last
};

// Regions of `image` (CV_8UC3) to detect again turned upright: columns of ink outside the
// horizontal boxes of `boxes` (the tall ones, pieces of turned lines, count as unread) that are
// as wide as the page's text is high (the median box's shorter side, h) and 3 h tall, and hold at
// least 3 glyph-sized marks (>= 0.3 h across the column, >= 0.15 h along it; one N times as long
// as it is wide and a third ink counts N times, as heavy print runs glyphs together) that, with
// the fragments between them (>= 0.1 h across: a stamp inks its glyphs unevenly), cover half the
// rows from the first glyph to the last and lie in a box at least 4 times as tall as wide:
// specks and the thin streaks of a scanner are not glyphs. A column's gaps are closed up to h
// along it (between glyphs) and, in a second search, up to 1.5 h (a word space of a stamped
// number, whose halves may each be under 3 h); where both find one, the taller stands. Ink is a
// pixel 20 grey levels darker than the mean around it. Each region is the glyphs' box padded by
// 1.5 h across and 1 h along, clipped to the image; the tallest 8 at most. None when `boxes` is
// empty or half of them are tall (the page itself is turned, and its lines were found).
std::vector<TurnedRegion> TurnedLineRegions(const cv::Mat& image, std::span<const Quad> boxes);

// Lines turned 90 degrees beside a page's detected lines, in page pixels.
struct TurnedLines {
  std::vector<Quad> detected;    // found by the detector in a region turned upright
  std::vector<Quad> undetected;  // GlyphLine of each region where it found none along the glyphs
};

// Whether one of `lines` runs along at least half of `glyphs`' height inside its columns: the
// detector found the region's line (or most of it).
bool RunsAlong(std::span<const Quad> lines, const cv::Rect& glyphs);

// The line a region's glyphs make, as the detector would box it: TurnedRegion::line padded by half
// the text's height along the column and a fifth across it, inside the region.
Quad GlyphLine(const TurnedRegion& region);

// A box found in `region` of the page after it was turned 90 degrees (clockwise when
// `clockwise`, as cv::rotate turns it), in page pixels, ordered as OrderClockwise orders it.
Quad FromTurnedRegion(const Quad& box, const cv::Rect& region, bool clockwise);

// Of boxes that overlap (their bounding rectangles share half the smaller one's area), the
// longest: the two turns of a region find the same line, one of them sometimes in pieces.
std::vector<Quad> LongestOfOverlapping(std::vector<Quad> boxes);

// The indices of `boxes` that lie at least half (by bounding rectangle area) inside `line`'s
// bounding rectangle: the pieces of it that detection found, which its reading replaces.
std::vector<size_t> BoxesInside(const Quad& line, std::span<const Quad> boxes);

}  // namespace ocr::pipeline
