// auto's tune cache without a GPU: the shape classes, where the file lives (GEMMLAB_TUNE_CACHE,
// XDG_CACHE_HOME, HOME), its JSON written and read back, every way a file can be unusable
// (corrupt, stale, bad entries: ignored with exactly one warning line, the model deciding), and
// auto_choice taking a tuned entry only where the call admits it.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gemm/auto_select.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/tune_cache.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gemmlab::DataType;
using gemmlab::Precision;
using namespace gemmlab::detail;

// ------------------------------------------------------------------------------ classes

TEST(ShapeClasses, BucketEdgesAreHalfwayBetweenPowersInLogScale) {
    EXPECT_EQ(mn_bucket(1), 0);
    EXPECT_EQ(mn_bucket(90), 0);
    EXPECT_EQ(mn_bucket(91), 1);
    EXPECT_EQ(mn_bucket(128), 1);
    EXPECT_EQ(mn_bucket(181), 1);
    EXPECT_EQ(mn_bucket(182), 2);
    EXPECT_EQ(mn_bucket(1448), 4);
    EXPECT_EQ(mn_bucket(1449), 5);
    EXPECT_EQ(mn_bucket(2896), 5);
    EXPECT_EQ(mn_bucket(2897), 6);
    EXPECT_EQ(mn_bucket(int64_t(1) << 40), 6);
    EXPECT_EQ(k_bucket(1), 0);
    EXPECT_EQ(k_bucket(127), 0);
    EXPECT_EQ(k_bucket(128), 1);
    EXPECT_EQ(k_bucket(511), 1);
    EXPECT_EQ(k_bucket(512), 2);
    EXPECT_EQ(k_bucket(2047), 2);
    EXPECT_EQ(k_bucket(8191), 3);
    EXPECT_EQ(k_bucket(8192), 4);
    EXPECT_EQ(k_bucket(int64_t(1) << 40), 4);
}

TEST(ShapeClasses, EveryClassHoldsItsOwnRepresentative) {
    EXPECT_EQ(kShapeClassCount, 245);
    for (int c = 0; c < kShapeClassCount; ++c) {
        const ClassShape s = representative(c);
        EXPECT_EQ(shape_class_of(s.m, s.n, s.k), c) << class_name(c);
    }
    EXPECT_EQ(class_name(shape_class_of(1000, 300, 5000)), "m1024 n256 k4096");
    EXPECT_EQ(class_name(shape_class_of(1, 1, 1)), "m64 n64 k64");
    EXPECT_EQ(class_name(shape_class_of(100000, 9000, 100000)), "m4096 n4096 k16384");
}

TEST(ShapeClasses, TypeKeysFollowTheCallsTypesAndPrecision) {
    EXPECT_EQ(tune_type_of(DataType::F32, DataType::F32, Precision::Default), TuneType::F32);
    EXPECT_EQ(tune_type_of(DataType::F32, DataType::F32, Precision::Tf32), TuneType::F32Tf32);
    EXPECT_EQ(tune_type_of(DataType::F64, DataType::F64, Precision::Tf32), TuneType::F64);
    EXPECT_EQ(tune_type_of(DataType::BF16, DataType::F32, Precision::Default), TuneType::BF16F32);
    EXPECT_EQ(tune_type_of(DataType::F16, DataType::F16, Precision::Default), TuneType::F16);
    for (TuneType t : kAllTuneTypes) {
        EXPECT_EQ(tune_type_named(to_string(t)), t);
        EXPECT_EQ(tune_type_of(input_type(t), output_type(t), precision_of(t)), t);
    }
    EXPECT_FALSE(tune_type_named("f8").has_value());
}

// ------------------------------------------------------------------------------ location

TuneKey h100_key() {
    TuneKey k;
    k.gpu_name = "NVIDIA H100 80GB HBM3";
    k.sm_count = 132;
    k.sm_clock_mhz = 1980;
    k.memory_clock_mhz = 2619;
    k.cuda_runtime = 13000;
    k.gemmlab_version = "0.1.0";
    k.sm90a = true;
    return k;
}

