#include "module.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace sluice {

std::string_view construction_names() {
    return "counting-sort, radix-sort";
}
std::string_view query_names() {
    return "moore, strips, chords, modular, hybrid";
}

std::string_view construction_name(Construction c) {
    return c == Construction::counting_sort ? "counting-sort" : "radix-sort";
}

std::string_view query_name(const QueryTag& q) {
    return std::visit([](auto tag) { return std::string_view(decltype(tag)::name); }, q);
}

Construction parse_construction(std::string_view text) {
    if (text == "counting-sort")
        return Construction::counting_sort;
    if (text == "radix-sort")
        return Construction::radix_sort;
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

NeighbourModule parse_neighbour_module(std::string_view text) {
    const auto first = text.find('/');
    const auto second = first == std::string_view::npos ? first : text.find('/', first + 1);
    if (second == std::string_view::npos || text.find('/', second + 1) != std::string_view::npos)
        throw std::invalid_argument("neighbour module '" + std::string(text) +
                                    "' is not CONSTRUCTION/QUERY/BINWIDTH, e.g. "
                                    "counting-sort/strips/0.5 (constructions: " +
                                    std::string(construction_names()) +
                                    "; queries: " + std::string(query_names()) + ")");
    NeighbourModule m;
    m.construction = parse_construction(text.substr(0, first));
    m.query = parse_query(text.substr(first + 1, second - first - 1));
    m.bin_width = parse_bin_width(text.substr(second + 1));
    return m;
}

std::string NeighbourModule::name() const {
    std::ostringstream out;
    out << construction_name(construction) << '/' << query_name(query) << '/' << bin_width;
    return out.str();
}

} // namespace sluice
