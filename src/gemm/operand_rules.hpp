#pragma once
// gemm's rules for one stored operand, the leading dimension and the last element inside int64:
// one home for every entry point that takes matrices (api.cu, quantized_api.cu), so that a bad
// lda reads the same from gemm, gemm_strided_batched, gemm_fp8 and gemm_int8.

#include <cstdint>
#include <string>

#include "gemmlab/gemm.hpp"
#include "gemmlab/status.hpp"

namespace gemmlab::detail {

/// Offset of the last element of a stored inner x outer matrix whose ld strides the outer index,
/// or -1 when it overflows int64.
int64_t last_offset(int64_t inner, int64_t outer, int64_t ld);

/// One operand as stored (its op undone), named for the messages of broken rules.
struct StoredOperand {
    const char* name;    ///< "A", "B", "C"
    const char* ld_name; ///< "lda", ...
    int64_t rows, cols;  ///< as stored
    const char* rows_expr, *cols_expr; ///< how the call names them ("k", "m", ...)
    int64_t ld;
    bool is_op_t;
    bool has_op; ///< A and B have an op; C does not
};

/// Offset of x's last element as stored in `layout` (-1 when it overflows int64).
int64_t last_offset_of(Layout layout, const StoredOperand& x);

/// The rule for one operand: column-major storage strides columns by ld, so ld >= rows;
/// row-major strides rows, so ld >= cols; and the last element inside int64. Success, or the
/// broken rule's Status with its message in *message. The message is built only when a rule is
/// broken: on the success path this is integer arithmetic.
Status check_stored_operand(Layout layout, const StoredOperand& x, std::string* message);

} // namespace gemmlab::detail
