#pragma once
// Which memory a pointer the caller passes lives in: what gemm checks on every call before it
// launches, so that a host pointer or another device's memory is a Status naming the operand
// rather than an illegal-address fault that poisons the caller's CUDA context.
//
// The query goes straight to the driver (cuPointerGetAttributes, found once through the
// runtime: no link-time libcuda dependency) asking for the four attributes the check reads. The
// runtime's cudaPointerGetAttributes asks for more and costs more per call; `gemmlab overhead`
// times both ("part:" rows). Nothing is cached: memory is freed and its addresses reused
// behind the library's back, so an answer is good for one call only.

#include <string>

namespace gemmlab::detail {

/// Where a pointer lives, as far as a kernel on `device` is concerned.
struct PointerPlace {
    enum Kind {
        Usable,      ///< device memory of `device`, managed memory, or mapped pinned host memory
        Host,        ///< memory no kernel can dereference (pageable host memory, unknown to CUDA)
        OtherDevice, ///< device memory of another device (`owner`)
        QueryFailed, ///< the driver did not answer (the pointer is not one CUDA knows)
    };
    Kind kind = QueryFailed;
    int owner = -1; ///< the device that owns it (OtherDevice)
};

/// Classifies p for a kernel running on `device`. Clears any error the query leaves behind.
PointerPlace pointer_place(const void* p, int device);

/// Why operand `name` at p cannot be read by a kernel on `device`, or "" when it can: the
/// message of every entry point's Status::NotDevicePointer.
std::string pointer_problem(const char* name, const void* p, int device);

/// The same classification through the runtime (cudaPointerGetAttributes): the reference the
/// driver path is measured and tested against.
PointerPlace pointer_place_runtime(const void* p, int device);

} // namespace gemmlab::detail
