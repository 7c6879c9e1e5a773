// gemmlab._gemmlab: the C++ half of the Python module.
//
// One product path serves gemmlab.gemm (BLAS form: 2-D, alpha, beta, transposes) and
// gemmlab.matmul (torch.matmul's semantics: 1-D, 2-D and batched operands, batch dimensions
// broadcast): operands are described as Mat (pointer, shape, strides in elements, dtype,
// device), planned into gemmlab::gemm_strided_batched calls (plan_product), and run. Two doors
// lead to it:
//   - call(): PyTorch tensors read directly (data_ptr, shape, stride, dtype, get_device), the
//     output allocated with new_empty and the stream taken from torch's current raw stream:
//     the lean per-call path, a handful of attribute reads and one library call;
//   - call_views(): anything else, described by the Python half (gemmlab/_interop.py) from
//     DLPack or __cuda_array_interface__.
// Element types are rows of one table (kDtypes); the typed library calls are rows of another
// (kProducts), one per (input, output) type pair the C++ API offers. The 8-bit products
// (gemm_fp8, gemm_int8: 2-D, with scales) have their own two tables (kQuantDtypes,
// kQuantProducts) and one pointer-form door, quantized(), planned by gemmlab/_quantized.py.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/quantized.hpp"
#include "gemmlab/status.hpp"

namespace py = pybind11;

namespace {

using gemmlab::DataType;
using gemmlab::GemmOptions;
using gemmlab::Layout;
using gemmlab::Op;
using gemmlab::Precision;
using gemmlab::Status;

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// Makes `device` current for a scope and restores the caller's device after.
class DeviceGuard {
  public:
    explicit DeviceGuard(int device) {
        if (device < 0) return;
        cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
        if (previous_ != device) cuda_check(cudaSetDevice(device), "cudaSetDevice");
        else previous_ = -1;
    }
    ~DeviceGuard() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

