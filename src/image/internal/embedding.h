// Hand parsers of the header fields a PDF page made of an image needs (image/decode.h,
// ProbeEmbedding): the resolution a file states (JPEG's JFIF density, PNG's pHYs, TIFF's
// XResolution and YResolution with their unit) and whether a JPEG's bytes can be a PDF image as
// they are (8-bit samples, 1 or 3 components, no Adobe colour transform marker, EXIF orientation
// 1). Driven by the fuzz target image_decode_fuzz on every input.
// Thread-safety: pure functions over bytes. Every read goes through Has() first and every loop
// is bounded by the input and an explicit cap, as in probe.h.
#pragma once

#include "image/decode.h"
#include "image/internal/probe.h"

namespace ocr::image::internal {

// JPEG: the markers before the first frame header (APP0 JFIF, APP1 Exif, APP14 Adobe, SOFn).
EmbeddingInfo ProbeJpegEmbedding(Bytes b);
// PNG: the pHYs chunk before the first IDAT, in pixels per metre.
EmbeddingInfo ProbePngEmbedding(Bytes b);
// TIFF: the first IFD's XResolution, YResolution (RATIONAL) and ResolutionUnit (inch or cm).
EmbeddingInfo ProbeTiffEmbedding(Bytes b);

}  // namespace ocr::image::internal
