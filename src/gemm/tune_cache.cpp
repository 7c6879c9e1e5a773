// auto's tune cache: location, JSON, loading (see tune_cache.hpp).

#include "gemm/tune_cache.hpp"

#include <array>
#include <atomic>
#include <cctype>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/cuda_check.hpp"
#include "gemm/auto_select.hpp"
#include "gemm/device_caps.hpp"

#ifndef GEMMLAB_VERSION
#error "GEMMLAB_VERSION must be defined by the build (CMakeLists.txt: the project version)"
#endif

namespace gemmlab::detail {

using nlohmann::json;

// ------------------------------------------------------------------------------ the key

TuneKey device_tune_key(int device) {
    TuneKey k;
    cudaDeviceProp prop{};
    GEMMLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    k.gpu_name = prop.name;
    k.sm_count = prop.multiProcessorCount;
    const DeviceCaps caps = device_caps(device);
    k.sm_clock_mhz = caps.sm_clock_mhz;
    int memory_khz = 0;
    if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess)
        cudaGetLastError(); // not every platform reports it: 0, as in the file of such a device
    k.memory_clock_mhz = memory_khz / 1000;
    GEMMLAB_CUDA_CHECK(cudaRuntimeGetVersion(&k.cuda_runtime));
    k.gemmlab_version = GEMMLAB_VERSION;
    k.sm90a = caps.sm90a;
    return k;
}

std::string key_difference(const TuneKey& file, const TuneKey& here) {
    const auto differ = [](const char* field, const auto& a, const auto& b) {
        std::ostringstream s;
        s << std::boolalpha << field << " " << a << " in the file, " << b << " here";
        return s.str();
    };
    if (file.gpu_name != here.gpu_name) return differ("gpu", "'" + file.gpu_name + "'", "'" + here.gpu_name + "'");
    if (file.sm_count != here.sm_count) return differ("sm_count", file.sm_count, here.sm_count);
    if (file.sm_clock_mhz != here.sm_clock_mhz)
        return differ("sm_clock_mhz", file.sm_clock_mhz, here.sm_clock_mhz);
    if (file.memory_clock_mhz != here.memory_clock_mhz)
        return differ("memory_clock_mhz", file.memory_clock_mhz, here.memory_clock_mhz);
    if (file.cuda_runtime != here.cuda_runtime)
        return differ("cuda_runtime", file.cuda_runtime, here.cuda_runtime);
    if (file.gemmlab_version != here.gemmlab_version)
        return differ("gemmlab_version", file.gemmlab_version, here.gemmlab_version);
    if (file.sm90a != here.sm90a) return differ("sm90a", file.sm90a, here.sm90a);
    return {};
}

// ------------------------------------------------------------------------------ JSON

std::string tune_file_json(const TuneFile& f) {
    json entries = json::array();
    for (const TuneEntry& e : f.entries)
        entries.push_back({{"type", e.type},
                           {"m", e.shape.m},
                           {"n", e.shape.n},
                           {"k", e.shape.k},
                           {"candidate", e.candidate},
                           {"splits", e.splits},
                           {"ns", e.ns},
                           {"model_candidate", e.model_candidate},
                           {"model_splits", e.model_splits},
                           {"model_ns", e.model_ns}});
    const json j = {{"format", kTuneCacheFormat},
                    {"key",
                     {{"gpu", f.key.gpu_name},
                      {"sm_count", f.key.sm_count},
                      {"sm_clock_mhz", f.key.sm_clock_mhz},
                      {"memory_clock_mhz", f.key.memory_clock_mhz},
                      {"cuda_runtime", f.key.cuda_runtime},
                      {"gemmlab_version", f.key.gemmlab_version},
                      {"sm90a", f.key.sm90a}}},
                    {"tuned_at", f.tuned_at},
                    {"entries", std::move(entries)}};
    return j.dump(1) + "\n";
}

namespace {

/// obj[name] as T, or a runtime_error naming the field (`where` says whose).
template <class T>
T field(const json& obj, const char* name, const std::string& where) {
    const auto it = obj.find(name);
    if (it == obj.end()) throw std::runtime_error(where + " has no '" + name + "'");
    const bool ok = std::is_same_v<T, std::string> ? it->is_string()
                    : std::is_same_v<T, bool>      ? it->is_boolean()
                    : std::is_integral_v<T>        ? it->is_number_integer()
                                                   : it->is_number();
    if (!ok) throw std::runtime_error(where + "'s '" + name + "' is not " +
                                      (std::is_same_v<T, std::string> ? "a string"
                                       : std::is_same_v<T, bool>      ? "a boolean"
                                       : std::is_integral_v<T>        ? "an integer"
                                                                      : "a number"));
    return it->get<T>();
}

} // namespace

