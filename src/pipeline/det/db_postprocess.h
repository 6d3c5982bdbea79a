// DB (differentiable binarization) post-processing: probability map -> text boxes.
// Follows PaddleOCR's DBPostProcess (quad boxes, score_mode "fast") step by step for parity.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include <opencv2/core/mat.hpp>

#include "pipeline/types.h"

namespace ocr::pipeline {

struct DbOptions {
  float thresh = 0.3f;        // pixel probability that counts as text
  float box_thresh = 0.6f;    // mean probability inside a box needed to keep it
  float unclip_ratio = 1.5f;  // how far a box grows: area * ratio / perimeter
  int max_candidates = 1000;  // contours examined at most
  int min_size = 3;           // shortest side, in map pixels, of a kept box
  bool use_dilation = false;  // dilate the bitmap with a 2x2 kernel first
};

// REQUIRES: `prob` is CV_32FC1, the detector's map for an image resized from
// src_width x src_height. Returns boxes in source pixel coordinates, each from cv::boxPoints
// ordered as PaddleOCR's get_mini_boxes does, rounded to whole pixels and clipped to the image.
std::vector<Quad> DbPostprocess(const cv::Mat& prob, int src_width, int src_height,
                                const DbOptions& options);

// Exposed for tests: mean of `prob` inside `box` (map coordinates), PaddleOCR's box_score_fast.
float BoxScoreFast(const cv::Mat& prob, const Quad& box);

// Exposed for tests: grows `box` by area * ratio / perimeter with a round join (Clipper).
// Returns the outline's integer points; empty when the offset vanishes.
std::vector<cv::Point> Unclip(const Quad& box, float unclip_ratio);

}  // namespace ocr::pipeline
