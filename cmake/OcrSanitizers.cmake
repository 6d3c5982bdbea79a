# OCR_SANITIZE: a ;-list of sanitizers (for example "address;undefined" or "thread"), applied to
# every target of the project. Use with Clang (the asan and tsan presets).
if(OCR_SANITIZE)
  list(JOIN OCR_SANITIZE "," _ocr_sanitizers)
  add_compile_options(-fsanitize=${_ocr_sanitizers} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${_ocr_sanitizers})
  if("undefined" IN_LIST OCR_SANITIZE)
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  message(STATUS "Sanitizers: ${_ocr_sanitizers}")
endif()
