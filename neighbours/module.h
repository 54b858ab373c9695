#pragma once
/// \file module.h
/// A neighbour module is (construction, query, binWidth, layout), spelled
/// `counting-sort/strips/0.5` or `counting-sort/hybrid/0.5/index` on the command line and
/// `<neighbours construction="counting-sort" query="strips" binWidth="0.5" layout="index"/>` in a
/// case (DESIGN.md, the neighbour-search contract). The layout is optional: `reorder` unless the
/// construction implies `index` (the three linked lists).

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sluice {

/// How the bin order and the PBM are built.
enum class Construction {
    counting_sort, ///< atomic counting sort (thesis ch. 4; Barbieri et al. §1)
    radix_sort,    ///< key/index radix sort + boundary detection (thesis ch. 2.5.2; Green 2008)
    linked_list,   ///< one atomic exchange per particle into its bin's list (Barbieri et al. §2):
                   ///< no sort and no PBM; particles stay in their order (implies Layout::index)
    /// The loose list with each particle's `next` packed beside its position in one 16-byte
    /// node, so that a traversal reads one stream (Barbieri et al. §2 last paragraph, "Linked
    /// List Loose Packed" of §3). sluice's 3D position padding already carries the solver's
    /// p/ρ² and a 2D position has none, so the nodes are a copy: list_views.h.
    linked_list_packed,
    /// A tight grid (Barbieri et al. §1 "Tight Uniform Grids", "Linked List Tight" of §3): each
    /// particle is listed in every bin its box of edge R touches (2^D at binWidth 1), and a query
    /// walks only the bins its own box touches, visiting each pair once by the paper's per-axis
    /// bit test. Needs binWidth ≥ 0.5 (list_views.h).
    linked_list_tight
};

/// Every construction, in the order listings use.
inline constexpr Construction all_constructions[] = {
    Construction::counting_sort, Construction::radix_sort, Construction::linked_list,
    Construction::linked_list_packed, Construction::linked_list_tight};

/// Whether a construction builds linked lists (no sort, no PBM, layout index).
constexpr bool is_linked_list(Construction c) {
    return c == Construction::linked_list || c == Construction::linked_list_packed ||
           c == Construction::linked_list_tight;
}

/// The smallest binWidth a tight grid takes: a box of edge R then touches at most 3 bins per
/// axis (4 with float rounding), the two bits per axis of its list entries (list_views.h).
constexpr float tight_min_bin_width = 0.5f;

/// Where the particle data a query reads lives (paper 003: data replication vs indexing).
enum class Layout {
    reorder, ///< every particle array gathered into bin order after each build: queries stream
    index    ///< arrays stay in their order; queries read them through the permutation or lists
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
    Layout layout = Layout::reorder;

    /// Canonical spelling, e.g. "counting-sort/strips/0.5" or "linked-list/moore/1/index": the
    /// layout is spelled only when it is `index`.
    std::string name() const;
};

/// The layout a module has when none is spelled: `index` for a linked list (no sort, so no bin
/// order to gather into), `reorder` for every other construction. The one home of that rule:
/// the parser here and the case reader both use it.
Layout default_layout(Construction c);

/// Whether a traversal needs a PBM (it takes a row of bins as one contiguous range): strips,
/// chords and hybrid do; moore and modular walk bin by bin and also walk linked lists.
bool query_needs_pbm(const QueryTag& q);

/// Whether a module implements this combination: every one but a linked list (of any kind) with
/// a traversal that needs a PBM or with layout reorder.
bool module_exists(Construction c, const QueryTag& q, Layout layout);
/// Whether a construction takes this bin width (in (0, 1]): all but linked-list-tight below
/// tight_min_bin_width.
bool bin_width_allowed(Construction c, float bin_width);

/// Throws std::invalid_argument, saying why, for a combination !module_exists or a bin width
/// !bin_width_allowed.
void validate_neighbour_module(const NeighbourModule& m);

std::string_view construction_name(Construction c);
std::string_view query_name(const QueryTag& q);

/// Parsers; each throws std::invalid_argument with a message that lists the valid values.
Construction parse_construction(std::string_view text);
QueryTag parse_query(std::string_view text);
float parse_bin_width(std::string_view text); ///< a number in (0, 1]
Layout parse_layout(std::string_view text);
/// "C/Q/W" or "C/Q/W/L"; validated (validate_neighbour_module). Without a layout:
/// default_layout of the construction.
NeighbourModule parse_neighbour_module(std::string_view text);

std::string_view layout_name(Layout l);

/// Every module there is at the given bin widths: construction × traversal × layout (valid
/// combinations only) × width (those the construction allows), in that nesting order
/// (counting-sort first, reorder before index).
std::vector<NeighbourModule> all_neighbour_modules(const std::vector<float>& bin_widths = {
                                                       1.0f, 0.5f, 1.0f / 3.0f});

/// Valid names, for messages and help texts: "counting-sort, radix-sort, linked-list,
/// linked-list-packed, linked-list-tight",
/// "moore, strips, chords, modular, hybrid" and "reorder, index".
std::string_view construction_names();
std::string_view query_names();
std::string_view layout_names();

} // namespace sluice
