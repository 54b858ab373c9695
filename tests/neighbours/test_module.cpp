#include "module.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>

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
        EXPECT_NE(std::string(e.what()).find("counting-sort, radix-sort"), std::string::npos);
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
          "counting-sort/strips/abc", "counting-sort/strips", "counting-sort/strips/0.5/1", ""})
        EXPECT_THROW(parse_neighbour_module(bad), std::invalid_argument) << bad;
}
