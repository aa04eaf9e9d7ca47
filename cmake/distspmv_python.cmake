# The Python module (python/, issue 38): built where a Python 3 with NumPy and its headers and
# pybind11 are found. Included before the libraries are defined: the extension links them, so
# they are then compiled as position-independent code.
#   -DDISTSPMV_PYTHON=OFF           leave the module out
#   -DPython3_EXECUTABLE=...        the Python to build for (else the first python3 with NumPy:
#                                   the one on PATH, then /usr/bin/python3)
#   -Dpybind11_DIR=...              pybind11's CMake folder (else found, also through
#                                   `python3 -m pybind11 --cmakedir`)
option(DISTSPMV_PYTHON "Build the Python module distspmv (python/; Python 3 with NumPy and headers, pybind11)" ON)
set(DISTSPMV_PYTHON_STATUS "off (DISTSPMV_PYTHON=OFF)")
if(DISTSPMV_PYTHON AND CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  # An extension built with a sanitizer loads only with its runtime preloaded into python3.
  set(DISTSPMV_PYTHON_STATUS "not built: sanitizer build (${CMAKE_CXX_FLAGS})")
  message(STATUS "Python module: ${DISTSPMV_PYTHON_STATUS}")
  set(DISTSPMV_PYTHON OFF)
endif()
if(DISTSPMV_PYTHON)
  if(NOT Python3_EXECUTABLE)
    # A python3 of pyenv or a venv first on PATH may lack Debian's numpy: take one that has it.
    find_program(_distspmv_path_python3 python3 NO_CACHE)
    foreach(candidate ${_distspmv_path_python3} /usr/bin/python3)
      execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(Python3_EXECUTABLE ${candidate} CACHE FILEPATH "Python of the distspmv module")
        break()
      endif()
    endforeach()
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND AND NOT pybind11_DIR)
    execute_process(COMMAND ${Python3_EXECUTABLE} -m pybind11 --cmakedir OUTPUT_VARIABLE _pybind11_hint
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET HINTS ${_pybind11_hint})
  endif()
  if(NOT Python3_FOUND)
    set(DISTSPMV_PYTHON_STATUS "not built: no Python 3 with NumPy and its headers (cmake/install_deps.sh test installs python3-dev and python3-numpy)")
  elseif(NOT pybind11_FOUND)
    set(DISTSPMV_PYTHON_STATUS "not built: pybind11 not found for ${Python3_EXECUTABLE} (cmake/install_deps.sh test installs pybind11-dev; or -Dpybind11_DIR=$(python3 -m pybind11 --cmakedir))")
  else()
    set(DISTSPMV_PYTHON_STATUS "${Python3_EXECUTABLE} ${Python3_VERSION}, pybind11 ${pybind11_VERSION}")
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  endif()
  if(NOT pybind11_FOUND OR NOT Python3_FOUND)
    message(STATUS "Python module: ${DISTSPMV_PYTHON_STATUS}")
    set(DISTSPMV_PYTHON OFF)
  endif()
endif()
