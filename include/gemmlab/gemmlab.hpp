#pragma once
// Umbrella header: everything a gemmlab user needs.

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/quantized.hpp"
#include "gemmlab/status.hpp"
