// ppk._ppk.FeatureMap, fit_map and auto_route: `ppk map`'s feature maps over Models, by the
// command's code (map_rows.hpp and the maps library), the GIL released while they compute.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "cli.hpp"
#include "map_rows.hpp"
#include "parallel.hpp"
#include "ppk/maps/feature_map.hpp"

namespace ppk::python {
namespace {

// The name of the mapped rows in messages: "models: row 3: ..." (rows counted from 1, as `ppk map`
// counts the rows of its INPUT).
constexpr const char* kSource = "models";

// The map of `models` by `route` (`ppk map -t KERNEL -g RHO -d T --map ROUTE` on the same rows): for
// exact and sparse, made from the first row; for nystrom, the landmarks drawn from the rows as
// `ppk map` draws them from its INPUT.
std::shared_ptr<FeatureMap> fit_map(const ModelRows& models, const std::string& kernel, double rho, long T,
                                    const std::string& route, long landmarks, const std::string& landmark_choice,
                                    std::uint64_t seed, double eigen_floor, std::optional<long> n_jobs) {
  const KernelKind kind = kernel_kind(kernel);
  const KernelParams params = kernel_params(rho, T);
  const unsigned threads = threads_of(n_jobs);
  const MapRoute map_route = cli::parse_route(route);
  py::gil_scoped_release release;
  if (map_route == MapRoute::nystrom) {
    cli::LandmarkCandidates candidates(kSource,
                                       cli::nystrom_options(landmarks, landmark_choice, seed, eigen_floor, threads));
    for (const LabeledRow& row : models.rows) candidates.offer(row);
    return candidates.fit_map(kind, params);
  }
  if (models.rows.empty()) throw InputError(std::string(kSource) + ": no rows to map");
  return make_exact_map(*cli::prepare_labeled_row(models.rows[0], kSource, 1, kind, params), kind, map_route);
}

// PPKFeatures' method "auto": the route `ppk map` takes without --map on the same rows (the exact or
// sparse route its first chunk chooses, cli::choose_route) when that route maps every row of
// `models`, else "nystrom" (a family without an exact or sparse map, rows of several sample spaces).
// A row that does not decode is a ValueError, as in fit_map.
std::string auto_route(const ModelRows& models, const std::string& kernel, double rho, long T,
                       std::optional<long> n_jobs) {
  const KernelKind kind = kernel_kind(kernel);
  const KernelParams params = kernel_params(rho, T);
  const unsigned threads = threads_of(n_jobs);
  py::gil_scoped_release release;
  std::unique_ptr<FeatureMap> map;
  try {
    const MapRoute route = cli::choose_route(models.rows, models.rows.size(), kSource, kind, params).route;
    map = make_exact_map(*cli::prepare_labeled_row(models.rows[0], kSource, 1, kind, params), kind, route);
  } catch (const KernelDomainError&) {
    return route_name(MapRoute::nystrom);
  }
  std::atomic<bool> every_row_maps{true};
  cli::for_each_index(
      models.rows.size(), threads, "check the " + std::string(route_name(map->route())) + " map", [&](std::size_t i) {
        const auto model = cli::prepare_labeled_row(models.rows[i], kSource, static_cast<long>(i + 1), kind, params);
        Row features;
        try {
          map->features(*model, features);
        } catch (const KernelDomainError&) {
          every_row_maps = false;
        }
      });
  return route_name(every_row_maps ? map->route() : MapRoute::nystrom);
}

// A numpy array that owns `values` (moved, not copied).
template <class T>
py::array_t<T> owning_array(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  const py::capsule owner(owned, [](void* pointer) { delete static_cast<std::vector<T>*>(pointer); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// phi of every row of `models` as the arrays of a CSR matrix (indptr int64, indices int32, data), 0-based
// feature indices increasing within a row, zeros left out: the rows `ppk map` writes, a chunk of rows
// at a time on `n_jobs` threads; each row's features depend on the row and the map alone, so the
// arrays are the same for any n_jobs. An error names the first bad row.
py::tuple features(const FeatureMap& map, const ModelRows& models, std::optional<long> n_jobs) {
  const unsigned threads = threads_of(n_jobs);
  std::vector<std::int64_t> indptr{0};
  std::vector<std::int32_t> indices;  // RowEntry::index is an int
  std::vector<double> data;
  {
    py::gil_scoped_release release;
    // A chunk's features are held as rows before they join the output arrays.
    std::vector<Row> chunk(cli::kChunkRows);
    for (std::size_t first = 0; first < models.rows.size(); first += cli::kChunkRows) {
      const std::size_t count = std::min(cli::kChunkRows, models.rows.size() - first);
      cli::for_each_index(count, threads, "map rows " + std::to_string(first + 1) + "-" + std::to_string(first + count),
                          [&](std::size_t i) {
                            cli::map_row(map, models.rows[first + i], kSource, static_cast<long>(first + i + 1),
                                         chunk[i]);
                          });
      for (std::size_t i = 0; i < count; ++i) {
        for (const RowEntry& entry : chunk[i]) {
          indices.push_back(entry.index - 1);
          data.push_back(entry.value);
        }
        indptr.push_back(static_cast<std::int64_t>(indices.size()));
      }
    }
  }
  return py::make_tuple(owning_array(std::move(indptr)), owning_array(std::move(indices)), owning_array(std::move(data)));
}

// What `ppk map --save-map` writes.
py::bytes map_text(const FeatureMap& map) {
  std::ostringstream text;
  map.save(text);
  return py::bytes(text.str());
}

// A map from the text of `ppk map --save-map` (ValueError "map:LINE: ..." for any other text).
std::shared_ptr<FeatureMap> map_from_text(const std::string& text) {
  std::istringstream in(text);
  return load_feature_map(in, "map");
}

const NystromMap* nystrom_of(const FeatureMap& map) { return dynamic_cast<const NystromMap*>(&map); }

}  // namespace

void bind_map(py::module_& module) {
  py::class_<FeatureMap, std::shared_ptr<FeatureMap>>(module, "FeatureMap",
                                                      "A feature map of `ppk map` (feature_map.hpp).")
      .def_static("from_text", &map_from_text, py::arg("text"), "The map `ppk map --save-map` wrote.")
      .def("to_text", &map_text, "The map as `ppk map --save-map` writes it, for --map-from.")
      .def("features", &features, py::arg("models"), py::arg("n_jobs").none(true),
           "phi of every model as CSR arrays (indptr, indices, data).")
      .def_property_readonly("route", [](const FeatureMap& map) { return std::string(route_name(map.route())); })
      .def_property_readonly(
          "kernel", [](const FeatureMap& map) { return map.domain().kind == KernelKind::ppk ? "ppk" : "ppk_norm"; })
      .def_property_readonly("rho", [](const FeatureMap& map) { return map.domain().params.rho; })
      .def_property_readonly("T", [](const FeatureMap& map) { return map.domain().params.length; })
      .def_property_readonly("family", [](const FeatureMap& map) { return map.domain().family; })
      .def_property_readonly("dimension", &FeatureMap::dimension)
      .def_property_readonly("description", [](const FeatureMap& map) { return map.domain().describe(); })
      .def_property_readonly("landmark_count",
                             [](const FeatureMap& map) -> std::optional<std::size_t> {
                               if (const NystromMap* nystrom = nystrom_of(map)) return nystrom->landmark_count();
                               return std::nullopt;
                             })
      .def_property_readonly("eigenvalues", [](const FeatureMap& map) -> std::optional<std::vector<double>> {
        if (const NystromMap* nystrom = nystrom_of(map)) return nystrom->eigenvalues();
        return std::nullopt;
      });
  module.def("fit_map", &fit_map, py::arg("models"), py::arg("kernel"), py::arg("rho"), py::arg("T"), py::arg("route"),
             py::arg("landmarks"), py::arg("landmark_choice"), py::arg("seed"), py::arg("eigen_floor"),
             py::arg("n_jobs").none(true), "The map `ppk map -t KERNEL -g RHO -d T --map ROUTE` makes of the same rows.");
  module.def("auto_route", &auto_route, py::arg("models"), py::arg("kernel"), py::arg("rho"), py::arg("T"),
             py::arg("n_jobs").none(true),
             "The route of PPKFeatures(method='auto'): `ppk map`'s without --map if it maps every model, else "
             "'nystrom'.");
}

}  // namespace ppk::python
