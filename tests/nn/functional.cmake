# The nn plugin's composite operators and ember::nn::functional against LibTorch 1.13's values
# (tests/nn/reference/ prints them), their errors, and finite-difference gradients.
ember_add_test(ember_nn_functional_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_losses.cpp ${CMAKE_CURRENT_LIST_DIR}/test_dropout.cpp
          ${CMAKE_CURRENT_LIST_DIR}/test_layers.cpp ${CMAKE_CURRENT_LIST_DIR}/test_attention.cpp
          ${CMAKE_CURRENT_LIST_DIR}/test_functional.cpp
  ENV EMBER_DEFAULT_PLUGINS=cpu,autograd,nn)
add_dependencies(ember_nn_functional_tests ember_plugin_cpu ember_plugin_autograd ember_plugin_nn)
