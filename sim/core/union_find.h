// Union-find (disjoint sets) over ids [0, n), host only: path halving, no ranks
// (the sets here are small or merged once).
#pragma once

#include <cstddef>
#include <numeric>
#include <vector>

namespace cb {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int a) {
    while (parent[size_t(a)] != a) a = parent[size_t(a)] = parent[size_t(parent[size_t(a)])];
    return a;
  }
  void unite(int a, int b) { parent[size_t(find(a))] = find(b); }
};

}  // namespace cb
