#include "pdf/internal/pdfa.h"

#include <array>
#include <string>
#include <string_view>

#include "common/text.h"
#include "pdf/internal/embedded_files.h"
#include "pdf/internal/qpdf.h"

namespace ocr::pdf::internal {
namespace {

using Handle = QPDFObjectHandle;

constexpr std::string_view kProducer = "OnnxOCR Server";
constexpr std::string_view kSrgb = "sRGB IEC61966-2.1";

std::string InfoText(Handle info, const char* key) {
  Handle value = info.isDictionary() ? info.getKey(key) : Handle::newNull();
  return value.isString() ? value.getUTF8Value() : std::string();
}

// The XMP packet: the PDF/A identification and the information dictionary's text entries, in
// the properties PDF/A maps them to.
std::string Xmp(const Handle& info) {
  std::string xmp =
      "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
      " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
      "  <rdf:Description rdf:about=\"\" xmlns:pdfaid=\"http://www.aiim.org/pdfa/ns/id/\" "
      "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\" "
      "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\">\n"
      "   <pdfaid:part>2</pdfaid:part>\n"
      "   <pdfaid:conformance>B</pdfaid:conformance>\n"
      "   <dc:format>application/pdf</dc:format>\n";
  xmp += "   <pdf:Producer>" + EscapeXml(InfoText(info, "/Producer")) + "</pdf:Producer>\n";
  if (const std::string t = InfoText(info, "/Title"); !t.empty()) {
    xmp += "   <dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">" + EscapeXml(t) +
           "</rdf:li></rdf:Alt></dc:title>\n";
  }
  if (const std::string t = InfoText(info, "/Author"); !t.empty())
    xmp += "   <dc:creator><rdf:Seq><rdf:li>" + EscapeXml(t) + "</rdf:li></rdf:Seq></dc:creator>\n";
  if (const std::string t = InfoText(info, "/Subject"); !t.empty()) {
    xmp += "   <dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">" + EscapeXml(t) +
           "</rdf:li></rdf:Alt></dc:description>\n";
  }
  if (const std::string t = InfoText(info, "/Keywords"); !t.empty())
    xmp += "   <pdf:Keywords>" + EscapeXml(t) + "</pdf:Keywords>\n";
  if (const std::string t = InfoText(info, "/Creator"); !t.empty())
    xmp += "   <xmp:CreatorTool>" + EscapeXml(t) + "</xmp:CreatorTool>\n";
  xmp +=
      "  </rdf:Description>\n"
      " </rdf:RDF>\n"
      "</x:xmpmeta>\n"
      "<?xpacket end=\"w\"?>\n";
  return xmp;
}

}  // namespace

Status MakePdfA(QPDF& pdf) {
  const Asset* profile = FindAsset("/sRGB.icc");
  if (profile == nullptr)
    return Status(StatusCode::kInternal, "the sRGB profile was not embedded at build time");
  Handle trailer = pdf.getTrailer();
  Handle info = trailer.getKey("/Info");
  if (!info.isDictionary()) {
    info = pdf.makeIndirectObject(Handle::newDictionary());
    trailer.replaceKey("/Info", info);
  }
  // Dates and non-standard keys would each need their XMP twin: keep the text entries only.
  for (const std::string& key : info.getKeys()) {
    static constexpr std::array<std::string_view, 5> kKept = {"/Title", "/Author", "/Subject",
                                                              "/Keywords", "/Creator"};
    bool kept = false;
    for (const std::string_view k : kKept)
      kept = kept || key == k;
    if (!kept || !info.getKey(key).isString())
      info.removeKey(key);
  }
  info.replaceKey("/Producer", Handle::newUnicodeString(std::string(kProducer)));

  Handle root = pdf.getRoot();
  Handle metadata = pdf.newStream(Xmp(info));
  metadata.getDict().replaceKey("/Type", Handle::newName("/Metadata"));
  metadata.getDict().replaceKey("/Subtype", Handle::newName("/XML"));
  root.replaceKey("/Metadata", metadata);

  Handle icc = pdf.newStream(std::string(profile->body));
  icc.getDict().replaceKey("/N", Handle::newInteger(3));
  Handle intent = Handle::newDictionary();
  intent.replaceKey("/Type", Handle::newName("/OutputIntent"));
  intent.replaceKey("/S", Handle::newName("/GTS_PDFA1"));
  intent.replaceKey("/OutputConditionIdentifier", Handle::newString(std::string(kSrgb)));
  intent.replaceKey("/Info", Handle::newString(std::string(kSrgb)));
  intent.replaceKey("/DestOutputProfile", icc);
  root.replaceKey("/OutputIntents", Handle::newArray({pdf.makeIndirectObject(intent)}));
  return Status::Ok();
}

}  // namespace ocr::pdf::internal
