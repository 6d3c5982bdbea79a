"""OCRmyPDF engine plugin: OCRmyPDF sends each page image to an OnnxOCR server instead of running
Tesseract, and keeps everything else it does (PDF/A, deskew, optimization, page selection).

    ocrmypdf --plugin contrib/ocrmypdf/onnxocr_plugin.py --onnxocr-url http://127.0.0.1:5005 \\
        in.pdf out.pdf

With OCRmyPDF's default renderer (sandwich) each page's text layer is the server's searchable
PDF of the page image (output_format=pdf) with the image taken out: the glyphless font and its
ToUnicode map keep every script the server reads, Chinese included. With --pdf-renderer hocr,
OCRmyPDF draws the server's hOCR (output_format=hocr) itself. Python's standard library and the
packages OCRmyPDF already needs (pikepdf, Pillow); tested with Debian's ocrmypdf 14.
"""
from __future__ import annotations

import io
import json
import logging
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pikepdf
from PIL import Image

from ocrmypdf import hookimpl
from ocrmypdf.exceptions import SubprocessOutputError
from ocrmypdf.pluginspec import OcrEngine, OrientationConfidence

log = logging.getLogger(__name__)


@hookimpl
def add_options(parser):
    group = parser.add_argument_group("OnnxOCR", "Options of the OnnxOCR engine plugin")
    group.add_argument("--onnxocr-url", default="http://127.0.0.1:5005",
                       help="Base URL of the OnnxOCR server (default: %(default)s)")
    group.add_argument("--onnxocr-timeout", type=float, default=300,
                       help="Seconds to wait for the server's answer to one page")
    group.add_argument("--onnxocr-model", default="",
                       help="The server's model set (default: its first)")


def _post(options, image: Path, output_format: str) -> bytes:
    """POST /ocr with the page image as multipart/form-data; the answer's bytes."""
    boundary = uuid.uuid4().hex
    fields = {"output_format": output_format}
    if options.onnxocr_model:
        fields["model"] = options.onnxocr_model
    body = io.BytesIO()
    for name, value in fields.items():
        body.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                   f"{value}\r\n".encode())
    body.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
               f"filename=\"{image.name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
               .encode())
    body.write(image.read_bytes())
    body.write(f"\r\n--{boundary}--\r\n".encode())
    request = urllib.request.Request(
        options.onnxocr_url.rstrip("/") + "/ocr", data=body.getvalue(), method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(request, timeout=options.onnxocr_timeout) as answer:
            return answer.read()
    except urllib.error.HTTPError as e:
        detail = e.read().decode(errors="replace")
        try:
            detail = json.loads(detail)["error"]
        except (ValueError, KeyError, TypeError):
            pass
        raise SubprocessOutputError(f"OnnxOCR server: {e.code}: {detail}") from e
    except OSError as e:
        raise SubprocessOutputError(f"OnnxOCR server at {options.onnxocr_url}: {e}") from e


def _lines(answer: dict) -> str:
    return "".join(r["text"] + "\n" for r in answer.get("results", []))


class OnnxOcrEngine(OcrEngine):
    @staticmethod
    def version():
        return "1"

    @staticmethod
    def creator_tag(options):
        return "OnnxOCR Server"

    def __str__(self):
        return "OnnxOCR Server"

    @staticmethod
    def languages(options):
        # PP-OCR's Chinese and English sets read both; a language only names what a page holds.
        return {"eng", "chi_sim", "chi_tra"}

    @staticmethod
    def get_orientation(input_file, options):
        # The server turns upside-down lines itself; OCRmyPDF's page rotation is left alone.
        return OrientationConfidence(angle=0, confidence=0.0)

    @staticmethod
    def generate_hocr(input_file, output_hocr, output_text, options):
        answer = json.loads(_post(options, Path(input_file), "hocr"))
        Path(output_hocr).write_text(answer["output"], encoding="utf-8")
        Path(output_text).write_text(_lines(answer), encoding="utf-8")

    @staticmethod
    def generate_pdf(input_file, output_pdf, output_text, options):
        """The server's searchable PDF of the page image, its image removed: a text-only page of
        the image's size at its own resolution, as OCRmyPDF grafts it onto the input page."""
        input_file = Path(input_file)
        with Image.open(input_file) as im:
            width, height = im.size
            dpi = im.info.get("dpi", (300, 300))
        pdf = pikepdf.open(io.BytesIO(_post(options, input_file, "pdf")))
        page = pdf.pages[0]
        # Everything but the image: the layer's text objects.
        kept = [(operands, op) for operands, op in pikepdf.parse_content_stream(page)
                if str(op) != "Do"]
        if "/XObject" in page.Resources:
            del page.Resources["/XObject"]
        # The server drew the page at the resolution the file states, or 300 dpi; OCRmyPDF's
        # page is the image at `dpi`.
        box = [float(v) for v in page.MediaBox]
        target_w = width * 72.0 / float(dpi[0] or 300)
        target_h = height * 72.0 / float(dpi[1] or 300)
        sx = target_w / (box[2] - box[0])
        sy = target_h / (box[3] - box[1])
        content = pikepdf.unparse_content_stream(kept)
        page.Contents = pdf.make_stream(
            f"q {sx:.6f} 0 0 {sy:.6f} 0 0 cm\n".encode() + content + b"\nQ\n")
        page.MediaBox = [0, 0, target_w, target_h]
        pdf.save(output_pdf)
        # The sidecar text: only when asked for (it costs a second reading of the page).
        text = ""
        if getattr(options, "sidecar", None):
            text = _lines(json.loads(_post(options, input_file, "json")))
        Path(output_text).write_text(text, encoding="utf-8")


@hookimpl
def get_ocr_engine():
    return OnnxOcrEngine()
