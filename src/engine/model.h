// Model: one inference graph with one float input and one float output, as all PP-OCR det, cls
// and rec graphs are. The product runs OrtModel; `onnxocr bench` wraps it (RecordingModel in
// cli/bench_workload.cpp) to record the shapes a workload sends. Thread-safety: Run() is const and
// safe to call from many threads at once.
#pragma once

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/tensor.h"

namespace ocr::engine {

class Model {
 public:
  virtual ~Model() = default;

  // Runs the graph on `input` (shape must fit input_shape(); -1 there means dynamic). Once
  // `stop` is requested the run ends at the next operator, so an abandoned request does not hold
  // its worker for a whole detection pass.
  // Errors: kCancelled when stopped; kInternal with the runtime's message.
  virtual Result<Tensor> Run(const Tensor& input, const std::stop_token& stop) const = 0;

  Result<Tensor> Run(const Tensor& input) const { return Run(input, std::stop_token{}); }

  // Declared shapes, read from the graph; -1 marks a dynamic dimension.
  virtual const std::vector<std::int64_t>& input_shape() const = 0;

  virtual const std::vector<std::int64_t>& output_shape() const = 0;

  // The file the model was loaded from, for messages.
  virtual const std::string& path() const = 0;
};

}  // namespace ocr::engine
