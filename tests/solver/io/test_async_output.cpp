/// async_output.h: the background snapshot writer on its own, fed futures that the test fulfils
/// (no simulation): submission order for in_order and for a single writer, a pool that overlaps
/// writes, submit() blocking once the documented number of snapshots is held (a slow disk slows
/// the run rather than filling memory), errors of a write, of in_order and of a snapshot's copy
/// reported once, and the destructor writing what is queued.

#include "io/async_output.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace sluice;
using namespace std::chrono_literals;

namespace {

/// Snapshot number k: step k, time k/10 s, no particles.
Snapshot numbered(std::size_t k) {
    Snapshot s;
    s.step = k;
    s.time = 0.1 * double(k);
    return s;
}

std::future<Snapshot> ready(std::size_t k) {
    std::promise<Snapshot> p;
    p.set_value(numbered(k));
    return p.get_future();
}

/// Polls `done` until it holds or 10 s pass (a loaded machine is slow, never this slow).
bool eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

/// Closed until open(): writers wait at it to stand for a slow disk.
class Gate {
public:
    void wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        opened_.wait(lock, [this] { return open_; });
    }
    void open() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_ = true;
        }
        opened_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

/// The messages of the std::runtime_errors thrown by the calls made through it: an error is
/// reported by the next submit() or flush(), whichever comes first, so tests collect both.
struct Reported {
    void operator()(const std::function<void()>& call) {
        try {
            call();
        } catch (const std::runtime_error& e) {
            messages.emplace_back(e.what());
        }
    }
    std::vector<std::string> messages;
};

// ---------------------------------------------------------------------------------------------

TEST(AsyncOutput, OneWriterWritesInSubmissionOrderWithEachTicket) {
    std::vector<std::pair<std::uint64_t, std::size_t>> seen; // (step, ticket)
    BackgroundSnapshotWriter writer([&](const Snapshot& s, std::size_t ticket) {
        std::this_thread::sleep_for(1ms);
        seen.emplace_back(s.step, ticket);
    });
    EXPECT_EQ(writer.writers(), 1u);
    for (std::size_t k = 0; k < 5; ++k)
        writer.submit(ready(k), 100 + k);
    writer.flush();
    EXPECT_EQ(writer.written(), 5u);
    EXPECT_EQ(seen, (std::vector<std::pair<std::uint64_t, std::size_t>>{
                        {0, 100}, {1, 101}, {2, 102}, {3, 103}, {4, 104}}));
    EXPECT_GE(writer.write_seconds(), 5 * 0.001);
}

TEST(AsyncOutput, InOrderFollowsSubmissionWhicheverCopyFinishesFirst) {
    std::vector<std::uint64_t> ordered;
    std::mutex mutex;
    std::vector<std::size_t> written_tickets;
    BackgroundSnapshotWriter::Settings settings;
    settings.writers = 4;
    settings.max_queued = 6;
    settings.in_order = [&](const Snapshot& s) { ordered.push_back(s.step); };
    BackgroundSnapshotWriter writer(
        [&](const Snapshot& s, std::size_t ticket) {
            EXPECT_EQ(s.step, ticket); // each write gets its own snapshot and ticket
            std::lock_guard<std::mutex> lock(mutex);
            written_tickets.push_back(ticket);
        },
        settings);
    std::vector<std::promise<Snapshot>> copies(6);
    for (std::size_t k = 0; k < copies.size(); ++k)
        writer.submit(copies[k].get_future(), k); // returns with the copy still under way
    for (std::size_t k = copies.size(); k-- > 0;) // the last copy finishes first
        copies[k].set_value(numbered(k));
    writer.flush();
    EXPECT_EQ(ordered, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5}));
    std::sort(written_tickets.begin(), written_tickets.end());
    EXPECT_EQ(written_tickets, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(writer.written(), 6u);
}