TEST(TuneCachePath, FileNameIsTheSanitizedGpuNameAndSmCount) {
    EXPECT_EQ(cache_file_name(h100_key()), "nvidia-h100-80gb-hbm3-132sm.json");
    TuneKey odd = h100_key();
    odd.gpu_name = "  GeForce RTX/4090 (laptop)! ";
    odd.sm_count = 76;
    EXPECT_EQ(cache_file_name(odd), "geforce-rtx-4090-laptop-76sm.json");
    odd.gpu_name = "../..";
    EXPECT_EQ(cache_file_name(odd), "gpu-76sm.json");
}

TEST(TuneCachePath, VariableThenXdgThenHome) {
    const TuneKey key = h100_key();
    const std::string name = cache_file_name(key);
    // GEMMLAB_TUNE_CACHE names the file itself, whatever else is set.
    CachePath p = resolve_cache_path(key, {"/tmp/my.json", "/xdg", "/home/u"});
    EXPECT_EQ(p.path, fs::path("/tmp/my.json"));
    EXPECT_TRUE(p.named);
    p = resolve_cache_path(key, {"off", "/xdg", "/home/u"});
    EXPECT_TRUE(p.path.empty());
    // Unset or empty: XDG_CACHE_HOME when absolute.
    for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
        p = resolve_cache_path(key, {unset, "/xdg", "/home/u"});
        EXPECT_EQ(p.path, fs::path("/xdg/gemmlab") / name);
        EXPECT_FALSE(p.named);
    }
    // A relative XDG_CACHE_HOME is invalid (XDG base-directory specification): HOME then.
    for (const char* xdg : {static_cast<const char*>(nullptr), "", "relative/cache"}) {
        p = resolve_cache_path(key, {nullptr, xdg, "/home/u"});
        EXPECT_EQ(p.path, fs::path("/home/u/.cache/gemmlab") / name) << (xdg ? xdg : "unset");
    }
    EXPECT_TRUE(resolve_cache_path(key, {nullptr, nullptr, nullptr}).path.empty());
    EXPECT_TRUE(resolve_cache_path(key, {"", "", ""}).path.empty());
}

// ------------------------------------------------------------------------------ files

using gemmlab::test::TempDir;

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

TuneEntry entry(TuneType t, int64_t m, int64_t n, int64_t k, const char* candidate, int splits = 1) {
    TuneEntry e;
    e.type = to_string(t);
    e.shape = {m, n, k};
    e.candidate = candidate;
    e.splits = splits;
    e.ns = 1000;
    e.model_candidate = candidate;
    e.model_splits = splits;
    e.model_ns = 1000;
    return e;
}

TuneFile good_file() {
    TuneFile f;
    f.key = h100_key();
    f.tuned_at = "2026-12-01 10:00:00 UTC";
    f.entries = {entry(TuneType::F32, 1024, 1024, 1024, "warp_tile 64x64x8"),
                 entry(TuneType::BF16, 512, 512, 16384, "persistent 128x256x64 ws", 8),
                 entry(TuneType::F64, 64, 64, 64, "warp_tile 64x64x8"),
                 entry(TuneType::F32Tf32, 4096, 4096, 4096, "tf32 128x256x32 w64x64 s3")};
    return f;
}

int line_count(const std::string& s) {
    int lines = s.empty() ? 0 : 1;
    for (char c : s) lines += c == '\n';
    return lines;
}

