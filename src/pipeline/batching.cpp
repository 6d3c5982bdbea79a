#include "pipeline/batching.h"

#include <algorithm>
#include <vector>

namespace ocr::pipeline {

Status ForEachBatch(size_t total, size_t batch_size, TaskRunner& runner,
                    const std::stop_token& stop, StageTimes& times,
                    const std::function<Status(size_t, size_t, StageTimes&)>& fn) {
  batch_size = std::max<size_t>(batch_size, 1);
  const size_t batches = (total + batch_size - 1) / batch_size;
  std::vector<Status> statuses(batches);
  std::vector<StageTimes> batch_times(batches);
  runner.ParallelFor(batches, [&](size_t b) {
    if (stop.stop_requested()) {
      statuses[b] = Cancelled();
      return;
    }
    const size_t begin = b * batch_size;
    statuses[b] = fn(begin, std::min(batch_size, total - begin), batch_times[b]);
  });
  for (size_t b = 0; b < batches; ++b) {
    times += batch_times[b];
    if (!statuses[b].ok())
      return statuses[b];
  }
  return Status::Ok();
}

}  // namespace ocr::pipeline
