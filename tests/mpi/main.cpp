// solver_mpi_tests' main: Open MPI started once for every test file
// (tests/mpi/test_decomposition*.cpp); one process reports, every process runs and checks every
// test.

#include "parallel/communicator.h"

#include <gtest/gtest.h>

using namespace sluice;

int main(int argc, char** argv) {
    MpiSession mpi(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    if (mpi.rank() != 0) // one report; every process still runs and checks every test
        delete ::testing::UnitTest::GetInstance()->listeners().Release(
            ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
    return RUN_ALL_TESTS();
}
