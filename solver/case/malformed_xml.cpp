#include "case/xml_reading.h"

namespace sluice::case_xml {

namespace {

/// TinyXML-2 reports a repeated attribute only as XML_ERROR_PARSING_ATTRIBUTE of element `tag`
/// at the line of the repeat. Re-lex that start tag to name the repeated attribute; returns it
/// with its line, or nullopt when the attribute error is something else (e.g. missing quotes).
std::optional<std::pair<std::string, int>>
find_repeated_attribute(const std::string& text, const std::string& tag, int line) {
    std::size_t end_of_line = 0;
    for (int l = 0; l < line && end_of_line != std::string::npos; ++l)
        end_of_line = text.find('\n', end_of_line + (l > 0));
    const std::size_t start = text.rfind("<" + tag, end_of_line);
    if (start == std::string::npos)
        return std::nullopt;
    int cur_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + start, '\n'));
    std::vector<std::string> seen;
    std::size_t p = start + 1 + tag.size();
    const auto skip_blanks = [&] {
        for (; p < text.size() && is_space(text[p]); ++p)
            cur_line += text[p] == '\n';
    };
    while (true) {
        skip_blanks();
        const std::size_t name_begin = p;
        while (p < text.size() && !is_space(text[p]) && text[p] != '=' && text[p] != '>' &&
               text[p] != '/')
            ++p;
        if (p == name_begin)
            return std::nullopt;
        std::string name = text.substr(name_begin, p - name_begin);
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
            return std::make_pair(name, cur_line);
        seen.push_back(std::move(name));
        skip_blanks();
        if (p >= text.size() || text[p] != '=')
            return std::nullopt;
        ++p;
        skip_blanks();
        if (p >= text.size() || (text[p] != '"' && text[p] != '\''))
            return std::nullopt;
        const std::size_t close = text.find(text[p], p + 1);
        if (close == std::string::npos)
            return std::nullopt;
        cur_line += static_cast<int>(std::count(text.begin() + p, text.begin() + close, '\n'));
        p = close + 1;
    }
}

} // namespace

[[noreturn]] void fail_malformed(const std::string& file, const std::string& text,
                                 const tinyxml2::XMLDocument& doc) {
    using namespace tinyxml2;
    const int line = std::max(1, doc.ErrorLineNum());
    // ErrorStr() ends in "...: XMLElement name=TAG" when an element is involved.
    const std::string detail = doc.ErrorStr();
    const std::string marker = "XMLElement name=";
    const auto at = detail.find(marker);
    const std::string tag = at == std::string::npos ? "" : detail.substr(at + marker.size());
    const std::string in_tag = tag.empty() ? "" : " in <" + tag + ">";

    std::string what;
    switch (doc.ErrorID()) {
    case XML_ERROR_EMPTY_DOCUMENT:
        throw CaseError(file, line, "the file is empty; a case file is one <sluice> element");
    case XML_ERROR_PARSING_ATTRIBUTE:
        if (const auto repeated = find_repeated_attribute(text, tag, line))
            throw CaseError(file, repeated->second,
                            "duplicate attribute '" + repeated->first + "'" + in_tag);
        what = "bad attribute" + in_tag + " (expected name=\"value\")";
        break;
    case XML_ERROR_MISMATCHED_ELEMENT:
        what = (tag.empty() ? std::string("an element") : "<" + tag + ">") +
               " is not closed, or is closed by the wrong end tag";
        break;
    case XML_ERROR_PARSING_ELEMENT:
        what = "cannot parse the element" + in_tag;
        break;
    case XML_ERROR_PARSING_TEXT:
        what = "cannot parse text (a stray '<' or '&', or text after the root element?)";
        break;
    case XML_ERROR_PARSING_COMMENT:
        what = "unterminated comment (expected -->)";
        break;
    default:
        what = std::string(doc.ErrorName()) + in_tag;
        break;
    }
    throw CaseError(file, line, "malformed XML: " + what);
}

} // namespace sluice::case_xml
