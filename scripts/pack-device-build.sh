#!/usr/bin/env bash
# Packs a build made here for the GPU machine: the build tree without object files, static
# archives (which only an incremental rebuild needs) and CMake's compiler-identification scratch,
# with host symbols stripped from the executables, into build/carry, and the same compressed into
# build/carry.tgz (about a third of the size: the one to carry with the working tree). On the GPU
# machine: `rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device`
# (or, carrying the folder, `mv build/carry build/device`), then scripts/gpu-check.sh.
#   scripts/pack-device-build.sh [BUILD_DIR]   (default build/device)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/device}
rm -rf build/carry
mkdir -p build/carry
tar -C "$build" --exclude='*.o' --exclude='*.a' --exclude='consumer_work' --exclude='*.ninja_deps' \
    --exclude='.ninja_log' --exclude='CompilerId*' -cf - . | tar -C build/carry -xf -
find build/carry -type f -perm -u+x ! -name '*.so*' ! -name '*.sh' ! -name '*.py' \
    -exec sh -c 'file "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
# The project's own shared libraries too (their dynamic symbols stay): 1.7 MB off libgemmlab.so.
find build/carry -maxdepth 1 -type f -name 'libgemmlab*.so*' -exec strip --strip-unneeded {} \;
du -sh build/carry
tar -C build/carry -czf build/carry.tgz .
du -sh build/carry.tgz
