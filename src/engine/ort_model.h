// ONNX Runtime behind the Model interface. The only code that includes ONNX Runtime headers.
// Thread-safety: Runtime and OrtModel are immutable after creation; Run() may be called
// concurrently (ONNX Runtime sessions support concurrent Run calls).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "engine/model.h"

namespace ocr::engine {

struct SessionConfig {
  // Threads ONNX Runtime may use inside one Run (intra-op). 1 lets the caller run several
  // Runs side by side instead (the scheduler's choice); 0 lets ONNX Runtime take every core.
  int intra_op_threads = 1;
  // Busy-wait in the intra-op pool between operators. Off by default: spinning threads steal
  // cores from concurrent requests and look like load to autoscalers.
  bool allow_spinning = false;
  // ONNX Runtime's BFC arena keeps every high-water mark it ever reached; with the dynamic input
  // shapes of OCR (every image and crop differs) that shows up as memory creep, so it is off by
  // default and freed buffers go back to malloc.
  bool enable_cpu_mem_arena = false;
};

// The process-wide ONNX Runtime environment. Create one and keep it alive longer than every
// model loaded with it.
class Runtime {
 public:
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // "1.30.0": the version of the loaded library, not of the headers.
  static std::string Version();

  struct Impl;

  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Loads an ONNX file into a session (graph optimizations on). The model must have exactly one
// float input and at least one float output (the first is used).
// Errors: kModelLoadFailed naming the file (missing, unreadable, not ONNX, wrong form).
// REQUIRES: `runtime` outlives the returned model.
Result<std::unique_ptr<Model>> LoadOrtModel(const Runtime& runtime,
                                            const std::filesystem::path& path,
                                            const SessionConfig& config);

// Runs the graph at `path` once on `input` (with every core) and hands each float output to
// `visit` by name, as ONNX Runtime returns it, without copying. For `onnxocr calibrate`, whose
// augmented graphs expose hundreds of intermediate tensors as outputs; the serving path never
// uses it. Errors: kModelLoadFailed as LoadOrtModel; kInternal with the runtime's message.
Status RunAllOutputs(
    const Runtime& runtime, const std::filesystem::path& path, std::span<const Tensor> inputs,
    const std::function<void(const std::string& name, std::span<const float>)>& visit);

}  // namespace ocr::engine
