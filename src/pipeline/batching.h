// Batched model calls spread over a TaskRunner: the direction classifier and the recognizer both
// cut their crops into batches, and the batches of one image are independent, so a lone request
// runs them on every idle core of its worker group.
// Thread-safety: stateless; `fn` must be safe to call concurrently for different batches.
#pragma once

#include <cstddef>
#include <functional>
#include <stop_token>

#include "common/status.h"
#include "common/task_runner.h"
#include "pipeline/types.h"

namespace ocr::pipeline {

// Calls fn(begin, count, times) for the batches [0, b), [b, 2b), ... of `total` items, possibly
// concurrently on `runner`. Each batch fills its own StageTimes; they are summed into `times`.
// Returns the error of the first failing batch (in batch order), kCancelled when `stop` was
// requested before a batch started, else Ok.
Status ForEachBatch(size_t total, size_t batch_size, TaskRunner& runner,
                    const std::stop_token& stop, StageTimes& times,
                    const std::function<Status(size_t begin, size_t count, StageTimes& times)>& fn);

}  // namespace ocr::pipeline
