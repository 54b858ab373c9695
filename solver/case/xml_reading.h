#pragma once
/// \file xml_reading.h
/// The case reader's helper layer (case_reader.cpp's, nobody else's): words and near-miss
/// suggestions, numbers checked against ranges, and Element, one XML element whose attributes
/// and children are read with every error reported at its own line as CaseError.

#include "case/case_model.h"
#include "case/case_reader.h"

#include <tinyxml2.h>

#include <Eigen/Core>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::case_xml {

using tinyxml2::XMLElement;
using Names = std::vector<std::string_view>;

inline constexpr double inf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Words: splitting, joining, near-miss suggestions (xml_reading.cpp).

bool is_space(char ch);
std::string_view trim(std::string_view s);
/// The blank-separated words of `s`.
std::vector<std::string_view> split(std::string_view s);
std::string join(const Names& names, const char* separator = ", ");
/// Levenshtein distance (insertions, deletions, substitutions).
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The valid name nearest to `word` if it is a near miss (edit distance ≤ 2).
std::optional<std::string_view> near_miss(std::string_view word, const Names& valid);
/// "; did you mean 'X'?" for a near miss, else " (valid: a, b, c)".
std::string suggest(std::string_view word, const Names& valid);
std::string format_number(double v);

// ---------------------------------------------------------------------------------------------
// Numbers (xml_reading.cpp).

/// A set of allowed values: an interval whose ends may be open or closed, or infinite.
struct Range {
    double lo = -inf;
    bool lo_closed = false;
    double hi = inf;
    bool hi_closed = false;

    bool contains(double v) const {
        return (lo_closed ? v >= lo : v > lo) && (hi_closed ? v <= hi : v < hi);
    }
    std::string describe() const; ///< "> 0", "in (0, 1]", …
};

Range greater_than(double lo);
Range at_least(double lo);
Range between_open(double lo, double hi);
Range above_up_to(double lo, double hi);

/// Parses all of `text` (surrounding blanks allowed) as a finite number in the C locale.
/// On failure returns nullopt and says why in `why`.
std::optional<double> to_number(std::string_view text, std::string& why);
/// Parses all of `text` as a decimal integer that fits an int.
std::optional<int> to_integer(std::string_view text, std::string& why);

template <class T>
using Choices = std::vector<std::pair<std::string_view, T>>;

template <class T>
Names names_of(const Choices<T>& choices) {
    Names names;
    for (const auto& c : choices)
        names.push_back(c.first);
    return names;
}

/// State shared by one parse.
struct Reader {
    std::string file;
    int dimension = 3; ///< known once the root is read; points are parsed after that

    [[noreturn]] void fail(int line, const std::string& message) const {
        throw CaseError(file, line, message);
    }
    /// The axes that exist: x, z in 2D; x, y, z in 3D.
    std::vector<int> axes() const {
        return dimension == 2 ? std::vector<int>{0, 2} : std::vector<int>{0, 1, 2};
    }
};

