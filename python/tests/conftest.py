"""Shared pieces of the gemmlab Python tests.

FakeCudaArray speaks __cuda_array_interface__ over a made-up pointer: enough to drive every
argument check of gemmlab.gemm on a machine without a GPU (the checks run before any CUDA call;
the pointer is never dereferenced)."""

import pytest

try:
    # PyTorch first where it is installed: its CUDA libraries (libcudart/libcublas.so.13, the
    # same sonames libgemmlab.so needs) are then the ones loaded, as in a user's program.
    import torch  # noqa: F401
except ImportError:
    pass


class FakeCudaArray:
    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x7F0000000000, readonly=False,
                 version=3, stream=None):
        self.shape = tuple(shape)
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": typestr, "data": (ptr, readonly), "version": version,
            "strides": None if strides is None else tuple(strides),
        }
        if version >= 3:
            self.__cuda_array_interface__["stream"] = stream


def itemsize(typestr):
    return int(typestr[2:])


def strided(shape, element_strides, typestr="<f4", **kw):
    """A FakeCudaArray with strides given in elements."""
    return FakeCudaArray(shape, typestr, tuple(s * itemsize(typestr) for s in element_strides), **kw)


@pytest.fixture
def fake():
    return FakeCudaArray
