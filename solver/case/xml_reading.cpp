#include "case/xml_reading.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace sluice::case_xml {

// ---------------------------------------------------------------------------------------------
// Words.

bool is_space(char ch) {
    return std::isspace(static_cast<unsigned char>(ch)) != 0;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i]))
            ++i;
        const std::size_t begin = i;
        while (i < s.size() && !is_space(s[i]))
            ++i;
        if (i > begin)
            words.push_back(s.substr(begin, i - begin));
    }
    return words;
}

std::string join(const Names& names, const char* separator) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty())
            out += separator;
        out += n;
    }
    return out;
}

/// Levenshtein distance (insertions, deletions, substitutions), two-row dynamic programme.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

/// The valid name nearest to `word` if it is a near miss (edit distance ≤ 2).
std::optional<std::string_view> near_miss(std::string_view word, const Names& valid) {
    std::optional<std::string_view> best;
    std::size_t best_distance = 3;
    for (const auto& v : valid) {
        const std::size_t d = edit_distance(word, v);
        if (d < best_distance) {
            best = v;
            best_distance = d;
        }
    }
    return best;
}

/// "; did you mean 'X'?" for a near miss, else " (valid: a, b, c)".
std::string suggest(std::string_view word, const Names& valid) {
    if (const auto best = near_miss(word, valid))
        return "; did you mean '" + std::string(*best) + "'?";
    return " (valid: " + join(valid) + ")";
}

std::string format_number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// ---------------------------------------------------------------------------------------------
// Numbers.

std::string Range::describe() const {
    if (hi == inf)
        return (lo_closed ? ">= " : "> ") + format_number(lo);
    if (lo == -inf)
        return (hi_closed ? "<= " : "< ") + format_number(hi);
    return std::string("in ") + (lo_closed ? "[" : "(") + format_number(lo) + ", " +
           format_number(hi) + (hi_closed ? "]" : ")");
}

Range greater_than(double lo) {
    return {lo, false, inf, false};
}
Range at_least(double lo) {
    return {lo, true, inf, false};
}
Range between_open(double lo, double hi) {
    return {lo, false, hi, false};
}
Range above_up_to(double lo, double hi) {
    return {lo, false, hi, true};
}

/// Parses all of `text` (surrounding blanks allowed) as a finite number in the C locale.
/// On failure returns nullopt and says why in `why`.
std::optional<double> to_number(std::string_view text, std::string& why) {
    text = trim(text);
    if (text.empty()) {
        why = "empty, expected a number";
        return std::nullopt;
    }
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    if (*begin == '+' && end - begin > 1 && begin[1] != '-' && begin[1] != '+')
        ++begin; // from_chars refuses a leading '+', people write it
    double v = 0.0;
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc::result_out_of_range) {
        why = "out of the range of a double";
        return std::nullopt;
    }
    if (ec != std::errc() || stop == begin) {
        why = "not a number";
        return std::nullopt;
    }
    if (stop != end) {
        why = "not a number (trailing '" + std::string(stop, end) + "')";
        return std::nullopt;
    }
    if (!std::isfinite(v)) {
        why = "not a finite number";
        return std::nullopt;
    }
    return v;
}

/// Parses all of `text` as a decimal integer that fits an int.
std::optional<int> to_integer(std::string_view text, std::string& why) {
    text = trim(text);
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    if (begin != end && *begin == '+' && end - begin > 1 && begin[1] != '-')
        ++begin;
    int v = 0;
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (text.empty() || ec != std::errc() || stop != end) {
        why = ec == std::errc::result_out_of_range ? "out of the range of an integer"
                                                   : "not an integer";
        return std::nullopt;
    }
    return v;
}

} // namespace sluice::case_xml
