#pragma once
// auto's tune cache: the file `gemmlab tune` writes with what it measured on one GPU, and that
// auto reads once per device (gemm/tune_table.hpp says what a slot is).
//
// Where (`gemmlab tune` and auto alike): GEMMLAB_TUNE_CACHE names the file ("off": no cache);
// else $XDG_CACHE_HOME/gemmlab/NAME (an absolute XDG_CACHE_HOME, as the XDG base-directory
// specification asks), else $HOME/.cache/gemmlab/NAME, where NAME is the GPU's name and SM
// count, sanitized: "nvidia-h100-80gb-hbm3-132sm.json". `gemmlab tune --cache PATH` writes
// elsewhere; auto reads PATH when GEMMLAB_TUNE_CACHE names it.
//
// What (JSON, tune_file_json): the format number, the key (GPU name, SM count, SM and memory
// clocks, CUDA runtime version, gemmlab version, whether the library has sm_90a code for it),
// and one entry per tuned slot: type key, the class's representative m, n, k, the winning
// candidate's name and k slices and its median time, and the model's own pick and its time.
//
// When auto ignores it, with one warning line on stderr per process (naming the file, why, and
// `gemmlab tune` to regenerate it), never failing a call: the file is not JSON or lacks a field
// (corrupt), or its key is not the device's (stale: another GPU, clock, CUDA or gemmlab); an
// entry naming an unknown type, class or candidate, a candidate the type never admits or a split
// it cannot make is ignored alone (the model decides its slot). A missing file is silent at the
// default location (nobody tuned yet) and worth the warning where GEMMLAB_TUNE_CACHE names it.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemm/tune_table.hpp"

namespace gemmlab::detail {

/// The version of the file layout; another number is a corrupt file to this library.
inline constexpr int kTuneCacheFormat = 1;

/// What a cache is valid for: the device and the software that measured it. Any difference
/// makes a cache stale.
struct TuneKey {
    std::string gpu_name;
    int sm_count = 0;
    int sm_clock_mhz = 0;     ///< peak (cudaDevAttrClockRate)
    int memory_clock_mhz = 0; ///< peak (cudaDevAttrMemoryClockRate)
    int cuda_runtime = 0;     ///< cudaRuntimeGetVersion, e.g. 13000
    std::string gemmlab_version; ///< the project version of CMakeLists.txt
    bool sm90a = false;       ///< the Hopper rungs can run (DeviceCaps::sm90a)

    bool operator==(const TuneKey&) const = default;
};

/// The key of `device` with this library. Throws CudaFailure.
TuneKey device_tune_key(int device);

/// The first field in which `file` differs from `here`, as "sm_clock_mhz 1755 in the file, 1980
/// here"; empty when they are equal.
std::string key_difference(const TuneKey& file, const TuneKey& here);

/// One tuned slot as the file holds it: the measured winner and, for comparison, the model's
/// pick measured in the same run.
struct TuneEntry {
    std::string type;   ///< a TuneType's spelling ("f32-tf32"); the loader checks it
    ClassShape shape{}; ///< the class's representative, the shape that was timed
    std::string candidate;
    int splits = 1;
    double ns = 0;
    std::string model_candidate;
    int model_splits = 1;
    double model_ns = 0;
};

struct TuneFile {
    TuneKey key;
    std::string tuned_at; ///< when, "YYYY-MM-DD HH:MM:SS UTC" (informational)
    std::vector<TuneEntry> entries;
};

/// The file as JSON text.
std::string tune_file_json(const TuneFile& file);

/// Parses a file's text. Throws std::runtime_error saying what is wrong: not JSON, another
/// format, a field missing or of the wrong type.
TuneFile parse_tune_file(std::string_view text);

// ------------------------------------------------------------------------------ location

/// The variables that place the cache (nullptr: unset).
struct CacheEnv {
    const char* tune_cache = nullptr;     ///< GEMMLAB_TUNE_CACHE
    const char* xdg_cache_home = nullptr; ///< XDG_CACHE_HOME
    const char* home = nullptr;           ///< HOME

    static CacheEnv of_process();
};

/// Where a device's cache lives.
struct CachePath {
    std::filesystem::path path; ///< empty: no cache (GEMMLAB_TUNE_CACHE=off, or nothing to place it)
    bool named = false;         ///< GEMMLAB_TUNE_CACHE named it: a missing file is worth a warning
};

/// "nvidia-h100-80gb-hbm3-132sm.json": the GPU's name lowercased, every run of other characters
/// than letters and digits one '-', then the SM count.
std::string cache_file_name(const TuneKey& key);

/// The cache of the device with `key` under `env` (see the header).
CachePath resolve_cache_path(const TuneKey& key, const CacheEnv& env);

/// Writes `text` to `path` through a temporary file in the same folder and a rename, creating
/// the folder: a reader sees the old file or the new one, never part of one. Throws
/// std::runtime_error naming the path.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// ------------------------------------------------------------------------------ loading

/// A cache resolved for one device.
struct LoadedTable {
    std::unique_ptr<TuneTable> table; ///< nullptr when nothing in it is usable
    std::string warning;              ///< the one line to print, empty when none
    int used = 0, ignored = 0;        ///< entries
};

/// Turns `file` into a table for the device with `key`: all of it ignored when the key differs,
/// bad entries one by one. At most one warning line, naming `path_text`, the first problem and
/// how many entries it cost.
LoadedTable build_tune_table(const TuneFile& file, const TuneKey& key, const std::string& path_text);

/// Reads, parses and resolves the cache at `where` for `key` (no CUDA call).
LoadedTable load_tune_table(const CachePath& where, const TuneKey& key);

/// Prints `warning` as one line on `out` if no tune-cache warning has been printed in this
/// process yet; returns whether it printed.
bool warn_once_per_process(std::string_view warning, std::FILE* out = stderr);

/// The table auto uses on `device`: loaded at the first call per device (thread-safe; later
/// calls are an atomic load), nullptr when there is none or `device` is out of range.
const TuneTable* device_tune_table(int device);

/// Makes the next device_tune_table call of every device load again (tests that change
/// GEMMLAB_TUNE_CACHE). Tables already handed out stay valid (they are never freed); not to be
/// called while other threads run gemm.
void reload_tune_tables();

} // namespace gemmlab::detail
