#include "http/metrics.h"

#include <cmath>
#include <cstdio>

namespace ocr::http {
namespace {

constexpr std::array<const char*, 6> kStageNames = {"det_pre", "det_infer", "det_post",
                                                    "cls",     "rec_pre",   "rec_infer"};

// Shortest round-trip form, and the exposition format's spelling of infinity.
std::string FormatNumber(double v) {
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the short form when it round-trips (0.005 rather than 0.0050000000000000001).
  char short_buf[32];
  std::snprintf(short_buf, sizeof short_buf, "%.15g", v);
  return std::strtod(short_buf, nullptr) == v ? short_buf : buf;
}

void AddDouble(std::atomic<double>& target, double v) {
  double current = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(current, current + v, std::memory_order_relaxed)) {
  }
}

void Header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

std::string Labels(std::string_view a, std::string_view b) {
  if (a.empty())
    return std::string(b);
  if (b.empty())
    return std::string(a);
  return std::string(a) + "," + std::string(b);
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void Histogram::Observe(double seconds) {
  size_t i = 0;
  while (i < kBoundsSeconds.size() && seconds > kBoundsSeconds[i])
    ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  AddDouble(sum_, seconds);
}

void Histogram::Write(std::string& out, std::string_view name, std::string_view labels) const {
  std::uint64_t cumulative = 0;
  for (size_t i = 0; i <= kBoundsSeconds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    const double le = i < kBoundsSeconds.size() ? kBoundsSeconds[i] : INFINITY;
    out.append(name).append("_bucket{");
    out.append(Labels(labels, "le=\"" + FormatNumber(le) + "\""));
    out.append("} ").append(std::to_string(cumulative)).append("\n");
  }
  const std::string braces = labels.empty() ? "" : "{" + std::string(labels) + "}";
  out.append(name).append("_sum").append(braces).append(" ");
  out.append(FormatNumber(sum_.load(std::memory_order_relaxed))).append("\n");
  out.append(name).append("_count").append(braces).append(" ");
  out.append(std::to_string(count_.load(std::memory_order_relaxed))).append("\n");
}

void Metrics::RecordRequest(std::string_view route, std::string_view method, unsigned status,
                            double seconds) {
  std::string key = std::string(route) + "\t" + std::string(method) + "\t" + std::to_string(status);
  MutexLock lock(&mu_);
  ++requests_[key];
  latency_[std::string(route)].Observe(seconds);
}

void Metrics::RecordPipeline(const pipeline::StageTimes& t, std::size_t lines) {
  const std::array<double, 6> ms = {t.det_pre_ms,
                                    t.det_infer_ms,
                                    t.det_post_ms + t.crop_ms,
                                    t.cls_pre_ms + t.cls_infer_ms,
                                    t.rec_pre_ms,
                                    t.rec_infer_ms + t.ctc_ms};
  for (size_t i = 0; i < ms.size(); ++i)
    stage_[i].Observe(ms[i] / 1000.0);
  lines_total_ += lines;
  images_total_ += 1;
}

std::string Metrics::Render() const {
  std::string out;
  const Gauges g = gauges_();
  Header(out, "onnxocr_queue_depth", "gauge",
         "Requests and pages of long documents waiting for a worker.");
  out += "onnxocr_queue_depth " + std::to_string(g.queue_depth) + "\n";
  Header(out, "onnxocr_in_flight_requests", "gauge",
         "Requests and pages of long documents being processed by workers.");
  out += "onnxocr_in_flight_requests " + std::to_string(g.in_flight) + "\n";
  Header(out, "onnxocr_open_connections", "gauge", "Open client connections.");
  out += "onnxocr_open_connections " + std::to_string(g.connections) + "\n";
  {
    MutexLock lock(&mu_);
    Header(out, "onnxocr_http_requests_total", "counter",
           "HTTP requests by route, method and status.");
    for (const auto& [key, count] : requests_) {
      const size_t a = key.find('\t');
      const size_t b = key.find('\t', a + 1);
      out += "onnxocr_http_requests_total{route=\"" + EscapeLabelValue(key.substr(0, a)) +
             "\",method=\"" + EscapeLabelValue(key.substr(a + 1, b - a - 1)) + "\",status=\"" +
             key.substr(b + 1) + "\"} " + std::to_string(count) + "\n";
    }
    Header(out, "onnxocr_http_request_duration_seconds", "histogram",
           "Time from a request's last byte to its response, by route.");
    for (const auto& [route, histogram] : latency_) {
      histogram.Write(out, "onnxocr_http_request_duration_seconds",
                      "route=\"" + EscapeLabelValue(route) + "\"");
    }
  }
  Header(out, "onnxocr_stage_duration_seconds", "histogram",
         "Time per pipeline stage for one image or page.");
  for (size_t i = 0; i < stage_.size(); ++i) {
    stage_[i].Write(out, "onnxocr_stage_duration_seconds",
                    std::string("stage=\"") + kStageNames[i] + "\"");
  }
  Header(out, "onnxocr_images_processed_total", "counter", "Images and pages run through OCR.");
  out += "onnxocr_images_processed_total " + std::to_string(images_total_.load()) + "\n";
  Header(out, "onnxocr_pages_processed_total", "counter", "Document pages returned.");
  out += "onnxocr_pages_processed_total " + std::to_string(pages_total_.load()) + "\n";
  Header(out, "onnxocr_lines_recognized_total", "counter", "Text lines returned.");
  out += "onnxocr_lines_recognized_total " + std::to_string(lines_total_.load()) + "\n";
  return out;
}

}  // namespace ocr::http
