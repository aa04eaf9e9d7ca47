# FindPTScotch: locate PT-Scotch 7 (distributed graph partitioning, partition/ptscotch.cpp).
#
# Sets PTScotch_FOUND, PTScotch_INCLUDE_DIR, PTScotch_LIBRARY, PTScotch_SCOTCH_LIBRARY,
# PTScotch_ERR_LIBRARY, PTScotch_VERSION, PTScotch_NUM_WIDTH (bits of SCOTCH_Num) and the imported
# target PTScotch::PTScotch. Honours PTScotch_ROOT / CMAKE_PREFIX_PATH (e.g.
# -DPTScotch_ROOT=/opt/ptscotch/usr for packages unpacked with dpkg -x).
#
# Debian and Ubuntu ship four builds side by side: include/scotch with lib/<arch> (SCOTCH_Num is
# a 32-bit int there), and include/scotch-{int32,int64,long} with lib/<arch>/scotch-{...}. The
# 64-bit one is preferred, since graphs past 2^31 arcs are what PT-Scotch is here for; its
# libraries carry the same sonames as the 32-bit ones, so they are taken from the directory that
# matches the header (and found at run time through the build tree's RPATH).
include(${CMAKE_CURRENT_LIST_DIR}/distspmv_version_from_header.cmake)
find_path(PTScotch_INCLUDE_DIR ptscotch.h
          PATH_SUFFIXES include/scotch-int64 scotch-int64 include/scotch-long scotch-long include/scotch scotch include)

if(PTScotch_INCLUDE_DIR AND EXISTS "${PTScotch_INCLUDE_DIR}/scotch.h")
  get_filename_component(_ptscotch_variant "${PTScotch_INCLUDE_DIR}" NAME)
  if(_ptscotch_variant STREQUAL "include")
    get_filename_component(_ptscotch_prefix "${PTScotch_INCLUDE_DIR}/.." ABSOLUTE)
  else()
    get_filename_component(_ptscotch_prefix "${PTScotch_INCLUDE_DIR}/../.." ABSOLUTE)
  endif()
  set(_ptscotch_dirs ${_ptscotch_prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE} ${_ptscotch_prefix}/lib
                     ${_ptscotch_prefix}/lib64)
  set(_ptscotch_no_default "")
  if(_ptscotch_variant MATCHES "^scotch-(int32|int64|long)$")  # only the libraries of that build
    list(TRANSFORM _ptscotch_dirs APPEND "/${_ptscotch_variant}")
    set(_ptscotch_no_default NO_DEFAULT_PATH)
  endif()
  find_library(PTScotch_LIBRARY ptscotch HINTS ${_ptscotch_dirs} ${_ptscotch_no_default})
  find_library(PTScotch_SCOTCH_LIBRARY scotch HINTS ${_ptscotch_dirs} ${_ptscotch_no_default})
  find_library(PTScotch_ERR_LIBRARY ptscotcherr HINTS ${_ptscotch_dirs} ${_ptscotch_no_default})

  file(STRINGS "${PTScotch_INCLUDE_DIR}/scotch.h" _ptscotch_num REGEX "^typedef [a-z0-9_]+ SCOTCH_Num;")
  if(_ptscotch_num MATCHES "int64_t|long")
    set(PTScotch_NUM_WIDTH 64)
  elseif(_ptscotch_num MATCHES "int")
    set(PTScotch_NUM_WIDTH 32)
  endif()
  distspmv_version_from_header(PTScotch_VERSION "${PTScotch_INCLUDE_DIR}/scotch.h" SCOTCH_ VERSION RELEASE PATCHLEVEL)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PTScotch
                                  REQUIRED_VARS PTScotch_LIBRARY PTScotch_SCOTCH_LIBRARY PTScotch_ERR_LIBRARY
                                                PTScotch_INCLUDE_DIR PTScotch_NUM_WIDTH
                                  VERSION_VAR PTScotch_VERSION)

if(PTScotch_FOUND AND NOT TARGET PTScotch::PTScotch)
  find_package(MPI REQUIRED COMPONENTS C)
  add_library(PTScotch::PTScotch UNKNOWN IMPORTED)
  set_target_properties(PTScotch::PTScotch PROPERTIES
    IMPORTED_LOCATION "${PTScotch_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PTScotch_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${PTScotch_SCOTCH_LIBRARY};${PTScotch_ERR_LIBRARY};MPI::MPI_C")
endif()
mark_as_advanced(PTScotch_INCLUDE_DIR PTScotch_LIBRARY PTScotch_SCOTCH_LIBRARY PTScotch_ERR_LIBRARY)
