// 2D dam break against the surge-front measurements of Koshizuka & Oka (1996) on the CPU backend;
// the check and its parameters are in dambreak_validation.h (shared with the CUDA backend's test).

#include "validation/dambreak_validation.h"

#include <gtest/gtest.h>

namespace {

TEST(DamBreak2D, FrontAgreesWithKoshizukaOka) {
    sluice::test::check_front_against_koshizuka_oka(sluice::Backend::cpu);
}

} // namespace
