# The layers beyond the Module API's first set: dropout, losses, conv1d/3d and transposed, Bilinear,
# GroupNorm, InstanceNorm2d, LeakyReLU, ELU, EmbeddingBag, Upsample, MultiheadAttention,
# TransformerEncoderLayer.
ember_add_test(ember_nn_layers_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_layers_modules.cpp
  ENV EMBER_DEFAULT_PLUGINS=cpu,autograd,nn)
add_dependencies(ember_nn_layers_tests ember_plugin_cpu ember_plugin_autograd ember_plugin_nn)