  private:
    int previous_ = -1;
};

// ---------------------------------------------------------------- element types

enum Dt : int { F32 = 0, F64 = 1, BF16 = 2, F16 = 3, kNumDtypes = 4 };

struct DtypeRow {
    const char* name;    // NumPy / PyTorch / CuPy / JAX name
    const char* typestr; // __cuda_array_interface__ typestr (little-endian); "<V2" is any 2-byte type
    uint8_t dl_code;     // DLPack DLDataTypeCode (kDLFloat = 2, kDLBfloat = 4)
    uint8_t dl_bits;
    int itemsize;
    DataType type;
};

const std::array<DtypeRow, kNumDtypes> kDtypes{{
    {"float32", "<f4", 2, 32, 4, DataType::F32},
    {"float64", "<f8", 2, 64, 8, DataType::F64},
    {"bfloat16", "<V2", 4, 16, 2, DataType::BF16},
    {"float16", "<f2", 2, 16, 2, DataType::F16},
}};

std::string supported_list(const char* prefix) {
    std::string known;
    for (const auto& row : kDtypes) known += std::string(known.empty() ? "" : ", ") + prefix + row.name;
    return known;
}

int dtype_index(const std::string& name) {
    std::string_view n = name;
    if (n.rfind("torch.", 0) == 0) n.remove_prefix(6);
    for (int i = 0; i < kNumDtypes; ++i)
        if (n == kDtypes[size_t(i)].name) return i;
    throw py::type_error("dtype '" + name + "' is not one gemmlab multiplies (" + supported_list("") + ")");
}

const std::array<Precision, 3> kPrecisions{Precision::Default, Precision::Tf32, Precision::Int8Emulation};

/// The GemmOptions a precision name sets: "default", "tf32", "int8_emulation", or
/// "int8_emulation:N", N moduli (GemmOptions::emulation_moduli, 1..kMaxEmulationModuli: the
/// caller's own accuracy, docs/api.md).
GemmOptions precision_options(const std::string& name) {
    const size_t colon = name.find(':');
    const std::string base = name.substr(0, colon);
    GemmOptions o;
    bool known_name = false;
    for (Precision p : kPrecisions)
        if (base == gemmlab::to_string(p)) o.precision = p, known_name = true;
    if (!known_name) {
        std::string known;
        for (Precision p : kPrecisions) known += std::string(known.empty() ? "" : ", ") + gemmlab::to_string(p);
        throw py::value_error("precision '" + name + "' is not one of: " + known);
    }
    if (colon == std::string::npos) return o;
    const std::string count = name.substr(colon + 1);
    const bool digits = !count.empty() && count.size() <= 2 &&
                        count.find_first_not_of("0123456789") == std::string::npos;
    const int moduli = digits ? std::stoi(count) : 0;
    if (o.precision != Precision::Int8Emulation || moduli < 1 || moduli > gemmlab::kMaxEmulationModuli)
        throw py::value_error("precision '" + name + "': a modulus count follows int8_emulation only, as "
                              "'int8_emulation:N' with N in 1.." + std::to_string(gemmlab::kMaxEmulationModuli));
    o.emulation_moduli = moduli;
    return o;
}

// ---------------------------------------------------------------- the typed library calls

/// One gemm_strided_batched call in pointer form (strides and leading dimensions in elements).
struct Product {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    double alpha, beta;
    uintptr_t a, b, c;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c, batch;
    GemmOptions options;
};

/// A and B in TIn, C in TOut, alpha and beta in TS: gemm for one product, gemm_strided_batched
/// for a batch (or their validate_ twins, which make no CUDA call).
template <class TIn, class TOut, class TS>
Status typed_product(const Product& p, bool validate_only) {
    const TS alpha = TS(p.alpha), beta = TS(p.beta);
    const auto* A = reinterpret_cast<const TIn*>(p.a);
    const auto* B = reinterpret_cast<const TIn*>(p.b);
    auto* C = reinterpret_cast<TOut*>(p.c);
    if (validate_only)
        return gemmlab::validate_gemm_strided_batched(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, alpha, A,
                                                      p.lda, p.stride_a, B, p.ldb, p.stride_b, beta,
                                                      static_cast<const TOut*>(C), p.ldc, p.stride_c,
                                                      p.batch, p.options);
    if (p.batch == 1)
        return gemmlab::gemm(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, alpha, A, p.lda, B, p.ldb, beta,
                             C, p.ldc, p.options);
    return gemmlab::gemm_strided_batched(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, alpha, A, p.lda,
                                         p.stride_a, B, p.ldb, p.stride_b, beta, C, p.ldc,
                                         p.stride_c, p.batch, p.options);
}

struct ProductRow {
    int in, out;
    Status (*run)(const Product&, bool validate_only);
};

// Every (A/B type, C type) pair of the C++ API.
const std::array<ProductRow, 6> kProducts{{
    {F32, F32, &typed_product<float, float, float>},
    {F64, F64, &typed_product<double, double, double>},
    {BF16, BF16, &typed_product<__nv_bfloat16, __nv_bfloat16, float>},
    {BF16, F32, &typed_product<__nv_bfloat16, float, float>},
    {F16, F16, &typed_product<__half, __half, float>},
    {F16, F32, &typed_product<__half, float, float>},
}};

const ProductRow* product_row(int in, int out) {
    for (const auto& row : kProducts)
        if (row.in == in && row.out == out) return &row;
    return nullptr;
}

// ---------------------------------------------------------------- operands and the plan

constexpr int kMaxDims = 16;

/// One operand as gemmlab sees it: strides in elements, device -1 where unknown.
struct Mat {
    const char* name = "";
    const char* prefix = ""; // how the array library spells dtypes: "torch." or ""
    uintptr_t ptr = 0;
    int ndim = 0;
    int64_t shape[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};
    int dtype = -1;
    int device = -1;
};

std::string shape_text(const int64_t* shape, int ndim) {
    std::string s = "(";
    for (int i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (ndim == 1 ? ",)" : ")");
}
std::string shape_text(const Mat& x) { return shape_text(x.shape, x.ndim); }
std::string dtype_text(const Mat& x) { return std::string(x.prefix) + kDtypes[size_t(x.dtype)].name; }

/// A matrix: rows x cols, element (i, j) at i * srow + j * scol.
struct Mat2 {
    int64_t rows, cols, srow, scol;
};

/// Leading dimension of x read as a row-major (row) and a column-major (col) matrix; 0 where it
/// is not one (no unit stride in that order, a broadcast or overlapping stride).
void stored(const Mat2& x, int64_t& row, int64_t& col) {
    const int64_t r = x.rows, c = x.cols;
    if (r == 0 || c == 0) { // no element is addressed: any order will do
        row = std::max<int64_t>(1, c), col = std::max<int64_t>(1, r);
        return;
    }
    row = col = 0;
    if (c <= 1 || x.scol == 1) {
        const int64_t ld = r > 1 ? x.srow : std::max<int64_t>(1, c);
        if (ld >= std::max<int64_t>(1, c)) row = ld;
    }
    if (r <= 1 || x.srow == 1) {
        const int64_t ld = c > 1 ? x.scol : std::max<int64_t>(1, r);
        if (ld >= std::max<int64_t>(1, r)) col = ld;
    }
}

std::string strides_text(const Mat& x) { return shape_text(x.strides, x.ndim); }

[[noreturn]] void not_strided(const Mat& x, const Mat2& m) {
    const bool torch = std::strcmp(x.prefix, "torch.") == 0;
    throw py::value_error(std::string(x.name) + " (shape " + shape_text(x) + ", strides " + strides_text(x) +
                          " elements) has no unit stride in either dimension of its " +
                          std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                          " matrices: gemmlab reads matrices through a leading dimension, so " + x.name +
                          " must be a row- or column-major view (make one with " +
                          (torch ? "x.contiguous()" : "a contiguous copy") + ")");
}

/// Everything a product needs besides the pointers: the library calls, the output's shape.
struct Plan {
    int in = -1, out = -1;
    int out_ndim = 0;
    int64_t out_shape[kMaxDims] = {};
    // The matrices of one batch (after transposes, 1-D operands made matrices).
    Mat2 a{}, b{}, c{};
    // Batch dimensions, broadcast, size-1 ones dropped, outer to inner; per operand strides.
    int nbatch = 0;
    int64_t bshape[kMaxDims] = {};
    int64_t bstride[3][kMaxDims] = {};
};

/// The shapes of op(a) @ op(b): torch.matmul's rules (1-D operands get a unit dimension that the
/// output drops; batch dimensions broadcast), or gemm's (`two_d`: 2-D operands only).
/// Fills plan.a, plan.b (no strides of C yet), the broadcast batch and the output shape.
void plan_shapes(const Mat& a, const Mat& b, bool ta, bool tb, bool two_d, Plan& plan,
                 int64_t a_bstr[kMaxDims], int64_t b_bstr[kMaxDims], bool& squeeze_m, bool& squeeze_n) {
    for (const Mat* x : {&a, &b}) {
        if (two_d && x->ndim != 2)
            throw py::value_error(std::string(x->name) + " must be 2-D, got shape " + shape_text(*x));
        if (x->ndim < 1)
            throw py::value_error(std::string("matmul: both operands need at least one dimension; ") + x->name +
                                  " is a scalar (shape ())");
    }
    if (a.dtype != b.dtype)
        throw py::value_error("dtype mismatch: a is " + dtype_text(a) + " but b is " + dtype_text(b));
    squeeze_m = a.ndim == 1, squeeze_n = b.ndim == 1;
    auto matrix = [](const Mat& x, bool vector_is_row) {
        if (x.ndim == 1)
            return vector_is_row ? Mat2{1, x.shape[0], 0, x.strides[0]} : Mat2{x.shape[0], 1, x.strides[0], 0};
        const int r = x.ndim - 2, c = x.ndim - 1;
        return Mat2{x.shape[r], x.shape[c], x.strides[r], x.strides[c]};
    };
    Mat2 ma = matrix(a, true), mb = matrix(b, false);
    if (ta) ma = {ma.cols, ma.rows, ma.scol, ma.srow};
    if (tb) mb = {mb.cols, mb.rows, mb.scol, mb.srow};
    if (ma.cols != mb.rows) {
        auto pybool = [](bool v) { return v ? "True" : "False"; };
        if (two_d)
            throw py::value_error("shape mismatch: op(a) is " + std::to_string(ma.rows) + " x " + std::to_string(ma.cols) +
                                  " but op(b) is " + std::to_string(mb.rows) + " x " + std::to_string(mb.cols) +
                                  " (inner dimensions " + std::to_string(ma.cols) + " != " + std::to_string(mb.rows) +
                                  "; a " + shape_text(a) + ", b " + shape_text(b) + ", trans_a=" + pybool(ta) +
                                  ", trans_b=" + pybool(tb) + ")");
        throw py::value_error("shape mismatch: a " + shape_text(a) + " @ b " + shape_text(b) + ": inner dimensions " +
                              std::to_string(ma.cols) + " != " + std::to_string(mb.rows));
    }
    plan.a = ma, plan.b = mb;

    // Batch dimensions, right-aligned and broadcast.
    const int na = std::max(0, a.ndim - 2), nb = std::max(0, b.ndim - 2);
    const int nbatch = std::max(na, nb);
    if (nbatch + 2 > kMaxDims) throw py::value_error("matmul: more than " + std::to_string(kMaxDims) + " dimensions");
    plan.out_ndim = 0;
    for (int i = 0; i < nbatch; ++i) {
        const int ia = i - (nbatch - na), ib = i - (nbatch - nb);
        const int64_t sa = ia >= 0 ? a.shape[ia] : 1, sb = ib >= 0 ? b.shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            throw py::value_error("shape mismatch: the batch dimensions of a " + shape_text(a) + " and b " +
                                  shape_text(b) + " do not broadcast (" + std::to_string(sa) + " vs " +
                                  std::to_string(sb) + " at batch dimension " + std::to_string(i) + ")");
        const int64_t size = std::max(sa, sb);
        a_bstr[i] = sa == size && ia >= 0 ? a.strides[ia] : 0;
        b_bstr[i] = sb == size && ib >= 0 ? b.strides[ib] : 0;
        plan.out_shape[plan.out_ndim++] = sa == 0 || sb == 0 ? 0 : size;
    }
    if (!squeeze_m) plan.out_shape[plan.out_ndim++] = ma.rows;
    if (!squeeze_n) plan.out_shape[plan.out_ndim++] = mb.cols;
}

/// The output's type: `out_dtype` when given (-1: none), else the inputs'.
int output_type(const Mat& a, int out_dtype) {
    const int out = out_dtype >= 0 ? out_dtype : a.dtype;
    if (!product_row(a.dtype, out))
        throw py::type_error("out_dtype " + std::string(a.prefix) + kDtypes[size_t(out)].name + " is not offered for " +
                             dtype_text(a) + " inputs: the output is " + dtype_text(a) +
                             (a.dtype == BF16 || a.dtype == F16 ? std::string(" or ") + a.prefix + "float32" : std::string()));
    return out;
}

/// Completes the plan with C: checks its shape and type, then groups the batch dimensions
/// into as few strided batches as the strides allow (the inner run of dimensions that every
/// operand addresses with one stride; the rest are looped), and folds a batch of A over a
/// shared B into the rows of one larger product where the strides allow (torch does the same).
void plan_output(const Mat& a, const Mat& c, bool two_d, int out_dtype, Plan& plan, const int64_t* a_bstr,
                 const int64_t* b_bstr, bool squeeze_m, bool squeeze_n) {
    plan.in = a.dtype;
    plan.out = output_type(a, out_dtype);
    if (c.dtype != plan.out) {
        if (out_dtype >= 0 || !product_row(a.dtype, c.dtype))
            throw py::value_error("dtype mismatch: a and b are " + dtype_text(a) + " but c is " + dtype_text(c) +
                                  (out_dtype >= 0 ? " (out_dtype " + std::string(a.prefix) + kDtypes[size_t(out_dtype)].name + ")"
                                                  : std::string()));
        plan.out = c.dtype; // float32 output of half inputs, chosen by the output given
    }
    bool same = c.ndim == plan.out_ndim;
    for (int i = 0; same && i < c.ndim; ++i) same = c.shape[i] == plan.out_shape[i];
    if (!same) {
        if (two_d)
            throw py::value_error("shape mismatch: op(a) @ op(b) is " + std::to_string(plan.a.rows) + " x " +
                                  std::to_string(plan.b.cols) + " but c has shape " + shape_text(c));
        throw py::value_error("shape mismatch: a @ b has shape " + shape_text(plan.out_shape, plan.out_ndim) +
                              " but out has shape " + shape_text(c));
    }
    const int nbatch = plan.out_ndim - (squeeze_m ? 0 : 1) - (squeeze_n ? 0 : 1);
    int64_t srow = 0, scol = 0;
    {
        int d = nbatch;
        if (!squeeze_m) srow = c.strides[d++];
        if (!squeeze_n) scol = c.strides[d];
    }
    plan.c = {plan.a.rows, plan.b.cols, srow, scol};

    // Batch dimensions of size > 1, outer to inner.
    plan.nbatch = 0;
    for (int i = 0; i < nbatch; ++i) {
        if (plan.out_shape[i] == 1) continue;
        plan.bshape[plan.nbatch] = plan.out_shape[i];
        plan.bstride[0][plan.nbatch] = a_bstr[i];
        plan.bstride[1][plan.nbatch] = b_bstr[i];
        plan.bstride[2][plan.nbatch] = c.strides[i];
        ++plan.nbatch;
    }
}

/// The grouping of plan's batch dimensions: dims [0, first) are looped on the host, dims
/// [first, nbatch) are one strided batch of `count` with strides `stride[3]`.
struct Grouping {
    int first;
    int64_t count;
    int64_t stride[3];
};

Grouping group_batch(const Plan& plan) {
    Grouping g{plan.nbatch, 1, {0, 0, 0}};
    if (plan.nbatch == 0) return g;
    const int last = plan.nbatch - 1;
    g.first = last;
    g.count = plan.bshape[last];
    for (int x = 0; x < 3; ++x) g.stride[x] = plan.bstride[x][last];
    for (int d = last - 1; d >= 0; --d) {
        bool joins = true;
        for (int x = 0; x < 3 && joins; ++x) joins = plan.bstride[x][d] == plan.bstride[x][d + 1] * plan.bshape[d + 1];
        if (!joins) break;
        g.first = d;
        g.count *= plan.bshape[d];
    }
    return g;
}

/// One library call's worth: the layout and ops of a batch's three matrices.
struct Call2 {
    Layout layout;
    bool op_a, op_b;
    int64_t lda, ldb, ldc;
};

Call2 plan_layout(const Mat2& a, const Mat2& b, const Mat2& c, const Mat& xa, const Mat& xb, const Mat& xc) {
    int64_t row_c, col_c;
    stored(c, row_c, col_c);
    Call2 out{};
    if (row_c) out.layout = Layout::RowMajor, out.ldc = row_c;
    else if (col_c) out.layout = Layout::ColMajor, out.ldc = col_c;
    else not_strided(xc, c);
    auto one = [&](const Mat2& m, const Mat& x, bool& op, int64_t& ld) {
        int64_t row, col;
        stored(m, row, col);
        const int64_t same = out.layout == Layout::RowMajor ? row : col;
        const int64_t other = out.layout == Layout::RowMajor ? col : row;
        if (same) op = false, ld = same;
        else if (other) op = true, ld = other;
        else not_strided(x, m);
    };
    one(a, xa, out.op_a, out.lda);
    one(b, xb, out.op_b, out.ldb);
    return out;
}

/// Folds a batch whose B is shared (stride 0) into the rows of A and C: batch x (m x k) @ (k x n)
/// as one (batch m) x k product, when A's and C's batch strides continue their row strides.
bool try_fold(Plan& plan, Grouping& g, const Mat& xa, const Mat& xb, const Mat& xc) {
    if (g.first != 0 || g.count <= 1 || g.stride[1] != 0) return false;
    const int64_t m = plan.a.rows;
    if (m == 0) return false;
    auto fold_rows = [&](const Mat2& x, int64_t stride, Mat2& out) {
        if (m == 1) out = {g.count, x.cols, stride, x.scol};
        else if (stride == m * x.srow) out = {g.count * m, x.cols, x.srow, x.scol};
        else return false;
        return true;
    };
    Mat2 a2, c2;
    if (!fold_rows(plan.a, g.stride[0], a2) || !fold_rows(plan.c, g.stride[2], c2)) return false;
    int64_t r, c;
    stored(c2, r, c);
    if (!r && !c) return false;
    stored(a2, r, c);
    if (!r && !c) return false;
    try {
        (void)plan_layout(a2, plan.b, c2, xa, xb, xc);
    } catch (const py::value_error&) {
        return false;
    }
    plan.a = a2, plan.c = c2;
    g = {0, 1, {0, 0, 0}};
    plan.nbatch = 0;
    return true;
}

/// Runs (or, with validate_only, validates) the planned product: one library call per
/// combination of the looped batch dimensions. Returns None, or (status, message).
py::object execute(Plan& plan, const Mat& a, const Mat& b, const Mat& c, double alpha, double beta,
                   const GemmOptions& options, bool validate_only) {
    for (int i = 0; i < plan.out_ndim; ++i)
        if (plan.out_shape[i] == 0) return py::none(); // an empty output: nothing to compute
    if (plan.a.rows == 0 || plan.b.cols == 0) return py::none();
    Grouping g = group_batch(plan);
    try_fold(plan, g, a, b, c);
    const Call2 l = plan_layout(plan.a, plan.b, plan.c, a, b, c);
    const ProductRow* row = product_row(plan.in, plan.out);
    Product p{l.layout, l.op_a ? Op::T : Op::N, l.op_b ? Op::T : Op::N,
              plan.a.rows, plan.b.cols, plan.a.cols, alpha, beta, a.ptr, b.ptr, c.ptr,
              l.lda, l.ldb, l.ldc, g.stride[0], g.stride[1], g.stride[2], g.count, options};
    const int64_t isz_in = kDtypes[size_t(plan.in)].itemsize, isz_out = kDtypes[size_t(plan.out)].itemsize;

    // Odometer over the looped dims [0, g.first).
    int64_t index[kMaxDims] = {};
    int64_t outer = 1;
    for (int d = 0; d < g.first; ++d) outer *= plan.bshape[d];
    for (int64_t it = 0; it < outer; ++it) {
        int64_t off[3] = {0, 0, 0};
        for (int d = 0; d < g.first; ++d)
            for (int x = 0; x < 3; ++x) off[x] += index[d] * plan.bstride[x][d];
        p.a = a.ptr + uintptr_t(off[0] * isz_in);
        p.b = b.ptr + uintptr_t(off[1] * isz_in);
        p.c = c.ptr + uintptr_t(off[2] * isz_out);
        const Status s = row->run(p, validate_only);
        if (s != Status::Success)
            return py::make_tuple(std::string(gemmlab::to_string(s)), std::string(gemmlab::last_error()));
        for (int d = g.first - 1; d >= 0; --d) {
            if (++index[d] < plan.bshape[d]) break;
            index[d] = 0;
        }
    }
    return py::none();
}

int device_count() {
    static const int count = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        return n;
    }();
    return count;
}

/// Runs the product on c's device (made current for the call when it is another).
py::object run_on_device(Plan& plan, const Mat& a, const Mat& b, const Mat& c, double alpha, double beta,
                         const GemmOptions& options) {
    if (c.device < 0 || device_count() == 0) return execute(plan, a, b, c, alpha, beta, options, false);
    DeviceGuard guard(c.device);
    return execute(plan, a, b, c, alpha, beta, options, false);
}

void same_device(const Mat& a, const Mat& b, const Mat* c) {
    const Mat* all[] = {&a, &b, c};
    int dev = -1;
    bool differ = false;
    for (const Mat* x : all)
        if (x && x->device >= 0) {
            if (dev >= 0 && x->device != dev) differ = true;
            dev = x->device;
        }
    if (!differ) return;
    std::string text;
    for (const Mat* x : all)
        if (x && x->device >= 0)
            text += std::string(text.empty() ? "" : ", ") + x->name + " on cuda:" + std::to_string(x->device);
    throw py::value_error("arrays on different GPUs: " + text);
}

// ---------------------------------------------------------------- PyTorch tensors, read directly

/// torch's objects, bound the first time a call sees torch imported (never imports it).
struct Torch {
    bool bound = false;
    PyTypeObject* tensor = nullptr;
    PyObject* dtypes[kNumDtypes] = {};
    PyObject* raw_stream = nullptr;      // torch._C._cuda_getCurrentRawStream(device) -> int
    PyObject* is_grad_enabled = nullptr; // torch.is_grad_enabled()
    PyObject *s_data_ptr, *s_shape, *s_stride, *s_dtype, *s_get_device, *s_requires_grad, *s_new_empty,
        *s_device, *s_dtype_kw;

