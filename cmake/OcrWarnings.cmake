# ocr_set_warnings(target): the project's warning set; -Werror when OCR_WERROR is on (CI).
function(ocr_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports impossible overlaps inside libstdc++ for `"literal" + std::string` at -O2
    # (GCC bug 105329): a false positive that -Werror would turn into a broken build.
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(OCR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