inline const char* axis_name(int axis) {
    return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

/// One XML element being read. The constructor rejects attributes and child elements not in
/// the given lists (with a near-miss hint) and any text content. The getters read one attribute
/// each: absent gives nullopt (the caller applies the default with value_or), present but
/// malformed or out of range throws CaseError at the attribute's own line.
class Element {
public:
    Element(const Reader& reader, const XMLElement& xml, Names attributes, Names children = {})
        : r_(reader), xml_(xml), children_(std::move(children)) {
        for (auto* a = xml.FirstAttribute(); a; a = a->Next())
            if (std::find(attributes.begin(), attributes.end(), a->Name()) == attributes.end())
                r_.fail(
                    a->GetLineNum(),
                    "unknown attribute '" + std::string(a->Name()) + "' of " + tag() +
                        (attributes.empty() ? " (it takes none)" : suggest(a->Name(), attributes)));
        for (auto* n = xml.FirstChild(); n; n = n->NextSibling()) {
            if (const auto* text = n->ToText()) {
                const auto t = trim(text->Value());
                if (!t.empty())
                    r_.fail(text->GetLineNum(), "unexpected text '" + std::string(t.substr(0, 20)) +
                                                    "' in " + tag() + "; values go in attributes");
            } else if (const auto* child = n->ToElement()) {
                const std::string_view name = child->Name();
                if (std::find(children_.begin(), children_.end(), name) != children_.end())
                    continue;
                if (children_.empty())
                    r_.fail(child->GetLineNum(), "unexpected element <" + std::string(name) +
                                                     "> inside " + tag() +
                                                     ", which takes no child elements");
                r_.fail(child->GetLineNum(), "unknown element <" + std::string(name) + "> in " +
                                                 tag() + suggest(name, children_));
            }
        }
    }

    int line() const { return xml_.GetLineNum(); }
    SourceLocation where() const { return {r_.file, line()}; }
    std::string tag() const { return "<" + std::string(xml_.Name()) + ">"; }

    [[noreturn]] void fail(const std::string& message) const { r_.fail(line(), message); }

    /// Fails at the attribute's line with `<tag attr="value">: problem`.
    [[noreturn]] void fail_attribute(const char* attr, const std::string& problem) const {
        const auto* a = xml_.FindAttribute(attr);
        r_.fail(a ? a->GetLineNum() : line(), "<" + std::string(xml_.Name()) + " " + attr + "=\"" +
                                                  (a ? a->Value() : "") + "\">: " + problem);
    }

    bool has(const char* attr) const { return xml_.FindAttribute(attr) != nullptr; }

    /// Fails unless the attribute is present; `what` says what it is, for the message.
    void require(const char* attr, const char* what) const {
        if (!has(attr))
            fail(tag() + " needs the attribute '" + attr + "' (" + what + ")");
    }

    std::optional<std::string> text(const char* attr) const {
        const char* v = xml_.Attribute(attr);
        return v ? std::optional<std::string>(v) : std::nullopt;
    }

    std::optional<double> number(const char* attr, Range range = {}) const {
        return checked(attr, range, to_number);
    }

    std::optional<int> integer(const char* attr, Range range = {}) const {
        return checked(attr, range, to_integer);
    }

    /// A required point: "x z" in 2D (stored as (x, 0, z)), "x y z" in 3D.
    Eigen::Vector3d point(const char* attr) const {
        const bool two_d = r_.dimension == 2;
        require(attr, two_d ? "a point \"x z\" in m" : "a point \"x y z\" in m");
        const std::string t = *text(attr);
        const auto words = split(t);
        if (static_cast<int>(words.size()) != r_.dimension)
            fail_attribute(attr, std::string("a ") +
                                     (two_d ? "2D point has 2 components \"x z\""
                                            : "3D point has 3 components "
                                              "\"x y z\"") +
                                     ", got " + std::to_string(words.size()));
        double c[3] = {0.0, 0.0, 0.0};
        for (std::size_t k = 0; k < words.size(); ++k) {
            std::string why;
            const auto v = to_number(words[k], why);
            if (!v)
                fail_attribute(attr, "component " + std::to_string(k + 1) + " '" +
                                         std::string(words[k]) + "' is " + why);
            c[k] = *v;
        }
        return two_d ? Eigen::Vector3d(c[0], 0.0, c[1]) : Eigen::Vector3d(c[0], c[1], c[2]);
    }

    /// A required triple "a b c" whatever the case's dimension (a mesh's rotation or offset).
    Eigen::Vector3d triple(const char* attr, const char* what) const {
        require(attr, what);
        const std::string t = *text(attr);
        const auto words = split(t);
        if (words.size() != 3)
            fail_attribute(attr, std::string("needs 3 numbers (") + what + "), got " +
                                     std::to_string(words.size()));
        Eigen::Vector3d v;
        for (std::size_t k = 0; k < 3; ++k) {
            std::string why;
            const auto x = to_number(words[k], why);
            if (!x)
                fail_attribute(attr, "component " + std::to_string(k + 1) + " '" +
                                         std::string(words[k]) + "' is " + why);
            v[static_cast<int>(k)] = *x;
        }
        return v;
    }

    /// One name of `choices`; `what` names the kind for the message ("kernel").
    template <class T>
    std::optional<T> choice(const char* attr, const char* what, const Choices<T>& choices) const {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        for (const auto& [name, value] : choices)
            if (name == *t)
                return value;
        const Names names = names_of(choices);
        const auto best = near_miss(*t, names);
        fail_attribute(attr, std::string("unknown ") + what +
                                 (best ? "; did you mean '" + std::string(*best) + "'?" : "") +
                                 " (valid: " + join(names) + ")");
    }

    /// Applies a parser that throws std::invalid_argument (neighbours/module.h) to the
    /// attribute; its message becomes "file:line: message".
    template <class ParserT>
    auto parsed(const char* attr, ParserT parser) const
        -> std::optional<decltype(parser(std::string_view()))> {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        try {
            return parser(*t);
        } catch (const std::invalid_argument& e) {
            r_.fail(xml_.FindAttribute(attr)->GetLineNum(), e.what());
        }
    }

    /// The child elements called `name` (already checked to be allowed here).
    std::vector<const XMLElement*> all(const char* name) const {
        std::vector<const XMLElement*> out;
        for (auto* c = xml_.FirstChildElement(name); c; c = c->NextSiblingElement(name))
            out.push_back(c);
        return out;
    }

    /// Every child element, in document order (each already checked to be allowed here).
    std::vector<const XMLElement*> all_children() const {
        std::vector<const XMLElement*> out;
        for (auto* c = xml_.FirstChildElement(); c; c = c->NextSiblingElement())
            out.push_back(c);
        return out;
    }

    /// The child element called `name` if there is one; a second one is an error.
    const XMLElement* single(const char* name) const {
        const auto children = all(name);
        if (children.size() > 1)
            r_.fail(children[1]->GetLineNum(),
                    "second <" + std::string(name) + "> in " + tag() + " (the first is at line " +
                        std::to_string(children[0]->GetLineNum()) + "); only one is allowed");
        return children.empty() ? nullptr : children[0];
    }

private:
    /// The attribute parsed by `parse` (to_number, to_integer) and checked against `range`.
    template <class T>
    std::optional<T> checked(const char* attr, const Range& range,
                             std::optional<T> (*parse)(std::string_view, std::string&)) const {
        const auto t = text(attr);
        if (!t)
            return std::nullopt;
        std::string why;
        const auto v = parse(*t, why);
        if (!v)
            fail_attribute(attr, why);
        if (!range.contains(*v))
            fail_attribute(attr, "out of range, must be " + range.describe());
        return v;
    }

    const Reader& r_;
    const XMLElement& xml_;
    Names children_;
};

/// Throws the CaseError for a document TinyXML-2 could not parse, at the line of the error and
/// in words a case author understands (malformed_xml.cpp).
[[noreturn]] void fail_malformed(const std::string& file, const std::string& text,
                                 const tinyxml2::XMLDocument& doc);

} // namespace sluice::case_xml
