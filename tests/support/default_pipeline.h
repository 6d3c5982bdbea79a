// The default model set (models/ppocrv4) loaded once per test binary, for tests that run the
// real pipeline. Header-only: only binaries that link ocr_pipeline include it.
#pragma once

#include <cstdlib>
#include <memory>

#include "engine/ort_model.h"
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"
#include "support/test_paths.h"

namespace ocr::testing {

// Loads on first use; aborts the binary with the loader's message if the set does not load
// (scripts/bootstrap installs it). Lives until the process exits.
inline const pipeline::Pipeline& DefaultPipeline() {
  struct Loaded {
    engine::Runtime runtime;
    std::unique_ptr<pipeline::ModelSet> models;
    std::unique_ptr<pipeline::Pipeline> pipeline;
  };

  static Loaded* loaded = [] {
    auto* l = new Loaded();
    auto set = pipeline::LoadModelSet(l->runtime, "ppocrv4", DefaultModelDir(), {});
    if (!set.ok()) {
      ADD_FAILURE() << set.status().ToString();
      std::abort();
    }
    l->models = std::move(set).value();
    l->pipeline = std::make_unique<pipeline::Pipeline>(*l->models);
    return l;
  }();
  return *loaded->pipeline;
}

}  // namespace ocr::testing
