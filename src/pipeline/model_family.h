// What differs between the PP-OCR generations a model set's parts come from, as one table: the
// publisher's input normalization and DB post-processing of each detector, the recognizer's input,
// the class counts that tell a family without a manifest, the direction classifier's input, and
// the steps of our own pipeline that were measured to fit a family's detector or recognizer. The
// detector, classifier and recognizer read their family's row; nothing else branches on a family.
// Request options and flags still override what they name (pipeline.h's OcrOptions).
// Thread-safety: constant data and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "pipeline/det/db_postprocess.h"
#include "pipeline/model_input.h"

namespace ocr::pipeline {

enum class ModelFamily { kPpocrV3, kPpocrV4, kPpocrV5, kPpocrV6 };

struct FamilySettings {
  ModelFamily family;
  std::string_view name;  // "ppocrv4": manifest.json's and /info's spelling

  // Detection: the input's normalization and the DB post-processing of its probability map.
  Normalization det_normalization;
  DbOptions db;
  // The unclip ratio of the finer second detection pass (LimitType::kAuto), whose map draws
  // tighter boxes than the first pass's (text_detector.h).
  float finer_unclip_ratio;

  // Recognition: the input's normalization (its height is read from the model).
  Normalization rec_normalization;
  // The recognizer class counts (blank + dictionary + space) of this family's published models,
  // by which a set without a manifest is told apart; empty: told apart by its manifest only.
  std::span<const std::int64_t> class_counts;

  // Direction: the classifier's normalization and its input size when the model leaves it
  // dynamic.
  Normalization cls_normalization;
  int cls_height;
  int cls_width;
};

// The row of `family`.
const FamilySettings& SettingsOf(ModelFamily family);

// "ppocrv3" .. "ppocrv6"; nullopt for any other name.
std::optional<ModelFamily> ParseModelFamily(std::string_view name);
std::string_view ModelFamilyName(ModelFamily family);

// The names ParseModelFamily takes, for messages: "ppocrv3, ppocrv4, ppocrv5 or ppocrv6".
std::string_view ModelFamilyNames();

// The family of a recognizer declared by no manifest: the one whose published recognizers have
// `classes` outputs (6,625: v4, which v3 reads alike; 18,385: v5; 6,906 and 18,710: v6); for
// another count (a language recognizer) the generation its dictionary's file name says
// ("ppocrv5_latin_dict.txt", "ppocrv6_dict.txt"); else v4, whose settings every set was read with
// before families.
ModelFamily RecognizerFamily(std::int64_t classes, std::string_view dictionary_name);

// The family of a direction classifier declared by no manifest: PP-LCNet's input (a fixed 80 x 160,
// v5 and v6) or else the mobile v2 classifier's (v3 and v4), whichever family the set's recognizer
// is, since v6 tiny sets borrow v4's.
ModelFamily ClassifierFamily(std::int64_t height, std::int64_t width);

}  // namespace ocr::pipeline
