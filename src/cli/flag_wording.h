// The CLI's words for the API's: the document layer's messages (and the option table's help)
// name request fields, as the HTTP API must ("page_range must look like 0-3,7"); `onnxocr run`
// passes each through InFlagTerms before printing it, so its user reads the flag to change
// ("--pages must look like 0-3,7"). The API keeps its own wording.
// Thread-safety: pure functions over constant tables.
#pragma once

#include <string>
#include <string_view>

namespace ocr::cli {

// `message` with each request field that `onnxocr run` takes as a flag named as that flag:
// page_range -> --pages, output_format -> --format, paginate_output -> --paginate,
// force_ocr -> --force-ocr, drop_score -> --drop-score, ...; "field=value" becomes
// "--flag value". Only whole field names are replaced (not inside a path or a longer name), and
// only snake_case ones: one-word fields (cls, pdfa) are ordinary words in messages.
std::string InFlagTerms(std::string_view message);

}  // namespace ocr::cli
