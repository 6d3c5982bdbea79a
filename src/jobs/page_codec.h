// A read page as compact JSON, the form in which the shared job store (jobs/redis_jobs.h) keeps
// pages in Redis so that any replica can answer a job's result. Not a wire format of the API:
// arrays instead of named fields, to keep the stored results small (about half the bytes of the
// API's JSON for the same lines).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "document/document.h"

namespace ocr::jobs {

// [page, width, height, from_text_layer, [[text, confidence, [x0,y0,..,x3,y3], [words]], ...],
// [blocks]] where each word is [text, confidence, [8 coordinates]] and each block is laid out as
// page_codec.cpp's BlockJson says. Stage times are not kept: they were
// counted by the replica that read the page.
std::string EncodePage(const document::DocumentPage& page);

// The inverse of EncodePage (which also reads the five fields of pages stored without blocks).
// Errors: kInternal when `text` is not what EncodePage writes (the store holds something else
// under the key), including blocks that name lines the page does not have.
Result<document::DocumentPage> DecodePage(std::string_view text);

// A finished job's document from its stored pages (`stored`: page index -> EncodePage's form) in
// `where` (the store, for messages). Errors: kUnavailable when pages are missing (the store lost
// them), kInternal when one does not decode or its index is past `pages_total`.
Result<std::shared_ptr<document::DocumentResult>> DecodeDocument(
    int page_count, int pages_total, const std::map<std::size_t, std::string>& stored,
    std::string_view where);

}  // namespace ocr::jobs
