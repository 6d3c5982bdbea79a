// make_fuzz_seeds: writes the seed corpus of every fuzz target, one folder per target under
// OUT_DIR, from the builders the image and PDF tests use (tests/image/test_images.h,
// tests/pdf/test_pdfs.h) and, when SHARED_TESTDATA_DIR is given, copies of the shared test
// images shrunk to at most 64 x 64. Seeds are made at fuzz time, so no binary is committed.
//   make_fuzz_seeds OUT_DIR [SHARED_TESTDATA_DIR]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "fuzz_support.h"
#include "image/test_images.h"
#include "pdf/test_pdfs.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

class SeedWriter {
 public:
  explicit SeedWriter(fs::path root) : root_(std::move(root)) {}

  void Add(const std::string& target, std::string_view content) {
    const fs::path dir = root_ / target;
    fs::create_directories(dir);
    const fs::path path = dir / ("seed_" + std::to_string(count_++));
    std::ofstream(path, std::ios::binary)
        .write(content.data(), static_cast<std::streamsize>(content.size()));
  }

  void Add(const std::string& target, const Bytes& content) {
    Add(target, std::string_view(reinterpret_cast<const char*>(content.data()), content.size()));
  }

  int count() const { return count_; }

 private:
  fs::path root_;
  int count_ = 0;
};

std::string Text(const Bytes& bytes) {
  return {bytes.begin(), bytes.end()};
}

// A white 96 x 24 PNG with dark text: small enough to OCR quickly, real enough to find a line.
std::string TextPng() {
  cv::Mat image(24, 96, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::putText(image, "Hi 42", cv::Point(4, 18), cv::FONT_HERSHEY_SIMPLEX, 0.6, cv::Scalar(0, 0, 0),
              1, cv::LINE_AA);
  return Text(ocr::image::testing::Encode(".png", image));
}

std::vector<std::string> PdfSeeds() {
  using ocr::pdf::testing::BuildPdf;
  using ocr::pdf::testing::HandWrittenPdf;
  const std::string helvetica =
      "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>";
  std::vector<std::string> pdfs = {
      Text(HandWrittenPdf(200, 100, "1 0 0 rg 0 0 100 100 re f 0 0 1 rg 100 0 100 100 re f")),
      Text(HandWrittenPdf(300, 200, "BT /F1 20 Tf 72 100 Td (Hello PDF) Tj ET", helvetica)),
      Text(HandWrittenPdf(100, 100, "")),
      Text(BuildPdf({"<< /Type /Catalog /Pages 2 0 R >>",
                     "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 50] /Rotate 90 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 50 100] /CropBox [10 10 40 "
                     "90] >>"})),
      // A scan: one 8 x 4 grey image over the page, two strips, and an OCR layer's hidden text.
      Text(BuildPdf({"<< /Type /Catalog /Pages 2 0 R >>",
                     "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Resources << /XObject << "
                     "/Im0 5 0 R >> >> /Contents 4 0 R >>",
                     "<< /Length 81 >>\nstream\nq 72 0 0 18 0 0 cm /Im0 Do Q q 72 0 0 18 0 18 cm "
                     "/Im0 Do Q BT 3 Tr (x) Tj ET\nendstream",
                     "<< /Type /XObject /Subtype /Image /Width 8 /Height 4 /ColorSpace /DeviceGray "
                     "/BitsPerComponent 8 /Length 32 >>\nstream\n" +
                         std::string(32, '\x80') + "\nendstream"})),
  };
  // A scan that is one JPEG over the page, read from the JPEG's bytes.
  const std::string jpeg =
      Text(ocr::image::testing::Encode(".jpg", cv::Mat(4, 8, CV_8UC3, cv::Scalar(200, 190, 180))));
  pdfs.push_back(Text(BuildPdf(
      {"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Resources << /XObject << /Im0 5 0 R "
       ">> >> /Contents 4 0 R >>",
       "<< /Length 28 >>\nstream\nq 72 0 0 36 0 0 cm /Im0 Do Q\nendstream",
       "<< /Type /XObject /Subtype /Image /Width 8 /Height 4 /ColorSpace /DeviceRGB "
       "/BitsPerComponent 8 /Filter /DCTDecode /Length " +
           std::to_string(jpeg.size()) + " >>\nstream\n" + jpeg + "\nendstream"})));
  std::string missing;
  if (ocr::pdf::testing::HaveTools(&missing)) {
    const fs::path born = ocr::pdf::testing::MakeTextPdf("seed", {"Invoice 1001"}, "a4");
    if (!born.empty())
      pdfs.push_back(Text(ocr::pdf::testing::ReadBytes(born)));
    ocr::pdf::testing::RemoveTempFolder();
  } else {
    std::printf("make_fuzz_seeds: no generated PDF (missing %s)\n", missing.c_str());
  }
  return pdfs;
}

// Shared test images, each shrunk to fit 64 x 64 and re-encoded in its own format.
std::vector<std::string> SharedImages(const fs::path& testdata) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(testdata)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".jpg" && ext != ".png")
      continue;
    const cv::Mat image = cv::imread(entry.path().string(), cv::IMREAD_COLOR);
    if (image.empty())
      continue;
    const double scale = 64.0 / std::max(image.cols, image.rows);
    cv::Mat small;
    cv::resize(image, small, cv::Size(), std::min(scale, 1.0), std::min(scale, 1.0),
               cv::INTER_AREA);
    out.push_back(Text(ocr::image::testing::Encode(ext, small)));
  }
  return out;
}

