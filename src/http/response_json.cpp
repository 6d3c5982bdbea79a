#include "http/response_json.h"

namespace ocr::http {

nlohmann::json LinesToJson(std::span<const pipeline::TextLine> lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& line : lines) {
    nlohmann::json box = nlohmann::json::array();
    for (const auto& p : line.box)
      box.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
    out.push_back({{"text", line.text},
                   {"confidence", static_cast<double>(line.confidence)},
                   {"bounding_box", std::move(box)}});
  }
  return out;
}

nlohmann::json OcrResponseJson(std::span<const pipeline::TextLine> lines, double seconds) {
  return {{"processing_time", seconds}, {"results", LinesToJson(lines)}};
}

std::string_view ErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return "invalid_option";
    case StatusCode::kUnsupportedMediaType:
      return "unsupported_media_type";
    case StatusCode::kUndecodableImage:
      return "undecodable_image";
    case StatusCode::kImageTooLarge:
      return "image_too_large";
    case StatusCode::kInvalidPdf:
      return "invalid_pdf";
    case StatusCode::kEncryptedPdf:
      return "encrypted_pdf";
    case StatusCode::kTooManyPages:
      return "too_many_pages";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kResourceExhausted:
      return "server_busy";
    case StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case StatusCode::kOk:
    case StatusCode::kModelLoadFailed:
    case StatusCode::kIoError:
    case StatusCode::kCancelled:
    case StatusCode::kInternal:
      break;
  }
  return "internal";
}

nlohmann::json ErrorJson(const Status& status) {
  return {{"success", false},
          {"error", {{"code", ErrorCode(status.code())}, {"message", status.message()}}}};
}

}  // namespace ocr::http
