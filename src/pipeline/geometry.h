// Box geometry shared by the stages: corner order, reading order, and perspective crops.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "pipeline/types.h"

namespace ocr::pipeline {

// Orders four corners clockwise (in image coordinates, y down) starting at the top-left corner
// of the text: the corner whose outgoing clockwise edge points most to the right. Unlike the
// x+y / y-x rule of the reference pipeline, this stays correct for tall and slanted boxes, where
// the two sums tie or swap.
Quad OrderClockwise(const Quad& quad);

// Sorts boxes into reading order the way PaddleOCR does: by the top-left corner's y then x, then
// boxes whose top-left y differ by less than `row_tolerance_px` are ordered left to right.
void SortReadingOrder(std::vector<Quad>& boxes, float row_tolerance_px = 10.0f);

// The smallest upright rectangle around a box, by its edges as the corners give them (no width
// is stored, so x1 is exactly the rightmost corner's x).
struct Extent {
  float x0 = 0;
  float y0 = 0;
  float x1 = 0;
  float y1 = 0;

  float width() const { return x1 - x0; }

  float height() const { return y1 - y0; }

  float area() const { return width() * height(); }
};

Extent ExtentOf(const Quad& quad);

// The area two extents share; 0 when they do not meet.
float OverlapArea(const Extent& a, const Extent& b);

// Length of the edge from corner a to corner b.
float EdgeLength(const Point& a, const Point& b);

// The text line under `box`, warped to an upright rectangle (cubic interpolation, edges
// replicated). Crops at least 1.5 times as tall as wide are turned 90 degrees counter-clockwise,
// so vertical text reads left to right.
// REQUIRES: `image` is CV_8UC3; `box` is ordered as OrderClockwise returns it.
cv::Mat CropTextLine(const cv::Mat& image, const Quad& box);

// The geometry of CropTextLine's crop of `box`: the warped rectangle's size and whether it is
// then turned 90 degrees counter-clockwise. width()/height() are the final crop's.
struct CropGeometry {
  int warp_width = 0;
  int warp_height = 0;
  bool rotated90 = false;

  int width() const { return rotated90 ? warp_height : warp_width; }

  int height() const { return rotated90 ? warp_width : warp_height; }
};

CropGeometry CropGeometryOf(const Quad& box);

// Maps the rectangle [x0, x1] x [0, crop height] of CropTextLine's crop of `box` (turned 180
// degrees afterwards when `flipped180`, as the classifier does) back to image pixels. Returns
// its corners clockwise from the top-left as the crop reads: (x0,0), (x1,0), (x1,h), (x0,h).
// REQUIRES: `box` is ordered as OrderClockwise returns it and its crop is not empty.
Quad CropRectToImage(const Quad& box, bool flipped180, float x0, float x1);

}  // namespace ocr::pipeline
