// Communicator::create_from_mpi: rank 0 makes the NCCL unique id, MPI_Bcast hands it to the
// others. Built, as libgemmlab_dist_mpi, only where MPI was found.

#include <mpi.h>

#include "dist/comm.hpp"

namespace gemmlab::dist {

Status Communicator::create_from_mpi(Communicator& out, const void* mpi_comm, int device,
                                     const CommOptions& options) {
    disable_nvls_unless_set();
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        detail::set_error("MPI is not initialized: call MPI_Init before create_from_mpi");
        return Status::InvalidArgument;
    }
    MPI_Comm c = mpi_comm ? *static_cast<const MPI_Comm*>(mpi_comm) : MPI_COMM_WORLD;
    int rank = 0, size = 0;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    if (device < 0) {
        MPI_Comm host;
        MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
        int local_rank = 0;
        MPI_Comm_rank(host, &local_rank);
        MPI_Comm_free(&host);
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            cudaGetLastError();
            detail::set_error("no CUDA device is visible");
            return Status::CudaError;
        }
        device = local_rank % count;
    }
    UniqueId id{};
    int ok = 1;
    if (rank == 0) ok = get_unique_id(id) == Status::Success;
    MPI_Bcast(&ok, 1, MPI_INT, 0, c);
    if (!ok) {
        if (rank != 0) detail::set_error("rank 0 could not make the NCCL unique id");
        return Status::NcclError;
    }
    MPI_Bcast(id.bytes, int(sizeof id.bytes), MPI_BYTE, 0, c);
    return create(out, id, size, rank, device, options);
}

} // namespace gemmlab::dist
