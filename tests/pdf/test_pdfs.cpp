#include "pdf/test_pdfs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

namespace ocr::pdf::testing {
namespace {

std::string Quote(const std::filesystem::path& p) {
  std::string out = "'";
  for (const char c : p.string()) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::filesystem::path Folder() {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("ocr_pdf_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

bool WriteFile(const std::filesystem::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  return static_cast<bool>(out);
}

}  // namespace

bool HaveTools(std::string* missing) {
  missing->clear();
  for (const char* tool : {"enscript", "ps2pdf", "gs", "qpdf", "img2pdf"}) {
    if (std::system(("command -v " + std::string(tool) + " >/dev/null 2>&1").c_str()) != 0) {
      *missing += std::string(missing->empty() ? "" : ", ") + tool;
    }
  }
  return missing->empty();
}

bool Run(const std::string& command) {
  const std::string log = Quote(Folder() / "tools.log");
  const std::string line = "(" + command + ") >>" + log + " 2>&1";
  const int rc = std::system(line.c_str());
  if (rc != 0)
    ADD_FAILURE() << "command failed (" << rc << "): " << command << "; see " << log;
  return rc == 0;
}

std::filesystem::path TempPath(const std::string& name) {
  return Folder() / name;
}

void RemoveTempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(Folder(), ignored);
}

std::filesystem::path MakeTextPdf(const std::string& name, const std::vector<std::string>& pages,
                                  const std::string& paper) {
  std::string text;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (i > 0)
      text += '\f';
    text += pages[i] + '\n';
  }
  const std::filesystem::path txt = TempPath(name + ".txt");
  const std::filesystem::path pdf = TempPath(name + ".pdf");
  if (!WriteFile(txt, text))
    return {};
  const std::string media = paper == "letter" ? "Letter" : "A4";
  if (!Run("enscript -q -B -M " + media + " -f Courier12 -o - " + Quote(txt) +
           " | ps2pdf -sPAPERSIZE=" + paper + " - " + Quote(pdf))) {
    return {};
  }
  return pdf;
}

std::filesystem::path MakeScannedPdf(const std::string& name, const std::filesystem::path& source) {
  const std::filesystem::path png = TempPath(name + ".png");
  const std::filesystem::path pdf = TempPath(name + ".pdf");
  if (!Run("gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=pnggray -r100 -dFirstPage=1 -dLastPage=1 "
           "-o " +
           Quote(png) + " " + Quote(source)) ||
      !Run("img2pdf --pagesize A4 -o " + Quote(pdf) + " " + Quote(png))) {
    return {};
  }
  return pdf;
}

std::filesystem::path MakeRotatedPdf(const std::string& name, const std::filesystem::path& source,
                                     int degrees, int page) {
  const std::filesystem::path pdf = TempPath(name + ".pdf");
  if (!Run("qpdf --rotate=+" + std::to_string(degrees) + ":" + std::to_string(page) + " " +
           Quote(source) + " " + Quote(pdf))) {
    return {};
  }
  return pdf;
}

std::filesystem::path MakeEncryptedPdf(const std::string& name, const std::filesystem::path& source,
                                       const std::string& user_password) {
  const std::filesystem::path pdf = TempPath(name + ".pdf");
  if (!Run("qpdf --encrypt " + Quote(user_password) + " owner-secret 256 -- " + Quote(source) +
           " " + Quote(pdf))) {
    return {};
  }
  return pdf;
}

std::vector<std::uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> BuildPdf(const std::vector<std::string>& objects) {
  std::string out = "%PDF-1.4\n";
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(out.size());
    out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const std::size_t xref = out.size();
  out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (const std::size_t offset : offsets) {
    char entry[32];
    std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", offset);
    out += entry;
  }
  out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
         " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return {out.begin(), out.end()};
}

std::vector<std::uint8_t> HandWrittenPdf(double width_pt, double height_pt,
                                         const std::string& content, const std::string& resources) {
  std::ostringstream page;
  page << "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " << width_pt << " " << height_pt
       << "] /Resources " << resources << " /Contents 4 0 R >>";
  return BuildPdf({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      page.str(),
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
  });
}

}  // namespace ocr::pdf::testing
