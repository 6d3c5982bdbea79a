// Plain value types shared by the pipeline stages and its callers. Thread-safety: plain values.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace ocr::pipeline {

struct Point {
  float x = 0;
  float y = 0;
};

// Four corners of a text box in original image pixels, clockwise from the top-left corner of
// the text as it is read: top-left, top-right, bottom-right, bottom-left.
using Quad = std::array<Point, 4>;

// One word of a recognized line (OcrOptions::read_words): a maximal run of non-space
// characters. Text without spaces (CJK) is one word per run.
struct Word {
  std::string text;      // UTF-8
  float confidence = 0;  // mean of its characters' CTC probabilities
  Quad box;              // clockwise from the top-left as the text reads
};

// One recognized text line.
struct TextLine {
  std::string text;      // UTF-8
  float confidence = 0;  // mean of the kept CTC max probabilities, in [0, 1]
  Quad box;
  std::vector<Word> words;  // filled only when OcrOptions::read_words is set
};

}  // namespace ocr::pipeline

namespace ocr::pipeline {

// Milliseconds spent in each stage of one image, summed over batches (which may run on several
// threads at once, so the sum can exceed the wall time). Filled by Pipeline::Run
// for the bench command, /metrics and the access log.
struct StageTimes {
  double det_pre_ms = 0;
  double det_infer_ms = 0;
  double det_post_ms = 0;
  double crop_ms = 0;
  double cls_pre_ms = 0;
  double cls_infer_ms = 0;
  double rec_pre_ms = 0;
  double rec_infer_ms = 0;
  double ctc_ms = 0;
  int det_calls = 0;
  int cls_calls = 0;
  int cls_crops = 0;  // lines whose direction was classified
  int rec_calls = 0;

  StageTimes& operator+=(const StageTimes& o) {
    det_pre_ms += o.det_pre_ms;
    det_infer_ms += o.det_infer_ms;
    det_post_ms += o.det_post_ms;
    crop_ms += o.crop_ms;
    cls_pre_ms += o.cls_pre_ms;
    cls_infer_ms += o.cls_infer_ms;
    rec_pre_ms += o.rec_pre_ms;
    rec_infer_ms += o.rec_infer_ms;
    ctc_ms += o.ctc_ms;
    det_calls += o.det_calls;
    cls_calls += o.cls_calls;
    cls_crops += o.cls_crops;
    rec_calls += o.rec_calls;
    return *this;
  }
};

}  // namespace ocr::pipeline