std::string Form(std::string_view boundary, const std::vector<std::string>& parts) {
  std::string body;
  for (const std::string& part : parts)
    body += "--" + std::string(boundary) + "\r\n" + part + "\r\n";
  return body + "--" + std::string(boundary) + "--\r\n";
}

std::string FilePart(std::string_view bytes) {
  return "Content-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n"
         "Content-Type: image/png\r\n\r\n" +
         std::string(bytes);
}

std::string FieldPart(std::string_view name, std::string_view value) {
  return "Content-Disposition: form-data; name=\"" + std::string(name) + "\"\r\n\r\n" +
         std::string(value);
}

std::string HttpRequest(std::string_view head, std::string_view content_type,
                        std::string_view body) {
  return std::string(head) + "\r\nHost: fuzz\r\nContent-Type: " + std::string(content_type) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: make_fuzz_seeds OUT_DIR [SHARED_TESTDATA_DIR]\n");
    return 2;
  }
  SeedWriter seeds(argv[1]);
  const std::string png = TextPng();
  const std::string b64 = ocr::fuzz::EncodeBase64(png);

  std::vector<std::string> images;
  for (const Bytes& file : ocr::image::testing::SampleFiles())
    images.push_back(Text(file));
  images.push_back(png);
  images.push_back(Text(ocr::image::testing::JpegWithSof(60000, 60000)));  // over the limit
  if (argc == 3 && fs::is_directory(argv[2])) {
    for (std::string& image : SharedImages(argv[2]))
      images.push_back(std::move(image));
  }
  for (const std::string& image : images)
    seeds.Add("image_decode_fuzz", image);

  for (const std::string& pdf : PdfSeeds())
    seeds.Add("pdf_fuzz", pdf);

  for (const std::string& text :
       {b64, "data:image/png;base64," + b64, b64.substr(0, b64.find('=')), std::string("QQ==\n")})
    seeds.Add("base64_fuzz", text);

  const std::vector<std::string> json = {
      R"({"image":")" + b64 + R"("})",
      R"({"image":"data:image/png;base64,)" + b64 +
          R"(","cls":false,"return_word_boxes":true,"drop_score":0.25,"model":"ppocrv4"})",
      R"({"image":"QQ==","drop_score":2})",
      R"({"image":"QQ==","det_limit_side_len":1600,"det_limit_type":"auto","text_normalization":false})",
      R"({"image":"QQ==","det_limit_side_len":5000,"det_limit_type":"tile"})",
      R"({"image":12,"cls":"yes"})",
      R"({"model":null,"image":null})",
      R"([1,2,{"image":""}])",
  };
  for (const std::string& body : json)
    seeds.Add("json_fuzz", body);

  // Answers sent back to be written again: the multipart form's pages (a heading, a paragraph,
  // a list item, a table with a spanning cell) and the JSON form's results.
  const std::string line =
      R"({"text":"Name, red","confidence":0.9,"bounding_box":[[10,10],[90,10],[90,30],[10,30]]})";
  const std::string line2 = R"({"text":"12","bounding_box":[[100,10],[150,10],[150,30],[100,30]]})";
  const std::string line3 =
      R"({"text":"- item","bounding_box":[[10,40],[150,40],[150,60],[10,60]]})";
  const std::string results = "[" + line + "," + line2 + "," + line3 + "]";
  const std::vector<std::string> render = {
      R"({"output_format":"markdown","answer":{"pages":[{"page":0,"width":200,"height":100,"results":)" +
          results +
          R"(,"blocks":[{"type":"heading","level":2,"lines":[0,1]},{"type":"list_item","ordered":false,"lines":[2]}]}]}})",
      R"({"output_format":"csv","paginate_output":true,"answer":{"pages":[{"results":)" + results +
          R"(,"blocks":[{"type":"table","rows":2,"columns":2,"header_rows":1,"cells":[{"row":0,"col":0,"col_span":2,"lines":[0,1]},{"row":1,"col":1,"lines":[2]}]}]},{"page":3,"results":[],"blocks":[]}]}})",
      R"({"output_format":"html","paginate_output":true,"answer":{"processing_time":1,"results":)" +
          results + "}}",
      R"({"output_format":"text","answer":{"results":[{"text":"x","bounding_box":[[1e39,0],[0,0],[0,0],[0,0]]}]}})",
  };
  for (const std::string& body : render)
    seeds.Add("render_fuzz", body);

  constexpr std::string_view kBoundary = "fuzzBoundary";
  const std::string content_type = "multipart/form-data; boundary=" + std::string(kBoundary);
  const std::vector<std::string> forms = {
      Form(kBoundary, {FilePart(png)}),
      Form(kBoundary, {FilePart("%PDF-1.4\n"), FieldPart("output_format", "markdown"),
                       FieldPart("paginate_output", "true"), FieldPart("page_range", "0-1")}),
      Form(kBoundary, {FieldPart("drop_score", "0.5"), FieldPart("cls", "no"),
                       FieldPart("return_word_boxes", "1"), FieldPart("force_ocr", "yes")}),
  };
  for (const std::string& form : forms)
    seeds.Add("multipart_fuzz", content_type + "\n" + form);
  seeds.Add("multipart_fuzz", "multipart/form-data; BOUNDARY=\"q\\\"x\"\n--q\"x\r\n\r\n");

  const std::vector<std::string> requests = {
      "GET /healthz HTTP/1.1\r\nHost: fuzz\r\n\r\nGET /info?x=1 HTTP/1.1\r\nHost: fuzz\r\n\r\n",
      "OPTIONS /ocr HTTP/1.1\r\nOrigin: https://app.example\r\n\r\n",
      "GET / HTTP/1.1\r\nIf-None-Match: \"x\"\r\n\r\n",
      HttpRequest("POST /ocr HTTP/1.1", "application/json", json[0]),
      HttpRequest("POST /ocr_api HTTP/1.1", "application/json", json[1]),
      HttpRequest("POST /ocr HTTP/1.1", content_type, forms[0]),
      HttpRequest("POST /ocr HTTP/1.1", content_type, forms[1]),
      "POST /ocr HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
      "5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n",
      // Long documents: a job and a stream of the small PNG, then the job routes with ids the
      // fuzzer can mutate.
      HttpRequest("POST /jobs HTTP/1.1", content_type, forms[0]),
      HttpRequest("POST /ocr HTTP/1.1", content_type,
                  Form(kBoundary, {FilePart(png), FieldPart("stream", "true"),
                                   FieldPart("output_format", "text")})),
      "GET /jobs/0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: fuzz\r\n\r\n"
      "GET /jobs/0123456789abcdef0123456789abcdef/events HTTP/1.1\r\nLast-Event-ID: 7\r\n\r\n",
      "DELETE /jobs/0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: fuzz\r\n\r\n"
      "GET /jobs/0123456789abcdef0123456789abcdef/result HTTP/1.1\r\nHost: fuzz\r\n\r\n",
  };
  for (const std::string& request : requests)
    seeds.Add("http_fuzz", request);

  for (const char* seed :
       {"redis://127.0.0.1:6379/0", "redis://:s3cret-pass@redis.internal:6380/2",
        "redis://[::1]:7000", "rediss://host", "redis://user:pw@host",
        R"([0,10,20,false,[["a b",0.9,[0,0,9,0,9,5,0,5],[]]]])",
        R"([1,3,4,true,[["x",1,[1,2,3,4,5,6,7,8],[["x",1,[1,2,3,4,5,6,7,8]]]]]])"}) {
    seeds.Add("redis_fuzz", seed);
  }
  // layout_fuzz: a page (size bytes, rulings, then lines of a text byte and 8 coordinate bytes,
  // 0-252 across the page): an unruled 4 x 4 grid of cells, and the same grid ruled.
  std::string grid;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      const auto x0 = static_cast<char>(10 + 60 * c);
      const auto x1 = static_cast<char>(40 + 60 * c);
      const auto y0 = static_cast<char>(20 + 40 * r);
      const auto y1 = static_cast<char>(35 + 40 * r);
      grid += std::string{static_cast<char>(r == 0 ? 9 : 7), x0, y0, x1, y0, x1, y1, x0, y1};
    }
  }
  seeds.Add("layout_fuzz", std::string{40, 40, 0} + grid);
  std::string ruled{40, 40, 10};
  for (int i = 0; i < 5; ++i) {
    ruled += std::string{0, static_cast<char>(12 + 40 * i), 5, static_cast<char>(250)};
    ruled += std::string{1, static_cast<char>(5 + 60 * i), 10, static_cast<char>(180)};
  }
  seeds.Add("layout_fuzz", ruled + grid);
  seeds.Add("redis_fuzz",
            R"([0,10,20,false,[["a",1,[0,0,9,0,9,5,0,5],[]],["b",1,[20,0,29,0,29,5,20,5],[]]],)"
            R"([[3,[0,0,29,5],[],0,false,[1,2,0,[0,0,29,5],[[0,0,1,1,[[0]]],[0,1,1,1,[[1]]]]]]]])");
  seeds.Add("redis_fuzz", R"({"model":"ppocrv4","format":"markdown","paginate":true,"cls":false,)"
                          R"("drop_score":0.6,"word_boxes":true,"det_limit_side_len":1280,)"
                          R"("det_limit_type":"min","text_normalization":false,"force_ocr":true,)"
                          R"("page_range":"0-2","page_vote":false,"stretch_contrast":true})");

  std::printf("make_fuzz_seeds: %d seeds in %s\n", seeds.count(), argv[1]);
  return 0;
}
