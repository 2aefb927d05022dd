// `import nimtb`: tables, queries, whole arrays, solves and single-heap
// sequences from Python, over the service floor. Answers are the command's
// own JSON objects (service/views.h) turned into Python values, so
// `Table.query` returns what `nimtb query --json` prints; errors are Python
// exceptions carrying the command's messages in Python's words
// (nimtb.InputError is a ValueError, nimtb.TableError an OSError).
//
// A solve or a sequence runs on a thread of its own while the caller's
// thread waits without the GIL: other Python threads run meanwhile, and the
// waiting thread takes the GIL every 50 ms to let Python handle signals, so
// Ctrl-C stops the work (no file is left) and raises KeyboardInterrupt.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/base/version.h"
#include "engine/sequences/sequence.h"
#include "engine/solve/solver.h"
#include "io/probe.h"
#include "service/request/words.h"
#include "service/sequences.h"
#include "service/solve.h"
#include "service/views.h"

namespace py = pybind11;
using namespace nimtb;

namespace {

py::object to_python(const nlohmann::json& j) {
    return py::module_::import("json").attr("loads")(j.dump());
}

// A message with the options it mentions in Python's words.
std::string python_words(const char* message) {
    return service::in_words_of(service::FrontEnd::python, message);
}

// Runs work(hooks) on a thread of its own; see the top of this file. The
// result, or the work's exception, comes back on the calling thread; a
// signal's Python exception (KeyboardInterrupt) wins over the work's
// Cancelled.
template <class Work>
auto interruptible(Work work) {
    using Result = decltype(work(std::declval<const service::Hooks&>()));
    std::atomic<bool> cancel{false};
    service::Hooks hooks;
    hooks.cancel = &cancel;
    std::optional<Result> result;
    std::exception_ptr failure;
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    {
        py::gil_scoped_release release;
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        std::thread worker([&] {
            try {
                result.emplace(work(hooks));
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard lock(m);
            done = true;
            cv.notify_one();
        });
        std::unique_lock lock(m);
        while (!cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
            lock.unlock();
            {
                py::gil_scoped_acquire acquire;
                if (PyErr_CheckSignals() != 0) {
                    PyErr_Fetch(&type, &value, &traceback);
                    cancel = true;
                }
            }
            lock.lock();
            if (cancel) break;
        }
        lock.unlock();
        worker.join();
    }
    if (type) {
        PyErr_Restore(type, value, traceback);
        throw py::error_already_set();
    }
    if (failure) std::rethrow_exception(failure);
    return std::move(*result);
}

// The heap sizes of a position given as a sequence of whole numbers (a
// list, a tuple, a one-dimensional numpy array of integers), each at most
// `max`. Anything else is an InputError that says what is wrong.
std::vector<uint64_t> whole_numbers(const py::object& position, uint64_t max) {
    if (py::isinstance<py::bytes>(position) || !py::isinstance<py::iterable>(position)) {
        throw InputError("a position is text (\"3 4 5\") or a sequence of whole numbers, not " +
                         std::string(py::str(py::type::of(position).attr("__name__"))));
    }
    if (py::isinstance<py::array>(position) && position.cast<py::array>().ndim() != 1)
        throw InputError("a position is one-dimensional: give one position, a row of heap sizes");
    std::vector<uint64_t> heaps;
    for (const py::handle h : position) {
        const std::string which = "heap " + std::to_string(heaps.size() + 1);
        // Whole numbers only: ints and numpy's integers (PyNumber_Index), not 3.0.
        PyObject* index = PyNumber_Index(h.ptr());
        if (!index) {
            PyErr_Clear();
            throw InputError(which + " is " + std::string(py::repr(h)) + ", not a whole number");
        }
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
        Py_DECREF(index);
        if (overflow < 0 || (!overflow && v < 0)) throw InputError(which + " is negative");
        if (overflow > 0 || uint64_t(v) > max) {
            throw InputError(which + " is " + std::string(py::repr(h)) + ", more than " +
                             std::to_string(max) + " tokens");
        }
        heaps.push_back(static_cast<uint64_t>(v));
    }
    return heaps;
}

// A position of a table: text ("3 4 5", "3,4,5") or whole numbers.
engine::Heaps heaps_of(const py::object& position) {
    if (py::isinstance<py::str>(position)) return engine::parse_heaps(position.cast<std::string>());
    const std::vector<uint64_t> sizes = whole_numbers(position, engine::Universe::MAX_HEAP_SIZE);
    return engine::Heaps(sizes.begin(), sizes.end());
}

// A position of heaps of any size up to 2^63, for a proven game.
std::vector<uint64_t> big_heaps_of(const py::object& position) {
    if (py::isinstance<py::str>(position))
        return engine::parse_big_heaps(position.cast<std::string>());
    return whole_numbers(position, uint64_t{1} << 63);
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
// close() (or leaving a `with` block) closes the file at once; a closed
// table refuses every question with TableError.
class Table {
  public:
    explicit Table(const std::filesystem::path& path) : path_(path.string()) {
        prober_.emplace(path_);
    }
    py::object info() { return to_python(service::info_json(prober().table())); }
    py::object query(const py::object& position, bool line) {
        return to_python(service::query_json(prober(), heaps_of(position), line));
    }
    py::object perfect_line(const py::object& position) {
        return to_python(service::query_json(prober(), heaps_of(position), true)["line"]);
    }
    py::tuple arrays() {
        engine::QuantityArray values, remoteness;
        prober().table().read_all(values, remoteness);
        return py::make_tuple(numpy_of(values), numpy_of(remoteness));
    }
    uint64_t rank(const py::object& position) {
        const engine::Universe& u = prober().universe();
        const engine::Heaps sorted = u.normalise(heaps_of(position));
        return u.rank(sorted);
    }
    // The position of a rank: its non-empty heaps, largest first.
    py::list unrank(int64_t rank) {
        const engine::Universe& u = prober().universe();
        if (rank < 0 || uint64_t(rank) >= u.size()) {
            throw InputError("rank " + std::to_string(rank) +
                             " is not in the table: ranks go from 0 to " +
                             std::to_string(u.size() - 1));
        }
        const engine::Heaps sorted = u.unrank(static_cast<uint64_t>(rank));
        py::list heaps;
        for (auto it = sorted.rbegin(); it != sorted.rend(); ++it)
            if (*it) heaps.append(*it);
        return heaps;
    }
    uint64_t size() { return prober().universe().size(); }
    void close() { prober_.reset(); }
    bool closed() const { return !prober_; }
    std::string repr() const {
        if (!prober_) return "<nimtb.Table '" + path_ + "' (closed)>";
        const io::TableInfo& i = prober_->table().info();
        return "<nimtb.Table '" + path_ + "': " + i.rules + " " + engine::to_string(i.convention) +
               ", " + prober_->universe().describe() + ", " + std::to_string(i.positions) +
               " positions>";
    }

  private:
    io::Prober& prober() {
        if (!prober_) throw TableError(path_ + ": the table is closed");
        return *prober_;
    }
    std::string path_;
    std::optional<io::Prober> prober_;
};

// A one-heap rule's game for heaps of any size, from its proven period:
// computed until proven (rules), or read from a sequence file.
class ProvenGame {
  public:
    ProvenGame(const std::optional<std::string>& rules,
               const std::optional<std::filesystem::path>& sequence, uint64_t limit)
        : proven_(make(rules, sequence, limit)) {}
    py::object query(const py::object& position) const {
        return to_python(service::proven_answer_json(proven_, big_heaps_of(position)));
    }
    py::object period() const { return to_python(service::period_json(proven_.period)); }
    std::string rules() const { return proven_.game.rule().canonical(); }
    std::string repr() const {
        return "<nimtb.ProvenGame " + rules() + ": period " +
               std::to_string(proven_.period.period) + " from heap " +
               std::to_string(proven_.period.preperiod) + ", proven>";
    }

  private:
    static service::ProvenGame make(const std::optional<std::string>& rules,
                                    const std::optional<std::filesystem::path>& sequence,
                                    uint64_t limit) {
        if (!rules && !sequence)
            throw InputError("give rules, or a sequence file made by sequence(path=...)");
        std::optional<engine::Rule> rule;
        if (rules) rule = engine::Rule::parse(*rules);
        if (sequence) return service::proven_game(sequence->string(), rule);
        return interruptible(
            [&](const service::Hooks& hooks) { return service::proven_game(*rule, limit, hooks); });
    }
    service::ProvenGame proven_;
};

Table solve(const std::string& rules, const std::filesystem::path& path,
            std::optional<unsigned> heaps, std::optional<uint32_t> max_heap,
            std::optional<uint32_t> max_total, bool misere, bool overwrite,
            const std::string& method, const std::string& kernel, bool remoteness, unsigned threads,
            const std::string& compression, std::optional<int> level,
            const std::optional<std::filesystem::path>& checkpoint) {
    if (max_total && max_heap) throw InputError("give max_heap or max_total, not both");
    if (!max_total && !(heaps && max_heap))
        throw InputError("give heaps and max_heap (a box), or max_total (and heaps)");
    service::SolveRequest r;
    r.rule = engine::Rule::parse(rules);
    r.convention = misere ? engine::Convention::misere : engine::Convention::normal;
    r.max_heaps = heaps.value_or(0);
    r.max_heap_size = max_heap.value_or(0);
    r.max_total = max_total;
    r.method = engine::parse_method(method);
    r.kernel = engine::parse_kernel(kernel);
    r.remoteness = remoteness;
    r.threads = threads;
    r.compression = io::parse_compression(compression);
    r.level = level;
    r.output = path.string();
    r.overwrite = overwrite;
    if (checkpoint) r.checkpoint = checkpoint->string();
    interruptible([&](const service::Hooks& hooks) { return service::solve_table(r, hooks); });
    return Table(r.output);
}

py::dict sequence(const std::string& rules, std::optional<uint64_t> max_heap, bool until_proven,
                  uint64_t limit, const std::string& method,
                  const std::optional<std::filesystem::path>& path, bool overwrite) {
    if (until_proven == max_heap.has_value())
        throw InputError("give max_heap or until_proven=True, not both or neither");
    service::SequenceRequest r;
    r.rule = engine::Rule::parse(rules);
    r.max_heap = max_heap;
    r.limit = limit;
    r.method = engine::parse_sequence_method(method);
    if (path) r.output = path->string();
    r.overwrite = overwrite;
    const engine::LongSequence s = interruptible(
        [&](const service::Hooks& hooks) { return service::compute_sequence(r, hooks); });
    py::dict d;
    d["rules"] = r.rule.canonical();
    d["algorithm"] = engine::to_string(s.method);
    d["values"] = numpy_of(s.values.data(), s.values.size());
    d["period"] = to_python(service::period_json(service::reported_period(r.rule, s)));
    return d;
}

}  // namespace

PYBIND11_MODULE(nimtb, m) {
    m.doc() = "nimtb: endgame tables of impartial heap games (Nim and its relatives)";
    m.attr("__version__") = VERSION;
    static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
    static py::exception<TableError> table_error(m, "TableError", PyExc_OSError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            input_error(python_words(e.what()).c_str());
        } catch (const TableError& e) {
            table_error(python_words(e.what()).c_str());
        } catch (const ResourceError& e) {
            PyErr_SetString(PyExc_MemoryError, python_words(e.what()).c_str());
        } catch (const Cancelled& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        }
    });