TEST(TuneCacheFile, RoundTripThroughAnAtomicWrite) {
    TempDir dir;
    const fs::path path = dir.path() / "sub" / "dir" / "cache.json";
    const TuneFile f = good_file();
    write_file_atomically(path, tune_file_json(f));
    ASSERT_TRUE(fs::exists(path));
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(path.parent_path())) files += e.is_regular_file();
    EXPECT_EQ(files, 1u) << "the temporary file must be gone";

    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const TuneFile back = parse_tune_file(text);
    EXPECT_EQ(back.key, f.key);
    EXPECT_EQ(back.tuned_at, f.tuned_at);
    ASSERT_EQ(back.entries.size(), f.entries.size());
    EXPECT_EQ(back.entries[1].candidate, "persistent 128x256x64 ws");
    EXPECT_EQ(back.entries[1].splits, 8);
    EXPECT_EQ(back.entries[1].shape.k, 16384);

    const LoadedTable t = load_tune_table({path, true}, h100_key());
    EXPECT_EQ(t.warning, "");
    ASSERT_TRUE(t.table);
    EXPECT_EQ(t.used, 4);
    EXPECT_EQ(t.table->filled(), 4);
    const TunedChoice bf16 = t.table->at(TuneType::BF16, shape_class_of(512, 512, 16384));
    EXPECT_EQ(bf16.candidate, find_candidate(TuneType::BF16, "persistent 128x256x64 ws"));
    EXPECT_EQ(bf16.splits, 8);
    EXPECT_EQ(t.table->at(TuneType::F32, shape_class_of(1024, 1024, 1024)).candidate,
              find_candidate(TuneType::F32, "warp_tile 64x64x8"));

    // Written again: replaced whole.
    TuneFile smaller = f;
    smaller.entries.resize(1);
    write_file_atomically(path, tune_file_json(smaller));
    EXPECT_EQ(load_tune_table({path, true}, h100_key()).used, 1);
}

TEST(TuneCacheFile, AnUnwritablePlaceIsAClearError) {
    TempDir dir;
    write_text(dir.path() / "plain", "a file, not a folder");
    try {
        write_file_atomically(dir.path() / "plain" / "cache.json", "{}");
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("plain"), std::string::npos) << e.what();
    }
}

TEST(TuneCacheFile, MissingFileIsSilentUnlessTheVariableNamesIt) {
    TempDir dir;
    const fs::path path = dir.path() / "none.json";
    EXPECT_EQ(load_tune_table({path, false}, h100_key()).warning, "");
    const LoadedTable named = load_tune_table({path, true}, h100_key());
    EXPECT_FALSE(named.table);
    EXPECT_NE(named.warning.find("does not exist"), std::string::npos) << named.warning;
    EXPECT_NE(named.warning.find(path.string()), std::string::npos) << named.warning;
    EXPECT_EQ(load_tune_table({}, h100_key()).warning, "");
}

/// Loads `text` as a cache file and expects it ignored whole, with one warning line that names
/// the file, `why`, and how to regenerate it.
void expect_ignored(const std::string& text, const std::string& why) {
    TempDir dir;
    const fs::path path = dir.path() / "cache.json";
    write_text(path, text);
    const LoadedTable t = load_tune_table({path, false}, h100_key());
    EXPECT_FALSE(t.table) << text;
    EXPECT_EQ(line_count(t.warning), 1) << t.warning;
    EXPECT_NE(t.warning.find(path.string()), std::string::npos) << t.warning;
    EXPECT_NE(t.warning.find(why), std::string::npos) << t.warning;
    EXPECT_NE(t.warning.find("gemmlab tune"), std::string::npos) << t.warning;
}

TEST(TuneCacheFile, CorruptFilesAreIgnoredWithOneWarning) {
    const std::string good = tune_file_json(good_file());
    expect_ignored("{not json", "not valid JSON");
    expect_ignored(good.substr(0, good.size() / 2), "not valid JSON"); // cut short
    expect_ignored("", "not valid JSON");
    expect_ignored("[1, 2]", "not a JSON object");
    expect_ignored(R"({"format": 2})", "format is 2");
    expect_ignored(R"({"format": 1, "entries": []})", "no 'key'");
    std::string no_gpu = good;
    no_gpu.replace(no_gpu.find("\"gpu\""), 5, "\"gpx\"");
    expect_ignored(no_gpu, "has no 'gpu'");
    std::string bad_type = good;
    bad_type.replace(bad_type.find("\"splits\": 1"), 11, "\"splits\": \"1\"");
    expect_ignored(bad_type, "'splits' is not an integer");
}

