#include "cli/bench_workload.h"

#include "common/mutex.h"

namespace ocr::cli {
namespace {

// Where the recording models of one set put the calls of the image being recorded.
class CallRecorder {
 public:
  void Record(ModelCall call) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    sink_->push_back(std::move(call));
  }

  // The calls from now on go to `sink`. REQUIRES: it outlives the calls recorded into it.
  void RecordInto(std::vector<ModelCall>* sink) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    sink_ = sink;
  }

 private:
  Mutex mu_;  // guards sink_ and what it points to
  std::vector<ModelCall>* sink_ GUARDED_BY(mu_) PT_GUARDED_BY(mu_) = nullptr;
};

// Forwards to a real model and keeps a copy of every input.
class RecordingModel final : public engine::Model {
 public:
  RecordingModel(const engine::Model& inner, ModelRole role, CallRecorder& recorder)
      : inner_(inner), role_(role), recorder_(recorder) {}

  Result<engine::Tensor> Run(const engine::Tensor& input,
                             const std::stop_token& stop) const override {
    recorder_.Record({role_, input});
    return inner_.Run(input, stop);
  }

  const std::vector<std::int64_t>& input_shape() const override { return inner_.input_shape(); }

  const std::vector<std::int64_t>& output_shape() const override { return inner_.output_shape(); }

  const std::string& path() const override { return inner_.path(); }

 private:
  const engine::Model& inner_;
  const ModelRole role_;
  CallRecorder& recorder_;
};

const engine::Model* ModelFor(const pipeline::ModelSet& models, ModelRole role) {
  switch (role) {
    case ModelRole::kDet:
      return models.det.get();
    case ModelRole::kCls:
      return models.cls.get();
    case ModelRole::kRec:
      return models.rec.get();
  }
  return nullptr;
}

}  // namespace

Result<Workload> RecordWorkload(const pipeline::ModelSet& models, std::span<const cv::Mat> images,
                                const pipeline::OcrOptions& options) {
  Workload workload;
  CallRecorder recorder;
  pipeline::ModelSet recording;
  recording.name = models.name;
  recording.dir = models.dir;
  recording.charset = models.charset;
  recording.cls_height = models.cls_height;
  recording.cls_width = models.cls_width;
  recording.rec_height = models.rec_height;
  recording.rec_width = models.rec_width;
  recording.det_part = models.det_part;
  recording.cls_part = models.cls_part;
  recording.rec_part = models.rec_part;
  recording.dictionary_path = models.dictionary_path;
  recording.dictionary_sha256 = models.dictionary_sha256;
  recording.det = std::make_unique<RecordingModel>(*models.det, ModelRole::kDet, recorder);
  recording.rec = std::make_unique<RecordingModel>(*models.rec, ModelRole::kRec, recorder);
  if (models.cls)
    recording.cls = std::make_unique<RecordingModel>(*models.cls, ModelRole::kCls, recorder);
  const pipeline::Pipeline pipe(recording);
  workload.images.resize(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    recorder.RecordInto(&workload.images[i]);
    OCR_RETURN_IF_ERROR(pipe.Run(images[i], options).status());
  }
  return workload;
}

Status ReplayImage(const Workload& workload, size_t index, const pipeline::ModelSet& models) {
  for (const ModelCall& call : workload.images[index]) {
    const engine::Model* model = ModelFor(models, call.role);
    if (model == nullptr)
      return Internal("replay: the model set has no model for a recorded call");
    OCR_RETURN_IF_ERROR(model->Run(call.input).status());
  }
  return Status::Ok();
}

}  // namespace ocr::cli