TEST(AsyncOutput, PoolOverlapsWritesAndFinishesThemInAnyOrder) {
    std::mutex mutex;
    std::vector<std::size_t> finished; // tickets in the order their writes ended
    std::atomic<int> inside{0}, most_inside{0};
    BackgroundSnapshotWriter::Settings settings;
    settings.writers = 4;
    settings.max_queued = 8;
    BackgroundSnapshotWriter writer(
        [&](const Snapshot&, std::size_t ticket) {
            const int now = ++inside;
            int seen = most_inside.load();
            while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
            }
            // Early tickets take longest, so later ones overtake them.
            std::this_thread::sleep_for(std::chrono::milliseconds(40 - 4 * int(ticket)));
            --inside;
            std::lock_guard<std::mutex> lock(mutex);
            finished.push_back(ticket);
        },
        settings);
    EXPECT_EQ(writer.writers(), 4u);
    for (std::size_t k = 0; k < 8; ++k)
        writer.submit(ready(k), k);
    writer.flush();
    EXPECT_EQ(writer.written(), 8u);
    EXPECT_GT(writer.write_seconds(), 8 * 0.008); // summed over the threads
    ASSERT_EQ(finished.size(), 8u);
    EXPECT_FALSE(std::is_sorted(finished.begin(), finished.end())) << "writes ran one at a time";
    EXPECT_GE(most_inside.load(), 2);
    EXPECT_LE(most_inside.load(), 4);
}

TEST(AsyncOutput, SubmitBlocksWhileMaxQueuedCopiesAreUnfinished) {
    BackgroundSnapshotWriter::Settings settings;
    settings.max_queued = 2;
    BackgroundSnapshotWriter writer([](const Snapshot&, std::size_t) {}, settings);
    std::promise<Snapshot> first;
    std::atomic<std::size_t> submitted{0};
    std::thread run([&] {
        writer.submit(first.get_future(), 0);
        ++submitted;
        for (std::size_t k = 1; k < 5; ++k) {
            writer.submit(ready(k), k);
            ++submitted;
        }
    });
    // The collector waits for the first copy; two more wait in the queue; the fourth submit
    // waits for room.
    EXPECT_TRUE(eventually([&] { return submitted == 3; }));
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(submitted.load(), 3u);
    first.set_value(numbered(0));
    run.join();
    writer.flush();
    EXPECT_EQ(writer.written(), 5u);
}

TEST(AsyncOutput, SlowWritersBlockSubmitRatherThanHoldMoreSnapshots) {
    // Held at most: `writers` in the write function, `writers` finished and waiting for one,
    // one with the collector and `max_queued` queued, 2 + 2 + 1 + 2 = 7. The eighth submit waits.
    Gate disk;
    std::atomic<std::size_t> writes{0};
    BackgroundSnapshotWriter::Settings settings;
    settings.writers = 2;
    settings.max_queued = 2;
    BackgroundSnapshotWriter writer(
        [&](const Snapshot&, std::size_t) {
            disk.wait();
            ++writes;
        },
        settings);
    std::atomic<std::size_t> submitted{0};
    std::thread run([&] {
        for (std::size_t k = 0; k < 10; ++k) {
            writer.submit(ready(k), k);
            ++submitted;
        }
    });
    EXPECT_TRUE(eventually([&] { return submitted == 7; }));
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(submitted.load(), 7u);
    EXPECT_EQ(writes.load(), 0u);
    disk.open();
    run.join();
    writer.flush();
    EXPECT_EQ(writes.load(), 10u);
    EXPECT_EQ(writer.written(), 10u);
}

TEST(AsyncOutput, WriteErrorIsReportedOnceAndNothingIsWrittenAfterIt) {
    std::vector<std::size_t> calls;
    BackgroundSnapshotWriter writer([&](const Snapshot&, std::size_t ticket) {
        calls.push_back(ticket);
        if (ticket == 1)
            throw std::runtime_error("disk full");
    });
    Reported reported;
    for (std::size_t k = 0; k < 4; ++k)
        reported([&] { writer.submit(ready(k), k); });
    reported([&] { writer.flush(); });
    EXPECT_EQ(reported.messages, std::vector<std::string>{"disk full"}); // once
    EXPECT_NO_THROW(writer.flush());
    EXPECT_EQ(calls, (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(writer.written(), 1u);

    // Later snapshots are still taken (flush returns) but not written.
    EXPECT_NO_THROW(writer.submit(ready(4), 4));
    EXPECT_NO_THROW(writer.flush());
    EXPECT_EQ(calls.size(), 2u);
    EXPECT_EQ(writer.written(), 1u);
}

TEST(AsyncOutput, SubmitReportsAnEarlierWriteError) {
    std::atomic<int> calls{0};
    BackgroundSnapshotWriter writer([&](const Snapshot&, std::size_t) {
        ++calls;
        throw std::runtime_error("no space");
    });
    writer.submit(ready(0), 0);
    // Once the failure is recorded, the next submit throws it; the snapshots submitted before
    // that are taken without being written.
    bool thrown = false;
    for (std::size_t k = 1; k < 2000 && !thrown; ++k) {
        try {
            writer.submit(ready(k), k);
            std::this_thread::sleep_for(1ms);
        } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "no space");
            thrown = true;
        }
    }
    EXPECT_TRUE(thrown);
    EXPECT_NO_THROW(writer.flush()); // already reported by submit
    EXPECT_EQ(calls.load(), 1);
    EXPECT_EQ(writer.written(), 0u);
}

