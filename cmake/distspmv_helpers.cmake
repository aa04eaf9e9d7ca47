# Helpers shared by every module.

# distspmv_add_library(NAME SOURCES ... [CUDA_SOURCES ...] [STUB_SOURCES ...] [DEPS ...])
# One library per module. CUDA_SOURCES are compiled when CUDA is on, STUB_SOURCES otherwise, so
# that the rest of the project compiles unchanged without CUDA.
function(distspmv_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_SOURCES;STUB_SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(srcs ${ARG_SOURCES})
  if(DISTSPMV_ENABLE_CUDA)
    list(APPEND srcs ${ARG_CUDA_SOURCES})
  else()
    list(APPEND srcs ${ARG_STUB_SOURCES})
  endif()
  add_library(${name} ${srcs})
  target_compile_features(${name} PUBLIC cxx_std_17)
  # The tree in the build; the installed headers' folder comes from install(TARGETS ... INCLUDES).
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                            $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  distspmv_set_warnings(${name})
  if(DISTSPMV_ENABLE_CUDA)
    set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 CUDA_SEPARABLE_COMPILATION OFF)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo>)
  endif()
endfunction()

function(distspmv_set_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
endfunction()

# distspmv_add_test(NAME SOURCES ... [LIBS ...] [NP n] [LABELS ...] [OWN_MAIN] [ARGS ...])
# GoogleTest program registered with ctest; NP > 0 runs it under mpiexec -n NP (oversubscribed,
# allowed as root since CI and the GPU machine run as root).
function(distspmv_add_test name)
  cmake_parse_arguments(ARG "OWN_MAIN" "NP;TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(NOT TARGET ${name})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest distspmv_test_support)
    if(NOT ARG_OWN_MAIN)
      target_link_libraries(${name} PRIVATE GTest::gtest_main)
    endif()
    distspmv_set_warnings(${name})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  if(ARG_NP)
    set(test_name ${name}_np${ARG_NP})
    add_test(NAME ${test_name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ARG_NP} --oversubscribe
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${ARG_ARGS} ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${test_name} PROPERTIES PROCESSORS ${ARG_NP}
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  else()
    set(test_name ${name})
    add_test(NAME ${test_name} COMMAND ${name} ${ARG_ARGS})
  endif()
  set_tests_properties(${test_name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                       WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()
