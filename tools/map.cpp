// ppk map: model rows in, feature vectors out (LIBSVM's sparse format, the labels kept), for
// liblinear-train, svm-train -t 0, scikit-learn's load_svmlight_file and Spark MLlib's libsvm source.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "map_rows.hpp"
#include "parallel.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/maps/feature_map.hpp"

namespace ppk::cli {
namespace {

constexpr const char* kMapUsage = R"usage(Usage: ppk map -t ppk|ppk_norm -g RHO [-d T] INPUT [-o OUTPUT] [options]
       ppk map --map-from MAP INPUT [-o OUTPUT]

Maps each model row of INPUT to a feature vector phi(p) whose inner products are
the kernel, <phi(p), phi(p')> = k(p, p') (exactly or approximately, by route),
written as a LIBSVM row 'LABEL 1:phi_1 2:phi_2 ...' (zeros left out) with the
row's label, so that a linear SVM on the features stands in for the kernel SVM:
  ppk map -t ppk -g 0.5 train.ppk --save-map train.map -o train.features
  ppk map --map-from train.map test.ppk -o test.features
  liblinear-train -s 2 -c 1 train.features model && liblinear-predict test.features model out
Routes (--map; docs/feature-maps.md):
  exact    phi_x(p) = p(x)^rho over a finite sample space: multinomial rows of one
           event (D features; sparse for rows without smoothing, dense for
           smoothed rows) and bernoulli rows of D <= 20 (2^D features)
  sparse   smoothed multinomial rows kept sparse: the listed words plus one
           feature; its inner products are k plus a rank-one term g g', within
           sqrt(f f') sqrt(k(p,p) k(p',p')) of k (ppk_norm: (f + f') / 2), f = L / D
           the share of the D words that a row lists
  nystrom  any family: m landmark rows L (--landmarks, --landmark-choice),
           phi(p) = W' (k(p, L_1), ..., k(p, L_m)), W = V_r Lambda_r^(-1/2) from
           the landmarks' kernel matrix K_mm = V Lambda V', keeping the r
           eigenvalues above --eigen-floor times the largest; exact on the
           landmarks, approaching k as m grows. Needs INPUT as a file (two passes).
Without --map the rows choose between exact and sparse, and a note on standard
error says which and why: sparse for smoothed rows (ppk fit multinomial's default)
whose dense exact map would write at least 4 times the sparse map's features
over the first 4096 rows, and for rows over a pooled base (ppk fit --base pooled);
exact otherwise.
ppk_norm maps are unit vectors (the ppk map divided by its norm).
--save-map writes the map (route, kernel, rho, T, the rows' family and sample
space; for nystrom the landmark rows and W) for --map-from, so that train and test
files go through one map; rows of another family or sample space are refused.
The rows are read and mapped a chunk at a time (memory: one chunk and the map,
whatever the number of rows); the output is the same for any --threads, and is
written only if every row maps.
)usage";

struct MapOptions {
  std::string kind_text, route_text, choice_text = "uniform", save_path, from_path, input, output = "-";
  KernelParams params;
  NystromOptions nystrom;
};

// The Nystrom map's candidates in one pass over INPUT (LandmarkCandidates).
std::unique_ptr<FeatureMap> fit_nystrom(const MapOptions& options, KernelKind kind) {
  InputFile input(options.input);
  RowStream rows(input.stream(), input.name());
  LandmarkCandidates candidates(input.name(), options.nystrom);
  LabeledRow row;
  while (rows.next(row)) candidates.offer(row);
  auto map = candidates.fit_map(kind, options.params);
  std::cerr << "ppk map: Nystrom map of " << map->landmark_count() << " landmarks, effective rank " << map->dimension()
            << " (eigenvalues of K_mm above " << format_shortest(map->eigen_floor()) << " times the largest kept)\n";
  return map;
}

// Maps every row of INPUT a chunk at a time; `map` is made from the first row when it is null (the
// exact and sparse routes), by `route`, or when there is none by the route the first chunk chooses
// (choose_route, said in a note on standard error). Returns the map used.
std::unique_ptr<FeatureMap> map_rows(const MapOptions& options, KernelKind kind, std::optional<MapRoute> route,
                                     std::unique_ptr<FeatureMap> map, unsigned threads) {
  InputFile input(options.input);
  RowStream rows(input.stream(), input.name());
  OutputFile output(options.output);
  std::vector<LabeledRow> chunk(kChunkRows);
  std::vector<std::string> lines(kChunkRows);
  long first_number = 1;
  for (;;) {
    std::size_t count = 0;
    while (count < kChunkRows && rows.next(chunk[count])) ++count;
    if (count == 0) break;
    if (!map) {
      std::vector<MapRoute> part_routes;  // combined rows: each part's, as the rows choose them
      if (!route) {
        const RouteChoice choice = choose_route(chunk, count, input.name(), kind, options.params);
        std::cerr << "ppk map: --map " << route_name(choice.route) << ", chosen by the rows: " << choice.reason << "\n";
        route = choice.route;
        part_routes = choice.part_routes;
      }
      map = make_exact_map(*prepare_labeled_row(chunk[0], input.name(), first_number, kind, options.params), kind, *route,
                           part_routes);
    }
    const FeatureMap& the_map = *map;
    for_each_index(
        count, threads,
        "map rows " + std::to_string(first_number) + "-" + std::to_string(first_number + static_cast<long>(count) - 1),
        [&](std::size_t i) {
          Row features;
          map_row(the_map, chunk[i], input.name(), first_number + static_cast<long>(i), features);
          lines[i] = format_row_line(chunk[i].label, features);
        });
    for (std::size_t i = 0; i < count; ++i) output.stream() << lines[i] << '\n';
    first_number += static_cast<long>(count);
  }
  if (!map) throw InputError(input.name() + ": no rows to map");
  output.commit();
  return map;
}

// With --map-from, the kernel options may be given only as the map has them.
void check_against_map(const po::variables_map& values, const MapOptions& options, const FeatureMap& map) {
  const MapDomain& domain = map.domain();
  auto refuse = [&](const std::string& option, const std::string& given, const std::string& in_map) {
    throw UsageError(option + " " + given + ", but the map " + options.from_path + " is of " + in_map + " (" +
                     domain.describe() + "); leave " + option + " out to use the map's");
  };
  const bool map_is_ppk = domain.kind == KernelKind::ppk;
  const std::string& kind = options.kind_text;
  if (values.count("kernel-type") && !(map_is_ppk ? kind == "ppk" || kind == "5" : kind == "ppk_norm" || kind == "6"))
    refuse("-t", kind, map_is_ppk ? "ppk" : "ppk_norm");
  if (values.count("rho") && options.params.rho != domain.params.rho)
    refuse("-g", format_shortest(options.params.rho), "rho " + format_shortest(domain.params.rho));
  if (!values["length"].defaulted() && options.params.length != domain.params.length)
    refuse("-d", std::to_string(options.params.length), "T " + std::to_string(domain.params.length));
  if (values.count("map") && parse_route(options.route_text) != map.route())
    refuse("--map", options.route_text, std::string("the route ") + route_name(map.route()));
  for (const char* fitting : {"landmarks", "landmark-choice", "seed", "eigen-floor", "save-map"})
    if (values.count(fitting) && !values[fitting].defaulted())
      throw UsageError(std::string("--") + fitting + " makes a map; --map-from uses one");
}

}  // namespace

