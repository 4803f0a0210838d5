#pragma once
// A vector of trivially copyable elements whose first N are stored in the object itself. The exploration's per-node
// lists (en(C), the clue A, the events a node added to D, the steps taken at once) mostly hold a handful of events,
// and on a small exploration each node's first growth of each std::vector was an allocation and a free: about a
// fifth of the qpor-only allocations of semaphore_buffer.c (bench/README.md, thirty-fifth session).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>

namespace skein::explore::unfolding {

template <class T, uint32_t N> class SmallVector {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "SmallVector copies its elements as bytes");
    static_assert(N > 0);

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;
    using size_type = size_t;

    SmallVector() = default;
    SmallVector(std::initializer_list<T> xs) { assign(xs.begin(), xs.end()); }
    SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
    SmallVector(SmallVector&& o) noexcept { take(o); }
    SmallVector& operator=(const SmallVector& o) {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    SmallVector& operator=(SmallVector&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~SmallVector() { release(); }

    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return size_; }
    size_t capacity() const { return cap_; }
    bool empty() const { return size_ == 0; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    T& front() { return data_[0]; }
    const T& front() const { return data_[0]; }
    T& back() { return data_[size_ - 1]; }
    const T& back() const { return data_[size_ - 1]; }
    operator std::span<const T>() const { return {data_, size_}; }

    void push_back(const T& x) {
        if (size_ == cap_) [[unlikely]] {
            const T copy = x; // x may live in this vector
            grow(size_ + 1);
            data_[size_++] = copy;
            return;
        }
        data_[size_++] = x;
    }
    template <class... A> T& emplace_back(A&&... a) {
        push_back(T(std::forward<A>(a)...));
        return back();
    }
    void pop_back() { --size_; }
    void clear() { size_ = 0; }
    void reserve(size_t n) {
        if (n > cap_) grow(n);
    }
    void resize(size_t n, const T& fill = T()) {
        reserve(n);
        for (size_t i = size_; i < n; ++i) data_[i] = fill;
        size_ = uint32_t(n);
    }
    void assign(size_t n, const T& fill) {
        clear();
        resize(n, fill);
    }
    template <class It> void assign(It first, It last) {
        const size_t n = size_t(std::distance(first, last));
        reserve(n);
        if (n == 1) data_[0] = *first; // the common case, without a call to memmove
        else std::copy(first, last, data_);
        size_ = uint32_t(n);
    }
    template <class It> T* insert(T* pos, It first, It last) {
        const size_t at = size_t(pos - data_), n = size_t(std::distance(first, last));
        reserve(size_ + n);
        std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(T));
        std::copy(first, last, data_ + at);
        size_ += uint32_t(n);
        return data_ + at;
    }
    T* erase(T* first, T* last) {
        std::memmove(first, last, size_t(end() - last) * sizeof(T));
        size_ -= uint32_t(last - first);
        return first;
    }
    T* erase(T* pos) { return erase(pos, pos + 1); }

    friend bool operator==(const SmallVector& a, const SmallVector& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    bool inPlace() const { return data_ == inline_; }
    void grow(size_t atLeast) {
        const size_t cap = std::max<size_t>(atLeast, 2 * size_t(cap_));
        T* bigger = std::allocator<T>().allocate(cap);
        std::memcpy(bigger, data_, size_ * sizeof(T));
        release();
        data_ = bigger, cap_ = uint32_t(cap);
    }
    void release() {
        if (!inPlace()) std::allocator<T>().deallocate(data_, cap_);
        data_ = inline_, cap_ = N;
    }
    void take(SmallVector& o) { // this is empty and in place
        if (o.inPlace()) {
            std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
        } else {
            data_ = o.data_, cap_ = o.cap_;
            o.data_ = o.inline_, o.cap_ = N;
        }
        size_ = o.size_;
        o.size_ = 0;
    }

    T* data_ = inline_;
    uint32_t size_ = 0, cap_ = N;
    T inline_[N];
};

} // namespace skein::explore::unfolding
