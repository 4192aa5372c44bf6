# Install rules and the CMake package (find_package(Ember) -> ember::ember). Filled in by the
# packaging work; see examples/.
install(TARGETS ember EXPORT EmberTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
