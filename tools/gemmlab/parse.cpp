#include <algorithm>
#include <charconv>

#include <CLI/CLI.hpp>

#include "gemmlab/kernels.hpp"
#include "gemmlab/parse.hpp"

namespace gemmlab::cli {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = s.find(sep, start);
        const std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!item.empty()) out.push_back(item);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

namespace {

int64_t parse_size(const std::string& s, const std::string& context) {
    int64_t v = -1;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0)
        throw CLI::ValidationError(context, "'" + s + "' is not a size (an integer >= 0)");
    return v;
}

} // namespace

std::vector<DType> parse_dtypes(const std::string& s) {
    std::vector<DType> out;
    for (const auto& t : split(s, ',')) {
        const std::string name = t == "float" ? "f32" : t == "double" ? "f64" : t;
        const auto it = std::find_if(std::begin(kAllDTypes), std::end(kAllDTypes),
                                     [&](DType d) { return name == to_string(d); });
        if (it == std::end(kAllDTypes))
            throw CLI::ValidationError("--dtype", "'" + t + "' is not one of " + dtype_names());
        out.push_back(*it);
    }
    if (out.empty()) throw CLI::ValidationError("--dtype", "no type given");
    return out;
}

std::string dtype_names() {
    std::string out;
    for (DType d : kAllDTypes) out += std::string(out.empty() ? "" : ", ") + to_string(d);
    return out;
}

Layout parse_layout(const std::string& s) {
    if (s == "row") return Layout::RowMajor;
    if (s == "col") return Layout::ColMajor;
    throw CLI::ValidationError("--layout", "'" + s + "' is not row or col");
}

std::vector<std::pair<Op, Op>> parse_ops(const std::string& s) {
    if (s == "all") return {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};
    std::vector<std::pair<Op, Op>> out;
    for (const auto& t : split(s, ',')) {
        if (t.size() != 2 || (t[0] != 'n' && t[0] != 't') || (t[1] != 'n' && t[1] != 't'))
            throw CLI::ValidationError("--op", "'" + t + "' is not one of nn, nt, tn, tt");
        out.emplace_back(t[0] == 't' ? Op::T : Op::N, t[1] == 't' ? Op::T : Op::N);
    }
    if (out.empty()) throw CLI::ValidationError("--op", "no op given");
    return out;
}

std::vector<int64_t> parse_batches(const std::string& s) {
    std::vector<int64_t> out;
    for (const auto& t : split(s, ',')) out.push_back(parse_size(t, "--batch"));
    if (out.empty()) throw CLI::ValidationError("--batch", "no batch count given");
    return out;
}

std::vector<Shape> parse_sizes(const std::string& s, const std::vector<int64_t>& batches) {
    std::vector<Shape> out;
    for (const auto& t : split(s, ',')) {
        const int64_t v = parse_size(t, "--sizes");
        for (int64_t b : batches) out.push_back({v, v, v, b});
    }
    if (out.empty()) throw CLI::ValidationError("--sizes", "no size given");
    return out;
}

std::vector<Shape> parse_shapes(const std::string& s, const std::vector<int64_t>& batches) {
    std::vector<Shape> out;
    for (const auto& t : split(s, ',')) {
        // "MxNxK" or "MxNxK@B": the batch, when given, belongs to this shape alone.
        const size_t at = t.find('@');
        const std::string mnk = t.substr(0, at);
        const auto dims = split(mnk, 'x');
        if (dims.size() != 3 || (at != std::string::npos && at + 1 == t.size()))
            throw CLI::ValidationError("--shapes", "'" + t + "' is not MxNxK or MxNxK@B");
        const Shape shape{parse_size(dims[0], "--shapes"), parse_size(dims[1], "--shapes"),
                          parse_size(dims[2], "--shapes")};
        if (at != std::string::npos) {
            Shape one = shape;
            one.batch = parse_size(t.substr(at + 1), "--shapes");
            out.push_back(one);
        } else {
            for (int64_t b : batches) {
                Shape one = shape;
                one.batch = b;
                out.push_back(one);
            }
        }
    }
    if (out.empty()) throw CLI::ValidationError("--shapes", "no shape given");
    return out;
}

Precision parse_precision(const std::string& s) {
    if (s == "default") return Precision::Default;
    if (s == "tf32") return Precision::Tf32;
    if (s == "int8_emulation") return Precision::Int8Emulation;
    throw CLI::ValidationError("--precision", "'" + s + "' is not default, tf32 or int8_emulation");
}

std::vector<Precision> parse_precisions(const std::string& s) {
    std::vector<Precision> out;
    for (const auto& t : split(s, ',')) {
        const Precision p = parse_precision(t);
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    if (out.empty()) throw CLI::ValidationError("--precision", "no precision given");
    return out;
}

std::vector<std::string> parse_gpu_kernels(const std::string& s) {
    std::vector<std::string> out;
    if (s == "all") {
        for (const auto& k : gpu_kernels()) out.emplace_back(k.name);
        out.emplace_back("auto"); // the default of gemm(): always measured beside the rungs
        return out;
    }
    for (const auto& t : split(s, ',')) {
        if (t == "auto") {
            out.push_back(t);
            continue;
        }
        const auto k = find_gpu_kernel(t);
        if (!k) throw CLI::ValidationError("--kernels", "'" + t + "' is not a GPU rung (see `gemmlab list`)");
        out.emplace_back(k->name);
    }
    if (out.empty()) throw CLI::ValidationError("--kernels", "no kernel given");
    return out;
}

std::vector<std::string> parse_cpu_kernels(const std::string& s) {
    std::vector<std::string> out;
    for (const auto& k : cpu_kernels())
        if (s == "all") out.emplace_back(k.name);
    if (!out.empty()) return out;
    for (const auto& t : split(s, ',')) {
        bool found = false;
        for (const auto& k : cpu_kernels())
            if (k.name == t || std::to_string(k.number) == t) {
                out.emplace_back(k.name);
                found = true;
            }
        if (!found) throw CLI::ValidationError("--kernels", "'" + t + "' is not a CPU rung (see `gemmlab list`)");
    }
    return out;
}

} // namespace gemmlab::cli
