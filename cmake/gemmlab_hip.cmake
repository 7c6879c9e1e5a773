# The HIP build (AMD GPUs): the CUDA-core rungs 1-12 and the probes that make sense on AMD, from
# the same source files as the CUDA build, through src/common/gpu_runtime.hpp. Included by the
# top-level CMakeLists.txt when GEMMLAB_HIP is ON (`cmake --preset hip`), after
# project(... LANGUAGES CXX) with hipcc as the C++ compiler. docs/hip.md says what it covers and
# what has been run.
#
# Debian's HIP (hipcc, libamdhip64-dev: HIP 5.2 on clang 15) installs its CMake package under
# the multiarch libdir, where CMake's own HIP language support (3.25) does not look; so the GPU
# sources are compiled as C++ by hipcc with `-x hip`, and find_package(hip) supplies the runtime
# (hip::host) and one --offload-arch per architecture (hip::device).

set(GEMMLAB_HIP_ARCHITECTURES "gfx906;gfx900" CACHE STRING
    "AMD GPU architectures of the HIP build (gfx906: MI50/MI60, Radeon VII; gfx900: Vega 10)")
# hip-config.cmake asks rocm_agent_enumerator for the local GPUs unless GPU_TARGETS is set; that
# fails without a GPU, so the architectures are always named.
set(GPU_TARGETS "${GEMMLAB_HIP_ARCHITECTURES}" CACHE STRING "AMD GPU targets (from GEMMLAB_HIP_ARCHITECTURES)" FORCE)
set(AMDGPU_TARGETS "${GEMMLAB_HIP_ARCHITECTURES}" CACHE STRING "AMD GPU targets (from GEMMLAB_HIP_ARCHITECTURES)" FORCE)
find_package(hip CONFIG REQUIRED)
find_package(Threads REQUIRED)
find_package(CLI11 REQUIRED)
message(STATUS "gemmlab: HIP build for ${GEMMLAB_HIP_ARCHITECTURES} (HIP ${hip_VERSION})")

# hipcc compiles every .cpp as HIP (for gfx803, its default) unless told not to: the host files
# stay plain C++, the GPU files are marked below.
# HCC_AMDGPU_TARGET names the architectures for the compiles and links that carry no
# --offload-arch (host files, executables), so that hipcc does not ask rocm_agent_enumerator,
# which fails (with a Python traceback) without a GPU.
string(REPLACE ";" "," _gemmlab_hcc_targets "${GEMMLAB_HIP_ARCHITECTURES}")
set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env HIP_COMPILE_CXX_AS_HIP=0
    HCC_AMDGPU_TARGET=${_gemmlab_hcc_targets} ${CMAKE_CXX_COMPILER_LAUNCHER})
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env HCC_AMDGPU_TARGET=${_gemmlab_hcc_targets}
    ${CMAKE_CXX_LINKER_LAUNCHER})

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
include(GNUInstallDirs)
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# The rungs of the HIP build. Left out, with the reason:
#  13 warp_tile, 14 async_pipeline: their thread layout cuts a block into 32-lane warps
#     (TileConfig::kLanesM * kLanesN == 32, tid / 32 in WarpTileMap); correct on 64-lane
#     wavefronts but no longer the idea the rung teaches, and 14 is PTX cp.async (sm_80+).
#  15-26: NVIDIA tensor cores (mma.sync, wgmma, TMA) through inline PTX.
#  27 small: one 32-lane warp per tile (its lane layouts assume 32); its half types on mma.sync.
#  0 cuBLAS: no rocBLAS here; the tools check against the CPU reference or a rung instead.
set(GEMMLAB_HIP_RUNGS
  01_naive 02_coalesced 03_register_tile_global 04_register_prefetch_global 05_smem_tile
  06_smem_conflict_free 07_thread_tile_1d 08_vectorized 09_thread_tile_4x4 10_thread_tile_8x8
  11_smem_interleaved_reads 12_double_buffer)
set(GEMMLAB_HIP_RUNG_SOURCES "")
foreach(_rung IN LISTS GEMMLAB_HIP_RUNGS)
  list(APPEND GEMMLAB_HIP_RUNG_SOURCES ${PROJECT_SOURCE_DIR}/src/gemm/kernels/${_rung}.cu)
endforeach()

