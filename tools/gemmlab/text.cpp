#include "gemmlab/text.hpp"

#include <algorithm>
#include <cstdio>

namespace gemmlab::cli {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

size_t display_width(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80; // count lead bytes, skip continuations
    return n;
}

std::vector<std::string> wrap_words(std::string_view text, size_t width) {
    std::vector<std::string> lines;
    std::string line;
    size_t line_w = 0, pos = 0;
    while (pos < text.size()) {
        while (pos < text.size() && text[pos] == ' ') ++pos;
        const size_t end = std::min(text.find(' ', pos), text.size());
        if (end == pos) break;
        std::string_view word = text.substr(pos, end - pos);
        pos = end;
        if (display_width(word) > width && width > 0) {
            // Longer than a line: its own lines, cut every `width` code points; the last piece
            // goes on as an ordinary word.
            if (!line.empty()) lines.push_back(std::move(line));
            line.clear();
            line_w = 0;
            while (display_width(word) > width) {
                size_t cut = 0;
                for (size_t cols = 0; cut < word.size(); ++cut)
                    if ((static_cast<unsigned char>(word[cut]) & 0xC0) != 0x80 && cols++ == width) break;
                lines.emplace_back(word.substr(0, cut));
                word.remove_prefix(cut);
            }
        }
        const size_t word_w = display_width(word);
        if (!line.empty() && line_w + 1 + word_w > width) {
            lines.push_back(std::move(line));
            line.clear();
            line_w = 0;
        }
        if (!line.empty()) {
            line += ' ';
            ++line_w;
        }
        line += word;
        line_w += word_w;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    return lines;
}

std::string wrap_paragraph(std::string_view prefix, std::string_view text, size_t indent, size_t width) {
    const size_t prefix_w = display_width(prefix);
    // The first line has width - prefix columns, the others width - indent; wrap to the
    // narrower so that one pass serves both.
    const size_t room = width - std::max(prefix_w, indent);
    const auto lines = wrap_words(text, std::max<size_t>(room, 20));
    std::string out(prefix);
    if (lines.empty()) return out + "\n";
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) out += std::string(indent, ' ');
        out += lines[i] + "\n";
    }
    return out;
}

namespace {

constexpr size_t kValueWidth = 12; // "%.6g" of any double: "-1.23457e+06"
constexpr size_t kGap = 2;         // spaces before every column (and the table's indent)

std::string pad_left(const std::string& s, size_t width) {
    const size_t w = display_width(s);
    return std::string(width > w ? width - w : 0, ' ') + s;
}

} // namespace

std::string format_probe_table(const probe::Table& t, size_t width) {
    const size_t n = t.columns.size();
    std::vector<std::vector<std::string>> heads(n); // each column's header lines
    std::vector<size_t> widths(n);
    for (size_t c = 0; c < n; ++c) {
        const std::string unit = c < t.units.size() ? t.units[c] : "";
        const std::string head = t.columns[c] + (unit.empty() ? "" : " (" + unit + ")");
        size_t longest_word = 0;
        for (const auto& w : wrap_words(head, 1)) longest_word = std::max(longest_word, display_width(w));
        widths[c] = std::max(kValueWidth, longest_word);
        heads[c] = wrap_words(head, widths[c]);
    }

    // Parts: column 0 and as many following columns as fit in `width`.
    std::vector<std::vector<size_t>> parts;
    if (n > 0) {
        parts.push_back({0});
        size_t used = kGap + widths[0];
        for (size_t c = 1; c < n; ++c) {
            if (parts.back().size() > 1 && used + kGap + widths[c] > width) {
                parts.push_back({0});
                used = kGap + widths[0];
            }
            parts.back().push_back(c);
            used += kGap + widths[c];
        }
    }

    std::string out = wrap_paragraph("  ", t.title, 2, width);
    char buf[64];
    for (size_t p = 0; p < parts.size(); ++p) {
        const auto& cols = parts[p];
        if (parts.size() > 1)
            out += "  (part " + std::to_string(p + 1) + " of " + std::to_string(parts.size()) + ")\n";
        size_t lines = 0;
        for (size_t c : cols) lines = std::max(lines, heads[c].size());
        for (size_t l = 0; l < lines; ++l) { // headers bottom-aligned, right-aligned
            std::string line;
            for (size_t c : cols) {
                const size_t skip = lines - heads[c].size();
                line += std::string(kGap, ' ') + pad_left(l >= skip ? heads[c][l - skip] : "", widths[c]);
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
        for (const auto& row : t.rows) {
            std::string line;
            for (size_t c : cols) {
                if (c >= row.size()) break;
                std::snprintf(buf, sizeof buf, "%.6g", row[c]);
                line += std::string(kGap, ' ') + pad_left(buf, widths[c]);
            }
            out += line + "\n";
        }
    }
    return out;
}

} // namespace gemmlab::cli
