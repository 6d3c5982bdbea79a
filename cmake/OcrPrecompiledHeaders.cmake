# Precompiled headers: the standard and third-party headers that most units of a target include,
# parsed once per target instead of once per unit (Boost.Beast, nlohmann/json, CLI11, GoogleTest
# and OpenCV cost 5 to 10 s of parsing each, per unit, with GCC). Headers outside src/ only: a
# unit still includes what it uses itself, and the tidy preset, which precompiles nothing, checks
# that every unit of src/ compiles on its own includes. Off with CMAKE_DISABLE_PRECOMPILE_HEADERS.
# Clang only (the sanitizer presets): measured on the 2-core machine, a clean ASan unity build took
# 709 s with them and 734 s without; GCC's release build took 682 s with them and 650 s without
# (its .gch files are 95 to 258 MB each), and at -O2 they made GCC 12 report false
# -Wstringop-overflow in libstdc++'s char_traits. docs/DEVELOPMENT.md has the table.
#   ocr_precompile_headers(target SETS set...)  sets: STD OPENCV JSON SPDLOG BEAST CLI GTEST
set(OCR_PCH_STD <algorithm> <array> <chrono> <cstddef> <cstdint> <functional> <memory> <optional>
  <span> <string> <string_view> <utility> <vector>)
set(OCR_PCH_OPENCV <opencv2/core.hpp> <opencv2/imgproc.hpp>)
set(OCR_PCH_JSON <nlohmann/json.hpp>)
set(OCR_PCH_SPDLOG <spdlog/spdlog.h>)
set(OCR_PCH_BEAST <boost/asio/ip/tcp.hpp> <boost/asio/steady_timer.hpp> <boost/beast/core.hpp>
  <boost/beast/http.hpp>)
set(OCR_PCH_CLI <CLI/CLI.hpp>)
set(OCR_PCH_GTEST <gtest/gtest.h> <gmock/gmock.h>)

function(ocr_precompile_headers target)
  cmake_parse_arguments(P "" "" "SETS" ${ARGN})
  set(headers "")
  foreach(set IN LISTS P_SETS)
    if(NOT DEFINED OCR_PCH_${set})
      message(FATAL_ERROR "ocr_precompile_headers: no header set ${set}")
    endif()
    list(APPEND headers ${OCR_PCH_${set}})
  endforeach()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_precompile_headers(${target} PRIVATE ${headers})
  endif()
endfunction()
