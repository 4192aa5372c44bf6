// kernels/index.cu compiled for the host (Note [GPU kernels on the host] in ../kernels/HostEmulation.h).
#include "index.cu"
