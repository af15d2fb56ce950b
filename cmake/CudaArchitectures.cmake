# Default CUDA architectures: the compute capability of every GPU that
# nvidia-smi sees, so a plain configure on a GPU machine builds that GPU's own
# machine code (sm_90 on an H200). Without a visible GPU (a CI machine, a build
# host) the build carries machine code for the GPUs users most likely run it on
# -- Turing, Ampere/Ada (sm_80 code runs on 8.6 and 8.9), Hopper, and where the
# toolkit knows them (CUDA 12.8 or later) Blackwell's data-centre (sm_100, whose
# code runs on 10.3) and workstation (sm_120) parts -- and compute_90 PTX that
# other GPUs compile at load, instead of the compiler's default (sm_75 alone),
# whose code would run on a Hopper only JIT-compiled and without Hopper's
# instructions. CI builds this list, so a kernel that does not compile for one
# of them fails there.
# Override with -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(MEMBENCH_PORTABLE_ARCHITECTURES "75-real;80-real;90-real")
# This runs before project() knows the compiler: ask the nvcc the build will use which architectures it has.
if(DEFINED CMAKE_CUDA_COMPILER)
  set(_membench_nvcc "${CMAKE_CUDA_COMPILER}")
elseif(DEFINED ENV{CUDACXX})
  set(_membench_nvcc "$ENV{CUDACXX}")
else()
  find_program(_membench_nvcc nvcc PATHS /usr/local/cuda/bin)
endif()
if(_membench_nvcc)
  execute_process(COMMAND "${_membench_nvcc}" --list-gpu-arch OUTPUT_VARIABLE _membench_known ERROR_QUIET)
  foreach(_arch IN ITEMS 100 120)
    if(_membench_known MATCHES "compute_${_arch}\n")
      list(APPEND MEMBENCH_PORTABLE_ARCHITECTURES "${_arch}-real")
    endif()
  endforeach()
endif()
list(APPEND MEMBENCH_PORTABLE_ARCHITECTURES "90-virtual")
macro(membench_portable_architectures why)
  set(CMAKE_CUDA_ARCHITECTURES "${MEMBENCH_PORTABLE_ARCHITECTURES}" CACHE STRING "CUDA architectures (no GPU visible)")
  message(STATUS "membench: ${why}; CUDA architectures ${MEMBENCH_PORTABLE_ARCHITECTURES}")
endmacro()

find_program(MEMBENCH_NVIDIA_SMI nvidia-smi)
if(NOT MEMBENCH_NVIDIA_SMI)
  membench_portable_architectures("no nvidia-smi")
  return()
endif()

execute_process(
  COMMAND ${MEMBENCH_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
  OUTPUT_VARIABLE _membench_caps
  RESULT_VARIABLE _membench_rc
  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _membench_rc EQUAL 0 OR _membench_caps STREQUAL "")
  membench_portable_architectures("no GPU visible")
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
else()
  membench_portable_architectures("no GPU visible")
endif()
