#pragma once
// kp::logger::format: the "{}" formatting of Kompute's log macros (which use fmt) without a
// dependency on fmt. Each argument is written with operator<< (bools as true/false), then put
// in place of a replacement field:
//   "{}"   the next argument;  "{N}"  argument N (from 0);
//   "{:spec}" / "{N:spec}"  the same, with the format spec ignored (no widths or precisions);
//   "{{" / "}}"  a literal brace.
// A field without an argument stays as written and extra arguments are dropped: logging never
// throws over its format string.
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace kp::logger {

/// `pattern` with its replacement fields replaced by `arguments` (already written as text).
std::string substitute(std::string_view pattern, const std::vector<std::string>& arguments);

template <typename T>
std::string toText(const T& value) {
    std::ostringstream out;
    out << std::boolalpha << value;
    return out.str();
}

template <typename... Args>
std::string format(std::string_view pattern, const Args&... arguments) {
    return substitute(pattern, {toText(arguments)...});
}

}  // namespace kp::logger
