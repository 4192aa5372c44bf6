# Install rules and the CMake package: find_package(Ember) -> ember::ember (see examples/).
#
# Installed layout (PREFIX = CMAKE_INSTALL_PREFIX):
#   include/ember/{core,dispatcher,plugin,api,generated}/*.h   public headers and the plugin SDK
#   lib/libember.so*                                           the library
#   lib/ember/plugins/libember-<name>.so                            plugins (ember_add_plugin installs
#                                                              them; libember looks there itself)
#   lib/cmake/Ember/{EmberConfig,EmberConfigVersion,EmberTargets,EmberHelpers}.cmake
#   bin/ember                                                  the CLI (RPATH $ORIGIN/../lib)
include(CMakePackageConfigHelpers)

set(EMBER_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)

install(TARGETS ember EXPORT EmberTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Public headers: core, dispatcher, the plugin SDK (ember/plugin/), api, and the generated
# operator API. Internal headers live beside their sources (core/src, dispatcher/src) and stay out.
install(DIRECTORY
    ${PROJECT_SOURCE_DIR}/core/include/
    ${PROJECT_SOURCE_DIR}/dispatcher/include/
    ${PROJECT_SOURCE_DIR}/sdk/include/
    ${PROJECT_SOURCE_DIR}/api/include/
    ${EMBER_GENERATED_INCLUDE_DIR}/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

# RPATHs of the install tree: bin/ember finds lib/libember.so, and a plugin in
# lib/ember/plugins finds it too (it is normally already loaded, since libember loads plugins).
file(RELATIVE_PATH _ember_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
file(RELATIVE_PATH _ember_plugins_to_lib /${EMBER_PLUGIN_SUBDIR} /${CMAKE_INSTALL_LIBDIR})
if(TARGET ember_cli)
  set_target_properties(ember_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_ember_bin_to_lib}")
endif()
get_property(_ember_plugin_targets GLOBAL PROPERTY EMBER_PLUGINS)
foreach(_t IN LISTS _ember_plugin_targets)
  set_property(TARGET ${_t} APPEND PROPERTY INSTALL_RPATH "$ORIGIN/${_ember_plugins_to_lib}")
endforeach()

install(EXPORT EmberTargets
  NAMESPACE ember::
  FILE EmberTargets.cmake
  DESTINATION ${EMBER_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/EmberConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/EmberConfig.cmake
  INSTALL_DESTINATION ${EMBER_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR EMBER_PLUGIN_SUBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/EmberConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${PROJECT_BINARY_DIR}/cmake/EmberConfig.cmake
    ${PROJECT_BINARY_DIR}/cmake/EmberConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/EmberHelpers.cmake
  DESTINATION ${EMBER_INSTALL_CMAKEDIR})
