#pragma once
/// \file module.h
/// A neighbour module is the triple (construction, query, binWidth), spelled
/// `counting-sort/strips/0.5` on the command line and
/// `<neighbours construction="counting-sort" query="strips" binWidth="0.5"/>` in a case.

#include <string>
#include <string_view>
#include <variant>

namespace sluice {

/// How the bin order and the PBM are built.
enum class Construction {
    counting_sort, ///< atomic counting sort (thesis ch. 4; Barbieri et al. §1)
    radix_sort     ///< key/index radix sort + boundary detection (thesis ch. 2.5.2; Green 2008)
};

/// Query tags: compile-time choice of the traversal in for_each_neighbour (query.h).
struct MooreQuery {
    static constexpr const char* name = "moore"; ///< bin by bin (thesis Alg. 5/8)
};
struct StripsQuery {
    static constexpr const char* name = "strips"; ///< one range per row of bins (thesis Alg. 7/9)
};
/// Strips cut to the search sphere: each row's range covers only the bins its chord of the
/// sphere can reach, and rows the sphere misses are skipped (a square root per row). The thesis
/// (ch. 6.2, Fig. 6.3) expects skipping corner bins to cost more than it saves; this measures it.
struct ChordsQuery {
    static constexpr const char* name = "chords";
};
/// Poster 000 (Chisholm et al.): the block's bins visited in label order, label = bin
/// coordinate mod the block's span per axis, so that queries starting in neighbouring bins do
/// not all touch the same bin first.
struct ModularQuery {
    static constexpr const char* name = "modular"; ///< bin by bin, in label order on every axis
};
struct HybridQuery {
    static constexpr const char* name = "hybrid"; ///< strips along x, rows in label order
};
using QueryTag = std::variant<MooreQuery, StripsQuery, ChordsQuery, ModularQuery, HybridQuery>;

struct NeighbourModule {
    Construction construction = Construction::counting_sort;
    QueryTag query = StripsQuery{};
    float bin_width = 1.0f; ///< bin edge / search radius, in (0, 1]

    /// Canonical spelling, e.g. "counting-sort/strips/0.5".
    std::string name() const;
};

std::string_view construction_name(Construction c);
std::string_view query_name(const QueryTag& q);

/// Parsers; each throws std::invalid_argument with a message that lists the valid values.
Construction parse_construction(std::string_view text);
QueryTag parse_query(std::string_view text);
float parse_bin_width(std::string_view text);                  ///< a number in (0, 1]
NeighbourModule parse_neighbour_module(std::string_view text); ///< "C/Q/W"

/// Valid names, for messages and help texts: "counting-sort, radix-sort" and
/// "moore, strips, chords, modular, hybrid".
std::string_view construction_names();
std::string_view query_names();

} // namespace sluice