    bool bind() {
        if (bound) return true;
        PyObject* mod = PyImport_GetModule(py::str("torch").ptr()); // new reference or NULL
        if (!mod) {
            PyErr_Clear();
            return false;
        }
        py::object torch = py::reinterpret_steal<py::object>(mod);
        try {
            py::object tensor = torch.attr("Tensor");
            py::object raw = torch.attr("_C").attr("_cuda_getCurrentRawStream");
            for (int i = 0; i < kNumDtypes; ++i) dtypes[i] = py::object(torch.attr(kDtypes[size_t(i)].name)).release().ptr();
            is_grad_enabled = py::object(torch.attr("is_grad_enabled")).release().ptr();
            raw_stream = raw.release().ptr();
            this->tensor = reinterpret_cast<PyTypeObject*>(tensor.release().ptr());
        } catch (py::error_already_set&) {
            return false; // torch half imported, or built without CUDA
        }
        s_data_ptr = PyUnicode_InternFromString("data_ptr");
        s_shape = PyUnicode_InternFromString("shape");
        s_stride = PyUnicode_InternFromString("stride");
        s_dtype = PyUnicode_InternFromString("dtype");
        s_get_device = PyUnicode_InternFromString("get_device");
        s_requires_grad = PyUnicode_InternFromString("requires_grad");
        s_new_empty = PyUnicode_InternFromString("new_empty");
        s_device = PyUnicode_InternFromString("device");
        s_dtype_kw = PyUnicode_InternFromString("dtype");
        bound = true;
        return true;
    }

