#include "engine/ort_model.h"

#include <system_error>
#include <utility>

#include <onnxruntime_cxx_api.h>
#include <spdlog/spdlog.h>

namespace ocr::engine {

namespace {

// Under a sanitizer, malloc hands out every large block as fresh pages and quarantines freed
// ones, so without the arena each Run faults its buffers in again (one page of OCR took 132 s
// under ASan, 26 s with the arena). The sanitizers are there for our code, not ONNX Runtime's
// buffers, so sanitizer builds keep the arena on.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

// ONNX Runtime's own messages go through our log (one JSON object per line with
// --log-format json), not its default coloured stderr lines.
void LogFromOrt(void* /*param*/, OrtLoggingLevel severity, const char* /*category*/,
                const char* /*logid*/, const char* where, const char* message) {
  const auto level = severity >= ORT_LOGGING_LEVEL_ERROR ? spdlog::level::err : spdlog::level::warn;
  spdlog::log(level, "onnxruntime: {} ({})", message, where);
}

}  // namespace

struct Runtime::Impl {
  Ort::Env env{ORT_LOGGING_LEVEL_ERROR, "onnxocr", LogFromOrt, nullptr};
};

Runtime::Runtime() : impl_(std::make_unique<Impl>()) {}

Runtime::~Runtime() = default;

std::string Runtime::Version() {
  return Ort::GetVersionString();
}

namespace {

std::string ShapeToString(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

class OrtModel final : public Model {
 public:
  OrtModel(std::string path, Ort::Session session, std::string input_name, std::string output_name,
           std::vector<std::int64_t> input_shape, std::vector<std::int64_t> output_shape)
      : path_(std::move(path)),
        session_(std::move(session)),
        input_name_(std::move(input_name)),
        output_name_(std::move(output_name)),
        input_shape_(std::move(input_shape)),
        output_shape_(std::move(output_shape)),
        memory_info_(Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault)) {}

  Result<Tensor> Run(const Tensor& input, const std::stop_token& stop) const override {
    if (static_cast<std::int64_t>(input.data.size()) != Tensor::NumElements(input.shape)) {
      return Internal("tensor data does not match its shape " + ShapeToString(input.shape));
    }
    try {
      // The input tensor wraps our buffer without copying; ONNX Runtime does not write to it.
      Ort::Value in = Ort::Value::CreateTensor<float>(
          memory_info_, const_cast<float*>(input.data.data()), input.data.size(),
          input.shape.data(), input.shape.size());
      const char* in_name = input_name_.c_str();
      const char* out_name = output_name_.c_str();
      // ONNX Runtime checks the terminate flag before each operator; the callback may run on
      // the thread that requests the stop (or here, at once, if it was requested already).
      Ort::RunOptions run_options;
      const std::stop_callback terminate(stop, [&run_options] { run_options.SetTerminate(); });
      std::vector<Ort::Value> outputs = session_.Run(run_options, &in_name, &in, 1, &out_name, 1);
      Ort::TensorTypeAndShapeInfo info = outputs[0].GetTensorTypeAndShapeInfo();
      if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        return Internal(path_ + ": output is not float32");
      }
      Tensor out;
      out.shape = info.GetShape();
      const float* p = outputs[0].GetTensorData<float>();
      out.data.assign(p, p + info.GetElementCount());
      return out;
    } catch (const Ort::Exception& e) {
      if (stop.stop_requested())
        return Cancelled();
      return Internal("inference failed in " + path_ + " for input " + ShapeToString(input.shape) +
                      ": " + e.what());
    }
  }

  const std::vector<std::int64_t>& input_shape() const override { return input_shape_; }

