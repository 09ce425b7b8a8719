#include "kompute/logger/Format.hpp"

#include <cctype>
#include <optional>

namespace kp::logger {
namespace {

// The argument index a field's text ("", "2", ":x", "2:x") names, given the next automatic one;
// nullopt when the text before ':' is not a number.
std::optional<size_t> fieldIndex(std::string_view field, size_t automatic) {
    const std::string_view name = field.substr(0, field.find(':'));
    if (name.empty()) return automatic;
    size_t index = 0;
    for (char c : name) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        index = index * 10 + static_cast<size_t>(c - '0');
    }
    return index;
}

}  // namespace

std::string substitute(std::string_view pattern, const std::vector<std::string>& arguments) {
    std::string out;
    size_t automatic = 0;
    for (size_t at = 0; at < pattern.size(); ++at) {
        const char c = pattern[at];
        const bool doubled = at + 1 < pattern.size() && pattern[at + 1] == c;
        if ((c == '{' || c == '}') && doubled) {
            out += c;
            ++at;
            continue;
        }
        const size_t close = c == '{' ? pattern.find('}', at) : std::string_view::npos;
        if (close == std::string_view::npos) {
            out += c;
            continue;
        }
        const std::string_view field = pattern.substr(at + 1, close - at - 1);
        const auto index = fieldIndex(field, automatic);
        if (index && *index < arguments.size()) {
            out += arguments[*index];
        } else {
            out += pattern.substr(at, close - at + 1);  // no such argument: kept as written
        }
        if (field.empty() || field.front() == ':') ++automatic;
        at = close;
    }
    return out;
}

}  // namespace kp::logger
