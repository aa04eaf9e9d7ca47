# FindNVSHMEM: locate NVIDIA's NVSHMEM 3 host library (optional, like NCCL; the nvshmem transport,
# dist/transport/nvshmem_transport.cu). Only the host library is used: the transport drives
# NVSHMEM's stream-ordered put-with-signal from the host, so no relocatable device code is needed.
#
# Sets NVSHMEM_FOUND, NVSHMEM_INCLUDE_DIR, NVSHMEM_HOST_LIBRARY, NVSHMEM_VERSION and the imported
# target NVSHMEM::host. Honours NVSHMEM_ROOT, the NVSHMEM_HOME environment variable (NVIDIA's own
# name for it) and CMAKE_PREFIX_PATH; a wheel's tree (.../site-packages/nvidia/nvshmem, which
# carries libnvshmem_host.so.3 without the unversioned link) is found the same way.
include(${CMAKE_CURRENT_LIST_DIR}/distspmv_version_from_header.cmake)
find_path(NVSHMEM_INCLUDE_DIR nvshmem_host.h HINTS ENV NVSHMEM_HOME PATH_SUFFIXES include include/nvshmem)
find_library(NVSHMEM_HOST_LIBRARY NAMES nvshmem_host libnvshmem_host.so.3 HINTS ENV NVSHMEM_HOME
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

set(_nvshmem_version_h "${NVSHMEM_INCLUDE_DIR}/non_abi/nvshmem_version.h")
if(NVSHMEM_INCLUDE_DIR AND EXISTS "${_nvshmem_version_h}")
  distspmv_version_from_header(NVSHMEM_VERSION "${_nvshmem_version_h}" NVSHMEM_VENDOR_ MAJOR_VERSION MINOR_VERSION
                               PATCH_VERSION)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NVSHMEM REQUIRED_VARS NVSHMEM_HOST_LIBRARY NVSHMEM_INCLUDE_DIR
                                  VERSION_VAR NVSHMEM_VERSION)

if(NVSHMEM_FOUND AND NOT TARGET NVSHMEM::host)
  add_library(NVSHMEM::host UNKNOWN IMPORTED)
  set_target_properties(NVSHMEM::host PROPERTIES IMPORTED_LOCATION "${NVSHMEM_HOST_LIBRARY}"
                                                 INTERFACE_INCLUDE_DIRECTORIES "${NVSHMEM_INCLUDE_DIR}")
endif()
mark_as_advanced(NVSHMEM_INCLUDE_DIR NVSHMEM_HOST_LIBRARY)
