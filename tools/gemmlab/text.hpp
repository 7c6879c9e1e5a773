#pragma once
// Plain-text layout shared by the CLI's tables (list, bench, verify, probe, overhead): every
// line they print fits in kLineWidth columns. Long text (a rung's technique, a probe's headline) is
// word-wrapped under a hanging indent; a table too wide for the line is split into parts.

#include <string>
#include <string_view>
#include <vector>

#include "gemmlab/probe.hpp"

namespace gemmlab::cli {

/// The widest line any table or report of the CLI prints.
inline constexpr size_t kLineWidth = 100;

/// Columns `s` takes on a terminal: its UTF-8 code points (the CLI prints no wide characters).
size_t display_width(std::string_view s);

/// The words of `text` in lines of at most `width` columns; a word longer than `width` is cut
/// into pieces of `width` columns. Empty text gives no lines.
std::vector<std::string> wrap_words(std::string_view text, size_t width);

/// `prefix` + `text`, wrapped so that no line passes `width` columns, lines after the first
/// indented by `indent` spaces; every line ends with '\n'.
std::string wrap_paragraph(std::string_view prefix, std::string_view text, size_t indent,
                           size_t width = kLineWidth);

/// One probe sweep as aligned text, indented by two spaces: the title (wrapped), then each
/// column right-aligned, at least 12 wide (a %.6g value), its "name (unit)" header wrapped over
/// as many lines as it needs. When the columns do not fit in `width`, the table is printed in
/// parts, each repeating the first column (the swept variable).
std::string format_probe_table(const probe::Table& t, size_t width = kLineWidth);

} // namespace gemmlab::cli
