# FindMETIS: locate METIS 5 (Debian ships neither a CMake config nor a pkg-config file).
#
# Sets METIS_FOUND, METIS_INCLUDE_DIR, METIS_LIBRARY, METIS_IDX_WIDTH and the imported target
# METIS::METIS. Honours METIS_ROOT / CMAKE_PREFIX_PATH (e.g. -DMETIS_ROOT=/opt/metis/usr for a
# package unpacked with dpkg -x).
include(${CMAKE_CURRENT_LIST_DIR}/distspmv_version_from_header.cmake)
find_path(METIS_INCLUDE_DIR metis.h PATH_SUFFIXES include)
find_library(METIS_LIBRARY NAMES metis PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

if(METIS_INCLUDE_DIR AND EXISTS "${METIS_INCLUDE_DIR}/metis.h")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_idx REGEX "^#define IDXTYPEWIDTH [0-9]+")
  string(REGEX MATCH "[0-9]+" METIS_IDX_WIDTH "${_metis_idx}")
  distspmv_version_from_header(METIS_VERSION "${METIS_INCLUDE_DIR}/metis.h" METIS_VER_ MAJOR MINOR SUBMINOR)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR
                                  VERSION_VAR METIS_VERSION)

if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
