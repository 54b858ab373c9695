// NcclComm (nccl_comm.cuh): NCCL's entry points looked up in libnccl.so.2 at first use.

// Eigen (through the case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "parallel/nccl_comm.cuh"

#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sluice::gpu {

namespace {

/// The NCCL functions sluice calls, from the library loaded once.
struct NcclApi {
    decltype(&ncclGetUniqueId) get_unique_id = nullptr;
    decltype(&ncclCommInitRank) comm_init_rank = nullptr;
    decltype(&ncclCommDestroy) comm_destroy = nullptr;
    decltype(&ncclAllReduce) all_reduce = nullptr;
    decltype(&ncclSend) send = nullptr;
    decltype(&ncclRecv) recv = nullptr;
    decltype(&ncclGroupStart) group_start = nullptr;
    decltype(&ncclGroupEnd) group_end = nullptr;
    decltype(&ncclGetErrorString) error_string = nullptr;
};

const NcclApi& nccl() {
    static const NcclApi api = [] {
        void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
        if (library == nullptr)
            throw TransportUnavailable(
                std::string("a run over several GPUs needs NCCL, and libnccl.so.2 could not be "
                            "loaded (") +
                dlerror() + "); put NCCL's library folder on LD_LIBRARY_PATH");
        NcclApi a;
        auto load = [&](auto& f, const char* name) {
            f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(library, name));
            if (f == nullptr)
                throw TransportUnavailable(std::string("libnccl.so.2 has no ") + name);
        };
        load(a.get_unique_id, "ncclGetUniqueId");
        load(a.comm_init_rank, "ncclCommInitRank");
        load(a.comm_destroy, "ncclCommDestroy");
        load(a.all_reduce, "ncclAllReduce");
        load(a.send, "ncclSend");
        load(a.recv, "ncclRecv");
        load(a.group_start, "ncclGroupStart");
        load(a.group_end, "ncclGroupEnd");
        load(a.error_string, "ncclGetErrorString");
        return a;
    }();
    return api;
}

void check(ncclResult_t r, const char* what) {
    if (r != ncclSuccess)
        throw std::runtime_error(std::string("NCCL: ") + what +
                                 " failed: " + nccl().error_string(r));
}

} // namespace

NcclComm::NcclComm(const Communicator& comm) : rank_(comm.rank()), size_(comm.size()) {
    const NcclApi& api = nccl(); // on every rank: one that cannot load it fails them all below
    ncclUniqueId id{};
    if (comm.is_root())
        check(api.get_unique_id(&id), "ncclGetUniqueId");
    std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(&id),
                                 reinterpret_cast<const std::byte*>(&id) + sizeof id);
    comm.broadcast(bytes);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<std::byte*>(&id));
    check(api.comm_init_rank(&comm_, size_, id, rank_), "ncclCommInitRank");
}

NcclComm::~NcclComm() {
    if (comm_)
        nccl().comm_destroy(comm_);
}

void NcclComm::max(std::uint32_t* d_values, int count, cudaStream_t stream) {
    check(nccl().all_reduce(d_values, d_values, static_cast<std::size_t>(count), ncclUint32,
                            ncclMax, comm_, stream),
          "ncclAllReduce (max)");
}

void NcclComm::sum(std::uint32_t* d_values, int count, cudaStream_t stream) {
    check(nccl().all_reduce(d_values, d_values, static_cast<std::size_t>(count), ncclUint32,
                            ncclSum, comm_, stream),
          "ncclAllReduce (sum)");
}

void NcclComm::sum(double* d_values, int count, cudaStream_t stream) {
    check(nccl().all_reduce(d_values, d_values, static_cast<std::size_t>(count), ncclFloat64,
                            ncclSum, comm_, stream),
          "ncclAllReduce (sum)");
}

void NcclComm::exchange(const void* to_lower, std::size_t to_lower_bytes, const void* to_upper,
                        std::size_t to_upper_bytes, void* from_lower, std::size_t from_lower_bytes,
                        void* from_upper, std::size_t from_upper_bytes, cudaStream_t stream) {
    const NcclApi& api = nccl();
    check(api.group_start(), "ncclGroupStart");
    if (rank_ > 0) {
        if (to_lower_bytes > 0)
            check(api.send(to_lower, to_lower_bytes, ncclUint8, rank_ - 1, comm_, stream),
                  "ncclSend");
        if (from_lower_bytes > 0)
            check(api.recv(from_lower, from_lower_bytes, ncclUint8, rank_ - 1, comm_, stream),
                  "ncclRecv");
    }
    if (rank_ + 1 < size_) {
        if (to_upper_bytes > 0)
            check(api.send(to_upper, to_upper_bytes, ncclUint8, rank_ + 1, comm_, stream),
                  "ncclSend");
        if (from_upper_bytes > 0)
            check(api.recv(from_upper, from_upper_bytes, ncclUint8, rank_ + 1, comm_, stream),
                  "ncclRecv");
    }
    check(api.group_end(), "ncclGroupEnd");
}

} // namespace sluice::gpu
