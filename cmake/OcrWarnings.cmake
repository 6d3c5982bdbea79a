# ocr_set_warnings(target): the project's warning set; -Werror when OCR_WERROR is on (CI).
function(ocr_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    -Wimplicit-fallthrough)
  if(OCR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
