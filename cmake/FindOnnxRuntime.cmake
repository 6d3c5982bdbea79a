# Finds ONNX Runtime and defines the imported target onnxruntime::onnxruntime.
# Order: a system install with a CMake package (Debian trixie), then ORT_ROOT (an official release
# folder with include/ and lib/), then third_party/onnxruntime placed by scripts/bootstrap.
find_package(onnxruntime CONFIG QUIET)
if(TARGET onnxruntime::onnxruntime AND NOT ORT_ROOT AND NOT DEFINED ENV{ORT_ROOT})
  set(OnnxRuntime_FOUND TRUE)
  message(STATUS "ONNX Runtime: system package ${onnxruntime_VERSION}")
  return()
endif()

set(_ort_root "${ORT_ROOT}")
if(NOT _ort_root AND DEFINED ENV{ORT_ROOT})
  set(_ort_root "$ENV{ORT_ROOT}")
endif()
if(NOT _ort_root)
  set(_ort_root "${PROJECT_SOURCE_DIR}/third_party/onnxruntime")
endif()

find_path(OnnxRuntime_INCLUDE_DIR onnxruntime_cxx_api.h
  PATHS "${_ort_root}/include" "${_ort_root}/include/onnxruntime" NO_DEFAULT_PATH)
find_library(OnnxRuntime_LIBRARY NAMES onnxruntime libonnxruntime.so.1
  PATHS "${_ort_root}/lib" NO_DEFAULT_PATH)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OnnxRuntime
  REQUIRED_VARS OnnxRuntime_LIBRARY OnnxRuntime_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "run scripts/bootstrap, or set ORT_ROOT to an ONNX Runtime release folder")

if(OnnxRuntime_FOUND AND NOT TARGET onnxruntime::onnxruntime)
  add_library(onnxruntime::onnxruntime SHARED IMPORTED)
  set_target_properties(onnxruntime::onnxruntime PROPERTIES
    IMPORTED_LOCATION "${OnnxRuntime_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OnnxRuntime_INCLUDE_DIR}")
  message(STATUS "ONNX Runtime: ${OnnxRuntime_LIBRARY}")
endif()
