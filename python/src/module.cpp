// PYBIND11_MODULE(_ppk): the bindings, and every error of the library and of the command line as a
// Python ValueError carrying its message (the library's option fields named by the command's flags).
#include <stdexcept>

#include "bindings.hpp"
#include "cli.hpp"

PYBIND11_MODULE(_ppk, module) {
  namespace py = pybind11;
  module.doc() = "ppk's C++ library and command line, bound for the Python package ppk";
  // Every error type of the library (InputError, ModelError, KernelDomainError, EstimationError and
  // OptionError) and of the command line (UsageError) is a std::runtime_error; std::bad_alloc stays
  // pybind11's MemoryError.
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (TypeError, IndexError, ...): its translator sets them
    } catch (const std::runtime_error& e) {
      PyErr_SetString(PyExc_ValueError, ppk::cli::message_of(e).c_str());
    }
  });
  ppk::python::bind_models(module);
  ppk::python::bind_fit(module);
  ppk::python::bind_gram(module);
  ppk::python::bind_map(module);
  ppk::python::bind_svm(module);
  ppk::python::bind_cross_validation(module);
  ppk::python::bind_combined(module);
}
