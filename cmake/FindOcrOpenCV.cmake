# Defines imported targets opencv_core, opencv_imgproc, opencv_imgcodecs.
# Uses OpenCV's CMake package when installed; otherwise finds the component libraries directly,
# because on Debian the package config ships only with libopencv-dev, which pulls in ~150 packages
# (Qt, VTK, ffmpeg) that an OCR server never uses. scripts/bootstrap installs just the components.
find_package(OpenCV QUIET CONFIG COMPONENTS core imgproc imgcodecs)
if(OpenCV_FOUND)
  set(OcrOpenCV_FOUND TRUE)
  return()
endif()

find_path(OcrOpenCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4)
set(_ocv_required OcrOpenCV_INCLUDE_DIR)
foreach(_c core imgproc imgcodecs)
  find_library(OcrOpenCV_${_c}_LIBRARY opencv_${_c})
  list(APPEND _ocv_required OcrOpenCV_${_c}_LIBRARY)
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OcrOpenCV REQUIRED_VARS ${_ocv_required}
  REASON_FAILURE_MESSAGE "run scripts/bootstrap (libopencv-{core,imgproc,imgcodecs}-dev)")

foreach(_c core imgproc imgcodecs)
  if(NOT TARGET opencv_${_c})
    add_library(opencv_${_c} SHARED IMPORTED)
    set_target_properties(opencv_${_c} PROPERTIES
      IMPORTED_LOCATION "${OcrOpenCV_${_c}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${OcrOpenCV_INCLUDE_DIR}")
  endif()
endforeach()
set_property(TARGET opencv_imgproc APPEND PROPERTY INTERFACE_LINK_LIBRARIES opencv_core)
set_property(TARGET opencv_imgcodecs APPEND PROPERTY INTERFACE_LINK_LIBRARIES opencv_core)