    bool is_tensor(PyObject* x) const { return bound && PyObject_TypeCheck(x, tensor); }
};
Torch g_torch;

py::object steal_or_throw(PyObject* o) {
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
}

int64_t as_int64(PyObject* o) {
    const long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return int64_t(v);
}

void read_int_tuple(PyObject* t, int64_t* out, int& n) {
    if (!PyTuple_Check(t)) throw py::type_error("expected a tuple of sizes");
    const Py_ssize_t size = PyTuple_GET_SIZE(t);
    if (size > kMaxDims) throw py::value_error("more than " + std::to_string(kMaxDims) + " dimensions");
    n = int(size);
    for (Py_ssize_t i = 0; i < size; ++i) out[i] = as_int64(PyTuple_GET_ITEM(t, i));
}

/// Reads a torch.Tensor into m; sets requires_grad. Raises for CPU tensors and other dtypes.
void torch_mat(PyObject* x, const char* name, Mat& m, bool& requires_grad) {
    const Torch& t = g_torch;
    m.name = name;
    m.prefix = "torch.";
    py::object dtype = steal_or_throw(PyObject_GetAttr(x, t.s_dtype));
    m.dtype = -1;
    for (int i = 0; i < kNumDtypes; ++i)
        if (dtype.ptr() == t.dtypes[i]) m.dtype = i;
    if (m.dtype < 0)
        throw py::type_error(std::string(name) + " has dtype " + std::string(py::str(dtype)) + "; gemmlab multiplies " +
                             supported_list("torch."));
    py::object dev = steal_or_throw(PyObject_CallMethodNoArgs(x, t.s_get_device));
    m.device = int(as_int64(dev.ptr()));
    if (m.device < 0) {
        py::object where = steal_or_throw(PyObject_GetAttr(x, t.s_device));
        std::string type = py::str(where.attr("type"));
        throw py::value_error(std::string(name) + " is in " + (type == "cpu" ? "CPU" : type) +
                              " memory; gemmlab needs arrays on a CUDA GPU (x.cuda())");
    }
    py::object grad = steal_or_throw(PyObject_GetAttr(x, t.s_requires_grad));
    requires_grad = requires_grad || grad.ptr() == Py_True;
    py::object shape = steal_or_throw(PyObject_GetAttr(x, t.s_shape));
    read_int_tuple(shape.ptr(), m.shape, m.ndim);
    py::object stride = steal_or_throw(PyObject_CallMethodNoArgs(x, t.s_stride));
    int n = 0;
    read_int_tuple(stride.ptr(), m.strides, n);
    py::object ptr = steal_or_throw(PyObject_CallMethodNoArgs(x, t.s_data_ptr));
    m.ptr = uintptr_t(PyLong_AsUnsignedLongLong(ptr.ptr()));
    if (PyErr_Occurred()) throw py::error_already_set();
}

int out_dtype_of(py::handle out_dtype) {
    if (out_dtype.is_none()) return -1;
    return dtype_index(py::str(out_dtype));
}

GemmOptions options_of(const std::string& precision, const std::string& kernel) {
    GemmOptions o = precision_options(precision);
    o.kernel = kernel;
    return o;
}

/// The lean door: a, b (and c, when not None) torch tensors. Returns c (allocated when None),
/// or (status, message) when the library refuses the call, or None when this door does not
/// apply (not torch tensors, or an input that needs autograd: see `grad_mode`).
/// `grad`: 0 ignores requires_grad (the autograd operator's own implementation), 1 returns None
/// when an input requires grad in grad mode (gemmlab.matmul: the caller takes the autograd
/// operator), 2 raises ValueError then (gemmlab.gemm, which records no autograd).
py::object call(py::handle a, py::handle b, py::handle c, double alpha, double beta, bool trans_a, bool trans_b,
                bool two_d, py::handle out_dtype, const std::string& precision, const std::string& kernel,
                py::handle stream, int grad_mode) {
    if (!g_torch.bind() || !g_torch.is_tensor(a.ptr()) || !g_torch.is_tensor(b.ptr()) ||
        (!c.is_none() && !g_torch.is_tensor(c.ptr())))
        return py::none();
    Mat ma, mb, mc;
    bool grad = false;
    torch_mat(a.ptr(), "a", ma, grad);
    torch_mat(b.ptr(), "b", mb, grad);
    if (grad && grad_mode != 0) {
        py::object on = steal_or_throw(PyObject_CallNoArgs(g_torch.is_grad_enabled));
        if (on.ptr() == Py_True) {
            if (grad_mode == 1) return py::none();
            throw py::value_error("a or b requires grad: gemmlab.gemm records no autograd; use gemmlab.matmul or "
                                  "gemmlab.torch.matmul (an autograd operator), or pass x.detach()");
        }
    }
    Plan plan;
    int64_t a_bstr[kMaxDims], b_bstr[kMaxDims];
    bool squeeze_m, squeeze_n;
    plan_shapes(ma, mb, trans_a, trans_b, two_d, plan, a_bstr, b_bstr, squeeze_m, squeeze_n);
    const int odt = out_dtype_of(out_dtype);
    py::object result;
    if (c.is_none()) {
        if (beta != 0)
            throw py::value_error("beta = " + std::string(py::str(py::float_(beta))) +
                                  " needs c (the output to accumulate into); with c=None beta must be 0");
        const int out = output_type(ma, odt);
        py::tuple shape(plan.out_ndim);
        for (int i = 0; i < plan.out_ndim; ++i) shape[size_t(i)] = py::int_(plan.out_shape[i]);
        py::object fn = steal_or_throw(PyObject_GetAttr(a.ptr(), g_torch.s_new_empty));
        if (out == ma.dtype) {
            result = steal_or_throw(PyObject_CallOneArg(fn.ptr(), shape.ptr()));
        } else {
            py::dict kw;
            kw[py::handle(g_torch.s_dtype_kw)] = py::handle(g_torch.dtypes[out]);
            result = steal_or_throw(PyObject_Call(fn.ptr(), py::make_tuple(shape).ptr(), kw.ptr()));
        }
        c = result;
    } else {
        result = py::reinterpret_borrow<py::object>(c);
    }
    bool c_grad = false;
    torch_mat(c.ptr(), two_d ? "c" : "out", mc, c_grad);
    same_device(ma, mb, &mc);
    plan_output(ma, mc, two_d, odt, plan, a_bstr, b_bstr, squeeze_m, squeeze_n);
    GemmOptions options = options_of(precision, kernel);
    if (stream.is_none()) {
        py::object dev = py::int_(mc.device);
        py::object s = steal_or_throw(PyObject_CallOneArg(g_torch.raw_stream, dev.ptr()));
        options.stream = reinterpret_cast<cudaStream_t>(uintptr_t(as_int64(s.ptr())));
    } else {
        options.stream = reinterpret_cast<cudaStream_t>(uintptr_t(as_int64(stream.ptr())));
    }
    py::object err = run_on_device(plan, ma, mb, mc, alpha, beta, options);
    if (!err.is_none()) return err;
    return result;
}

// ---------------------------------------------------------------- other arrays, as views

/// A view tuple from gemmlab/_interop.py: (name, ptr, shape, strides, dtype index, device).
Mat mat_of(const py::tuple& v) {
    Mat m;
    const std::string name = v[0].cast<std::string>();
    m.name = name == "a" ? "a" : name == "b" ? "b" : name == "c" ? "c" : "out";
    m.ptr = v[1].cast<uintptr_t>();
    const auto shape = v[2].cast<std::vector<int64_t>>();
    const auto strides = v[3].cast<std::vector<int64_t>>();
    if (shape.size() > size_t(kMaxDims)) throw py::value_error("more than " + std::to_string(kMaxDims) + " dimensions");
    if (shape.size() != strides.size()) throw py::value_error("shape and strides differ in length");
    m.ndim = int(shape.size());
    std::copy(shape.begin(), shape.end(), m.shape);
    std::copy(strides.begin(), strides.end(), m.strides);
    m.dtype = v[4].cast<int>();
    if (m.dtype < 0 || m.dtype >= kNumDtypes) throw py::value_error("bad dtype index");
    m.device = v[5].cast<int>();
    return m;
}

/// The output shape and dtype name of a product of two views (None for c): for allocating it.
py::tuple out_spec(const py::tuple& va, const py::tuple& vb, bool trans_a, bool trans_b, bool two_d,
                   py::handle out_dtype) {
    const Mat a = mat_of(va), b = mat_of(vb);
    Plan plan;
    int64_t a_bstr[kMaxDims], b_bstr[kMaxDims];
    bool squeeze_m, squeeze_n;
    plan_shapes(a, b, trans_a, trans_b, two_d, plan, a_bstr, b_bstr, squeeze_m, squeeze_n);
    const int out = output_type(a, out_dtype_of(out_dtype));
    py::tuple shape(plan.out_ndim);
    for (int i = 0; i < plan.out_ndim; ++i) shape[size_t(i)] = py::int_(plan.out_shape[i]);
    return py::make_tuple(shape, kDtypes[size_t(out)].name);
}

/// Plans (and with run, runs) the product of views: None or (status, message) when run;
/// the plan as a dict otherwise (layouts, leading dimensions, batch grouping: for tests).
py::object call_views(const py::tuple& va, const py::tuple& vb, const py::tuple& vc, double alpha, double beta,
                      bool trans_a, bool trans_b, bool two_d, py::handle out_dtype, const std::string& precision,
                      const std::string& kernel, uintptr_t stream, bool run) {
    const Mat a = mat_of(va), b = mat_of(vb), c = mat_of(vc);
    Plan plan;
    int64_t a_bstr[kMaxDims], b_bstr[kMaxDims];
    bool squeeze_m, squeeze_n;
    plan_shapes(a, b, trans_a, trans_b, two_d, plan, a_bstr, b_bstr, squeeze_m, squeeze_n);
    same_device(a, b, &c);
    plan_output(a, c, two_d, out_dtype_of(out_dtype), plan, a_bstr, b_bstr, squeeze_m, squeeze_n);
    GemmOptions options = options_of(precision, kernel);
    options.stream = reinterpret_cast<cudaStream_t>(stream);
    if (run) return run_on_device(plan, a, b, c, alpha, beta, options);
    Grouping g = group_batch(plan);
    const bool folded = try_fold(plan, g, a, b, c);
    const Call2 l = plan_layout(plan.a, plan.b, plan.c, a, b, c);
    int64_t loops = 1;
    for (int d = 0; d < g.first; ++d) loops *= plan.bshape[d];
    py::dict d;
    d["layout"] = l.layout == Layout::RowMajor ? "row" : "col";
    d["op_a"] = l.op_a;
    d["op_b"] = l.op_b;
    d["m"] = plan.a.rows;
    d["n"] = plan.b.cols;
    d["k"] = plan.a.cols;
    d["lda"] = l.lda;
    d["ldb"] = l.ldb;
    d["ldc"] = l.ldc;
    d["batch"] = g.count;
    d["stride_a"] = g.stride[0];
    d["stride_b"] = g.stride[1];
    d["stride_c"] = g.stride[2];
    d["calls"] = loops;
    d["folded"] = folded;
    d["out_dtype"] = kDtypes[size_t(plan.out)].name;
    d["status"] = execute(plan, a, b, c, alpha, beta, options, true); // validate_gemm*: no CUDA call
    return d;
}

// ---------------------------------------------------------------- the pointer-level call

/// gemmlab::gemm on raw pointers (the BLAS form), as before: None, or (status, message).
py::object gemm_ptr(const std::string& dtype, const std::string& layout, bool trans_a, bool trans_b, int64_t m,
                    int64_t n, int64_t k, double alpha, uintptr_t a, int64_t lda, uintptr_t b, int64_t ldb,
                    double beta, uintptr_t c, int64_t ldc, const std::string& kernel, const std::string& precision,
                    uintptr_t stream, int device, bool validate_only, const std::string& out_dtype) {
    const int in = dtype_index(dtype), out = out_dtype.empty() ? in : dtype_index(out_dtype);
    const ProductRow* row = product_row(in, out);
    if (!row) throw py::type_error("no product of " + dtype + " inputs into " + out_dtype);
    if (layout != "row" && layout != "col") throw py::value_error("layout must be 'row' or 'col'");
    Product p{layout == "row" ? Layout::RowMajor : Layout::ColMajor, trans_a ? Op::T : Op::N,
              trans_b ? Op::T : Op::N, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc, 0, 0, 0, 1,
              options_of(precision, kernel)};
    p.options.stream = reinterpret_cast<cudaStream_t>(stream);
    Status s;
    if (validate_only || device < 0 || device_count() == 0) {
        s = row->run(p, validate_only);
    } else {
        DeviceGuard guard(device);
        s = row->run(p, false);
    }
    if (s == Status::Success) return py::none();
    return py::make_tuple(std::string(gemmlab::to_string(s)), std::string(gemmlab::last_error()));
}

// ---------------------------------------------------------------- bench: the library timed in C++

template <class T>
T from_double(double v) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(float(v));
    else if constexpr (std::is_same_v<T, __half>) return __float2half(float(v));
    else return T(v);
}