TEST(AsyncOutput, InOrderErrorStopsTheWritesAndIsReported) {
    std::promise<void> first_write_started;
    std::shared_future<void> started = first_write_started.get_future().share();
    std::vector<std::uint64_t> in_order_calls;
    std::vector<std::size_t> writes;
    BackgroundSnapshotWriter::Settings settings;
    settings.in_order = [&](const Snapshot& s) {
        in_order_calls.push_back(s.step);
        if (s.step == 1) {
            // Fail only once snapshot 0 is being written, so that it counts as written.
            EXPECT_EQ(started.wait_for(10s), std::future_status::ready);
            throw std::runtime_error("gauges.csv: write failed");
        }
    };
    BackgroundSnapshotWriter writer(
        [&](const Snapshot&, std::size_t ticket) {
            if (ticket == 0)
                first_write_started.set_value();
            writes.push_back(ticket);
        },
        settings);
    Reported reported;
    for (std::size_t k = 0; k < 4; ++k)
        reported([&] { writer.submit(ready(k), k); });
    reported([&] { writer.flush(); });
    EXPECT_EQ(reported.messages, std::vector<std::string>{"gauges.csv: write failed"});
    EXPECT_EQ(in_order_calls, (std::vector<std::uint64_t>{0, 1})); // none after the failure
    EXPECT_EQ(writes, std::vector<std::size_t>{0});
    EXPECT_EQ(writer.written(), 1u);
}

TEST(AsyncOutput, FailedCopyIsReportedAndNotWritten) {
    std::atomic<int> calls{0};
    BackgroundSnapshotWriter writer([&](const Snapshot&, std::size_t) { ++calls; });
    std::promise<Snapshot> broken;
    broken.set_exception(std::make_exception_ptr(std::runtime_error("device copy failed")));
    Reported reported;
    reported([&] { writer.submit(broken.get_future(), 0); });
    reported([&] { writer.submit(ready(1), 1); });
    reported([&] { writer.flush(); });
    EXPECT_EQ(reported.messages, std::vector<std::string>{"device copy failed"});
    EXPECT_EQ(calls.load(), 0);
    EXPECT_EQ(writer.written(), 0u);
}

TEST(AsyncOutput, DestructorWritesWhatIsQueuedAndDropsErrors) {
    std::mutex mutex;
    std::vector<std::size_t> tickets;
    {
        BackgroundSnapshotWriter::Settings settings;
        settings.writers = 2;
        settings.max_queued = 6;
        BackgroundSnapshotWriter writer(
            [&](const Snapshot&, std::size_t ticket) {
                std::this_thread::sleep_for(2ms);
                std::lock_guard<std::mutex> lock(mutex);
                tickets.push_back(ticket);
            },
            settings);
        for (std::size_t k = 0; k < 6; ++k)
            writer.submit(ready(k), k);
    } // no flush
    std::sort(tickets.begin(), tickets.end());
    EXPECT_EQ(tickets, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));

    EXPECT_NO_THROW({
        BackgroundSnapshotWriter failing(
            [](const Snapshot&, std::size_t) { throw std::runtime_error("lost"); });
        failing.submit(ready(0), 0);
    });
}

TEST(AsyncOutput, AtLeastOneWriter) {
    BackgroundSnapshotWriter::Settings settings;
    settings.writers = 0;
    settings.max_queued = 0;
    std::atomic<int> calls{0};
    BackgroundSnapshotWriter writer([&](const Snapshot&, std::size_t) { ++calls; }, settings);
    EXPECT_EQ(writer.writers(), 1u);
    writer.submit(ready(0)); // max_queued 0 is taken as 1: submit does not wait forever
    writer.submit(ready(1));
    writer.flush();
    EXPECT_EQ(calls.load(), 2);
}

TEST(AsyncOutput, DefaultWriterCountLeavesCoresForTheRun) {
    EXPECT_EQ(default_writer_count(0), 1u);
    EXPECT_EQ(default_writer_count(2), 1u);
    EXPECT_EQ(default_writer_count(3), 1u);
    EXPECT_EQ(default_writer_count(4), 2u);
    EXPECT_EQ(default_writer_count(16), 8u);
    EXPECT_EQ(default_writer_count(128), 8u);
}

} // namespace
