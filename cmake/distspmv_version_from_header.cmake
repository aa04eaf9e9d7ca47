# distspmv_version_from_header(OUT HEADER PREFIX PART...): "a.b.c" from the header's lines
# "#define <PREFIX><PART> <number>", one per PART (find modules of packages without a CMake config).
# A file of its own: FindMETIS and FindPTScotch include it, in the tree and where the CMake
# package installs them.
function(distspmv_version_from_header out header prefix)
  set(version "")
  foreach(part ${ARGN})
    file(STRINGS "${header}" line REGEX "^#define ${prefix}${part}[ \t]+[0-9]+")
    string(REGEX MATCH "[0-9]+$" num "${line}")
    list(APPEND version "${num}")
  endforeach()
  list(JOIN version "." version)
  set(${out} "${version}" PARENT_SCOPE)
endfunction()