/// Times each kernel on one shape (row-major, fresh random inputs in [-1, 1]) with CUDA events:
/// `warmup` untimed calls, then `reps` calls timed one by one. Returns milliseconds per call.
template <class T>
std::vector<std::vector<double>> typed_bench(const std::vector<std::string>& kernels, int64_t m, int64_t n,
                                             int64_t k, bool ta, bool tb, int reps, int warmup,
                                             const GemmOptions& call_options, uint64_t seed) {
    std::vector<T> host(size_t(std::max({m * k, k * n, m * n})));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    T *A = nullptr, *B = nullptr, *C = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    std::vector<std::vector<double>> times;
    auto cleanup = [&] {
        cudaFree(A), cudaFree(B), cudaFree(C);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    };
    try {
        for (auto [ptr, count] : {std::pair{&A, m * k}, {&B, k * n}, {&C, m * n}}) {
            cuda_check(cudaMalloc(reinterpret_cast<void**>(ptr), sizeof(T) * size_t(std::max<int64_t>(1, count))), "cudaMalloc");
            for (int64_t i = 0; i < count; ++i) host[size_t(i)] = from_double<T>(dist(rng));
            cuda_check(cudaMemcpy(*ptr, host.data(), sizeof(T) * size_t(count), cudaMemcpyHostToDevice), "cudaMemcpy");
        }
        cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        cuda_check(cudaEventCreate(&start), "cudaEventCreate");
        cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
        // Row-major: A is m x k (k x m for op T), B is k x n (n x k), C is m x n.
        const int64_t lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
        using TS = std::conditional_t<std::is_same_v<T, double>, double, float>;
        for (const auto& kernel : kernels) {
            GemmOptions options = call_options; // precision and modulus count
            options.kernel = kernel;
            options.stream = stream;
            auto call = [&] {
                const Status s = gemmlab::gemm(Layout::RowMajor, ta ? Op::T : Op::N, tb ? Op::T : Op::N, m, n, k,
                                               TS(1), A, std::max<int64_t>(1, lda), B, std::max<int64_t>(1, ldb),
                                               TS(0), C, std::max<int64_t>(1, ldc), options);
                if (s != Status::Success)
                    throw std::runtime_error("kernel '" + kernel + "': " + std::string(gemmlab::to_string(s)) + ": " +
                                             gemmlab::last_error());
            };
            for (int i = 0; i < warmup; ++i) call();
            std::vector<double> ms;
            for (int i = 0; i < reps; ++i) {
                cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
                call();
                cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
                cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
                float t = 0;
                cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
                ms.push_back(t);
            }
            times.push_back(std::move(ms));
        }
    } catch (...) {
        cleanup();
        throw;
    }
    cleanup();
    return times;
}

