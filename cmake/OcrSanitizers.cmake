# OCR_SANITIZE: a ;-list of sanitizers (for example "address;undefined" or "thread"), applied to
# every target of the project. Use with Clang (the asan and tsan presets).
# OCR_BUILD_FUZZ adds libFuzzer's coverage instrumentation (fuzzer-no-link) to every target; the
# fuzz executables alone link libFuzzer itself (-fsanitize=fuzzer, in fuzz/CMakeLists.txt).
if(OCR_SANITIZE)
  list(JOIN OCR_SANITIZE "," _ocr_sanitizers)
  # Line tables are all a sanitizer's stack trace needs (function, file, line); full debug info
  # (-g) made the ASan build slower to compile and link. Debug with the dev preset.
  add_compile_options(-fsanitize=${_ocr_sanitizers} -fno-omit-frame-pointer -gline-tables-only)
  add_link_options(-fsanitize=${_ocr_sanitizers})
  # Every report is fatal, so a sanitizer finding fails the test or fuzz run that hit it.
  add_compile_options(-fno-sanitize-recover=all)
  message(STATUS "Sanitizers: ${_ocr_sanitizers}")
endif()
if(OCR_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OCR_BUILD_FUZZ needs Clang (libFuzzer); use the asan preset")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
