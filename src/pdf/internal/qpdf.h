// Every QPDF header this module uses, through one include. QPDF before 11.4 does not compile as
// C++20 under clang (qpdf issue 942: JSON.hh holds a std::vector of its class inside the class,
// and libstdc++'s C++20 vector has a constexpr destructor that clang 14 instantiates there).
// Nothing here uses QPDF's JSON, so for those versions under clang (the sanitizer, fuzz and tidy
// builds) its header is skipped and the class only declared; gcc reads the real one.
#pragma once

#include <qpdf/DLL.h>

#if defined(__clang__) && \
    (QPDF_MAJOR_VERSION < 11 || (QPDF_MAJOR_VERSION == 11 && QPDF_MINOR_VERSION < 4))
#ifndef JSON_HH
#define JSON_HH
class JSON;
#endif
#endif

#include <qpdf/Buffer.hh>
#include <qpdf/Pipeline.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>
#include <qpdf/QPDFPageObjectHelper.hh>
#include <qpdf/QPDFWriter.hh>