using BenchFn = std::vector<std::vector<double>> (*)(const std::vector<std::string>&, int64_t, int64_t, int64_t,
                                                     bool, bool, int, int, const GemmOptions&, uint64_t);
const std::array<BenchFn, kNumDtypes> kBench{&typed_bench<float>, &typed_bench<double>,
                                             &typed_bench<__nv_bfloat16>, &typed_bench<__half>};

py::object bench(const std::string& dtype, const std::vector<std::string>& kernels, int64_t m, int64_t n,
                 int64_t k, bool trans_a, bool trans_b, int reps, int warmup, const std::string& precision,
                 uint64_t seed, int device) {
    const int dt = dtype_index(dtype);
    const GemmOptions p = precision_options(precision);
    if (m < 1 || n < 1 || k < 1) throw py::value_error("bench shapes need m, n, k >= 1");
    if (reps < 1 || warmup < 0) throw py::value_error("bench needs reps >= 1 and warmup >= 0");
    if (device_count() == 0) return py::make_tuple(std::string("NoDevice"), std::string("no CUDA device is visible"));
    std::vector<std::vector<double>> times;
    {
        py::gil_scoped_release release;
        DeviceGuard guard(device);
        times = kBench[size_t(dt)](kernels, m, n, k, trans_a, trans_b, reps, warmup, p, seed);
    }
    py::list out;
    for (const auto& t : times) out.append(py::cast(t));
    return out;
}

// ---------------------------------------------------------------- DLPack, by its ABI

// The DLPack structs (dlpack.h, v0.x and v1.x ABI): read, never freed here. The capsule keeps
// its name, so its own destructor calls the producer's deleter when Python drops it.
struct DLDevice { int32_t device_type, device_id; };
struct DLDataType { uint8_t code, bits; uint16_t lanes; };
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion { uint32_t major, minor; };
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};
constexpr uint64_t kDLPackFlagReadOnly = 1;

py::dict dlpack_info(const py::capsule& capsule) {
    const char* raw_name = PyCapsule_GetName(capsule.ptr());
    const std::string name = raw_name ? raw_name : "";
    const DLTensor* t = nullptr;
    bool readonly = false;
    if (name == "dltensor") {
        t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"))->dl_tensor;
    } else if (name == "dltensor_versioned") {
        auto* v = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
        if (v->version.major != 1)
            throw py::value_error("DLPack version " + std::to_string(v->version.major) + "." +
                                  std::to_string(v->version.minor) + " is not supported (1.x is)");
        t = &v->dl_tensor;
        readonly = v->flags & kDLPackFlagReadOnly;
    } else {
        throw py::value_error("not a fresh DLPack capsule (name '" + name + "')");
    }
    py::list shape, strides;
    int64_t compact = 1;
    std::vector<int64_t> s(size_t(std::max(0, t->ndim)));
    for (int i = t->ndim - 1; i >= 0; --i) { // no strides: compact row-major
        s[size_t(i)] = t->strides ? t->strides[i] : compact;
        compact *= t->shape[i];
    }
    for (int i = 0; i < t->ndim; ++i) {
        shape.append(t->shape[i]);
        strides.append(s[size_t(i)]);
    }
    py::dict d;
    d["ptr"] = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
    d["shape"] = py::tuple(shape);
    d["strides"] = py::tuple(strides);
    d["dl_code"] = int(t->dtype.code);
    d["dl_bits"] = int(t->dtype.bits);
    d["lanes"] = int(t->dtype.lanes);
    d["device_type"] = t->device.device_type;
    d["device_id"] = t->device.device_id;
    d["readonly"] = readonly;
    return d;
}

// ---------------------------------------------------------------- the 8-bit products

