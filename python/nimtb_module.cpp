// `import nimtb`: tables, queries, whole arrays, small solves and single-heap
// sequences from Python. Answers are the command's own JSON objects (apps/
// json_views.h) turned into Python values, so `Table.query` returns what
// `nimtb query --json` prints; errors are Python exceptions carrying the
// command's messages (nimtb.InputError is a ValueError, nimtb.TableError an
// OSError).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>

#include "apps/json_views.h"
#include "engine/long_sequence.h"
#include "engine/moves.h"
#include "engine/solver.h"
#include "io/probe.h"
#include "io/table_writer.h"

namespace py = pybind11;
using namespace nimtb;

namespace {

py::object to_python(const nlohmann::json& j) {
    return py::module_::import("json").attr("loads")(j.dump());
}

// A position given as text ("3 4 5", "3,4,5") or as a sequence of ints.
engine::Heaps heaps_of(const py::object& position) {
    if (py::isinstance<py::str>(position)) return engine::parse_heaps(position.cast<std::string>());
    engine::Heaps heaps;
    for (const py::handle h : position) {
        const long long v = h.cast<long long>();
        if (v < 0) throw InputError("heap " + std::to_string(heaps.size() + 1) + " is negative");
        if (v > engine::Universe::MAX_HEAP_SIZE)
            throw InputError("heap " + std::to_string(heaps.size() + 1) + " is too large");
        heaps.push_back(static_cast<uint32_t>(v));
    }
    return heaps;
}

template <class T>
py::array_t<T> numpy_of(const T* data, size_t n) {
    py::array_t<T> a(n);
    std::memcpy(a.mutable_data(), data, n * sizeof(T));
    return a;
}

py::object numpy_of(const engine::QuantityArray& q) {
    if (q.empty()) return py::none();
    if (q.bits() == 8) return numpy_of(q.data<uint8_t>(), q.size());
    return numpy_of(q.data<uint16_t>(), q.size());
}

// A table opened for queries. Not thread-safe, like the prober under it.
class Table {
  public:
    explicit Table(const std::string& path) : prober_(path) {}
    py::object info() const { return to_python(apps::info_json(prober_.table())); }
    py::object query(const py::object& position, bool line) {
        return to_python(apps::query_json(prober_, heaps_of(position), line));
    }
    py::object perfect_line(const py::object& position) {
        return to_python(apps::query_json(prober_, heaps_of(position), true)["line"]);
    }
    py::tuple arrays() {
        engine::QuantityArray values, remoteness;
        prober_.table().read_all(values, remoteness);
        return py::make_tuple(numpy_of(values), numpy_of(remoteness));
    }
    uint64_t rank(const py::object& position) const {
        const engine::Universe& u = prober_.universe();
        const engine::Heaps sorted = u.normalise(heaps_of(position));
        return u.rank(sorted);
    }

  private:
    io::Prober prober_;
};

Table solve(const std::string& rules, const std::string& path, std::optional<unsigned> heaps,
            std::optional<uint32_t> max_heap, std::optional<uint32_t> max_total, bool misere,
            bool overwrite) {
    const engine::Rule rule = engine::Rule::parse(rules);
    if (max_total && max_heap) throw InputError("give max_heap or max_total, not both");
    if (!max_total && !(heaps && max_heap))
        throw InputError("give heaps and max_heap (a box), or max_total (and heaps)");
    const engine::Universe u = max_total
                                   ? engine::Universe::total_bounded(*max_total, heaps.value_or(0))
                                   : engine::Universe(*heaps, *max_heap);
    engine::check_closed(rule, u);
    engine::SolveOptions o;
    o.convention = misere ? engine::Convention::misere : engine::Convention::normal;
    io::WriteOptions w;
    w.overwrite = overwrite;
    io::check_output(path, w);
    io::write_table(path, engine::solve(rule, u, o), w);
    return Table(path);
}

py::dict sequence(const std::string& rules, std::optional<uint64_t> max_heap, bool until_proven,
                  uint64_t limit, const std::string& method) {
    if (until_proven == max_heap.has_value())
        throw InputError("give max_heap or until_proven=True, not both or neither");
    engine::SequenceOptions o;
    o.until_proven = until_proven;
    o.method = engine::parse_sequence_method(method);
    const engine::Rule rule = engine::Rule::parse(rules);
    const engine::LongSequence s = engine::long_sequence(rule, max_heap.value_or(limit), o);
    py::dict d;
    d["rules"] = rule.canonical();
    d["algorithm"] = engine::to_string(s.method);
    d["values"] = numpy_of(s.values.data(), s.values.size());
    d["period"] = to_python(apps::period_json(apps::reported_period(rule, s)));
    return d;
}

}  // namespace

PYBIND11_MODULE(nimtb, m) {
    m.doc() = "nimtb: endgame tables of impartial heap games (Nim and its relatives)";
    static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
    static py::exception<TableError> table_error(m, "TableError", PyExc_OSError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            input_error(e.what());
        } catch (const TableError& e) {
            table_error(e.what());
        } catch (const ResourceError& e) {
            PyErr_SetString(PyExc_MemoryError, e.what());
        }
    });

    py::class_<Table>(m, "Table", "A table file, opened and checked (nimtb solve writes them).")
        .def(py::init<const std::string&>(), py::arg("path"))
        .def_property_readonly("info", &Table::info, "what `nimtb info --json` prints")
        .def("query", &Table::query, py::arg("position"), py::arg("line") = false,
             "outcome, value, remoteness and every move best first: what `nimtb query --json` "
             "prints; `position` is text (\"3 4 5\") or a sequence of heap sizes")
        .def("line", &Table::perfect_line, py::arg("position"),
             "the moves of perfect play from `position` to the end")
        .def("arrays", &Table::arrays,
             "(values, remoteness) as numpy arrays indexed by rank; remoteness is None when "
             "the table has none")
        .def("rank", &Table::rank, py::arg("position"), "the rank of a position (docs/FORMAT.md)");

    m.def("solve", &solve, py::arg("rules"), py::arg("path"), py::arg("heaps") = py::none(),
          py::arg("max_heap") = py::none(), py::arg("max_total") = py::none(),
          py::arg("misere") = false, py::arg("overwrite") = false,
          "solves a universe (heaps and max_heap, or max_total) and writes its table to `path`; "
          "returns it opened");
    m.def("sequence", &sequence, py::arg("rules"), py::arg("max_heap") = py::none(),
          py::arg("until_proven") = false, py::arg("limit") = uint64_t{1} << 22,
          py::arg("method") = "auto",
          "the single-heap values g(0..) in normal play (numpy uint16) and the period: "
          "`nimtb sequence`");
}
