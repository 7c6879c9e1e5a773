// HIP build only (cmake/gemmlab_hip.cmake puts this folder first on the include path): the
// CUDA header cuda_runtime.h of a shared source file resolves to the portability header.
#pragma once
#include "common/gpu_runtime.hpp"
