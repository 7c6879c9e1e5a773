#pragma once
// Progress lines for long runs, shown only when stderr is a terminal so logs stay clean.

#include <cstdio>
#include <string_view>

#include <unistd.h>

namespace gemmlab {

/// Rewrites one status line on stderr ("[12/96] smem_tile f32 nn 1024x1024x1024").
class Progress {
public:
    explicit Progress(int total) : total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}
    ~Progress() { done(); }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void step(std::string_view what) {
        ++count_;
        if (!enabled_) return;
        std::fprintf(stderr, "\r\033[K[%d/%d] %.*s", count_, total_, int(what.size()), what.data());
        std::fflush(stderr);
    }
    void done() {
        if (enabled_ && count_ > 0) std::fprintf(stderr, "\r\033[K");
        count_ = 0;
    }

private:
    int total_;
    int count_ = 0;
    bool enabled_;
};

} // namespace gemmlab
