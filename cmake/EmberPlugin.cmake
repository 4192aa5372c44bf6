include(EmberHelpers)  # ember_link_whole_archive and the static-archive check, as consumers get them
# ember_add_plugin(name SOURCES ... [LIBS ...] [OPENMP] [NO_INSTALL]): a MODULE library with hidden
# visibility, linked to ember::ember and its own backend libraries only, written to the plugin
# directory. NO_INSTALL: a test artifact, left out of the install.
# OPENMP: compiled and linked with OpenMP, for a plugin's own `#pragma omp` (parallel_for, in
# ember/core/Parallel.h, needs none: Note [One intra-op pool]).
# Third parties need nothing of this: a plain add_library(x MODULE) linked to ember::ember works.
function(ember_add_plugin name)
  cmake_parse_arguments(P "OPENMP;NO_INSTALL" "" "SOURCES;LIBS;INCLUDES" ${ARGN})
  set(target ember_plugin_${name})
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name}
    PREFIX "libember-"  # Note [Plugin file names] in dispatcher/src/PluginLoader.cpp
    LIBRARY_OUTPUT_DIRECTORY ${EMBER_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target} PRIVATE ${P_INCLUDES})
  target_link_libraries(${target} PRIVATE ember::ember ${P_LIBS})
  if(P_OPENMP)
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
  endif()
  if(NOT P_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${EMBER_PLUGIN_SUBDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY EMBER_PLUGINS ${target})
endfunction()
