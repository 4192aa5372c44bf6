// kernels/embedding.cu compiled for the host (Note [GPU kernels on the host] in ../kernels/HostEmulation.h).
#include "embedding.cu"
