// Go's sort.Sort and container/heap, step for step, for the places where Prometheus's answer depends on
// them: which of several equal values topk/bottomk keep, and the order sort()/topk() return ties and NaN
// in. Prometheus's comparisons there ("NaN is less than anything") are not strict orders and its sort is not
// stable, so no standard algorithm gives the same answers; these do.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuwatch::query::go {

namespace detail {

// Go 1.19's pattern-defeating quicksort (sort.Sort), over a vector with `less` on elements.
template <typename T, typename Less>
class PdqSort {
 public:
  PdqSort(std::vector<T>& data, Less& less) : d_(data), less_(less) {}

  void run() {
    const auto n = static_cast<long>(d_.size());
    if (n > 1) pdq(0, n, static_cast<int>(std::bit_width(static_cast<unsigned long>(n))));
  }

 private:
  enum Hint { kUnknown, kIncreasing, kDecreasing };

  bool lt(long i, long j) { return less_(d_[static_cast<std::size_t>(i)], d_[static_cast<std::size_t>(j)]); }
  void swap(long i, long j) { std::swap(d_[static_cast<std::size_t>(i)], d_[static_cast<std::size_t>(j)]); }

  void insertion(long a, long b) {
    for (long i = a + 1; i < b; ++i) {
      for (long j = i; j > a && lt(j, j - 1); --j) swap(j, j - 1);
    }
  }

  void sift_down(long lo, long hi, long first) {
    long root = lo;
    while (true) {
      long child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && lt(first + child, first + child + 1)) ++child;
      if (!lt(first + root, first + child)) return;
      swap(first + root, first + child);
      root = child;
    }
  }

  void heap_sort(long a, long b) {
    const long hi = b - a;
    for (long i = (hi - 1) / 2; i >= 0; --i) sift_down(i, hi, a);
    for (long i = hi - 1; i >= 0; --i) {
      swap(a, a + i);
      sift_down(0, i, a);
    }
  }