TEST(TuneCacheFile, AStaleKeyIgnoresTheWholeFile) {
    TuneFile f = good_file();
    f.key.sm_clock_mhz = 1755;
    expect_ignored(tune_file_json(f), "sm_clock_mhz 1755 in the file, 1980 here");
    f = good_file();
    f.key.gemmlab_version = "0.0.9";
    expect_ignored(tune_file_json(f), "gemmlab_version 0.0.9 in the file, 0.1.0 here");
    f = good_file();
    f.key.gpu_name = "NVIDIA H200";
    expect_ignored(tune_file_json(f), "another device or build");
}

TEST(TuneCacheFile, BadEntriesAreIgnoredOneByOneWithOneWarning) {
    TuneFile f = good_file();
    f.entries.push_back(entry(TuneType::F32, 64, 64, 256, "no such candidate"));
    f.entries.push_back(entry(TuneType::BF16, 64, 128, 256, "tma 128x128x64", 2));         // no split-K
    f.entries.push_back(entry(TuneType::BF16, 64, 128, 4096, "persistent 128x256x64 ws", 3)); // not a power
    f.entries.push_back(entry(TuneType::BF16, 64, 128, 1024, "persistent 128x256x64 ws", 32));
    f.entries.push_back(entry(TuneType::F32, 128, 64, 4096, "tf32 128x256x32 w64x64 s3")); // TF32 under f32
    f.entries.push_back(entry(TuneType::F32, 1000, 1024, 1024, "warp_tile 64x64x8")); // not a class shape
    f.entries.push_back(entry(TuneType::F32, 1024, 1024, 1024, "warp_tile 128x64x8")); // second entry
    TuneEntry unknown_type = entry(TuneType::F32, 64, 64, 64, "warp_tile 64x64x8");
    unknown_type.type = "f8";
    f.entries.push_back(unknown_type);

    const LoadedTable t = build_tune_table(f, h100_key(), "/some/cache.json");
    ASSERT_TRUE(t.table);
    EXPECT_EQ(t.used, 4);
    EXPECT_EQ(t.ignored, 8);
    EXPECT_EQ(t.table->filled(), 4);
    EXPECT_EQ(line_count(t.warning), 1) << t.warning;
    EXPECT_NE(t.warning.find("ignoring 8 of 12 entries"), std::string::npos) << t.warning;
    EXPECT_NE(t.warning.find("unknown candidate 'no such candidate'"), std::string::npos) << t.warning;
    EXPECT_NE(t.warning.find("/some/cache.json"), std::string::npos) << t.warning;
    // The first entry of the slot stays.
    EXPECT_EQ(t.table->at(TuneType::F32, shape_class_of(1024, 1024, 1024)).candidate,
              find_candidate(TuneType::F32, "warp_tile 64x64x8"));

    // Each reason on its own.
    struct Bad {
        TuneEntry e;
        const char* why;
    };
    const Bad bad[] = {{f.entries[5], "does not split k"},
                       {f.entries[6], "not 1, 2, 4, 8 or 16"},
                       {f.entries[7], "not 1, 2, 4, 8 or 16"},
                       {f.entries[8], "f32 calls never run"},
                       {f.entries[9], "not the shape of a class"},
                       {unknown_type, "unknown type 'f8'"}};
    for (const Bad& b : bad) {
        TuneFile one;
        one.key = h100_key();
        one.entries = {b.e};
        const LoadedTable r = build_tune_table(one, h100_key(), "x.json");
        EXPECT_FALSE(r.table) << b.why;
        EXPECT_NE(r.warning.find(b.why), std::string::npos) << r.warning;
    }
}

TEST(TuneCacheFile, OneWarningLinePerProcess) {
    std::FILE* out = std::tmpfile();
    ASSERT_TRUE(out);
    EXPECT_FALSE(warn_once_per_process("", out)); // nothing to say uses up nothing
    EXPECT_TRUE(warn_once_per_process("gemmlab: first", out));
    EXPECT_FALSE(warn_once_per_process("gemmlab: second", out));
    std::rewind(out);
    char buf[256] = {};
    const size_t n = std::fread(buf, 1, sizeof buf - 1, out);
    std::fclose(out);
    EXPECT_EQ(std::string(buf, n), "gemmlab: first\n");
}

