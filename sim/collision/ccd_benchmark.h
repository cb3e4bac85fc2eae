// Reader and runner for the CCD benchmark files of Wang et al. 2021 (format in
// ../shared/data/README.md: 8 rows per query, each row
// xnum,xden,ynum,yden,znum,zden,truth with exact rationals).
#pragma once

#include <string>
#include <vector>

#include "sim/collision/ccd_batch.h"

namespace cb {

struct CcdBenchFile {
  std::string path;
  bool edge_edge = false;        ///< from the folder name ("edge-edge" / "vertex-face")
  std::vector<CcdQuery> queries;
  std::vector<uint8_t> truth;    ///< (queries) 1 = collision in the ground truth
};

/// Reads one benchmark file. Throws cb::Error naming the file and line for a
/// malformed row, a row count that is not a multiple of 8, a truth flag that
/// changes inside a query, or a value that is not exactly a double.
CcdBenchFile read_ccd_file(const std::string& path);

struct CcdBenchStats {
  size_t queries = 0, collisions = 0;       ///< counts; collisions = in the ground truth
  size_t false_negatives = 0, false_positives = 0;
  size_t capped = 0;                        ///< answered by the work cap
  double seconds = 0;                       ///< s, total time of the queries (one thread)
  double max_seconds = 0;                   ///< slowest single query
  long long boxes = 0;                      ///< boxes examined, summed
  void add(const CcdBenchStats& o);
};

/// Runs every query of `file` one at a time on the calling thread, timing each;
/// with repeats > 1 each query runs that many times and its fastest run counts
/// (filters out preemption on a shared machine).
CcdBenchStats run_ccd_file(const CcdBenchFile& file, const CcdOptions& opt, int repeats = 1);

}  // namespace cb