  void pdq(long a, long b, int limit) {
    bool balanced = true;
    bool partitioned = true;
    while (true) {
      const long length = b - a;
      if (length <= 12) {
        insertion(a, b);
        return;
      }
      if (limit == 0) {
        heap_sort(a, b);
        return;
      }
      if (!balanced) {
        break_patterns(a, b);
        --limit;
      }
      auto [pivot, hint] = choose_pivot(a, b);
      if (hint == kDecreasing) {
        reverse(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = kIncreasing;
      }
      if (balanced && partitioned && hint == kIncreasing && partial_insertion(a, b)) return;
      if (a > 0 && !lt(a - 1, pivot)) {  // many equal to the previous pivot: put them first
        a = partition_equal(a, b, pivot);
        continue;
      }
      const auto [mid, already] = partition(a, b, pivot);
      partitioned = already;
      const long left = mid - a;
      const long right = b - mid;
      if (left < right) {
        balanced = left >= length / 8;
        pdq(a, mid, limit);
        a = mid + 1;
      } else {
        balanced = right >= length / 8;
        pdq(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  std::pair<long, bool> partition(long a, long b, long pivot) {
    swap(a, pivot);
    long i = a + 1;
    long j = b - 1;
    while (i <= j && lt(i, a)) ++i;
    while (i <= j && !lt(j, a)) --j;
    if (i > j) {
      swap(j, a);
      return {j, true};
    }
    swap(i, j);
    ++i;
    --j;
    while (true) {
      while (i <= j && lt(i, a)) ++i;
      while (i <= j && !lt(j, a)) --j;
      if (i > j) break;
      swap(i, j);
      ++i;
      --j;
    }
    swap(j, a);
    return {j, false};
  }

  long partition_equal(long a, long b, long pivot) {
    swap(a, pivot);
    long i = a + 1;
    long j = b - 1;
    while (true) {
      while (i <= j && !lt(a, i)) ++i;
      while (i <= j && lt(a, j)) --j;
      if (i > j) return i;
      swap(i, j);
      ++i;
      --j;
    }
  }

  bool partial_insertion(long a, long b) {
    long i = a + 1;
    for (int step = 0; step < 5; ++step) {
      while (i < b && !lt(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < 50) return false;
      swap(i, i - 1);
      if (i - a >= 2) {
        for (long j = i - 1; j >= 1; --j) {  // down to 1, not a + 1, as Go has it
          if (!lt(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (long j = i + 1; j < b; ++j) {
          if (!lt(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
    }
    return false;
  }

  void break_patterns(long a, long b) {
    const long length = b - a;
    if (length < 8) return;
    std::uint64_t random = static_cast<std::uint64_t>(length);
    const std::uint64_t modulus = std::uint64_t{1} << std::bit_width(static_cast<std::uint64_t>(length));
    for (long idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; ++idx) {
      random ^= random << 13;  // Go 1.19's xorshift
      random ^= random >> 17;
      random ^= random << 5;
      auto other = static_cast<long>(random & (modulus - 1));
      if (other >= length) other -= length;
      swap(idx, a + other);
    }
  }

  std::pair<long, Hint> choose_pivot(long a, long b) {
    const long l = b - a;
    int swaps = 0;
    long i = a + l / 4 * 1;
    long j = a + l / 4 * 2;
    long k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= 50) {  // Tukey's ninther
        i = median(i - 1, i, i + 1, swaps);
        j = median(j - 1, j, j + 1, swaps);
        k = median(k - 1, k, k + 1, swaps);
      }
      j = median(i, j, k, swaps);
    }
    if (swaps == 0) return {j, kIncreasing};
    if (swaps == 12) return {j, kDecreasing};
    return {j, kUnknown};
  }

  void order2(long& a, long& b, int& swaps) {
    if (lt(b, a)) {
      ++swaps;
      std::swap(a, b);
    }
  }

  long median(long a, long b, long c, int& swaps) {
    order2(a, b, swaps);
    order2(b, c, swaps);
    order2(a, b, swaps);
    return b;
  }

  void reverse(long a, long b) {
    for (long i = a, j = b - 1; i < j; ++i, --j) swap(i, j);
  }

  std::vector<T>& d_;
  Less& less_;
};

}  // namespace detail

// sort.Sort(data) where Less(i, j) = less(data[i], data[j]), as Go 1.19 (which built Prometheus 2.42) sorts:
// insertion up to 12 elements, pattern-defeating quicksort beyond. Any `less` works, strict order or not.
template <typename T, typename Less>
void sort(std::vector<T>& data, Less less) {
  detail::PdqSort<T, Less>(data, less).run();
}

template <typename T, typename Less>
void heap_up(std::vector<T>& h, std::size_t j, Less less) {
  while (j > 0) {
    const std::size_t parent = (j - 1) / 2;
    if (!less(h[j], h[parent])) break;
    std::swap(h[parent], h[j]);
    j = parent;
  }
}

template <typename T, typename Less>
void heap_down(std::vector<T>& h, std::size_t i, std::size_t n, Less less) {
  while (true) {
    const std::size_t left = 2 * i + 1;
    if (left >= n) break;
    std::size_t j = left;
    if (left + 1 < n && less(h[left + 1], h[left])) j = left + 1;
    if (!less(h[j], h[i])) break;
    std::swap(h[i], h[j]);
    i = j;
  }
}

// heap.Push(h, x).
template <typename T, typename Less>
void heap_push(std::vector<T>& h, T x, Less less) {
  h.push_back(std::move(x));
  heap_up(h, h.size() - 1, less);
}

// heap.Pop(h), the element discarded.
template <typename T, typename Less>
void heap_pop(std::vector<T>& h, Less less) {
  const std::size_t n = h.size() - 1;
  std::swap(h[0], h[n]);
  heap_down(h, 0, n, less);
  h.pop_back();
}

}  // namespace gpuwatch::query::go