# The probes of the HIP build (src/probe/hip_probes.cpp is their table): clock, launch-rate, fma,
# latency, smem-latency, smem-bank and bandwidth; their PTX-specific parts (cache-policy loads,
# shared loads, clocks) have AMD twins in src/probe/probe_kit.cuh, and smem-bank's bank model
# takes the wavefront's width (src/probe/bank_model.hpp). Left out, with the reason:
# cacheline, access-divergence, channel-conflict (their access patterns are cut for 32-lane
# warps, threadIdx.x & 31 and / 32, and cacheline and access-divergence read their curves with
# NVIDIA's 128-byte lines of 32-byte sectors; their loads have AMD twins now, the rest is not
# ported); registers, uniform (NVIDIA register files and UR registers); divergence, reduction
# (32-lane warps, shuffles); math, index-nchw, padding, batchnorm (not yet checked for 64-lane
# assumptions); tensor (NVIDIA tensor cores).
set(GEMMLAB_HIP_PROBE_KERNELS clock launch_rate fma latency smem_latency smem_bank bandwidth
                              membw_common)
set(GEMMLAB_HIP_PROBE_SOURCES ${PROJECT_SOURCE_DIR}/src/probe/context.cu
                              ${PROJECT_SOURCE_DIR}/src/common/timing.cu)
foreach(_probe IN LISTS GEMMLAB_HIP_PROBE_KERNELS)
  list(APPEND GEMMLAB_HIP_PROBE_SOURCES ${PROJECT_SOURCE_DIR}/src/probe/${_probe}.cu)
endforeach()

# GPU sources: compiled as HIP by hipcc. `__CUDACC__` is defined for them because the shared
# headers use it to mean "the GPU compiler is compiling this file" (device helpers such as
# block_tile in tile_grid.hpp); HIP's own headers select the AMD platform from __HIP__, not from it.
function(gemmlab_hip_sources)
  set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CXX
    COMPILE_OPTIONS "-x;hip;-D__CUDACC__")
endfunction()

string(REPLACE ";" "," GEMMLAB_HIP_ARCHITECTURES_TEXT "${GEMMLAB_HIP_ARCHITECTURES}")
function(gemmlab_hip_target target)
  target_compile_definitions(${target} PUBLIC GEMMLAB_HIP=1
                             GEMMLAB_HIP_ARCHITECTURES_TEXT="${GEMMLAB_HIP_ARCHITECTURES_TEXT}")
  # The CUDA headers the shared sources include resolve to gpu_runtime.hpp (cmake/hip/include).
  target_include_directories(${target} BEFORE PUBLIC ${PROJECT_SOURCE_DIR}/cmake/hip/include)
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${target} PRIVATE -Wall -Wno-unused-command-line-argument)
endfunction()

gemmlab_hip_sources(${GEMMLAB_HIP_RUNG_SOURCES} ${PROJECT_SOURCE_DIR}/src/hip/ladder.cu
                    ${GEMMLAB_HIP_PROBE_SOURCES})

# ------------------------------------------------------------ the library: gemmlab::gemmlab_hip
add_library(gemmlab_hip SHARED ${GEMMLAB_HIP_RUNG_SOURCES} ${PROJECT_SOURCE_DIR}/src/hip/ladder.cu
            ${GEMMLAB_HIP_PROBE_SOURCES} ${PROJECT_SOURCE_DIR}/src/probe/hip_probes.cpp
            ${PROJECT_SOURCE_DIR}/src/probe/chase.cpp)
gemmlab_hip_target(gemmlab_hip)
target_link_libraries(gemmlab_hip PUBLIC hip::host PRIVATE hip::device Threads::Threads)
add_library(gemmlab::gemmlab_hip ALIAS gemmlab_hip)

# The CPU reference and the error-bound check (plain C++).
add_library(gemmlab_hip_reference STATIC
  ${PROJECT_SOURCE_DIR}/src/gemm/reference/reference.cpp
  ${PROJECT_SOURCE_DIR}/src/gemm/reference/check.cpp)
gemmlab_hip_target(gemmlab_hip_reference)
target_link_libraries(gemmlab_hip_reference PUBLIC hip::host Threads::Threads)
target_compile_options(gemmlab_hip_reference PRIVATE "$<$<CONFIG:Release>:-O3;-march=x86-64-v3>")

# ------------------------------------------------------------------------ the CLI: gemmlab-hip
add_executable(gemmlab_hip_cli ${PROJECT_SOURCE_DIR}/tools/gemmlab_hip/main.cpp)
set_target_properties(gemmlab_hip_cli PROPERTIES OUTPUT_NAME gemmlab-hip)
gemmlab_hip_target(gemmlab_hip_cli)
target_link_libraries(gemmlab_hip_cli PRIVATE gemmlab_hip gemmlab_hip_reference CLI11::CLI11)

