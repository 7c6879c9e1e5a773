# Compiler options shared by every target that holds CUDA code.
function(gemmlab_cuda_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()

# The rungs must never spill: ptxas reports spill stores/loads and local-memory use as warnings,
# and -Werror turns each into a build failure naming the kernel.
function(gemmlab_forbid_spills target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills,-warn-lmem-usage,-Werror>)
endfunction()