// ------------------------------------------------------------------------------ auto and the table

using gemmlab::test::h100_caps;

Problem call(DataType t, int64_t m, int64_t n, int64_t k, Precision precision = Precision::Default,
             int64_t batches = 1) {
    Problem p{};
    p.type = p.c_type = t;
    p.precision = precision;
    p.m = m, p.n = n, p.k = k;
    p.alpha = 1;
    p.batch.count = batches;
    return p;
}

void set(TuneTable& table, TuneType t, int64_t m, int64_t n, int64_t k, const char* name, int splits = 1) {
    const int index = find_candidate(t, name);
    ASSERT_GE(index, 0) << name;
    table.at(t, shape_class_of(m, n, k)) = {int16_t(index), uint8_t(splits)};
}

TEST(AutoWithTable, TakesTheTunedCandidateAcrossTheClass) {
    TuneTable table;
    set(table, TuneType::F32, 1024, 1024, 1024, "warp_tile 64x64x8");
    for (const Problem& p : {call(DataType::F32, 1024, 1024, 1024), call(DataType::F32, 800, 1400, 600)}) {
        const AutoChoice c = auto_choice(p, h100_caps(), &table);
        EXPECT_EQ(c.candidate, "warp_tile 64x64x8");
        EXPECT_TRUE(c.tuned);
    }
    // Another class, a batch, another precision: the model.
    EXPECT_FALSE(auto_choice(call(DataType::F32, 4096, 1024, 1024), h100_caps(), &table).tuned);
    EXPECT_FALSE(auto_choice(call(DataType::F32, 1024, 1024, 1024, Precision::Default, 8), h100_caps(), &table).tuned);
    EXPECT_FALSE(auto_choice(call(DataType::F32, 1024, 1024, 1024, Precision::Tf32), h100_caps(), &table).tuned);
    EXPECT_EQ(auto_choice(call(DataType::F32, 1024, 1024, 1024), h100_caps(), nullptr).candidate,
              "wgmma_tf32x3 128x128x32 s3 persistent");
}

// The class of k = 64 spans k = 1..127, across 3xTF32's limit (40): a 3xTF32 entry measured at
// k = 64 serves k >= 40 only. A TF32 candidate placed in an f32 slot (the loader refuses one;
// a table built by hand is not checked) never runs at the default precision.
TEST(AutoWithTable, NeverLowersPrecision) {
    TuneTable table;
    set(table, TuneType::F32, 64, 64, 64, "tf32x3 64x64x32 w32x32 s4");
    EXPECT_EQ(auto_choice(call(DataType::F32, 64, 64, 64), h100_caps(), &table).candidate,
              "tf32x3 64x64x32 w32x32 s4");
    const AutoChoice small_k = auto_choice(call(DataType::F32, 64, 64, 20), h100_caps(), &table);
    EXPECT_FALSE(small_k.tuned);
    EXPECT_EQ(std::string_view(small_k.candidate).find("tf32"), std::string_view::npos) << small_k.candidate;

    // Float's two type keys share one list, so a TF32 index is a float index.
    table.at(TuneType::F32, shape_class_of(4096, 4096, 4096)) = {
        int16_t(find_candidate(TuneType::F32Tf32, "tf32 128x256x32 w64x64 s3")), 1};
    const AutoChoice c = auto_choice(call(DataType::F32, 4096, 4096, 4096), h100_caps(), &table);
    EXPECT_FALSE(c.tuned);
    EXPECT_EQ(std::string_view(c.candidate).find("tf32 "), std::string_view::npos) << c.candidate;
}

