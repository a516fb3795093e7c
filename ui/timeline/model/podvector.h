// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline indexes' growing arrays: a std::vector of trivially copyable values whose storage
// grows and shrinks with realloc(). Capacity follows std::vector's (doubling from 1, reserve()
// and shrink_to_fit() exact), so the indexes' memory is the same; what changes is the cost of a
// change of capacity: glibc moves a large block's pages with mremap() instead of copying them
// into new pages (which every first write then faults in) and shrinks a block in place, so
// indexing a long run neither copies its arrays at each doubling nor at the end when it gives
// back their spare room (updateIndexes()).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>

namespace schedlab::ui {

template <typename T> class PodVector
{
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
        "PodVector moves its values with realloc()");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    PodVector() = default;
    PodVector(std::initializer_list<T> values)
    {
        reserve(values.size());
        for (const T& v : values)
            push_back(v);
    }
    PodVector(const PodVector& other) { *this = other; }
    PodVector(PodVector&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr))
        , m_size(std::exchange(other.m_size, 0))
        , m_capacity(std::exchange(other.m_capacity, 0))
    { }
    PodVector& operator=(const PodVector& other)
    {
        if (this != &other) {
            clear();
            reserve(other.m_size);
            if (other.m_size > 0)
                std::memcpy(static_cast<void*>(m_data), other.m_data, other.m_size * sizeof(T));
            m_size = other.m_size;
        }
        return *this;
    }
    PodVector& operator=(PodVector&& other) noexcept
    {
        if (this != &other) {
            std::free(m_data);
            m_data = std::exchange(other.m_data, nullptr);
            m_size = std::exchange(other.m_size, 0);
            m_capacity = std::exchange(other.m_capacity, 0);
        }
        return *this;
    }
    ~PodVector() { std::free(m_data); }

    size_t size() const { return m_size; }
    size_t capacity() const { return m_capacity; }
    bool empty() const { return m_size == 0; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    T* begin() { return m_data; }
    T* end() { return m_data + m_size; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }
    T& operator[](size_t i) { return m_data[i]; }
    const T& operator[](size_t i) const { return m_data[i]; }
    T& front() { return m_data[0]; }
    const T& front() const { return m_data[0]; }
    T& back() { return m_data[m_size - 1]; }
    const T& back() const { return m_data[m_size - 1]; }

    void push_back(const T& value)
    {
        if (m_size == m_capacity) [[unlikely]] {
            const T copy = value; // @p value may be one of ours
            grow();
            m_data[m_size++] = copy;
            return;
        }
        m_data[m_size++] = value;
    }
    template <typename... Args> T& emplace_back(Args&&... args)
    {
        push_back(T{std::forward<Args>(args)...});
        return back();
    }
    void clear() { m_size = 0; }
    void resize(size_t n, const T& value = T{})
    {
        if (n > m_capacity)
            reallocate(std::max(n, m_size * 2));
        for (size_t i = m_size; i < n; ++i)
            new (&m_data[i]) T(value);
        m_size = n;
    }
    void reserve(size_t n)
    {
        if (n > m_capacity)
            reallocate(n);
    }
    void shrink_to_fit()
    {
        if (m_capacity > m_size)
            reallocate(m_size);
    }

private:
    [[gnu::noinline]] void grow() { reallocate(m_capacity == 0 ? 1 : m_capacity * 2); }
    void reallocate(size_t capacity)
    {
        if (capacity == 0) {
            std::free(m_data);
            m_data = nullptr;
            m_capacity = 0;
            return;
        }
        void* p = std::realloc(static_cast<void*>(m_data), capacity * sizeof(T));
        if (!p)
            throw std::bad_alloc();
        m_data = static_cast<T*>(p);
        m_capacity = capacity;
    }

    T* m_data = nullptr;
    size_t m_size = 0;
    size_t m_capacity = 0;
};

} // namespace schedlab::ui
