#include "http/openapi.h"

#include <array>
#include <cctype>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace ocr::http {
namespace {

// Ordered: the page follows the description's order, not the alphabet.
using OrderedJson = nlohmann::ordered_json;

// openapi.json in pieces (src/http/CMakeLists.txt): one literal could exceed what compilers take.
constexpr auto kOpenApiPieces = std::to_array<const char*>({
#include "openapi_json.inc"
});

// JSON strings convert to std::string implicitly, not to string_view.
std::string Escape(const std::string& s) {
  return ocr::EscapeHtml(s);
}

std::string RefName(const OrderedJson& j) {
  if (j.is_object() && j.contains("$ref")) {
    const std::string ref = j["$ref"];
    return ref.substr(ref.rfind('/') + 1);
  }
  return {};
}

std::string SchemaLink(const OrderedJson& schema) {
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
      const OrderedJson properties = part.value("properties", OrderedJson::object());
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

bool IsOperation(const std::string& method) {
  return method == "get" || method == "post" || method == "put" || method == "patch" ||
         method == "delete" || method == "options";
}

// A response object, its $ref followed.
const OrderedJson& Resolved(const OrderedJson& api, const OrderedJson& response) {
  const std::string name = RefName(response);
  return name.empty() ? response : api["components"]["responses"][name];
}

std::string ResponseRow(const std::string& status, const OrderedJson& response) {
  std::string body;
  const OrderedJson content = response.value("content", OrderedJson::object());
  for (const auto& [type, media] : content.items()) {
    body += (body.empty() ? "" : "<br>") + std::string("<code>") + Escape(type) +
            "</code>: " + SchemaLink(media.value("schema", OrderedJson::object()));
  }
  return "<tr><td>" + Escape(status) + "</td><td>" +
         Escape(response.value("description", std::string())) + "</td><td>" + body + "</td></tr>";
}

std::string OperationSection(const OrderedJson& api, const std::string& path,
                             const std::string& method, const OrderedJson& item,
                             const OrderedJson& op) {
  std::string upper = method;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // HEAD answers as GET does: named in the GET's heading rather than given a section.
  if (method == "get" && item.contains("head"))
    upper += ", HEAD";
  std::string h = "<section class=\"route\" id=\"" + Escape(op.value("operationId", "")) +
                  "\"><h3><span class=\"method\">" + upper + "</span> <code>" + Escape(path) +
                  "</code></h3><p>" + Escape(op.value("summary", "")) + "</p>";
  if (op.contains("description"))
    h += Paragraphs(op["description"]);
  if (op.contains("parameters")) {
    h += "<h4>Query</h4><ul>";
    for (const OrderedJson& parameter : op["parameters"]) {
      h += "<li><code>" + Escape(parameter.value("name", "")) +
           "</code>: " + Escape(parameter.value("description", "")) + "</li>";
    }
    h += "</ul>";
  }
  if (op.contains("requestBody")) {
    h += "<h4>Request body</h4><ul>";
    for (const auto& [type, media] : op["requestBody"]["content"].items())
      h += "<li><code>" + Escape(type) + "</code>: " + SchemaLink(media["schema"]) + "</li>";
    h += "</ul>";
  }
  // The errors every route may answer are listed once, in their own section.
  h += "<h4>Responses</h4><table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>";
  for (const auto& [status, response] : op["responses"].items()) {
    const OrderedJson& r = Resolved(api, response);
    if (!r.value("x-common", false))
      h += ResponseRow(status, r);
  }
  return h +
         "</table><p class=\"common\">And <a href=\"#common-errors\">the errors of every "
         "route</a>.</p></section>";
}

// The page: a table of contents by tag (in the order of the description's tags: the OCR and job
// routes first), each route's section under its tag, the errors common to every route once, then
// the schemas.
std::string RenderDocs(const OrderedJson& api) {
  std::string h =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<link rel=\"stylesheet\" href=\"/docs.css\"><title>" +
      Escape(api["info"]["title"]) + " API</title></head><body><main>";
  h += "<h1>" + Escape(api["info"]["title"]) + " <small>" + Escape(api["info"]["version"]) +
       "</small></h1>" + Paragraphs(api["info"]["description"]) +
       "<p><a href=\"/openapi.json\">openapi.json</a> &middot; <a href=\"/\">Web UI</a></p>";
  std::string toc = "<nav class=\"toc\"><h2>Contents</h2><ol>";
  std::string sections;
  for (const OrderedJson& tag : api.value("tags", OrderedJson::array())) {
    const std::string name = tag.value("name", "");
    toc += "<li><a href=\"#tag-" + Escape(name) + "\">" + Escape(name) + "</a><ul>";
    sections += "<h2 id=\"tag-" + Escape(name) + "\">" + Escape(name) + "</h2>" +
                Paragraphs(tag.value("description", ""));
    for (const auto& [path, item] : api["paths"].items()) {
      for (const auto& [method, op] : item.items()) {
        if (!IsOperation(method))
          continue;
        const OrderedJson tags = op.value("tags", OrderedJson::array());
        if (tags.empty() || tags.front() != name)
          continue;
        std::string upper = method;
        for (char& c : upper)
          c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        toc += "<li><a href=\"#" + Escape(op.value("operationId", "")) + "\">" + upper + " <code>" +
               Escape(path) + "</code></a>: " + Escape(op.value("summary", "")) + "</li>";
        sections += OperationSection(api, path, method, item, op);
      }
    }
    toc += "</ul></li>";
  }
  toc +=
      "<li><a href=\"#common-errors\">Errors of every route</a></li>"
      "<li><a href=\"#schemas\">Schemas</a></li></ol></nav>";
  h += toc + sections;
  h += "<h2 id=\"common-errors\">Errors of every route</h2><table><tr><th>Status</th>"
       "<th>Meaning</th><th>Body</th></tr>";
  std::set<std::string> listed;
  for (const auto& [path, item] : api["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (!IsOperation(method))
        continue;
      for (const auto& [status, response] : op["responses"].items()) {
        const OrderedJson& r = Resolved(api, response);
        if (r.value("x-common", false) && listed.insert(RefName(response)).second)
          h += ResponseRow(status, r);
      }
    }
  }
  // Closed until asked for: the schemas are most of the page's length, and a link to one opens it
  // (browsers open a <details> that a fragment points into).
  h += "</table><h2 id=\"schemas\">Schemas</h2>";
  for (const auto& [name, schema] : api["components"]["schemas"].items()) {
    h += "<details class=\"schema\" id=\"schema-" + Escape(name) + "\"><summary>" + Escape(name) +
         "</summary><pre>" + Escape(schema.dump(2)) + "</pre></details>";
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
  static const std::string html = RenderDocs(OrderedJson::parse(OpenApiJson()));
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
      "code{font-size:.95em}"
      ".toc ul{padding-left:1.25rem}.toc li{margin:.15rem 0}.common{font-size:.9em;color:#556}"
      "h4{margin:.75rem 0 .25rem}summary{cursor:pointer;font-weight:600}";
  return css;
}

}  // namespace ocr::http
