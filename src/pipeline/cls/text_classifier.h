// Text line direction stage: finds crops that are upside down (180 degrees) and turns them.
// Thread-safety: Classify() is const and safe to call concurrently.
#pragma once

#include <cstdint>
#include <stop_token>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "common/task_runner.h"
#include "engine/model.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

struct ClsOptions {
  float thresh = 0.9f;  // a crop is turned when "180" wins with at least this probability
  int batch_size = 6;
  // The lines of one page share its direction: where at least kPageVoteShare of them (and at
  // least kPageVoteMinLines) face one way, every line is read that way. Off: each line on its
  // own, as the reference pipeline reads them.
  bool page_vote = true;
};

// The classifier misjudges a few lines of a page, each then read upside down as garbage: 4 of
// the 241 upright lines of a synthetic page, 8 of the 36 of an upside-down receipt
// (BENCHMARKS.md, "Line direction"). A clear majority of the page says which way it faces.
inline constexpr double kPageVoteShare = 0.75;
inline constexpr size_t kPageVoteMinLines = 3;

// Each line's direction (1: upside down) made the page's where kPageVoteShare of the lines, and
// at least kPageVoteMinLines, agree; unchanged otherwise.
void FollowPageDirection(std::vector<std::uint8_t>& flipped);

class TextClassifier {
 public:
  // input_height x input_width: the model's input size (48x192 for the mobile v2 classifier,
  // 80x160 for PP-LCNet). REQUIRES: `model` outlives this classifier.
  TextClassifier(const engine::Model& model, int input_height, int input_width)
      : model_(model), height_(input_height), width_(input_width) {}

  // Turns the crops judged upside down by 180 degrees, in place, and returns one flag per crop:
  // 1 where it was turned (word boxes map back through the turn). With options.page_vote, a
  // line judged against the page's clear majority is read the majority's way. Batches run on
  // `runner`; none starts once `stop` is requested (kCancelled).
  Result<std::vector<std::uint8_t>> Classify(std::vector<cv::Mat>& crops, const ClsOptions& options,
                                             StageTimes& times, TaskRunner& runner,
                                             const std::stop_token& stop = {}) const;

 private:
  const engine::Model& model_;
  int height_;
  int width_;
};

}  // namespace ocr::pipeline
