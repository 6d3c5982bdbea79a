// POST /render: an answer the client holds, written again in another format (render_request.h).
// Parsing a large answer and writing it take a worker's time, so it is Work, never done on an
// I/O thread, and it reserves its memory first as OCR work does.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "document/render.h"
#include "http/api.h"
#include "http/internal/route_replies.h"
#include "http/render_request.h"
#include "jobs/document_memory.h"

namespace ocr::http {
namespace {

// The body's JSON tree, the document read from it and its output at their peak, per byte of the
// body: a 28 MB answer of 2,700 pages raised the server's peak RSS by 247 MB (8.7 times).
constexpr std::int64_t kRenderBytesPerBodyByte = 10;

}  // namespace

Routed Api::Render(ApiRequest& r) const {
  return internal::Later(r.path, [this, body = std::move(r.body),
                                  request_id = r.request_id](const WorkContext& /*context*/) {
    const auto need = static_cast<std::int64_t>(body.size()) * kRenderBytesPerBodyByte;
    const auto lease = jobs::ReserveBytes(memory_budget_, need);
    if (!lease.ok() && lease.status().code() == StatusCode::kImageTooLarge)
      return ErrorReply(
          413, "payload_too_large",
          "this answer needs about " + std::to_string(need >> 20) +
              " MB to render, more than the whole memory budget (--memory-budget-mb)");
    if (!lease.ok())
      return internal::FailureReply(lease.status(), request_id);
    ParsedRender parsed = ParseRenderRequest(body);
    if (const BadRequest* bad = std::get_if<BadRequest>(&parsed))
      return ErrorReply(400, bad->code, bad->message);
    const RenderCall& call = std::get<RenderCall>(parsed);
    const nlohmann::json answer = {
        {"format", document::OutputFormatName(call.shape.format)},
        {"output",
         document::FormatDocument(call.document, call.shape.format, call.shape.paginate)}};
    return Reply{200, DumpJson(answer)};
  });
}

}  // namespace ocr::http
