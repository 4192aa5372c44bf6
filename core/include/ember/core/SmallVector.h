#pragma once
// A vector with N elements stored inline: sizes, strides and boxed stacks of typical rank
// never touch the heap. Only for trivially copyable T or IValue-like types with noexcept moves.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>

#include "ember/core/ArrayRef.h"

namespace ember {

template <class T, size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  SmallVector(size_t n, const T& v) { assign(n, v); }
  SmallVector(ArrayRef<T> a) { assign(a.begin(), a.end()); }  // NOLINT
  SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { move_from(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      destroy_all();
      free_heap();
      move_from(std::move(o));
    }
    return *this;
  }
  ~SmallVector() {
    destroy_all();
    free_heap();
  }

  T* data() { return ptr(); }
  const T* data() const { return ptr(); }
  T* begin() { return ptr(); }
  T* end() { return ptr() + size_; }
  const T* begin() const { return ptr(); }
  const T* end() const { return ptr() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return ptr()[i]; }
  const T& operator[](size_t i) const { return ptr()[i]; }
  T& back() { return ptr()[size_ - 1]; }
  const T& back() const { return ptr()[size_ - 1]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(ptr(), size_); }  // NOLINT

  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t nc = cap_ * 2 > n ? cap_ * 2 : n;
    T* nd = static_cast<T*>(::operator new(nc * sizeof(T)));
    for (size_t i = 0; i < size_; ++i) {
      new (nd + i) T(std::move(ptr()[i]));
      ptr()[i].~T();
    }
    free_heap();
    heap_ = nd;
    cap_ = nc;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (EMBER_UNLIKELY(size_ == cap_)) reserve(size_ + 1);
    T* p = new (ptr() + size_) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }
  void pop_back() { ptr()[--size_].~T(); }
  void resize(size_t n, const T& v = T()) {
    if (n < size_) {
      for (size_t i = n; i < size_; ++i) ptr()[i].~T();
    } else {
      reserve(n);
      for (size_t i = size_; i < n; ++i) new (ptr() + i) T(v);
    }
    size_ = n;
  }
  void clear() {
    destroy_all();
    size_ = 0;
  }
  // Removes the last n elements.
  void drop(size_t n) {
    for (size_t i = size_ - n; i < size_; ++i) ptr()[i].~T();
    size_ -= n;
  }
  void erase(T* pos) {
    for (T* p = pos; p + 1 < end(); ++p) *p = std::move(p[1]);
    pop_back();
  }
  void insert(T* pos, T v) {
    size_t i = pos - begin();
    emplace_back(std::move(v));
    for (size_t j = size_ - 1; j > i; --j) std::swap(ptr()[j], ptr()[j - 1]);
  }
  template <class It>
  void assign(It b, It e) {
    clear();
    reserve(static_cast<size_t>(e - b));
    for (; b != e; ++b) new (ptr() + size_++) T(*b);
  }
  void assign(size_t n, const T& v) {
    clear();
    reserve(n);
    for (size_t i = 0; i < n; ++i) new (ptr() + size_++) T(v);
  }
  bool operator==(const SmallVector& o) const {
    return ArrayRef<T>(*this).equals(ArrayRef<T>(o));
  }

 private:
  T* ptr() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* ptr() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  void destroy_all() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (size_t i = 0; i < size_; ++i) ptr()[i].~T();
  }
  void free_heap() {
    if (heap_) ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = N;
  }
  void move_from(SmallVector&& o) {
    size_ = 0;
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.heap_ = nullptr;
      o.cap_ = N;
      o.size_ = 0;
      return;
    }
    for (size_t i = 0; i < o.size_; ++i) {
      new (ptr() + i) T(std::move(o.ptr()[i]));
      o.ptr()[i].~T();
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* heap_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace ember