/// The element types of gemm_fp8 and gemm_int8 beyond kDtypes' (whose bfloat16, float16 and
/// float32 rows are their outputs too). DLPack codes are those of dlpack.h 1.1 (kDLInt = 0,
/// kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12); "<V1" is any 1-byte type, taken as FP8 only when
/// the array's own dtype says which.
struct QuantDtypeRow {
    const char* name; // as PyTorch, JAX (ml_dtypes) and NumPy spell it
    const char* typestr;
    uint8_t dl_code, dl_bits;
    int itemsize;
};
const std::array<QuantDtypeRow, 4> kQuantDtypes{{
    {"float8_e4m3fn", "<V1", 10, 8, 1},
    {"float8_e5m2", "<V1", 12, 8, 1},
    {"int8", "<i1", 0, 8, 1},
    {"int32", "<i4", 0, 32, 4},
}};

/// One gemm_fp8 / gemm_int8 call in pointer form (leading dimensions in elements).
struct QuantProduct {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    float alpha, beta;
    uintptr_t a, b, c;
    int64_t lda, ldb, ldc;
    gemmlab::Scale scale_a, scale_b;
    gemmlab::Fp8Output output; // FP8 C only
    GemmOptions options;
};

template <class TA, class TB, class TC>
Status fp8_product(const QuantProduct& p, bool validate_only) {
    const auto* A = reinterpret_cast<const TA*>(p.a);
    const auto* B = reinterpret_cast<const TB*>(p.b);
    auto* C = reinterpret_cast<TC*>(p.c);
    constexpr bool kFp8Out = std::is_same_v<TC, __nv_fp8_e4m3> || std::is_same_v<TC, __nv_fp8_e5m2>;
    if constexpr (kFp8Out) {
        if (validate_only)
            return gemmlab::validate_gemm_fp8<TA, TB, TC>(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A,
                                                          p.lda, p.scale_a, B, p.ldb, p.scale_b, C, p.ldc,
                                                          p.output, p.options);
        return gemmlab::gemm_fp8<TA, TB, TC>(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A, p.lda,
                                             p.scale_a, B, p.ldb, p.scale_b, C, p.ldc, p.output, p.options);
    } else {
        if (validate_only)
            return gemmlab::validate_gemm_fp8<TA, TB, TC>(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A,
                                                          p.lda, p.scale_a, B, p.ldb, p.scale_b, p.beta, C,
                                                          p.ldc, p.options);
        return gemmlab::gemm_fp8<TA, TB, TC>(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A, p.lda,
                                             p.scale_a, B, p.ldb, p.scale_b, p.beta, C, p.ldc, p.options);
    }
}

template <class TC>
Status int8_product(const QuantProduct& p, bool validate_only) {
    const auto* A = reinterpret_cast<const int8_t*>(p.a);
    const auto* B = reinterpret_cast<const int8_t*>(p.b);
    auto* C = reinterpret_cast<TC*>(p.c);
    if constexpr (std::is_same_v<TC, int32_t>) {
        if (validate_only)
            return gemmlab::validate_gemm_int8(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, A, p.lda, B, p.ldb, C,
                                               p.ldc, p.options);
        return gemmlab::gemm_int8(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, A, p.lda, B, p.ldb, C, p.ldc,
                                  p.options);
    } else {
        if (validate_only)
            return gemmlab::validate_gemm_int8(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A, p.lda,
                                               p.scale_a, B, p.ldb, p.scale_b, p.beta, C, p.ldc, p.options);
        return gemmlab::gemm_int8(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, A, p.lda, p.scale_a, B,
                                  p.ldb, p.scale_b, p.beta, C, p.ldc, p.options);
    }
}

struct QuantProductRow {
    const char *a, *b, *c;
    Status (*run)(const QuantProduct&, bool validate_only);
};

using E4M3 = __nv_fp8_e4m3;
using E5M2 = __nv_fp8_e5m2;
#define GEMMLAB_PY_FP8_ROWS(TA, A, TB, B)                                                          \
    {A, B, "bfloat16", &fp8_product<TA, TB, __nv_bfloat16>},                                       \
    {A, B, "float16", &fp8_product<TA, TB, __half>}, {A, B, "float32", &fp8_product<TA, TB, float>}, \
    {A, B, "float8_e4m3fn", &fp8_product<TA, TB, E4M3>},                                            \
    {A, B, "float8_e5m2", &fp8_product<TA, TB, E5M2>},
// Every (A, B, C) type triple of quantized.hpp.
const QuantProductRow kQuantProducts[] = {
    GEMMLAB_PY_FP8_ROWS(E4M3, "float8_e4m3fn", E4M3, "float8_e4m3fn")
    GEMMLAB_PY_FP8_ROWS(E4M3, "float8_e4m3fn", E5M2, "float8_e5m2")
    GEMMLAB_PY_FP8_ROWS(E5M2, "float8_e5m2", E4M3, "float8_e4m3fn")
    {"int8", "int8", "int32", &int8_product<int32_t>},
    {"int8", "int8", "float32", &int8_product<float>},
};
#undef GEMMLAB_PY_FP8_ROWS

gemmlab::Scaling scaling_of(const std::string& name) {
    if (name == "tensor") return gemmlab::Scaling::PerTensor;
    if (name == "channel") return gemmlab::Scaling::PerChannel;
    if (name == "block") return gemmlab::Scaling::BlockWise;
    throw py::value_error("scaling '" + name + "' is not tensor, channel or block");
}

/// gemm_fp8 / gemm_int8 (or their validate_ twins) on device pointers: None, or
/// (status, message). Type names as kQuantDtypes / kDtypes spell them; a (A, B, C) triple the
/// library lacks raises TypeError naming the ones it has.
py::object quantized(const std::string& a_dtype, const std::string& b_dtype, const std::string& c_dtype,
                     const std::string& layout, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                     double alpha, uintptr_t a, int64_t lda, uintptr_t scale_a, const std::string& scaling_a,
                     uintptr_t b, int64_t ldb, uintptr_t scale_b, const std::string& scaling_b, double beta,
                     uintptr_t c, int64_t ldc, uintptr_t scale_out, uintptr_t amax, const std::string& kernel,
                     uintptr_t stream, int device, bool validate_only) {
    const QuantProductRow* row = nullptr;
    std::string known;
    for (const auto& r : kQuantProducts) {
        if (a_dtype == r.a && b_dtype == r.b && c_dtype == r.c) row = &r;
        known += std::string(known.empty() ? "" : ", ") + r.a + " x " + r.b + " -> " + r.c;
    }
    if (!row)
        throw py::type_error("no 8-bit product takes " + a_dtype + " x " + b_dtype + " -> " + c_dtype +
                             " (gemmlab has: " + known + ")");
    QuantProduct p{};
    p.layout = layout == "row" ? Layout::RowMajor : Layout::ColMajor;
    p.op_a = trans_a ? Op::T : Op::N;
    p.op_b = trans_b ? Op::T : Op::N;
    p.m = m, p.n = n, p.k = k;
    p.alpha = float(alpha), p.beta = float(beta);
    p.a = a, p.b = b, p.c = c, p.lda = lda, p.ldb = ldb, p.ldc = ldc;
    p.scale_a = {reinterpret_cast<const float*>(scale_a), scaling_of(scaling_a)};
    p.scale_b = {reinterpret_cast<const float*>(scale_b), scaling_of(scaling_b)};
    p.output = {reinterpret_cast<const float*>(scale_out), reinterpret_cast<float*>(amax)};
    p.options.kernel = kernel;
    p.options.stream = reinterpret_cast<cudaStream_t>(stream);
    Status s;
    {
        py::gil_scoped_release release;
        if (validate_only) {
            s = row->run(p, true);
        } else {
            DeviceGuard guard(device_count() > 0 ? device : -1);
            s = row->run(p, false);
        }
    }
    if (s == Status::Success) return py::none();
    return py::make_tuple(std::string(gemmlab::to_string(s)), std::string(gemmlab::last_error()));
}

