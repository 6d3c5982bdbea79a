# Compiles through ccache (Debian's, installed by scripts/bootstrap) when it is installed, so a
# machine that built a unit before, in this checkout or an earlier one (see base_dir), gets it
# back from the cache. The cache is ccache's own (~/.cache/ccache, or CCACHE_DIR), outside the
# checkout. Off with -DOCR_CCACHE=OFF, or for one build with CCACHE_DISABLE=1 in the environment.
#   base_dir       paths under the checkout are hashed relative to it, so a clone in another folder
#                  hits the units compiled file by file; the unity batches name their files by
#                  absolute path (CMake 3.25), so they hit only from a checkout at the same path;
#   sloppiness     what the precompiled headers need (ccache's manual, "Precompiled headers"):
#                  pch_defines and time_macros; include_file_mtime/ctime because a fresh clone's
#                  headers are all newer than its first compile;
#   -fdebug-prefix-map  debug info (the sanitizer presets' -g) names files relative to the
#                  checkout, so it too is the same from any folder.
option(OCR_CCACHE "Compile through ccache when it is installed" ON)
find_program(OCR_CCACHE_PROGRAM ccache)
if(OCR_CCACHE AND OCR_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(OCR_ENV_PROGRAM env REQUIRED)
  set(CMAKE_CXX_COMPILER_LAUNCHER
    ${OCR_ENV_PROGRAM}
    CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
    CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
    ${OCR_CCACHE_PROGRAM})
  add_compile_options(-fdebug-prefix-map=${PROJECT_SOURCE_DIR}=.)
  # Clang writes the headers' modification times into a precompiled header unless told not to,
  # and ccache cannot reuse one that carries them.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options("SHELL:-Xclang -fno-pch-timestamp")
  endif()
  message(STATUS "ccache: ${OCR_CCACHE_PROGRAM}")
endif()
