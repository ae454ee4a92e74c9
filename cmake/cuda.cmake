# Finds nvcc (CMAKE_CUDA_COMPILER, PATH, /usr/local/cuda/bin), the CUDA toolkit and NCCL under it, following
# TRAINTWIN_CUDA (AUTO, ON, OFF). Sets TRAINTWIN_HAVE_CUDA, TRAINTWIN_CUDA_ARCHITECTURES and the imported target
# traintwin_nccl. ON and anything missing: a fatal error that names what is missing.
set(TRAINTWIN_HAVE_CUDA OFF)
if(NOT TRAINTWIN_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "TRAINTWIN_CUDA must be AUTO, ON or OFF, not '${TRAINTWIN_CUDA}'")
endif()
if(TRAINTWIN_CUDA STREQUAL "OFF")
  message(STATUS "CUDA: off (TRAINTWIN_CUDA=OFF)")
  return()
endif()

macro(traintwin_cuda_missing what)
  if(TRAINTWIN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TRAINTWIN_CUDA=ON but ${what}")
  endif()
  message(STATUS "CUDA: not built (${what}); -DTRAINTWIN_CUDA=ON makes this an error")
  return()
endmacro()

include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER)
  find_program(TRAINTWIN_NVCC nvcc PATHS /usr/local/cuda/bin NO_CACHE)
  if(TRAINTWIN_NVCC)
    set(CMAKE_CUDA_COMPILER "${TRAINTWIN_NVCC}")
  endif()
endif()
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  traintwin_cuda_missing("no CUDA compiler (nvcc) in PATH or /usr/local/cuda/bin")
endif()
# Hopper's own code (sm_90a) and an Ampere fallback that also runs, more slowly, on anything newer via its PTX.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "90a;80")
endif()
set(TRAINTWIN_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
enable_language(CUDA)
# The .cu files are C++17 (the targets set CUDA_STANDARD 17): CMake 3.25 knows no nvcc flag for C++20, and a target
# without CUDA_STANDARD inherits CXX_STANDARD 20 and fails to generate.
set(TRAINTWIN_CUDA_FLAGS -O3 -lineinfo)
find_package(CUDAToolkit REQUIRED)

find_path(TRAINTWIN_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
find_library(TRAINTWIN_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib64)
if(NOT TRAINTWIN_NCCL_INCLUDE OR NOT TRAINTWIN_NCCL_LIBRARY)
  traintwin_cuda_missing("NCCL (nccl.h, libnccl) not found beside the CUDA toolkit ${CUDAToolkit_LIBRARY_ROOT}")
endif()
add_library(traintwin_nccl INTERFACE IMPORTED)
target_include_directories(traintwin_nccl INTERFACE ${TRAINTWIN_NCCL_INCLUDE})
target_link_libraries(traintwin_nccl INTERFACE ${TRAINTWIN_NCCL_LIBRARY})
set(TRAINTWIN_HAVE_CUDA ON)
message(STATUS "CUDA: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}, NCCL "
               "${TRAINTWIN_NCCL_LIBRARY}")