py::list quantized_dtypes() {
    py::list out;
    for (size_t i = 0; i < kQuantDtypes.size(); ++i) {
        const auto& row = kQuantDtypes[i];
        py::dict d;
        d["index"] = int(i);
        d["name"] = row.name;
        d["typestr"] = row.typestr;
        d["dl_code"] = int(row.dl_code);
        d["dl_bits"] = int(row.dl_bits);
        d["itemsize"] = row.itemsize;
        out.append(d);
    }
    return out;
}

py::list quantized_kernels() {
    py::list out;
    for (const auto& info : gemmlab::quantized_kernels()) {
        py::dict d;
        d["number"] = info.number;
        d["name"] = std::string(info.name);
        d["technique"] = std::string(info.technique);
        d["needs_sm90a"] = info.needs_sm90a;
        out.append(d);
    }
    return out;
}

// ---------------------------------------------------------------- small module functions

/// Device that owns a pointer, or -1 when CUDA does not know it (or there is no GPU).
int pointer_device(uintptr_t ptr) {
    if (!ptr || device_count() == 0) return -1;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

/// Makes `waiter` wait for the work queued so far on `producer` (the __cuda_array_interface__
/// v3 rule for a consumer on another stream).
void stream_wait(uintptr_t waiter, uintptr_t producer) {
    cudaEvent_t e = nullptr;
    cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    const cudaError_t r1 = cudaEventRecord(e, reinterpret_cast<cudaStream_t>(producer));
    const cudaError_t r2 = r1 == cudaSuccess ? cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(waiter), e, 0) : r1;
    cudaEventDestroy(e);
    cuda_check(r2, "cudaStreamWaitEvent");
}

py::list kernels() {
    py::list out;
    for (const auto& info : gemmlab::gpu_kernels()) {
        py::list types;
        for (const auto& row : kDtypes)
            if (info.supports(row.type)) types.append(row.name);
        py::dict d;
        d["number"] = info.number;
        d["name"] = std::string(info.name);
        d["technique"] = std::string(info.technique);
        d["seeds"] = std::string(info.sources);
        d["types"] = types;
        d["precision"] = gemmlab::to_string(info.precision);
        d["engine"] = gemmlab::to_string(info.engine);
        d["needs_sm90a"] = info.needs_sm90a;
        d["min_compute_capability"] = info.min_compute_capability;
        py::list library_types;
        for (DataType t : gemmlab::kAllDataTypes)
            if (info.supports(t)) library_types.append(gemmlab::to_string(t));
        d["library_types"] = library_types;
        out.append(d);
    }
    return out;
}

py::list dtypes() {
    py::list out;
    for (int i = 0; i < kNumDtypes; ++i) {
        const auto& row = kDtypes[size_t(i)];
        py::list outputs;
        for (const auto& p : kProducts)
            if (p.in == i) outputs.append(kDtypes[size_t(p.out)].name);
        py::dict d;
        d["index"] = i;
        d["name"] = row.name;
        d["typestr"] = row.typestr;
        d["dl_code"] = int(row.dl_code);
        d["dl_bits"] = int(row.dl_bits);
        d["itemsize"] = row.itemsize;
        d["outputs"] = outputs;
        out.append(d);
    }
    return out;
}

py::list precisions() {
    py::list out;
    for (Precision p : kPrecisions) out.append(gemmlab::to_string(p));
    return out;
}

} // namespace

PYBIND11_MODULE(_gemmlab, mod) {
    mod.doc() = "gemmlab's C++ core: products of GPU arrays through gemmlab::gemm_strided_batched (use the gemmlab package)";
    mod.def("call", &call, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha"), py::arg("beta"),
            py::arg("trans_a"), py::arg("trans_b"), py::arg("two_d"), py::arg("out_dtype"), py::arg("precision"),
            py::arg("kernel"), py::arg("stream"), py::arg("grad_mode"),
            "The product of torch tensors: c (allocated when None), (status, message) on a library failure, "
            "None when a or b is no torch tensor (or needs autograd, with grad_mode 1)");
    mod.def("call_views", &call_views, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha"), py::arg("beta"),
            py::arg("trans_a"), py::arg("trans_b"), py::arg("two_d"), py::arg("out_dtype"), py::arg("precision"),
            py::arg("kernel"), py::arg("stream"), py::arg("run"),
            "The product of views (name, ptr, shape, strides, dtype index, device): None or (status, message) "
            "with run, else the plan as a dict (validated, no CUDA call)");
    mod.def("out_spec", &out_spec, py::arg("a"), py::arg("b"), py::arg("trans_a"), py::arg("trans_b"),
            py::arg("two_d"), py::arg("out_dtype"), "(shape, dtype name) of the product of two views");
    mod.def("gemm", &gemm_ptr, py::arg("dtype"), py::arg("layout"), py::arg("trans_a"), py::arg("trans_b"),
            py::arg("m"), py::arg("n"), py::arg("k"), py::arg("alpha"), py::arg("a"), py::arg("lda"), py::arg("b"),
            py::arg("ldb"), py::arg("beta"), py::arg("c"), py::arg("ldc"), py::arg("kernel"), py::arg("precision"),
            py::arg("stream"), py::arg("device"), py::arg("validate_only") = false, py::arg("out_dtype") = "",
            "gemmlab::gemm (or validate_gemm) on device pointers; None, or (status, message) on failure");
    mod.def("quantized", &quantized, py::arg("a_dtype"), py::arg("b_dtype"), py::arg("c_dtype"),
            py::arg("layout"), py::arg("trans_a"), py::arg("trans_b"), py::arg("m"), py::arg("n"), py::arg("k"),
            py::arg("alpha"), py::arg("a"), py::arg("lda"), py::arg("scale_a"), py::arg("scaling_a"), py::arg("b"),
            py::arg("ldb"), py::arg("scale_b"), py::arg("scaling_b"), py::arg("beta"), py::arg("c"), py::arg("ldc"),
            py::arg("scale_out"), py::arg("amax"), py::arg("kernel"), py::arg("stream"), py::arg("device"),
            py::arg("validate_only"),
            "gemmlab::gemm_fp8 / gemm_int8 (or validate_) on device pointers; None, or (status, message)");
    mod.def("quantized_dtypes", &quantized_dtypes, "The 8-bit products' own element types (inputs, int32 C)");
    mod.def("quantized_kernels", &quantized_kernels, "The quantized rungs (gemmlab::quantized_kernels())");
    mod.def("kernels", &kernels, "The GPU rungs (gemmlab::gpu_kernels()) as dicts");
    mod.def("dtypes", &dtypes, "The element types, with their DLPack and __cuda_array_interface__ spellings");
    mod.def("precisions", &precisions, "The names of gemmlab::Precision");
    mod.def("dlpack_info", &dlpack_info, py::arg("capsule"), "Pointer, shape, strides, dtype and device of a DLPack capsule");
    mod.def("device_count", &device_count, "Visible CUDA devices (0 without a GPU or driver)");
    mod.def("pointer_device", &pointer_device, py::arg("ptr"), "Device owning a pointer, or -1");
    mod.def("stream_wait", &stream_wait, py::arg("waiter"), py::arg("producer"),
            "Make stream `waiter` wait for the work queued on `producer`");
    mod.def("bench", &bench, py::arg("dtype"), py::arg("kernels"), py::arg("m"), py::arg("n"), py::arg("k"),
            py::arg("trans_a"), py::arg("trans_b"), py::arg("reps"), py::arg("warmup"), py::arg("precision"),
            py::arg("seed"), py::arg("device"),
            "Milliseconds per call of each kernel (CUDA events), or (status, message) without a device");
}
