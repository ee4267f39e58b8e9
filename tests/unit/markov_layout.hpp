// The flat layout of markov.hpp worked out from its text, for the tests' oracles (test_markov.cpp,
// test_estimate_markov.cpp): they lay out slots, offsets and contexts with these functions, never with
// the library's markov_slot_offset / markov_flat_index, so a mistake in either shows as a mismatch.
//   slot of position t: t (aligned, positions L > 0) or min(t, k) (homogeneous); its depth min(slot, k);
//   offset(s) = sum_{s' < s} A^(depth(s') + 1); index = offset(slot) + c A + x_t,
//   c = x_{t-1} + x_{t-2} A + ... + x_{t-d} A^(d-1) (the most recent symbol the least significant digit).
// Shape is any type with the members alphabet (A), order (k) and positions (L; 0: homogeneous).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ppk::markov_layout {

inline long power(long base, long exponent) {
  long value = 1;
  while (exponent-- > 0) value *= base;
  return value;
}

template <class Shape>
long slot_of(const Shape& shape, long t) {
  return shape.positions > 0 ? t : std::min(t, shape.order);
}
template <class Shape>
long depth_of(const Shape& shape, long slot) {
  return std::min(slot, shape.order);
}
template <class Shape>
long offset_of(const Shape& shape, long slot) {
  long offset = 0;
  for (long s = 0; s < slot; ++s) offset += power(shape.alphabet, depth_of(shape, s) + 1);
  return offset;
}
template <class Shape>
long table_size(const Shape& shape) {
  return offset_of(shape, shape.positions > 0 ? shape.positions : shape.order + 1);
}

// The flat index of x_t after its context, x[i - j] holding x_{t-j} (i = t when x is the whole sequence;
// a shorter x holds the symbols up to x_t at i).
template <class Shape>
long flat_index(const Shape& shape, const std::vector<long>& x, long t, long i) {
  const long slot = slot_of(shape, t), depth = depth_of(shape, slot);
  long context = 0;
  for (long j = 1; j <= depth; ++j) context += x[static_cast<std::size_t>(i - j)] * power(shape.alphabet, j - 1);
  return offset_of(shape, slot) + context * shape.alphabet + x[static_cast<std::size_t>(i)];
}
template <class Shape>
long flat_index(const Shape& shape, const std::vector<long>& x, long t) {
  return flat_index(shape, x, t, t);
}

}  // namespace ppk::markov_layout
