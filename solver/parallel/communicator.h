#pragma once
/// \file communicator.h
/// The processes of a run spread over several (DESIGN.md, Scale-out): one process per slab of the
/// domain, started by `mpirun -np N sluice run CASE.xml`. MPI carries the CPU backend's particle
/// data and every reduction. A run started without mpirun (or with one process) has no
/// communicator and is the single-process program.
///
/// Every member is collective unless it says otherwise: all ranks call it in the same order, from
/// the thread that created the MpiSession (MPI_THREAD_FUNNELED).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {

/// Thrown where a transport between processes cannot be had here (NCCL not loadable); the
/// backends report it as BackendUnavailable.
class TransportUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// MPI_Init_thread / MPI_Finalize for the life of main(), when the process was started by an MPI
/// launcher (Open MPI's, or a PMI one); otherwise it does nothing and MPI is never touched.
class MpiSession {
public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /// True when MPI was initialised (launched by mpirun, any number of processes).
    bool active() const { return active_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Ends every process of the job with `code` (MPI_Abort): for an error one rank saw alone,
    /// so that the others do not wait forever in a collective. No-op when not active.
    [[noreturn]] void abort(int code) const;

    /// The session of this process, or nullptr (set by the constructor).
    static MpiSession* current();

private:
    bool active_ = false;
    int rank_ = 0, size_ = 1;
};

/// The ranks of one run, neighbours along the slab axis: rank r's slab lies between r−1's and
/// r+1's.
class Communicator {
public:
    /// The world of an active MpiSession with more than one process, else nullptr.
    static std::unique_ptr<Communicator> world();

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool is_root() const { return rank_ == 0; }

    void max(double* values, int count) const;
    void min(double* values, int count) const;
    void sum(double* values, int count) const;
    void sum(std::uint64_t* values, int count) const;
    double max(double v) const {
        max(&v, 1);
        return v;
    }
    double min(double v) const {
        min(&v, 1);
        return v;
    }
    std::uint64_t sum(std::uint64_t v) const {
        sum(&v, 1);
        return v;
    }

    /// Sends `to_lower` to rank − 1 and `to_upper` to rank + 1 (nothing past the ends, whose
    /// buffers must then be empty) and receives theirs: what rank − 1 sent up lands in
    /// `from_lower`, what rank + 1 sent down in `from_upper` (resized to fit).
    void exchange_with_neighbours(const std::vector<std::byte>& to_lower,
                                  const std::vector<std::byte>& to_upper,
                                  std::vector<std::byte>& from_lower,
                                  std::vector<std::byte>& from_upper) const;

    /// The first rank's `bytes` on every rank (resized to fit).
    void broadcast(std::vector<std::byte>& bytes) const;

    /// This rank's index among the ranks of its host (which GPU of the host it takes).
    int local_rank() const;

    /// Every rank's bytes, indexed by rank, on every rank.
    std::vector<std::vector<std::byte>> all_gather(const std::vector<std::byte>& mine) const;

    void barrier() const;

private:
    Communicator(int rank, int size) : rank_(rank), size_(size) {}
    int rank_, size_;
};

/// Appends trivially-copyable values to a byte buffer and reads them back in the same order
/// (the messages between ranks).
class ByteWriter {
public:
    explicit ByteWriter(std::vector<std::byte>& out) : out_(out) {}
    template <class T>
    void put(const T& value) {
        const auto* p = reinterpret_cast<const std::byte*>(&value);
        out_.insert(out_.end(), p, p + sizeof(T));
    }

private:
    std::vector<std::byte>& out_;
};

class ByteReader {
public:
    explicit ByteReader(const std::vector<std::byte>& in) : in_(in) {}
    /// \throws std::runtime_error when the message is shorter than what is read (a bug).
    template <class T>
    T get() {
        T value;
        take(&value, sizeof(T));
        return value;
    }
    bool done() const { return at_ == in_.size(); }

private:
    void take(void* to, std::size_t bytes);
    const std::vector<std::byte>& in_;
    std::size_t at_ = 0;
};

} // namespace sluice
