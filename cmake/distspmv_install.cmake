# Install and export (issue 19): the libraries as distspmv:: targets, the public headers in the
# layout they include each other by ("dist/distributed_matrix.hpp"), the CMake package
# (find_package(distspmv)) and pkg-config's distspmv.pc. Included by CMakeLists.txt after every
# library is defined; tests/install/consumer.sh builds examples/consumer against the result.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(DISTSPMV_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/distspmv)
set(DISTSPMV_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/distspmv)

# target:exported name. The module libraries are static (or shared, with BUILD_SHARED_LIBS), and the
# public ones link them, so they are exported too, under their module's name.
set(exported distspmv_common:common distspmv_io:io distspmv_partition:partition
             distspmv_local_kernels:local_kernels distspmv_dist:distspmv distspmv_solvers:solvers distspmv_c:c)
if(TARGET distspmv_fortran)
  list(APPEND exported distspmv_fortran:fortran)
  target_include_directories(distspmv_fortran PUBLIC $<INSTALL_INTERFACE:${DISTSPMV_INSTALL_INCLUDEDIR}/fortran>)
  get_target_property(module_dir distspmv_fortran Fortran_MODULE_DIRECTORY)
  install(DIRECTORY ${module_dir}/ DESTINATION ${DISTSPMV_INSTALL_INCLUDEDIR}/fortran)
endif()
set(targets "")
foreach(pair ${exported})
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 target)
  list(GET pair 1 name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(distspmv::${name} ALIAS ${target}) # the same names for add_subdirectory users
  list(APPEND targets ${target})
endforeach()
install(TARGETS ${targets} EXPORT distspmv_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${DISTSPMV_INSTALL_INCLUDEDIR})

# The public headers and the headers they include (tests/install/consumer.sh compiles each one on
# its own from the install), and config.hpp for DISTSPMV_VERSION and the DISTSPMV_HAVE_* flags.
foreach(header common/errors.hpp common/types.hpp local_kernels/local_operator.hpp dist/diagnostics.hpp
               dist/distributed_matrix.hpp dist/solvers/solver.hpp dist/solvers/cg.hpp dist/solvers/gmres.hpp
               dist/capi/distspmv.h)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${DISTSPMV_INSTALL_INCLUDEDIR}/${dir})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/distspmv/config.hpp DESTINATION ${DISTSPMV_INSTALL_INCLUDEDIR}/distspmv)

# The CMake package: the config finds the dependencies again (our find modules beside it).
install(EXPORT distspmv_targets NAMESPACE distspmv:: FILE distspmvTargets.cmake
        DESTINATION ${DISTSPMV_INSTALL_CMAKEDIR})
get_filename_component(NCCL_LIBRARY_DIR "${NCCL_LIBRARY}" DIRECTORY) # a hint for the config
configure_package_config_file(cmake/distspmvConfig.cmake.in ${PROJECT_BINARY_DIR}/distspmvConfig.cmake
                              INSTALL_DESTINATION ${DISTSPMV_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/distspmvConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/distspmvConfig.cmake ${PROJECT_BINARY_DIR}/distspmvConfigVersion.cmake
              cmake/FindMETIS.cmake cmake/FindPTScotch.cmake cmake/FindNVSHMEM.cmake
              cmake/distspmv_version_from_header.cmake
        DESTINATION ${DISTSPMV_INSTALL_CMAKEDIR})

# pkg-config. The archives are static, so Libs carries every library they link (absolute paths, as
# this build found them) and a plain `pkg-config --libs` links; the MPI compiler wrappers add MPI.
# The libraries are C++: MPI's C++ library and the C++ runtime are appended for mpicc and mpifort.
set(pc_libs -ldistspmv_solvers -ldistspmv_c -ldistspmv_dist -ldistspmv_io -ldistspmv_partition
            -ldistspmv_local_kernels -ldistspmv_common)
if(TARGET distspmv_fortran)
  list(PREPEND pc_libs -ldistspmv_fortran)
endif()
list(APPEND pc_libs $<TARGET_LINKER_FILE:fmt::fmt> ${ZLIB_LIBRARIES} ${HDF5_C_LIBRARIES})
if(DISTSPMV_HAVE_METIS)
  list(APPEND pc_libs ${METIS_LIBRARY})
endif()
if(DISTSPMV_HAVE_PTSCOTCH)
  list(APPEND pc_libs ${PTScotch_LIBRARY} ${PTScotch_SCOTCH_LIBRARY} ${PTScotch_ERR_LIBRARY})
endif()
if(DISTSPMV_HAVE_OPENMP)
  list(APPEND pc_libs ${OpenMP_CXX_LIBRARIES})
endif()
if(DISTSPMV_HAVE_CUDA)
  list(APPEND pc_libs $<TARGET_LINKER_FILE:CUDA::cusparse> $<TARGET_LINKER_FILE:CUDA::cudart>)
endif()
if(DISTSPMV_HAVE_NCCL)
  list(APPEND pc_libs ${NCCL_LIBRARY})
endif()
if(DISTSPMV_HAVE_NVSHMEM)
  list(APPEND pc_libs ${NVSHMEM_HOST_LIBRARY})
endif()
foreach(lib ${MPI_CXX_LIBRARIES}) # Open MPI's C++ bindings (libmpi_cxx), which mpi.h brings into C++
  if(NOT lib IN_LIST MPI_C_LIBRARIES)
    list(APPEND pc_libs ${lib})
  endif()
endforeach()
foreach(lib ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES}) # stdc++, m: what g++ links and gcc does not
  if(NOT lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES)
    list(APPEND pc_libs -l${lib})
  endif()
endforeach()
list(REMOVE_DUPLICATES pc_libs)
list(JOIN pc_libs " " DISTSPMV_PC_LIBS)
file(RELATIVE_PATH DISTSPMV_PC_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p) # prefix from pcfiledir: relocatable
string(REGEX REPLACE "/$" "" DISTSPMV_PC_PREFIX "${DISTSPMV_PC_PREFIX}")
configure_file(cmake/distspmv.pc.in ${PROJECT_BINARY_DIR}/distspmv.pc.in @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/distspmv.pc INPUT ${PROJECT_BINARY_DIR}/distspmv.pc.in)
install(FILES ${PROJECT_BINARY_DIR}/distspmv.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
