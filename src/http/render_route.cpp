// POST /render: an answer the client holds, written again in another format (render_request.h).
// Parsing a large answer and writing it take a worker's time, so it is Work, never done on an
// I/O thread.
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "document/render.h"
#include "http/api.h"
#include "http/internal/route_replies.h"
#include "http/render_request.h"

namespace ocr::http {

Routed Api::Render(ApiRequest& r) const {
  return internal::Later(r.path, [body = std::move(r.body)](const WorkContext& /*context*/) {
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