int run_map(const std::vector<std::string>& args) {
  MapOptions options;
  long landmarks = 256;
  std::uint64_t seed = 1;
  double eigen_floor = 1e-10;
  po::options_description described("Options");
  add_kernel_options(described, options.kind_text, options.params);
  // clang-format off
  described.add_options()
      ("output,o", po::value<std::string>(&options.output)->value_name("OUTPUT"),
       "where to write the features ('-' = standard output, the default)")
      ("map", po::value<std::string>(&options.route_text)->value_name("exact|sparse|nystrom"),
       "the route (see above; without --map, exact or sparse as the rows choose)")
      ("landmarks", po::value<long>(&landmarks)->default_value(256)->value_name("M"),
       "nystrom: the number of landmarks m (at most the number of rows); the features are at most m")
      ("landmark-choice", po::value<std::string>(&options.choice_text)->default_value("uniform")
           ->value_name("uniform|kmeans++"),
       "nystrom: a uniform sample of the rows, or k-means++ seeding in the kernel's feature space among 16 m "
       "rows sampled uniformly")
      ("seed", po::value<std::uint64_t>(&seed)->default_value(1)->value_name("S"),
       "nystrom: the seed of the landmarks' draw")
      ("eigen-floor", po::value<double>(&eigen_floor)->default_value(1e-10, "1e-10")
           ->value_name("F"),
       "nystrom: eigenvalues of K_mm at most F times the largest are dropped (the effective rank is printed)")
      ("save-map", po::value<std::string>(&options.save_path)->value_name("MAP"),
       "write the map to MAP, for --map-from")
      ("map-from", po::value<std::string>(&options.from_path)->value_name("MAP"),
       "map with a saved map (its kernel, rho, T and route; the rows must be of its family and sample space)");
  // clang-format on
  add_threads_option(described, "map N rows at a time (and compute K_mm)");
  described.add_options()("help,h", "this text");
  if (wants_help(args)) {
    std::cout << kMapUsage << "\n" << described;
    return 0;
  }
  po::options_description all = described;
  all.add_options()("input", po::value<std::string>(&options.input), "INPUT");
  po::positional_options_description positional;
  positional.add("input", 1);
  const po::variables_map values = parse_command_line(args, all, positional);
  if (!values.count("input")) throw UsageError("missing INPUT, the file of model rows ('-' = standard input)");
  const unsigned threads = threads_option(values);

  if (values.count("map-from")) {
    InputFile file(options.from_path);
    std::unique_ptr<FeatureMap> map = load_feature_map(file.stream(), file.name());
    check_against_map(values, options, *map);
    const KernelKind kind = map->domain().kind;
    const MapRoute route = map->route();
    map_rows(options, kind, route, std::move(map), threads);
    return 0;
  }

  const KernelKind kind = kernel_option_values(values, options.kind_text, options.params);
  const std::optional<MapRoute> route =
      values.count("map") ? std::optional<MapRoute>(parse_route(options.route_text)) : std::nullopt;
  if (route != MapRoute::nystrom)
    for (const char* fitting : {"landmarks", "landmark-choice", "seed", "eigen-floor"})
      if (!values[fitting].defaulted())
        throw UsageError(std::string("--") + fitting + " is an option of the Nystrom map (--map nystrom)");
  options.nystrom = nystrom_options(landmarks, options.choice_text, seed, eigen_floor, threads);
  if (route == MapRoute::nystrom && options.input == "-")
    throw UsageError("--map nystrom reads INPUT twice (the landmarks, then the rows): give a file, not '-'");

  std::unique_ptr<FeatureMap> map = route == MapRoute::nystrom ? fit_nystrom(options, kind) : nullptr;
  map = map_rows(options, kind, route, std::move(map), threads);
  if (!options.save_path.empty()) {
    OutputFile saved(options.save_path);
    map->save(saved.stream());
    saved.commit();
  }
  return 0;
}

}  // namespace ppk::cli
