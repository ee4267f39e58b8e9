// What `ppk map` does to model rows, shared by the command (map.cpp) and the Python module
// (python/src/map.cpp), so that ppk.map gives the command's features for the same rows: the options
// of a map checked, the Nystrom map's landmarks drawn in one pass over the rows, one row mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/maps/feature_map.hpp"

namespace ppk::cli {

// Rows read, mapped and written at a time (by `ppk map` and ppk.FeatureMap.transform); the route
// without --map is chosen on the first chunk (choose_route).
constexpr std::size_t kChunkRows = 4096;

// The route of `ppk map` without --map (choose_exact_or_sparse) for the rows that begin with
// rows[0..count) of `source`: the first kChunkRows of them decoded and prepared with (kind, params)
// as the sample (an InputError naming a row that does not decode).
RouteChoice choose_route(const std::vector<LabeledRow>& rows, std::size_t count, const std::string& source,
                         KernelKind kind, const KernelParams& params);

// --map: "exact", "sparse" or "nystrom"; UsageError otherwise.
MapRoute parse_route(const std::string& text);

// The Nystrom map's options (--landmarks M in [1, 100000], --landmark-choice uniform|kmeans++,
// --seed, --eigen-floor F in [0, 1), and the threads for K_mm), checked: UsageError naming the option.
NystromOptions nystrom_options(long landmarks, const std::string& landmark_choice, std::uint64_t seed, double eigen_floor,
                               unsigned threads);

// The Nystrom map's candidates, drawn in one pass over the rows of `source`: a uniform sample of R
// rows by reservoir sampling (Vitter's algorithm R with the seed), R = m for uniform landmarks,
// 16 m for k-means++ to choose among.
class LandmarkCandidates {
 public:
  LandmarkCandidates(std::string source, const NystromOptions& options);
  // The next row of the source (row number: rows offered so far + 1).
  void offer(const LabeledRow& row);
  // The Nystrom map (fit_nystrom_map) of the candidates in the source's order, so that the map depends
  // on which rows were drawn, not on when; each candidate is decoded and prepared as its row of the
  // source, and must be compatible with the first (an InputError naming the row otherwise).
  std::unique_ptr<NystromMap> fit_map(KernelKind kind, const KernelParams& params) const;

 private:
  std::string source_;
  NystromOptions options_;
  std::size_t reservoir_size_;
  SampleGenerator generator_;
  long seen_ = 0;
  std::vector<LabeledRow> reservoir_;
  std::vector<long> numbers_;  // the row number of each reservoir entry
};

// phi(row) by `map` in `features` (cleared first): row `number` of `source`, decoded and prepared
// with the map's kernel; a row that does not decode or is outside the map's domain is an InputError
// naming it. Safe to call from several threads at once.
void map_row(const FeatureMap& map, const LabeledRow& row, const std::string& source, long number, Row& features);

}  // namespace ppk::cli