install(TARGETS gemmlab_hip gemmlab_hip_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# ------------------------------------------------------------------------------------ tests
option(GEMMLAB_BUILD_TESTS "Build the tests" ON)
if(GEMMLAB_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  enable_testing()
  # The portability layer on the CPU (names, wavefront size, error messages without a device),
  # and the rungs against the CPU reference where an AMD GPU is present (skipped otherwise).
  add_executable(test_gpu_runtime ${PROJECT_SOURCE_DIR}/tests/test_gpu_runtime.cpp)
  gemmlab_hip_target(test_gpu_runtime)
  target_link_libraries(test_gpu_runtime PRIVATE gemmlab_hip gemmlab_hip_reference
                                                 GTest::gtest GTest::gtest_main)
  gtest_discover_tests(test_gpu_runtime DISCOVERY_MODE POST_BUILD
                       PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  # The probe table, and the bank model and chase builder at this build's wavefront width.
  add_executable(test_hip_probes ${PROJECT_SOURCE_DIR}/tests/test_hip_probes.cpp)
  gemmlab_hip_target(test_hip_probes)
  target_link_libraries(test_hip_probes PRIVATE gemmlab_hip GTest::gtest GTest::gtest_main)
  gtest_discover_tests(test_hip_probes DISCOVERY_MODE POST_BUILD)
endif()

# ------------------------------------------------------- assembly of the rungs and the probes
# `cmake --build --preset hip --target hip_asm`: the AMDGPU assembly (hipcc --save-temps) of each
# rung and each probe of the HIP build for GEMMLAB_HIP_ASM_ARCH, in
# build/hip/asm/<file>-hip-amdgcn-amd-amdhsa-<arch>.s: the evidence docs/hip.md quotes
# (ds_read_b128, global_load_dwordx4, v_fmac_f32 per rung; s_memtime, global_load ... glc,
# ds_read_b32 in the probes' loops).
set(GEMMLAB_HIP_ASM_ARCH gfx906 CACHE STRING "AMD GPU architecture of the hip_asm target")
set(_gemmlab_asm_dir ${PROJECT_BINARY_DIR}/asm)
set(_gemmlab_asm_files "")
set(_gemmlab_asm_sources "")
foreach(_rung IN LISTS GEMMLAB_HIP_RUNGS)
  list(APPEND _gemmlab_asm_sources src/gemm/kernels/${_rung}.cu)
endforeach()
foreach(_probe IN LISTS GEMMLAB_HIP_PROBE_KERNELS)
  list(APPEND _gemmlab_asm_sources src/probe/${_probe}.cu)
endforeach()
foreach(_source IN LISTS _gemmlab_asm_sources)
  get_filename_component(_name ${_source} NAME_WE)
  set(_deps "") # the probes' device primitives, which decide their instructions
  if(_source MATCHES "^src/probe/")
    set(_deps ${PROJECT_SOURCE_DIR}/src/probe/probe_kit.cuh)
  endif()
  set(_asm ${_gemmlab_asm_dir}/${_name}-hip-amdgcn-amd-amdhsa-${GEMMLAB_HIP_ASM_ARCH}.s)
  add_custom_command(OUTPUT ${_asm}
    COMMAND ${CMAKE_CXX_COMPILER} -x hip --offload-arch=${GEMMLAB_HIP_ASM_ARCH} --cuda-device-only
            -O3 -std=c++20 -DGEMMLAB_HIP=1 -D__CUDACC__ -I${PROJECT_SOURCE_DIR}/cmake/hip/include
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src --save-temps -c
            ${PROJECT_SOURCE_DIR}/${_source} -o ${_name}.o
    DEPENDS ${PROJECT_SOURCE_DIR}/${_source} ${_deps}
    WORKING_DIRECTORY ${_gemmlab_asm_dir}
    COMMENT "AMDGPU assembly of ${_name} (${GEMMLAB_HIP_ASM_ARCH})" VERBATIM)
  list(APPEND _gemmlab_asm_files ${_asm})
endforeach()
file(MAKE_DIRECTORY ${_gemmlab_asm_dir})
add_custom_target(hip_asm DEPENDS ${_gemmlab_asm_files})