  const std::vector<std::int64_t>& output_shape() const override { return output_shape_; }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  // Session::Run is const in spirit (thread-safe) but not declared const in the C++ wrapper.
  mutable Ort::Session session_;
  std::string input_name_;
  std::string output_name_;
  std::vector<std::int64_t> input_shape_;
  std::vector<std::int64_t> output_shape_;
  Ort::MemoryInfo memory_info_;
};

Status LoadFailed(const std::filesystem::path& path, const std::string& why) {
  return {StatusCode::kModelLoadFailed, "cannot load model " + path.string() + ": " + why};
}

Ort::SessionOptions SessionOptionsFor(const SessionConfig& config) {
  Ort::SessionOptions options;
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
  options.SetIntraOpNumThreads(config.intra_op_threads);
  options.SetInterOpNumThreads(1);
  options.AddConfigEntry("session.intra_op.allow_spinning", config.allow_spinning ? "1" : "0");
  if (!config.enable_cpu_mem_arena && !kSanitizerBuild)
    options.DisableCpuMemArena();
  // Memory patterns only pay off for fixed input shapes; OCR inputs change with every image.
  options.DisableMemPattern();
  return options;
}

}  // namespace

Result<std::unique_ptr<Model>> LoadOrtModel(const Runtime& runtime,
                                            const std::filesystem::path& path,
                                            const SessionConfig& config) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return LoadFailed(path, "file not found");
  try {
    Ort::Session session(runtime.impl().env, path.c_str(), SessionOptionsFor(config));
    if (session.GetInputCount() != 1)
      return LoadFailed(path, "expected exactly one input");
    if (session.GetOutputCount() < 1)
      return LoadFailed(path, "the model has no output");
    Ort::AllocatorWithDefaultOptions alloc;
    std::string in_name = session.GetInputNameAllocated(0, alloc).get();
    std::string out_name = session.GetOutputNameAllocated(0, alloc).get();
    // The shape infos are views into the TypeInfo objects, which must stay alive.
    const Ort::TypeInfo in_type = session.GetInputTypeInfo(0);
    const Ort::TypeInfo out_type = session.GetOutputTypeInfo(0);
    auto in_info = in_type.GetTensorTypeAndShapeInfo();
    auto out_info = out_type.GetTensorTypeAndShapeInfo();
    if (in_info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ||
        out_info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      return LoadFailed(path, "input and output must be float32 tensors");
    }
    std::unique_ptr<Model> model =
        std::make_unique<OrtModel>(path.string(), std::move(session), std::move(in_name),
                                   std::move(out_name), in_info.GetShape(), out_info.GetShape());
    return model;
  } catch (const Ort::Exception& e) {
    return LoadFailed(path, e.what());
  }
}

Status RunAllOutputs(
    const Runtime& runtime, const std::filesystem::path& path, std::span<const Tensor> inputs,
    const std::function<void(const std::string& name, std::span<const float>)>& visit) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return LoadFailed(path, "file not found");
  try {
    // Every core; fusions keep each node whose output is a graph output, so the statistics are
    // those of the graph as written.
    SessionConfig config;
    config.intra_op_threads = 0;
    Ort::Session session(runtime.impl().env, path.c_str(), SessionOptionsFor(config));
    if (session.GetInputCount() != 1)
      return LoadFailed(path, "expected exactly one input");
    Ort::AllocatorWithDefaultOptions alloc;
    const std::string in_name = session.GetInputNameAllocated(0, alloc).get();
    const size_t count = session.GetOutputCount();
    std::vector<std::string> names;
    std::vector<const char*> out_names;
    names.reserve(count);
    out_names.reserve(count);
    for (size_t i = 0; i < count; ++i)
      names.emplace_back(session.GetOutputNameAllocated(i, alloc).get());
    for (const auto& n : names)
      out_names.push_back(n.c_str());
    const auto memory_info = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    for (const Tensor& input : inputs) {
      Ort::Value in = Ort::Value::CreateTensor<float>(
          memory_info, const_cast<float*>(input.data.data()), input.data.size(), input.shape.data(),
          input.shape.size());
      const char* in_ptr = in_name.c_str();
      std::vector<Ort::Value> outputs =
          session.Run(Ort::RunOptions{}, &in_ptr, &in, 1, out_names.data(), out_names.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        auto info = outputs[i].GetTensorTypeAndShapeInfo();
        if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
          continue;
        visit(names[i], {outputs[i].GetTensorData<float>(), info.GetElementCount()});
      }
    }
    return Status::Ok();
  } catch (const Ort::Exception& e) {
    return Internal("calibration run of " + path.string() + " failed: " + e.what());
  }
}

}  // namespace ocr::engine
