#pragma once
/// \file slot_lease.cuh
/// SlotLease: the hold of one pending result on a slot of a pool of copy slots (SnapshotPool,
/// GaugeResultPool).

#include <memory>
#include <utility>

namespace sluice::gpu {

/// One pending result of a pool of copy slots (SnapshotPool, GaugeResultPool): holds its slot
/// until taken (PoolT::take(slot) returns the result and frees the slot) or dropped
/// (PoolT::release(slot) frees it once nothing is copied into it any more). Shared between the
/// simulation and a deferred future, so either may go first.
template <class PoolT>
class SlotLease {
public:
    SlotLease(std::shared_ptr<PoolT> pool, typename PoolT::Slot& slot)
        : pool_(std::move(pool)), slot_(&slot) {}
    ~SlotLease() {
        if (slot_)
            pool_->release(*slot_);
    }
    SlotLease(const SlotLease&) = delete;
    SlotLease& operator=(const SlotLease&) = delete;

    auto take() {
        typename PoolT::Slot* slot = std::exchange(slot_, nullptr);
        return pool_->take(*slot);
    }

private:
    std::shared_ptr<PoolT> pool_;
    typename PoolT::Slot* slot_;
};

} // namespace sluice::gpu
