// MPI behind communicator.h. Messages are bytes (MPI_BYTE); counts travel first, so a receiver
// always knows how much comes.

#include "parallel/communicator.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace sluice {

namespace {

MpiSession* current_session = nullptr;

/// Started by an MPI launcher: Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMI-based ones
/// (MPICH's Hydra, Slurm's srun) PMI_SIZE, PMIx ones PMIX_RANK.
bool launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(name) != nullptr)
            return true;
    return false;
}

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS)
        throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

int as_count(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error("MPI: a message of " + std::to_string(bytes) +
                                 " bytes is over MPI's 2 GiB count limit");
    return static_cast<int>(bytes);
}

} // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
    current_session = this;
    if (!launched_by_mpi())
        return;
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    active_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
    if (active_)
        MPI_Finalize();
    current_session = nullptr;
}

void MpiSession::abort(int code) const {
    if (active_)
        MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

MpiSession* MpiSession::current() {
    return current_session;
}

std::unique_ptr<Communicator> Communicator::world() {
    const MpiSession* s = MpiSession::current();
    if (s == nullptr || !s->active() || s->size() < 2)
        return nullptr;
    return std::unique_ptr<Communicator>(new Communicator(s->rank(), s->size()));
}

void Communicator::max(double* values, int count) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce (max)");
}

void Communicator::min(double* values, int count) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD),
          "MPI_Allreduce (min)");
}

void Communicator::sum(double* values, int count) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce (sum)");
}

void Communicator::sum(std::uint64_t* values, int count) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce (sum)");
}

void Communicator::exchange_with_neighbours(const std::vector<std::byte>& to_lower,
                                            const std::vector<std::byte>& to_upper,
                                            std::vector<std::byte>& from_lower,
                                            std::vector<std::byte>& from_upper) const {
    const int lower = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
    const int upper = rank_ + 1 < size_ ? rank_ + 1 : MPI_PROC_NULL;
    if ((lower == MPI_PROC_NULL && !to_lower.empty()) ||
        (upper == MPI_PROC_NULL && !to_upper.empty()))
        throw std::logic_error("Communicator: data sent past the last slab");
    // Sizes first (tags 0/1: downward/upward), then the bytes (tags 2/3).
    std::uint64_t send_size[2] = {to_lower.size(), to_upper.size()};
    std::uint64_t recv_size[2] = {0, 0};
    MPI_Request requests[4];
    check(MPI_Irecv(&recv_size[0], 1, MPI_UINT64_T, lower, 1, MPI_COMM_WORLD, &requests[0]),
          "MPI_Irecv");
    check(MPI_Irecv(&recv_size[1], 1, MPI_UINT64_T, upper, 0, MPI_COMM_WORLD, &requests[1]),
          "MPI_Irecv");
    check(MPI_Isend(&send_size[0], 1, MPI_UINT64_T, lower, 0, MPI_COMM_WORLD, &requests[2]),
          "MPI_Isend");
    check(MPI_Isend(&send_size[1], 1, MPI_UINT64_T, upper, 1, MPI_COMM_WORLD, &requests[3]),
          "MPI_Isend");
    check(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
    from_lower.resize(recv_size[0]);
    from_upper.resize(recv_size[1]);
    check(MPI_Irecv(from_lower.data(), as_count(from_lower.size()), MPI_BYTE, lower, 3,
                    MPI_COMM_WORLD, &requests[0]),
          "MPI_Irecv");
    check(MPI_Irecv(from_upper.data(), as_count(from_upper.size()), MPI_BYTE, upper, 2,
                    MPI_COMM_WORLD, &requests[1]),
          "MPI_Irecv");
    check(MPI_Isend(to_lower.data(), as_count(to_lower.size()), MPI_BYTE, lower, 2, MPI_COMM_WORLD,
                    &requests[2]),
          "MPI_Isend");
    check(MPI_Isend(to_upper.data(), as_count(to_upper.size()), MPI_BYTE, upper, 3, MPI_COMM_WORLD,
                    &requests[3]),
          "MPI_Isend");
    check(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

std::vector<std::vector<std::byte>>
Communicator::all_gather(const std::vector<std::byte>& mine) const {
    const int my_count = as_count(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(counts.size());
    check(MPI_Allgather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Allgather");
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = as_count(total);
        total += static_cast<std::size_t>(counts[r]);
    }
    std::vector<std::byte> all(total);
    check(MPI_Allgatherv(mine.data(), my_count, MPI_BYTE, all.data(), counts.data(), offsets.data(),
                         MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    std::vector<std::vector<std::byte>> out(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r)
        out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
}

void Communicator::broadcast(std::vector<std::byte>& bytes) const {
    std::uint64_t size = bytes.size();
    check(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(size);
    check(MPI_Bcast(bytes.data(), as_count(bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD),
          "MPI_Bcast");
}

int Communicator::local_rank() const {
    MPI_Comm host;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
          "MPI_Comm_split_type");
    int local = 0;
    MPI_Comm_rank(host, &local);
    MPI_Comm_free(&host);
    return local;
}

void Communicator::barrier() const {
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void ByteReader::take(void* to, std::size_t bytes) {
    if (at_ + bytes > in_.size())
        throw std::runtime_error("ByteReader: message shorter than expected");
    std::memcpy(to, in_.data() + at_, bytes);
    at_ += bytes;
}

} // namespace sluice