TuneFile parse_tune_file(std::string_view text) {
    const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw std::runtime_error("it is not valid JSON");
    if (!j.is_object()) throw std::runtime_error("it is not a JSON object");
    const int format = field<int>(j, "format", "the file");
    if (format != kTuneCacheFormat)
        throw std::runtime_error("its format is " + std::to_string(format) + ", this gemmlab reads " +
                                 std::to_string(kTuneCacheFormat));
    TuneFile f;
    const auto key = j.find("key");
    if (key == j.end() || !key->is_object()) throw std::runtime_error("the file has no 'key' object");
    f.key.gpu_name = field<std::string>(*key, "gpu", "the key");
    f.key.sm_count = field<int>(*key, "sm_count", "the key");
    f.key.sm_clock_mhz = field<int>(*key, "sm_clock_mhz", "the key");
    f.key.memory_clock_mhz = field<int>(*key, "memory_clock_mhz", "the key");
    f.key.cuda_runtime = field<int>(*key, "cuda_runtime", "the key");
    f.key.gemmlab_version = field<std::string>(*key, "gemmlab_version", "the key");
    f.key.sm90a = field<bool>(*key, "sm90a", "the key");
    if (const auto at = j.find("tuned_at"); at != j.end() && at->is_string()) f.tuned_at = *at;
    const auto entries = j.find("entries");
    if (entries == j.end() || !entries->is_array())
        throw std::runtime_error("the file has no 'entries' array");
    for (const json& e : *entries) {
        const std::string where = "entry " + std::to_string(f.entries.size());
        if (!e.is_object()) throw std::runtime_error(where + " is not an object");
        TuneEntry x;
        x.type = field<std::string>(e, "type", where);
        x.shape = {field<int64_t>(e, "m", where), field<int64_t>(e, "n", where),
                   field<int64_t>(e, "k", where)};
        x.candidate = field<std::string>(e, "candidate", where);
        x.splits = field<int>(e, "splits", where);
        x.ns = field<double>(e, "ns", where);
        if (e.contains("model_candidate")) {
            x.model_candidate = field<std::string>(e, "model_candidate", where);
            x.model_splits = field<int>(e, "model_splits", where);
            x.model_ns = field<double>(e, "model_ns", where);
        }
        f.entries.push_back(std::move(x));
    }
    return f;
}

// ------------------------------------------------------------------------------ location

CacheEnv CacheEnv::of_process() {
    return {std::getenv("GEMMLAB_TUNE_CACHE"), std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")};
}

std::string cache_file_name(const TuneKey& key) {
    std::string name;
    bool dash = false;
    for (unsigned char ch : key.gpu_name) {
        if (std::isalnum(ch)) {
            if (dash && !name.empty()) name += '-';
            name += char(std::tolower(ch));
            dash = false;
        } else {
            dash = true;
        }
    }
    if (name.empty()) name = "gpu";
    return name + "-" + std::to_string(key.sm_count) + "sm.json";
}

CachePath resolve_cache_path(const TuneKey& key, const CacheEnv& env) {
    const auto set = [](const char* v) { return v && *v; }; // set and not empty
    if (set(env.tune_cache)) {
        if (std::string_view(env.tune_cache) == "off") return {};
        return {env.tune_cache, true};
    }
    // The XDG specification: a relative XDG_CACHE_HOME is invalid and is ignored.
    if (set(env.xdg_cache_home) && env.xdg_cache_home[0] == '/')
        return {std::filesystem::path(env.xdg_cache_home) / "gemmlab" / cache_file_name(key), false};
    if (set(env.home))
        return {std::filesystem::path(env.home) / ".cache" / "gemmlab" / cache_file_name(key), false};
    return {};
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec)
            throw std::runtime_error("cannot create " + path.parent_path().string() + ": " + ec.message());
    }
    // Same folder, so the rename stays on one file system (atomic); the process id keeps two
    // writers apart.
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(text.data(), std::streamsize(text.size()));
        out.flush();
        if (!out) {
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string());
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot rename " + tmp.string() + " to " + path.string() + ": " +
                                 ec.message());
    }
}

// ------------------------------------------------------------------------------ loading

namespace {

const char* const kRegenerate = "run `gemmlab tune` to regenerate it";

std::string ignored_file(const std::string& path, const std::string& why) {
    return "gemmlab: ignoring tune cache " + path + ": " + why + "; auto uses its model (" +
           kRegenerate + ")";
}

} // namespace

