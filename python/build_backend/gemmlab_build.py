"""A small in-tree PEP 517 build backend for the gemmlab Python module.

`pip install --no-build-isolation .` from the source tree calls build_wheel() here, which runs
CMake on python/CMakeLists.txt and zips the package into a wheel. No setuptools or wheel package
is involved, so the build works offline with nothing but pip, CMake, a C++ compiler, the CUDA
toolkit and pybind11 (pip's or Debian's python3-pybind11 / pybind11-dev).

Environment:
  GEMMLAB_BUILD_DIR   a gemmlab build folder (e.g. build/device) whose libgemmlab.so the module
                      links; it is copied into the package. It must come from this checkout.
  GEMMLAB_PREFIX      or a `cmake --install` prefix of gemmlab (found with find_package)
                      (neither: libgemmlab.so is compiled from this source tree, with nvcc)
  CMAKE_CUDA_ARCHITECTURES, CMAKE_BUILD_PARALLEL_LEVEL   passed on to CMake
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "gemmlab"
VERSION = "0.2.0"
SUMMARY = ("gemmlab's GEMM ladder on GPU arrays (PyTorch, CuPy, JAX) through DLPack / "
           "__cuda_array_interface__")


def _tag():
    impl = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    abi = impl + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return impl, abi, plat


def _dist_info_name():
    return f"{NAME}-{VERSION}.dist-info"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\nSummary: {SUMMARY}\n"
            f"Requires-Python: >=3.9\n")


def _write_dist_info(directory: Path):
    impl, abi, plat = _tag()
    d = directory / _dist_info_name()
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(_metadata())
    (d / "WHEEL").write_text(f"Wheel-Version: 1.0\nGenerator: gemmlab_build\nRoot-Is-Purelib: false\n"
                             f"Tag: {impl}-{abi}-{plat}\n")
    return d


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(Path(metadata_directory)).name


def _cmake_build(package_dir: Path, build_dir: Path):
    args = [f"-DPython3_EXECUTABLE={sys.executable}", f"-DGEMMLAB_PYTHON_OUTPUT_DIR={package_dir}",
            "-DCMAKE_BUILD_TYPE=Release"]
    try:
        import pybind11

        args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
    except ImportError:
        pass  # pybind11-dev's CMake package (/usr/lib/cmake/pybind11) may still be found
    for var in ("GEMMLAB_BUILD_DIR", "GEMMLAB_PREFIX"):  # always set: the CMake cache outlives a build
        value = os.environ.get(var)
        args.append(f"-D{var}={Path(value).resolve() if value else ''}")
    if os.environ.get("CMAKE_CUDA_ARCHITECTURES"):
        args.append(f"-DCMAKE_CUDA_ARCHITECTURES={os.environ['CMAKE_CUDA_ARCHITECTURES']}")
    if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
        args += ["-G", "Ninja"]
    env = dict(os.environ)
    if not shutil.which("nvcc") and Path("/usr/local/cuda/bin/nvcc").exists():
        env["PATH"] = env.get("PATH", "") + os.pathsep + "/usr/local/cuda/bin"
    build_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cmake", "-S", str(ROOT / "python"), "-B", str(build_dir), *args], check=True, env=env)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    subprocess.run(["cmake", "--build", str(build_dir), "--target", "gemmlab_python", "-j", jobs],
                   check=True, env=env)


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    impl, abi, plat = _tag()
    work = ROOT / "build" / "pip" / f"{impl}-{plat}"
    package_dir = work / "package" / NAME
    if package_dir.exists():
        shutil.rmtree(package_dir)
    package_dir.mkdir(parents=True)
    _cmake_build(package_dir, work / "cmake")
    for py in sorted((ROOT / "python" / NAME).glob("*.py")):
        shutil.copy2(py, package_dir / py.name)

    wheel_name = f"{NAME}-{VERSION}-{impl}-{abi}-{plat}.whl"
    dist_info = _write_dist_info(work / "meta")
    records = []
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(package_dir.iterdir()):
            if path.is_file():
                data = path.read_bytes()
                arcname = f"{NAME}/{path.name}"
                zf.writestr(zipfile.ZipInfo.from_file(path, arcname), data, zipfile.ZIP_DEFLATED)
                records.append(_record_line(arcname, data))
        for name in ("METADATA", "WHEEL"):
            data = (dist_info / name).read_bytes()
            arcname = f"{dist_info.name}/{name}"
            zf.writestr(arcname, data)
            records.append(_record_line(arcname, data))
        records.append(f"{dist_info.name}/RECORD,,")
        zf.writestr(f"{dist_info.name}/RECORD", "\n".join(records) + "\n")
    return wheel_name