// Rung 31 is a tunable option of double products its accuracy rule admits (k >= 4096, one
// product, sm_90a, the workspace within what the pool keeps); a table's pick of it serves only
// such calls of its class, and the loader refuses it elsewhere.
TEST(AutoWithTable, Rung31IsTunedWhereItsAccuracyRuleAdmitsIt) {
    const gemmlab::detail::DeviceCaps caps = h100_caps();
    gemmlab::detail::DeviceCaps unknown_memory = caps;
    unknown_memory.memory_bytes = 0;
    const auto has_emulation = [&](const Problem& p) {
        for (const AutoOption& o : auto_options(p, caps))
            if (o.name == "int8_emulation") return o.candidate == kTunedEmulation && o.splits == 1 && o.model_ns > 0;
        return false;
    };
    EXPECT_TRUE(has_emulation(call(DataType::F64, 4096, 4096, 4096)));
    EXPECT_FALSE(has_emulation(call(DataType::F64, 4096, 4096, 1024)));
    EXPECT_FALSE(has_emulation(call(DataType::F64, 4096, 4096, 4096, Precision::Default, 2)));
    EXPECT_FALSE(has_emulation(call(DataType::F32, 4096, 4096, 4096)));

    TuneTable table;
    table.at(TuneType::F64, shape_class_of(2048, 2048, 4096)) = {kTunedEmulation, 1};
    const AutoChoice tuned = auto_choice(call(DataType::F64, 2048, 2048, 4096), caps, &table);
    EXPECT_EQ(tuned.candidate, "int8_emulation");
    EXPECT_TRUE(tuned.tuned);
    // The class spans k = 2048..8191: below 4096 the model decides.
    EXPECT_NE(auto_choice(call(DataType::F64, 2048, 2048, 3000), caps, &table).candidate, "int8_emulation");
    EXPECT_NE(auto_choice(call(DataType::F64, 2048, 2048, 4096), unknown_memory, &table).candidate,
              "int8_emulation") << "no memory size known: no workspace to promise";
    EXPECT_NE(auto_choice(call(DataType::F64, 2048, 2048, 4096), caps, nullptr).candidate, "int8_emulation");

    EXPECT_EQ(resolve_tuned_choice(TuneType::F64, "int8_emulation", 1, 4096).candidate, kTunedEmulation);
    EXPECT_EQ(resolve_tuned_choice(TuneType::F64, "int8_emulation", 1, 1024).candidate, -1);
    EXPECT_EQ(resolve_tuned_choice(TuneType::F64, "int8_emulation", 2, 4096).candidate, -1);
    EXPECT_EQ(resolve_tuned_choice(TuneType::F32, "int8_emulation", 1, 4096).candidate, -1);
}

// Slices are halved until each has kMinSplitK of the call's k.
TEST(AutoWithTable, SplitsRespectTheCallsK) {
    TuneTable table;
    set(table, TuneType::BF16, 512, 512, 4096, "persistent 128x256x64 ws", 16);
    const auto splits_at = [&](int64_t k) {
        const AutoChoice c = auto_choice(call(DataType::BF16, 512, 512, k), h100_caps(), &table);
        EXPECT_TRUE(c.tuned) << k;
        return c.splits;
    };
    EXPECT_EQ(splits_at(4096), 16);
    EXPECT_EQ(splits_at(8191), 16);
    EXPECT_EQ(splits_at(3000), 8);
    EXPECT_EQ(splits_at(4095), 8);
    EXPECT_EQ(splits_at(2048), 8); // the class's smallest k
    for (int64_t k : {2048, 3000, 4095, 4096, 8191})
        EXPECT_GE(k / splits_at(k), kMinSplitK) << k;
}

// A tuned candidate the device cannot run (sm_90a code elsewhere) falls back to the model.
TEST(AutoWithTable, ACandidateTheDeviceCannotRunFallsBackToTheModel) {
    TuneTable table;
    set(table, TuneType::BF16, 4096, 4096, 4096, "persistent 128x256x64 ws");
    DeviceCaps older = h100_caps();
    older.cc_major = 8;
    older.sm90a = false;
    const AutoChoice c = auto_choice(call(DataType::BF16, 4096, 4096, 4096), older, &table);
    EXPECT_FALSE(c.tuned);
    EXPECT_EQ(c.candidate, "mma_sync_f16 128x128x32 s4");
}

} // namespace
