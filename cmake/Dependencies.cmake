# Google Benchmark, GoogleTest and nlohmann/json: the installed package first,
# a pinned FetchContent download only where a package is absent.
include(FetchContent)

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(STATUS "membench: Google Benchmark not installed; fetching v1.8.3")
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(benchmark
    GIT_REPOSITORY https://github.com/google/benchmark.git
    GIT_TAG v1.8.3
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(benchmark)
  set(benchmark_VERSION 1.8.3)
endif()
message(STATUS "membench: Google Benchmark ${benchmark_VERSION}")

find_package(nlohmann_json 3.2 QUIET)
if(NOT nlohmann_json_FOUND)
  message(STATUS "membench: nlohmann/json not installed; fetching v3.11.3")
  FetchContent_Declare(nlohmann_json
    URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz)
  FetchContent_MakeAvailable(nlohmann_json)
endif()

if(MEMBENCH_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(STATUS "membench: GoogleTest not installed; fetching v1.14.0")
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    FetchContent_Declare(googletest
      GIT_REPOSITORY https://github.com/google/googletest.git
      GIT_TAG v1.14.0
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(googletest)
    if(NOT TARGET GTest::gtest)
      add_library(GTest::gtest ALIAS gtest)
      add_library(GTest::gtest_main ALIAS gtest_main)
    endif()
  endif()
endif()

# RE2 matches --benchmark_filter in time linear in the name, whatever the
# pattern (a backtracking engine can take exponential time). The installed
# library (Debian's libre2-dev ships no CMake package: found by its header
# and library), else the last release that needs no Abseil.
find_package(re2 CONFIG QUIET)
if(NOT TARGET re2::re2)
  find_path(MEMBENCH_RE2_INCLUDE re2/re2.h)
  find_library(MEMBENCH_RE2_LIBRARY NAMES libre2.a re2)
  if(MEMBENCH_RE2_INCLUDE AND MEMBENCH_RE2_LIBRARY)
    add_library(re2::re2 UNKNOWN IMPORTED)
    set_target_properties(re2::re2 PROPERTIES IMPORTED_LOCATION ${MEMBENCH_RE2_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${MEMBENCH_RE2_INCLUDE})
    find_package(Threads REQUIRED)
    target_link_libraries(re2::re2 INTERFACE Threads::Threads)
    message(STATUS "membench: RE2 ${MEMBENCH_RE2_LIBRARY}")
  else()
    message(STATUS "membench: RE2 not installed; fetching 2022-06-01")
    set(RE2_BUILD_TESTING OFF CACHE BOOL "" FORCE)
    FetchContent_Declare(re2
      GIT_REPOSITORY https://github.com/google/re2.git
      GIT_TAG 2022-06-01
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(re2)
    if(NOT TARGET re2::re2)
      add_library(re2::re2 ALIAS re2)
    endif()
  endif()
endif()

# valijson (header-only) validates the files membench reads back (--resume,
# --check --judge) against the result file's JSON Schema, the document the
# scripts validate against too. Debian's libvalijson-dev, else its release.
find_path(MEMBENCH_VALIJSON_INCLUDE valijson/validator.hpp)
if(MEMBENCH_VALIJSON_INCLUDE)
  message(STATUS "membench: valijson ${MEMBENCH_VALIJSON_INCLUDE}")
else()
  message(STATUS "membench: valijson not installed; fetching v1.0.2")
  FetchContent_Declare(valijson
    GIT_REPOSITORY https://github.com/tristanpenman/valijson.git
    GIT_TAG v1.0.2
    GIT_SHALLOW TRUE)
  FetchContent_GetProperties(valijson)
  if(NOT valijson_POPULATED)
    FetchContent_Populate(valijson)
  endif()
  set(MEMBENCH_VALIJSON_INCLUDE ${valijson_SOURCE_DIR}/include)
endif()
add_library(membench_valijson INTERFACE)
target_include_directories(membench_valijson SYSTEM INTERFACE ${MEMBENCH_VALIJSON_INCLUDE})
