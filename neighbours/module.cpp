#include "module.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace sluice {

std::string_view construction_names() {
    return "counting-sort, radix-sort, linked-list, linked-list-packed, linked-list-tight";
}
std::string_view layout_names() {
    return "reorder, index";
}
std::string_view query_names() {
    return "moore, strips, chords, modular, hybrid";
}

std::string_view construction_name(Construction c) {
    switch (c) {
    case Construction::counting_sort:
        return "counting-sort";
    case Construction::radix_sort:
        return "radix-sort";
    case Construction::linked_list:
        return "linked-list";
    case Construction::linked_list_packed:
        return "linked-list-packed";
    case Construction::linked_list_tight:
        return "linked-list-tight";
    }
    return "?";
}

std::string_view layout_name(Layout l) {
    return l == Layout::reorder ? "reorder" : "index";
}

bool query_needs_pbm(const QueryTag& q) {
    return !std::holds_alternative<MooreQuery>(q) && !std::holds_alternative<ModularQuery>(q);
}

Layout default_layout(Construction c) {
    return is_linked_list(c) ? Layout::index : Layout::reorder;
}

bool module_exists(Construction c, const QueryTag& q, Layout layout) {
    return !is_linked_list(c) || (layout == Layout::index && !query_needs_pbm(q));
}

bool bin_width_allowed(Construction c, float bin_width) {
    return c != Construction::linked_list_tight || bin_width >= tight_min_bin_width;
}

void validate_neighbour_module(const NeighbourModule& m) {
    const std::string list(construction_name(m.construction));
    if (!module_exists(m.construction, m.query, m.layout)) {
        if (query_needs_pbm(m.query))
            throw std::invalid_argument(
                "neighbour query '" + std::string(query_name(m.query)) + "' cannot walk a " + list +
                ": it reads a row of bins as one contiguous range of the bin order, and a "
                "linked list has no bin order (use moore or modular, or the counting-sort or "
                "radix-sort construction)");
        throw std::invalid_argument(
            "a " + list +
            " keeps the particles in their order (no sort): it has no bin order to reorder "
            "into; its layout is index (leave the layout out, or write index)");
    }
    if (!bin_width_allowed(m.construction, m.bin_width)) {
        std::ostringstream w;
        w << m.bin_width;
        throw std::invalid_argument(
            "linked-list-tight needs binWidth >= 0.5 (got " + w.str() +
            "): it lists each particle in every bin its box of edge R touches, at most 3 per "
            "axis at binWidth 0.5 with two bits per axis in each list entry (use binWidth 1 "
            "or 0.5, or linked-list for smaller bins)");
    }
}

std::string_view query_name(const QueryTag& q) {
    return std::visit([](auto tag) { return std::string_view(decltype(tag)::name); }, q);
}

Construction parse_construction(std::string_view text) {
    if (text == "counting-sort")
        return Construction::counting_sort;
    if (text == "radix-sort")
        return Construction::radix_sort;
    if (text == "linked-list")
        return Construction::linked_list;
    if (text == "linked-list-packed")
        return Construction::linked_list_packed;
    if (text == "linked-list-tight")
        return Construction::linked_list_tight;
    throw std::invalid_argument("unknown neighbour construction '" + std::string(text) +
                                "' (valid: " + std::string(construction_names()) + ")");
}

QueryTag parse_query(std::string_view text) {
    if (text == MooreQuery::name)
        return MooreQuery{};
    if (text == StripsQuery::name)
        return StripsQuery{};
    if (text == ChordsQuery::name)
        return ChordsQuery{};
    if (text == ModularQuery::name)
        return ModularQuery{};
    if (text == HybridQuery::name)
        return HybridQuery{};
    throw std::invalid_argument("unknown neighbour query '" + std::string(text) +
                                "' (valid: " + std::string(query_names()) + ")");
}

float parse_bin_width(std::string_view text) {
    const std::string s(text);
    char* end = nullptr;
    errno = 0;
    const double w = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno != 0 || !(w > 0.0 && w <= 1.0))
        throw std::invalid_argument("binWidth '" + s +
                                    "' is not a number in (0, 1] (bin edge / search radius; "
                                    "1 = standard grid, 0.5 = proportional bin width)");
    return static_cast<float>(w);
}

std::vector<NeighbourModule> all_neighbour_modules(const std::vector<float>& bin_widths) {
    std::vector<NeighbourModule> modules;
    for (Construction c : all_constructions)
        for (const QueryTag& q :
             {QueryTag(StripsQuery{}), QueryTag(MooreQuery{}), QueryTag(ChordsQuery{}),
              QueryTag(ModularQuery{}), QueryTag(HybridQuery{})})
            for (Layout layout : {Layout::reorder, Layout::index})
                if (module_exists(c, q, layout))
                    for (float w : bin_widths)
                        if (bin_width_allowed(c, w))
                            modules.push_back({c, q, w, layout});
    return modules;
}

Layout parse_layout(std::string_view text) {
    if (text == "reorder")
        return Layout::reorder;
    if (text == "index")
        return Layout::index;
    throw std::invalid_argument("unknown neighbour layout '" + std::string(text) +
                                "' (valid: " + std::string(layout_names()) + ")");
}

NeighbourModule parse_neighbour_module(std::string_view text) {
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
        const std::size_t slash = text.find('/', start);
        fields.push_back(
            text.substr(start, slash == std::string_view::npos ? slash : slash - start));
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    if (fields.size() != 3 && fields.size() != 4)
        throw std::invalid_argument("neighbour module '" + std::string(text) +
                                    "' is not CONSTRUCTION/QUERY/BINWIDTH[/LAYOUT], e.g. "
                                    "counting-sort/strips/0.5 or linked-list/moore/1 "
                                    "(constructions: " +
                                    std::string(construction_names()) +
                                    "; queries: " + std::string(query_names()) +
                                    "; layouts: " + std::string(layout_names()) + ")");
    NeighbourModule m;
    m.construction = parse_construction(fields[0]);
    m.query = parse_query(fields[1]);
    m.bin_width = parse_bin_width(fields[2]);
    m.layout = fields.size() == 4 ? parse_layout(fields[3]) : default_layout(m.construction);
    validate_neighbour_module(m);
    return m;
}

std::string NeighbourModule::name() const {
    std::ostringstream out;
    out << construction_name(construction) << '/' << query_name(query) << '/' << bin_width;
    if (layout == Layout::index)
        out << "/index";
    return out.str();
}

} // namespace sluice
