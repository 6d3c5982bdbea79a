#include "http/openapi.h"

#include <array>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace ocr::http {
namespace {

// openapi.json in pieces (src/http/CMakeLists.txt): one literal could exceed what compilers take.
constexpr auto kOpenApiPieces = std::to_array<const char*>({
#include "openapi_json.inc"
});

// JSON strings convert to std::string implicitly, not to string_view.
std::string Escape(const std::string& s) {
  return ocr::EscapeHtml(s);
}

std::string RefName(const nlohmann::json& j) {
  if (j.is_object() && j.contains("$ref")) {
    const std::string ref = j["$ref"];
    return ref.substr(ref.rfind('/') + 1);
  }
  return {};
}

std::string SchemaLink(const nlohmann::json& schema) {
  if (const std::string name = RefName(schema); !name.empty()) {
    return "<a href=\"#schema-" + Escape(name) + "\">" + Escape(name) + "</a>";
  }
  if (schema.contains("oneOf")) {
    std::string s;
    for (const auto& alt : schema["oneOf"])
      s += (s.empty() ? "" : " or ") + SchemaLink(alt);
    return s;
  }
  if (schema.contains("allOf")) {
    // A named schema narrowed inline, e.g. Error with the codes of one status.
    std::string s;
    for (const auto& part : schema["allOf"]) {
      if (!RefName(part).empty()) {
        s += (s.empty() ? "" : " and ") + SchemaLink(part);
        continue;
      }
      const nlohmann::json properties = part.value("properties", nlohmann::json::object());
      for (const auto& [name, prop] : properties.items()) {
        if (!prop.contains("enum"))
          continue;
        std::string values;
        for (const auto& v : prop["enum"]) {
          values += (values.empty() ? "" : ", ");
          values += v.is_string() ? v.get<std::string>() : v.dump();
        }
        s += " (" + Escape(name) + ": " + Escape(values) + ")";
      }
    }
    return s.empty() ? "object" : s;
  }
  return Escape(schema.value("type", std::string("object")));
}

// A description's paragraphs (separated by a blank line); one that is a curl command is code.
std::string Paragraphs(const std::string& text) {
  std::string h;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find("\n\n", start);
    if (end == std::string::npos)
      end = text.size();
    const std::string part = text.substr(start, end - start);
    if (part.rfind("curl ", 0) == 0)
      h += "<pre><code>" + Escape(part) + "</code></pre>";
    else if (!part.empty())
      h += "<p>" + Escape(part) + "</p>";
    start = end + 2;
  }
  return h;
}

std::string RenderDocs(const nlohmann::json& api) {
  std::string h =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<link rel=\"stylesheet\" href=\"/docs.css\"><title>" +
      Escape(api["info"]["title"]) + " API</title></head><body><main>";
  h += "<h1>" + Escape(api["info"]["title"]) + " <small>" + Escape(api["info"]["version"]) +
       "</small></h1>" + Paragraphs(api["info"]["description"]) +
       "<p><a href=\"/openapi.json\">openapi.json</a> &middot; <a href=\"/\">Web UI</a></p>";
  const auto& responses = api["components"]["responses"];
  for (const auto& [path, item] : api["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      // Only operations: not the path's shared parameters, summary or extensions. HEAD answers
      // as GET does, so it is named in the GET's heading rather than given a section.
      if (method != "get" && method != "post" && method != "put" && method != "patch" &&
          method != "delete" && method != "options")
        continue;
      std::string upper = method;
      for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (method == "get" && item.contains("head"))
        upper += ", HEAD";
      h += "<section class=\"route\" id=\"" + Escape(op.value("operationId", std::string())) +
           "\"><h2><span class=\"method\">" + upper + "</span> <code>" + Escape(path) +
           "</code></h2><p>" + Escape(op.value("summary", std::string())) + "</p>";
      if (op.contains("description"))
        h += Paragraphs(op["description"]);
      if (op.contains("requestBody")) {
        h += "<h3>Request body</h3><ul>";
        for (const auto& [type, media] : op["requestBody"]["content"].items()) {
          h += "<li><code>" + Escape(type) + "</code>: " + SchemaLink(media["schema"]) + "</li>";
        }
        h += "</ul>";
      }
      h += "<h3>Responses</h3><table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>";
      for (const auto& [status, resp] : op["responses"].items()) {
        const nlohmann::json& r = RefName(resp).empty() ? resp : responses[RefName(resp)];
        std::string body;
        const nlohmann::json content = r.value("content", nlohmann::json::object());
        for (const auto& [type, media] : content.items()) {
          body += (body.empty() ? "" : "<br>") + std::string("<code>") + Escape(type) +
                  "</code>: " + SchemaLink(media.value("schema", nlohmann::json::object()));
        }
        h += "<tr><td>" + Escape(status) + "</td><td>" +
             Escape(r.value("description", std::string())) + "</td><td>" + body + "</td></tr>";
      }
      h += "</table></section>";
    }
  }
  h += "<h2>Schemas</h2>";
  for (const auto& [name, schema] : api["components"]["schemas"].items()) {
    h += "<section class=\"schema\" id=\"schema-" + Escape(name) + "\"><h3>" + Escape(name) +
         "</h3><pre>" + Escape(schema.dump(2)) + "</pre></section>";
  }
  h += "</main></body></html>";
  return h;
}

}  // namespace

const std::string& OpenApiJson() {
  static const std::string text = [] {
    std::string joined;
    for (const char* piece : kOpenApiPieces)
      joined += piece;
    return joined;
  }();
  return text;
}

const std::string& DocsHtml() {
  static const std::string html = RenderDocs(nlohmann::json::parse(OpenApiJson()));
  return html;
}

const std::string& DocsCss() {
  static const std::string css =
      "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1c1e21}"
      "main{max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem}"
      "h1 small{font-size:.5em;color:#667}"
      ".route,.schema{background:#fff;border:1px solid #dde1e6;border-radius:8px;"
      "padding:.5rem 1rem;margin:1rem 0}"
      ".method{display:inline-block;background:#2456d3;color:#fff;border-radius:4px;"
      "padding:0 .5rem;font-size:.8em}"
      "table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #eee;"
      "text-align:left;padding:.25rem .5rem;vertical-align:top}"
      "pre{overflow:auto;background:#f3f4f6;padding:.5rem;border-radius:6px;font-size:.85em}"
      "code{font-size:.95em}";
  return css;
}

}  // namespace ocr::http
