// Text line direction stage: finds crops that are upside down (180 degrees) and turns them.
// Thread-safety: Classify() is const and safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stop_token>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "common/task_runner.h"
#include "engine/model.h"
#include "pipeline/model_input.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

struct ClsOptions {
  float thresh = 0.9f;  // a crop is turned when "180" wins with at least this probability
  int batch_size = 6;
  // The lines of one page share its direction: where at least kPageVoteShare of its horizontal
  // lines (and at least kPageVoteMinLines) face one way, every one is read that way, and a sample
  // of them that agrees decides for the rest, which are then not classified; its vertical lines
  // vote among themselves. Off: each line on its own, as the reference pipeline reads them.
  bool page_vote = true;
};

// The classifier misjudges a few lines of a page, each then read upside down as garbage: 4 of
// the 241 upright lines of a synthetic page, 8 of the 36 of an upside-down receipt
// (docs/benchmarks/accuracy.md, "Line direction"). A clear majority of the page says which way
// it faces.
inline constexpr double kPageVoteShare = 0.75;
inline constexpr size_t kPageVoteMinLines = 3;

// A page's direction is read from a sample of its longest horizontal lines before the others are
// classified: where kSampleShare of kVoteSample agree (11 of 12), the page faces that way and the
// rest are not classified. With the worst per-line error seen (8 of 36, 22%), 11 of 12 wrong
// happens about once in two million pages; a page that mixes directions, or whose sample
// disagrees, has every line classified and voted as before.
inline constexpr size_t kVoteSample = 12;
inline constexpr double kSampleShare = 0.9;

// The majority direction (1: upside down) of flipped[i] over `lines` where at least `share` of
// them, and at least `min_lines`, agree; none otherwise.
std::optional<std::uint8_t> PageDirection(const std::vector<std::uint8_t>& flipped,
                                          std::span<const size_t> lines, double share,
                                          size_t min_lines);

class TextClassifier {
 public:
  // input_height x input_width: the model's input size (48x192 for the mobile v2 classifier,
  // 80x160 for PP-LCNet); `normalization`: its family's (model_family.h).
  // REQUIRES: `model` outlives this classifier.
  TextClassifier(const engine::Model& model, int input_height, int input_width,
                 const Normalization& normalization)
      : model_(model), height_(input_height), width_(input_width), normalization_(normalization) {}

  // Turns the crops judged upside down by 180 degrees, in place, and returns one flag per crop:
  // 1 where it was turned (word boxes map back through the turn). `vertical[i]` is 1 where crop i
  // is a tall box turned 90 degrees (CropGeometry::rotated90). With options.page_vote, the
  // horizontal lines follow their clear majority, read from a sample of them first where it
  // agrees, and the vertical ones, all classified, follow theirs: a tall line may run either way
  // up an upright page. Batches run on `runner`; none starts once `stop` is requested
  // (kCancelled).
  Result<std::vector<std::uint8_t>> Classify(std::vector<cv::Mat>& crops,
                                             std::span<const std::uint8_t> vertical,
                                             const ClsOptions& options, StageTimes& times,
                                             TaskRunner& runner,
                                             const std::stop_token& stop = {}) const;

 private:
  const engine::Model& model_;
  int height_;
  int width_;
  Normalization normalization_;
};

}  // namespace ocr::pipeline
