// The model-only bound of `onnxocr bench`: the exact det/cls/rec calls the pipeline makes for a set
// of images, recorded once, then replayed with nothing else around them (no decoding, resizing,
// post-processing or scheduling). Pipeline throughput over replay throughput is the pipeline
// efficiency of spec/API.md section 6.
// Thread-safety: record from one thread; a recorded Workload is immutable and replays from many.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "common/status.h"
#include "engine/model.h"
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"

namespace ocr::cli {

enum class ModelRole { kDet, kCls, kRec };

struct ModelCall {
  ModelRole role;
  engine::Tensor input;
};

// Per image, the model calls of one Pipeline::Run, in order.
struct Workload {
  std::vector<std::vector<ModelCall>> images;
};

// Runs `images` once through a pipeline over `models` (with `options`, on this thread) and
// keeps every model input. Errors: those of Pipeline::Run.
Result<Workload> RecordWorkload(const pipeline::ModelSet& models, std::span<const cv::Mat> images,
                                const pipeline::OcrOptions& options);

// Runs image `index`'s calls on `models` (the same roles, any thread setting).
Status ReplayImage(const Workload& workload, size_t index, const pipeline::ModelSet& models);

}  // namespace ocr::cli
