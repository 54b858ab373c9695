#include "module.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

using namespace sluice;

TEST(NeighbourModule, ParsesCanonicalSpelling) {
    const NeighbourModule m = parse_neighbour_module("radix-sort/moore/0.5");
    EXPECT_EQ(m.construction, Construction::radix_sort);
    EXPECT_TRUE(std::holds_alternative<MooreQuery>(m.query));
    EXPECT_FLOAT_EQ(m.bin_width, 0.5f);
    EXPECT_EQ(m.name(), "radix-sort/moore/0.5");
    EXPECT_EQ(parse_neighbour_module("counting-sort/strips/1").name(), "counting-sort/strips/1");
}

TEST(NeighbourModule, UnknownNamesListTheValidOnes) {
    try {
        parse_neighbour_module("bucket-sort/strips/1");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("counting-sort, radix-sort, linked-list, "
                                             "linked-list-packed, linked-list-tight"),
                  std::string::npos);
    }
    try {
        parse_neighbour_module("counting-sort/spiral/1");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("moore, strips"), std::string::npos);
    }
}

TEST(NeighbourModule, RejectsBadBinWidthsAndShapes) {
    for (const char* bad :
         {"counting-sort/strips/0", "counting-sort/strips/1.5", "counting-sort/strips/-0.5",
          "counting-sort/strips/abc", "counting-sort/strips", "counting-sort/strips/0.5/1",
          "counting-sort/strips/0.5/index/x", ""})
        EXPECT_THROW(parse_neighbour_module(bad), std::invalid_argument) << bad;
}

TEST(NeighbourModule, LayoutIsAnOptionalFourthField) {
    const NeighbourModule m = parse_neighbour_module("counting-sort/hybrid/0.5/index");
    EXPECT_EQ(m.layout, Layout::index);
    EXPECT_EQ(m.name(), "counting-sort/hybrid/0.5/index");
    EXPECT_EQ(parse_neighbour_module("counting-sort/hybrid/0.5/reorder").name(),
              "counting-sort/hybrid/0.5");
    EXPECT_EQ(parse_neighbour_module("radix-sort/strips/1").layout, Layout::reorder);
    // A linked list implies index.
    const NeighbourModule list = parse_neighbour_module("linked-list/modular/1");
    EXPECT_EQ(list.construction, Construction::linked_list);
    EXPECT_EQ(list.layout, Layout::index);
    EXPECT_EQ(list.name(), "linked-list/modular/1/index");
    EXPECT_EQ(parse_neighbour_module(list.name()).name(), list.name());
}

TEST(NeighbourModule, InvalidCombinationsSayWhy) {
    try {
        parse_neighbour_module("linked-list/strips/1");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no bin order"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("moore or modular"), std::string::npos) << e.what();
    }
    for (const char* bad : {"linked-list/hybrid/0.5", "linked-list/chords/1"})
        EXPECT_THROW(parse_neighbour_module(bad), std::invalid_argument) << bad;
    try {
        parse_neighbour_module("linked-list/moore/1/reorder");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("layout is index"), std::string::npos) << e.what();
    }
    try {
        parse_neighbour_module("counting-sort/strips/1/sideways");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("reorder, index"), std::string::npos) << e.what();
    }
}

/// Barbieri et al.'s packed and tight lists: linked lists (index layout, bin-by-bin traversals);
/// the tight grid only where a box of edge R spans at most 3 bins per axis.
TEST(NeighbourModule, PackedAndTightListsAreLinkedLists) {
    for (const char* name : {"linked-list-packed", "linked-list-tight"}) {
        const NeighbourModule m = parse_neighbour_module(std::string(name) + "/moore/1");
        EXPECT_TRUE(is_linked_list(m.construction));
        EXPECT_EQ(m.layout, Layout::index);
        EXPECT_EQ(m.name(), std::string(name) + "/moore/1/index");
        EXPECT_EQ(parse_neighbour_module(m.name()).name(), m.name());
        EXPECT_EQ(parse_neighbour_module(std::string(name) + "/modular/0.5").name(),
                  std::string(name) + "/modular/0.5/index");
        for (const char* query : {"strips", "chords", "hybrid"}) {
            try {
                parse_neighbour_module(std::string(name) + "/" + query + "/1");
                FAIL() << "expected an error";
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find("moore or modular"), std::string::npos)
                    << e.what();
            }
        }
        EXPECT_THROW(parse_neighbour_module(std::string(name) + "/moore/1/reorder"),
                     std::invalid_argument);
    }
    EXPECT_NO_THROW(parse_neighbour_module("linked-list-packed/moore/0.333333"));
    try {
        parse_neighbour_module("linked-list-tight/moore/0.333333");
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("binWidth >= 0.5"), std::string::npos) << e.what();
    }
}

/// 66 modules before the packed and tight lists; each adds its two traversals at the widths it
/// takes: 6 packed (1, 0.5, 1/3), 4 tight (1, 0.5).
TEST(NeighbourModule, EveryModuleAtTheThreeStandardWidths) {
    const std::vector<NeighbourModule> modules = all_neighbour_modules();
    EXPECT_EQ(modules.size(), 76u);
    std::size_t packed = 0, tight = 0;
    for (const NeighbourModule& m : modules) {
        EXPECT_NO_THROW(validate_neighbour_module(m)) << m.name();
        packed += m.construction == Construction::linked_list_packed;
        tight += m.construction == Construction::linked_list_tight;
    }
    EXPECT_EQ(packed, 6u);
    EXPECT_EQ(tight, 4u);
}
