// 2D dam break against the surge-front measurements of Koshizuka & Oka (1996), one typed body
// over the backends (backends/backend_tags.h; the CUDA instantiation skips without a GPU); the
// check and its parameters are in dambreak_validation.h.

#include "backends/backend_tags.h"
#include "validation/dambreak_validation.h"

#include <gtest/gtest.h>

namespace {

template <class Tag>
class DamBreak2D : public sluice::test::BackendTest<Tag> {};
TYPED_TEST_SUITE(DamBreak2D, sluice::test::AllBackends, sluice::test::BackendName);

TYPED_TEST(DamBreak2D, FrontAgreesWithKoshizukaOka) {
    sluice::test::check_front_against_koshizuka_oka(TypeParam::backend);
}

/// The same front with particle shifting (physics/shifting.h): the free-surface treatment
/// must not let the surge's thin tip spread faster than the water.
TYPED_TEST(DamBreak2D, FrontWithShiftingAgreesWithKoshizukaOka) {
    sluice::test::check_front_against_koshizuka_oka(TypeParam::backend,
                                                    sluice::ShiftingKind::fickian);
}

} // namespace
