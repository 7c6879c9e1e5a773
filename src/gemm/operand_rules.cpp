// gemm's rules for one stored operand (operand_rules.hpp).

#include "gemm/operand_rules.hpp"

#include <algorithm>

namespace gemmlab::detail {

int64_t last_offset(int64_t inner, int64_t outer, int64_t ld) {
    if (inner == 0 || outer == 0) return 0;
    int64_t prod = 0, sum = 0;
    if (__builtin_mul_overflow(outer - 1, ld, &prod) || __builtin_add_overflow(prod, inner - 1, &sum))
        return -1;
    return sum;
}

int64_t last_offset_of(Layout layout, const StoredOperand& x) {
    const bool row = layout == Layout::RowMajor;
    return last_offset(row ? x.cols : x.rows, row ? x.rows : x.cols, x.ld);
}

namespace {

/// "(row-major A, op N)": where an operand's rule was broken.
std::string operand_where(bool row, const StoredOperand& x) {
    return std::string("(") + (row ? "row-major " : "column-major ") + x.name +
           (x.has_op ? (x.is_op_t ? ", op T)" : ", op N)") : ")");
}

} // namespace

Status check_stored_operand(Layout layout, const StoredOperand& x, std::string* message) {
    const bool row = layout == Layout::RowMajor;
    const int64_t need = std::max<int64_t>(1, row ? x.cols : x.rows);
    if (x.ld < need) {
        *message = std::string(x.ld_name) + " = " + std::to_string(x.ld) + " is less than max(1, " +
                   (row ? x.cols_expr : x.rows_expr) + ") = " + std::to_string(need) + " " +
                   operand_where(row, x);
        return Status::InvalidLeadingDimension;
    }
    const int64_t inner = row ? x.cols : x.rows, outer = row ? x.rows : x.cols;
    if (last_offset(inner, outer, x.ld) < 0) {
        *message = std::string("the last element of ") + x.name + " " + operand_where(row, x) +
                   " lies beyond int64: " + std::to_string(outer) + " x " + x.ld_name + " = " +
                   std::to_string(x.ld);
        return Status::SizeOverflow;
    }
    return Status::Success;
}

} // namespace gemmlab::detail