LoadedTable build_tune_table(const TuneFile& file, const TuneKey& key, const std::string& path_text) {
    LoadedTable out;
    if (const std::string diff = key_difference(file.key, key); !diff.empty()) {
        out.warning = ignored_file(path_text, "it was tuned for another device or build (" + diff + ")");
        out.ignored = int(file.entries.size());
        return out;
    }
    auto table = std::make_unique<TuneTable>();
    std::string first_problem;
    for (const TuneEntry& e : file.entries) {
        std::string problem;
        const std::optional<TuneType> type = tune_type_named(e.type);
        const int cls = shape_class_of(e.shape.m, e.shape.n, e.shape.k);
        const ClassShape rep = representative(cls);
        if (!type) {
            problem = "unknown type '" + e.type + "'";
        } else if (rep.m != e.shape.m || rep.n != e.shape.n || rep.k != e.shape.k) {
            problem = std::to_string(e.shape.m) + "x" + std::to_string(e.shape.n) + "x" +
                      std::to_string(e.shape.k) + " is not the shape of a class";
        } else if (table->at(*type, cls).candidate >= 0) {
            problem = "a second entry for " + e.type + " " + class_name(cls);
        } else if (const ResolvedChoice r = resolve_tuned_choice(*type, e.candidate, e.splits, rep.k);
                   r.candidate < 0) {
            problem = e.type + " " + class_name(cls) + ": " + r.problem;
        } else {
            table->at(*type, cls) = {int16_t(r.candidate), uint8_t(e.splits)};
        }
        if (problem.empty()) {
            ++out.used;
        } else {
            ++out.ignored;
            if (first_problem.empty()) first_problem = problem;
        }
    }
    if (out.ignored > 0)
        out.warning = "gemmlab: tune cache " + path_text + ": ignoring " + std::to_string(out.ignored) +
                      " of " + std::to_string(file.entries.size()) + " entries (first: " +
                      first_problem + "); auto uses its model there (" + kRegenerate + ")";
    if (out.used > 0) out.table = std::move(table);
    return out;
}

LoadedTable load_tune_table(const CachePath& where, const TuneKey& key) {
    LoadedTable out;
    if (where.path.empty()) return out;
    const std::string path_text = where.path.string();
    std::ifstream in(where.path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        const bool exists = std::filesystem::exists(where.path, ec);
        if (exists) out.warning = ignored_file(path_text, "it cannot be read");
        else if (where.named)
            out.warning = ignored_file(path_text, "GEMMLAB_TUNE_CACHE names it but it does not exist");
        return out;
    }
    std::ostringstream text;
    text << in.rdbuf();
    TuneFile file;
    try {
        file = parse_tune_file(text.str());
    } catch (const std::exception& e) {
        out.warning = ignored_file(path_text, std::string("it is corrupt: ") + e.what());
        return out;
    }
    return build_tune_table(file, key, path_text);
}

bool warn_once_per_process(std::string_view warning, std::FILE* out) {
    static std::atomic<bool> warned{false};
    if (warning.empty() || warned.exchange(true)) return false;
    std::fprintf(out, "%.*s\n", int(warning.size()), warning.data());
    std::fflush(out);
    return true;
}

// ------------------------------------------------------------------------------ per device

namespace {

/// One device's table: loaded under the mutex, then read through `table` (acquire) with no
/// lock. Tables are never freed (a few KB per load), so a pointer once handed out stays valid.
struct TableSlot {
    std::mutex loading;
    std::atomic<bool> loaded{false};
    std::atomic<const TuneTable*> table{nullptr};
};
constexpr int kMaxDevices = 64;
std::array<TableSlot, kMaxDevices> g_tables;

const TuneTable* load_for_device(int device) {
    try {
        const TuneKey key = device_tune_key(device);
        LoadedTable loaded = load_tune_table(resolve_cache_path(key, CacheEnv::of_process()), key);
        warn_once_per_process(loaded.warning);
        return loaded.table.release();
    } catch (const std::exception& e) {
        // The cache only ever changes speed: a failure here leaves auto on its model.
        warn_once_per_process(std::string("gemmlab: no tune cache: ") + e.what() +
                              "; auto uses its model");
        return nullptr;
    }
}

} // namespace

const TuneTable* device_tune_table(int device) {
    if (device < 0 || device >= kMaxDevices) return nullptr;
    TableSlot& slot = g_tables[size_t(device)];
    if (slot.loaded.load(std::memory_order_acquire)) return slot.table.load(std::memory_order_acquire);
    std::lock_guard<std::mutex> lock(slot.loading);
    if (!slot.loaded.load(std::memory_order_relaxed)) {
        slot.table.store(load_for_device(device), std::memory_order_release);
        slot.loaded.store(true, std::memory_order_release);
    }
    return slot.table.load(std::memory_order_acquire);
}

void reload_tune_tables() {
    for (TableSlot& slot : g_tables) {
        std::lock_guard<std::mutex> lock(slot.loading);
        slot.loaded.store(false, std::memory_order_release);
    }
}

} // namespace gemmlab::detail
