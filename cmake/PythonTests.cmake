# The scripts' pytest suite under ctest. A virtual environment under the build
# tree gets scripts/requirements.txt, so a fresh machine needs only Python.
# Offline (the GPU machine), an interpreter that already has the packages is
# used as it is.
if(NOT MEMBENCH_PYTHON_TESTS)
  return()
endif()

find_package(Python3 3.10 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(WARNING "membench: no Python >= 3.10; the scripts' tests are not registered")
  return()
endif()

set(_requirements ${PROJECT_SOURCE_DIR}/scripts/requirements.txt)
set(_venv ${CMAKE_BINARY_DIR}/venv)
set(_stamp ${_venv}/membench-requirements.stamp)
set(_check_imports "import numpy, scipy, matplotlib, pytest")

if(NOT EXISTS ${_stamp} OR ${_requirements} IS_NEWER_THAN ${_stamp})
  message(STATUS "membench: installing scripts/requirements.txt into ${_venv}")
  execute_process(COMMAND ${Python3_EXECUTABLE} -m venv ${_venv} RESULT_VARIABLE _rc OUTPUT_QUIET)
  if(_rc EQUAL 0)
    execute_process(
      COMMAND ${_venv}/bin/python -m pip install --disable-pip-version-check -q -r ${_requirements}
      RESULT_VARIABLE _rc)
  endif()
  if(_rc EQUAL 0)
    file(TOUCH ${_stamp})
  endif()
endif()

if(EXISTS ${_stamp})
  set(MEMBENCH_PYTHON ${_venv}/bin/python)
else()
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "${_check_imports}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "membench: cannot install scripts/requirements.txt (offline?) and ${Python3_EXECUTABLE} "
                        "lacks numpy/scipy/matplotlib/pytest. Configure with -DMEMBENCH_PYTHON_TESTS=OFF to skip "
                        "the scripts' tests.")
  endif()
  message(WARNING "membench: could not install scripts/requirements.txt; using ${Python3_EXECUTABLE} and its own packages")
  set(MEMBENCH_PYTHON ${Python3_EXECUTABLE})
endif()

# One ctest test per test file, so that ctest -j runs them side by side.
file(GLOB _membench_script_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/scripts/test_*.py)
foreach(_file IN LISTS _membench_script_tests)
  get_filename_component(_name ${_file} NAME_WE)
  add_test(NAME scripts.${_name}
    COMMAND ${MEMBENCH_PYTHON} -m pytest -q -p no:cacheprovider ${_file}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(scripts.${_name} PROPERTIES
    ENVIRONMENT "MPLBACKEND=Agg;MEMBENCH_EXE=$<TARGET_FILE:membench>")
endforeach()