    py::class_<Table>(m, "Table", "A table file, opened and checked (nimtb solve writes them).")
        .def(py::init<const std::filesystem::path&>(), py::arg("path"))
        .def_property_readonly("info", &Table::info, "what `nimtb info --json` prints")
        .def("query", &Table::query, py::arg("position"), py::arg("line") = false,
             "to_move_wins, value, remoteness and every move best first: what `nimtb query --json` "
             "prints; `position` is text (\"3 4 5\") or a sequence of heap sizes")
        .def("line", &Table::perfect_line, py::arg("position"),
             "the moves of perfect play from `position` to the end")
        .def("arrays", &Table::arrays,
             "(values, remoteness) as numpy arrays indexed by rank; remoteness is None when "
             "the table has none")
        .def("rank", &Table::rank, py::arg("position"), "the rank of a position (docs/FORMAT.md)")
        .def("unrank", &Table::unrank, py::arg("rank"),
             "the position of a rank: its non-empty heaps, largest first")
        .def("__len__", &Table::size, "the number of positions")
        .def("close", &Table::close, "closes the file now (a closed table answers nothing)")
        .def_property_readonly("closed", &Table::closed)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](Table& t, const py::args&) { t.close(); })
        .def("__repr__", &Table::repr);

    py::class_<ProvenGame>(m, "ProvenGame",
                           "a one-heap rule's game for heaps of any size (up to 2**63), from its "
                           "proven period: `nimtb query --rules` / `--sequence`")
        .def(py::init<const std::optional<std::string>&,
                      const std::optional<std::filesystem::path>&, uint64_t>(),
             py::arg("rules") = py::none(), py::arg("sequence") = py::none(),
             py::arg("limit") = uint64_t{1} << 22,
             "computes the rule's sequence until a period is proven (up to `limit` heaps), or "
             "reads a sequence file; InputError when no period is proven")
        .def("query", &ProvenGame::query, py::arg("position"),
             "value, to_move_wins and a winning move: what `nimtb query --rules R --json` prints")
        .def_property_readonly("period", &ProvenGame::period)
        .def_property_readonly("rules", &ProvenGame::rules)
        .def("__repr__", &ProvenGame::repr);

    m.def("solve", &solve, py::arg("rules"), py::arg("path"), py::arg("heaps") = py::none(),
          py::arg("max_heap") = py::none(), py::arg("max_total") = py::none(),
          py::arg("misere") = false, py::arg("overwrite") = false, py::arg("method") = "brute",
          py::arg("kernel") = "auto", py::arg("remoteness") = true, py::arg("threads") = 0u,
          py::arg("compression") = "zstd", py::arg("level") = py::none(),
          py::arg("checkpoint") = py::none(),
          "solves a universe (heaps and max_heap, or max_total) and writes its table to `path`; "
          "returns it opened. Runs as `nimtb solve` does (method, kernel, remoteness, threads, "
          "compression and level, a checkpoint folder to resume from); Ctrl-C stops it and "
          "leaves no file; other Python threads run meanwhile");
    m.def("sequence", &sequence, py::arg("rules"), py::arg("max_heap") = py::none(),
          py::arg("until_proven") = false, py::arg("limit") = uint64_t{1} << 22,
          py::arg("method") = "auto", py::arg("path") = py::none(), py::arg("overwrite") = false,
          "the single-heap values g(0..) in normal play (numpy uint16) and the period: "
          "`nimtb sequence` (written to `path` as a sequence file when given); memory is "
          "checked first, Ctrl-C stops it, other Python threads run meanwhile");
}
