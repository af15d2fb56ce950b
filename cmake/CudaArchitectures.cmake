# Default CUDA architectures: the compute capability of every GPU that
# nvidia-smi sees, so a plain configure on a GPU machine builds that GPU's own
# machine code (sm_90 on an H200). Without a visible GPU the compiler's default
# is kept: the build still links and the GPU-free tests run.
# Override with -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

find_program(MEMBENCH_NVIDIA_SMI nvidia-smi)
if(NOT MEMBENCH_NVIDIA_SMI)
  message(STATUS "membench: no nvidia-smi; CUDA architectures left to the compiler's default")
  return()
endif()

execute_process(
  COMMAND ${MEMBENCH_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
  OUTPUT_VARIABLE _membench_caps
  RESULT_VARIABLE _membench_rc
  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _membench_rc EQUAL 0 OR _membench_caps STREQUAL "")
  message(STATUS "membench: no GPU visible; CUDA architectures left to the compiler's default")
  return()
endif()

string(REPLACE "\n" ";" _membench_caps "${_membench_caps}")
set(_membench_archs "")
foreach(_cap IN LISTS _membench_caps)
  string(STRIP "${_cap}" _cap)
  string(REPLACE "." "" _arch "${_cap}")
  if(_arch MATCHES "^[0-9]+$")
    list(APPEND _membench_archs ${_arch})
  endif()
endforeach()
list(REMOVE_DUPLICATES _membench_archs)
if(_membench_archs)
  set(CMAKE_CUDA_ARCHITECTURES "${_membench_archs}" CACHE STRING "CUDA architectures (detected)")
  message(STATUS "membench: CUDA architectures from the visible GPUs: ${_membench_archs}")
endif()
