# ocr_set_warnings(target [STRICT]): the project's warning set; -Werror when OCR_WERROR is on (CI).
#   STRICT  adds -Wconversion -Wold-style-cast (STYLE §10); every module of src/ builds with it
#           (tests do not). Clang's -Wconversion includes -Wsign-conversion; GCC's does not.
# Clang builds (asan, tsan, tidy) also check the locking annotations of common/mutex.h.
function(ocr_set_warnings target)
  cmake_parse_arguments(W "STRICT" "" "" ${ARGN})
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    -Wimplicit-fallthrough)
  if(W_STRICT)
    target_compile_options(${target} PRIVATE -Wconversion -Wold-style-cast)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports impossible overlaps inside libstdc++ for `"literal" + std::string` at -O2
    # (GCC bug 105329): a false positive that -Werror would turn into a broken build.
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(OCR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
