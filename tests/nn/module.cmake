# The Module API (api/nn): Module, holders, containers, hooks, clone, state dicts, layers, init
# and utils, through the cpu, autograd and nn plugins.
ember_add_test(ember_nn_module_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_module.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_module_hooks.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_module_layers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_module_init.cpp
  ENV EMBER_DEFAULT_PLUGINS=cpu,autograd,nn)
add_dependencies(ember_nn_module_tests ember_plugin_cpu ember_plugin_autograd ember_plugin_nn)
