#pragma once
// Kompute 0.9 passed memory objects as std::vector<std::shared_ptr<kp::Tensor>>; this API takes
// std::vector<std::shared_ptr<kp::Memory>>, which a named vector of tensors does not convert to.
// So the operations, Manager::algorithm, Algorithm::rebuild and Sequence::record / eval /
// evalAsync also take a vector of shared pointers to any Memory subclass, through templates
// enabled by IfTypedList. A braced list ({a, b}) deduces no template argument, so it keeps
// choosing the Memory overloads, without ambiguity.
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include "kompute/Memory.hpp"

namespace kp {

namespace detail {
template <typename List>
struct IsTypedList : std::false_type {};
template <typename T>
struct IsTypedList<std::vector<std::shared_ptr<T>>>
    : std::bool_constant<std::is_base_of_v<Memory, T> && !std::is_same_v<T, Memory>> {};
}  // namespace detail

/// `Result` when `List` is a std::vector of shared pointers to a subclass of Memory.
template <typename List, typename Result = int>
using IfTypedList = std::enable_if_t<detail::IsTypedList<List>::value, Result>;

/// The memory objects Sequence::record / eval / evalAsync hand to the operation they make: a
/// braced list of objects, or a std::vector of shared pointers to Memory or to a subclass, also
/// inside braces (`{ tensors }`, as Kompute 0.9 programs write it).
class MemoryObjects {
public:
    MemoryObjects(std::initializer_list<std::shared_ptr<Memory>> objects) : m_objects(objects) {}
    // Implicit, like the vector parameters it stands for.
    template <typename T, std::enable_if_t<std::is_base_of_v<Memory, T>, int> = 0>
    MemoryObjects(const std::vector<std::shared_ptr<T>>& objects)
        : m_objects(objects.begin(), objects.end()) {}
    const std::vector<std::shared_ptr<Memory>>& list() const noexcept { return m_objects; }

private:
    std::vector<std::shared_ptr<Memory>> m_objects;
};

/// The objects of a typed list, as the list of memory objects the operations hold.
template <typename T>
std::vector<std::shared_ptr<Memory>> memoryList(const std::vector<std::shared_ptr<T>>& list) {
    return {list.begin(), list.end()};
}

}  // namespace kp
