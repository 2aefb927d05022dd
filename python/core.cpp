// nimtb._core: the C++ half of `import nimtb` (python/nimtb/ is the Python
// half, which turns these plain answers into typed objects). Tables,
// queries, whole arrays, ranks both ways, solves, sequences, proven games and
// verify, over the service floor. Answers are the command's own JSON objects
// (service/views.h) turned into Python values, so that they are what
// `nimtb query --json` prints; errors are nimtb._errors' exceptions carrying
// the command's messages in Python's words.
//
// A solve, a sequence or a verify runs on a thread of its own while the
// caller's thread waits without the GIL: other Python threads run meanwhile,
// and the waiting thread takes the GIL every 50 ms to let Python handle
// signals and to call the progress callback, so Ctrl-C (or an exception in
// the callback) stops the work, leaves no file, and is raised.

#ifdef NIMTB_PYTHON_EMBEDDED
#include <pybind11/embed.h>
#endif
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
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
#include "io/sequence_file.h"
#include "service/dump.h"
#include "service/plane.h"
#include "service/quotients.h"
#include "service/request/words.h"
#include "service/sequences.h"
#include "service/solve.h"
#include "service/tables.h"
#include "service/verify.h"
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

// Runs work(hooks) on a thread of its own; see the top of this file.
// `progress` (None, or a callable of (done, total)) is called on this thread
// when the work has moved on, and once more at the end. The result, or the
// work's exception, comes back on the calling thread; a Python exception
// (KeyboardInterrupt, or the callback's) wins over the work's Cancelled.
template <class Work>
auto interruptible(Work work, const py::object& progress = py::none()) {
    using Result = decltype(work(std::declval<const service::Hooks&>()));
    std::atomic<bool> cancel{false};
    std::atomic<uint64_t> done_now{0}, total_now{0};
    service::Hooks hooks;
    hooks.cancel = &cancel;
    if (!progress.is_none()) {
        hooks.progress = [&](uint64_t done, uint64_t total) {
            total_now = total;
            done_now = done;
        };
    }
    uint64_t reported_done = 0, reported_total = 0;
    auto report = [&] {  // with the GIL; false when the callback raised
        const uint64_t done = done_now, total = total_now;
        if (progress.is_none() || (done == reported_done && total == reported_total)) return true;
        reported_done = done;
        reported_total = total;
        PyObject* r = PyObject_CallFunction(progress.ptr(), "KK", (unsigned long long)done,
                                            (unsigned long long)total);
        Py_XDECREF(r);
        return r != nullptr;
    };
    std::optional<Result> result;
    std::exception_ptr failure;
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    {
        py::gil_scoped_release release;
        std::mutex m;
        std::condition_variable cv;
        bool finished = false;
        std::thread worker([&] {
            try {
                result.emplace(work(hooks));
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard lock(m);
            finished = true;
            cv.notify_one();
        });
        std::unique_lock lock(m);
        while (!cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; })) {
            lock.unlock();
            {
                py::gil_scoped_acquire acquire;
                if (PyErr_CheckSignals() != 0 || !report()) {
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
    if (!type && !failure && !report()) PyErr_Fetch(&type, &value, &traceback);
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
    if (py::isinstance<py::str>(position))
        return service::typed_position(position.cast<std::string>());
    const std::vector<uint64_t> sizes = whole_numbers(position, engine::Universe::MAX_HEAP_SIZE);
    return engine::Heaps(sizes.begin(), sizes.end());
}

// A position of heaps of any size up to 2^63, for a proven game.
std::vector<uint64_t> big_heaps_of(const py::object& position) {
    if (py::isinstance<py::str>(position)) {
        const std::string text = position.cast<std::string>();
        service::refuse_blank_position(text);
        return engine::parse_big_heaps(text);
    }
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

// A sequence's values and period, as nimtb.Sequence takes them.
py::dict sequence_dict(const engine::Rule& rule, const std::string& algorithm,
                       const std::vector<uint16_t>& values, const engine::Periodicity& period) {
    py::dict d;
    d["rules"] = rule.canonical();
    d["algorithm"] = algorithm;
    d["values"] = numpy_of(values.data(), values.size());
    d["period"] = to_python(service::period_json(period));
    return d;
}

// A table opened for queries. Not thread-safe, like the prober under it.
// close() closes the file at once; a closed table refuses every question
// with TableError.
class Table {
  public:
    explicit Table(const std::filesystem::path& path) : path_(path.string()) {
        prober_.emplace(path_);
    }
    const std::string& path() const { return path_; }
    py::object info() { return to_python(service::info_json(prober().table())); }
    py::object query(const py::object& position, bool line) {
        return to_python(service::query_json(prober(), heaps_of(position), line));
    }
    bool contains(const py::object& position) {
        return prober().universe().holds(heaps_of(position));
    }
    py::tuple arrays() {
        engine::QuantityArray values, remoteness;
        prober().table().read_all(values, remoteness);
        return py::make_tuple(numpy_of(values), numpy_of(remoteness));
    }
    // The plane of positions a b *others (service/plane.h): (values,
    // remoteness), side x side each, NO_VALUE / NO_REMOTENESS outside.
    py::tuple plane(const py::object& others, uint32_t max_side) {
        const service::Plane p = service::plane_of(prober().table(), heaps_of(others), max_side);
        py::array_t<uint32_t> values({size_t{p.side}, size_t{p.side}});
        py::array_t<uint16_t> remoteness({size_t{p.side}, size_t{p.side}});
        std::copy(p.values.begin(), p.values.end(), values.mutable_data());
        std::copy(p.remoteness.begin(), p.remoteness.end(), remoteness.mutable_data());
        return py::make_tuple(values, remoteness);
    }
    uint64_t rank(const py::object& position) {
        const engine::Universe& u = prober().universe();
        return u.rank(u.normalise(heaps_of(position)));
    }
    // The ranks of the rows of an (M, K) array of whole numbers.
    py::array_t<uint64_t> rank_rows(const py::array_t<int64_t, py::array::c_style>& rows) {
        const engine::Universe& u = prober().universe();
        if (rows.ndim() != 2) throw InputError("positions are rows of a two-dimensional array");
        const auto n = static_cast<size_t>(rows.shape(0)), k = static_cast<size_t>(rows.shape(1));
        py::array_t<uint64_t> ranks(n);
        uint64_t* out = ranks.mutable_data();
        const int64_t* in = rows.data();
        engine::Heaps heaps(k);
        for (size_t i = 0; i < n; ++i) {
            for (size_t j = 0; j < k; ++j) {
                const int64_t v = in[i * k + j];
                if (v < 0 || uint64_t(v) > engine::Universe::MAX_HEAP_SIZE) {
                    throw InputError("row " + std::to_string(i) + ": heap " +
                                     std::to_string(j + 1) + " is " + std::to_string(v) +
                                     (v < 0 ? ", negative" : ", more than any table holds"));
                }
                heaps[j] = static_cast<uint32_t>(v);
            }
            try {
                out[i] = u.rank(u.normalise(heaps));
            } catch (const NotInTable& e) {
                throw NotInTable("row " + std::to_string(i) + ": " + e.what());
            }
        }
        return ranks;
    }
    // The positions of ranks [start, stop) as rows, largest heap first,
    // padded with empty heaps to the universe's K columns.
    py::array_t<uint32_t> positions(uint64_t start, uint64_t stop) {
        const engine::Universe& u = prober().universe();
        stop = std::min(stop, u.size());
        start = std::min(start, stop);
        const size_t k = u.max_heaps();
        py::array_t<uint32_t> rows({size_t(stop - start), k});
        uint32_t* out = rows.mutable_data();
        if (start == stop || k == 0) return rows;
        engine::Heaps sorted = u.unrank(start);
        for (uint64_t r = start;;) {
            std::copy(sorted.rbegin(), sorted.rend(), out + (r - start) * k);
            if (++r == stop) break;
            u.next(sorted);
        }
        return rows;
    }
    // The position of a rank: its non-empty heaps, largest first.
    py::tuple unrank(int64_t rank) {
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
        return py::tuple(heaps);
    }
    uint64_t size() { return prober().universe().size(); }
    std::string universe() { return prober().universe().describe(); }
    py::object census() {
        io::TableReader& t = prober().table();
        return to_python(service::census_json(t, service::count_table(t)));
    }
    py::object verify(const py::object& progress) {
        io::TableReader& t = prober().table();
        const engine::VerifyReport r = interruptible(
            [&](const service::Hooks& hooks) { return service::verify_table(t, hooks); }, progress);
        return to_python(service::verify_json(r, t.info()));
    }
    void close() { prober_.reset(); }
    bool closed() const { return !prober_; }

  private:
    io::Prober& prober() {
        if (!prober_) throw TableError(path_ + ": the table is closed");
        return *prober_;
    }
    std::string path_;
    std::optional<io::Prober> prober_;
};

// A folder of tables: the service's Tablebase, one definition of which
// table answers a position (the command's query --tables).
class Tablebase {
  public:
    explicit Tablebase(const std::filesystem::path& dir) : folder_(dir.string()) {}
    py::list tables() const {
        py::list out;
        for (const service::FolderTable& t : folder_.tables()) {
            py::dict d;
            d["path"] = t.path;
            d["rules"] = t.rule.canonical();
            d["convention"] = engine::to_string(t.convention);
            d["universe"] = t.universe.describe();
            d["positions"] = t.positions;
            out.append(d);
        }
        return out;
    }
    std::vector<std::string> skipped() const { return folder_.skipped(); }
    std::string table_for(const std::string& rules, bool misere, const py::object& position) const {
        const engine::Convention c =
            misere ? engine::Convention::misere : engine::Convention::normal;
        return folder_.table_for(engine::Rule::parse(rules), c, heaps_of(position)).path;
    }

  private:
    service::Tablebase folder_;
};

// A one-heap rule's game for heaps of any size, from its proven period:
// computed until proven (rules), or read from a sequence file. A rule no
// theorem gives a period for has its values computed as queries need them:
// at first none past FIRST_HEAPS, then at least twice as many each time a
// query goes beyond them, up to `limit` heaps.
class ProvenGame {
  public:
    ProvenGame(const std::optional<std::string>& rules,
               const std::optional<std::filesystem::path>& sequence, uint64_t limit,
               py::object progress)
        : limit_(limit), progress_(std::move(progress)) {
        if (!rules && !sequence)
            throw InputError("give rules, or a sequence file made by sequence(path=...)");
        if (rules) rule_ = engine::Rule::parse(*rules);
        if (sequence) {
            proven_ = service::proven_game(sequence->string(), rule_);
            rule_.reset();  // the file's values are all there is
        } else {
            compute(std::min(limit_, FIRST_HEAPS));
        }
    }
    py::object query(const py::object& position) {
        const std::vector<uint64_t> heaps = big_heaps_of(position);
        const uint64_t known = proven_->game.known_up_to();
        const uint64_t largest = heaps.empty() ? 0 : *std::max_element(heaps.begin(), heaps.end());
        if (rule_ && known < limit_ && largest > known && largest <= limit_)
            compute(std::min(limit_, std::max(largest, 2 * known)));
        return to_python(service::proven_answer_json(*proven_, heaps));
    }
    py::object period() const { return to_python(service::period_json(proven_->period)); }
    std::string rules() const { return proven_->game.rule().canonical(); }
    uint64_t known_up_to() const { return proven_->game.known_up_to(); }

  private:
    static constexpr uint64_t FIRST_HEAPS = 1024;
    void compute(uint64_t needed) {
        proven_ = interruptible(
            [&](const service::Hooks& hooks) {
                return service::proven_game(*rule_, limit_, hooks, needed);
            },
            progress_);
    }
    std::optional<engine::Rule> rule_;  // unset for a sequence file
    uint64_t limit_;
    py::object progress_;
    std::optional<service::ProvenGame> proven_;
};

// A request of Python's keywords as JSON, as nimtb's functions build it
// (docs/EVENTS.md): read by the one definition of its request type, which
// every front end shares.
nlohmann::json request_of(const std::string& text, const char* what) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw InputError(std::string("not a ") + what + " request: not JSON");
    return j;
}

Table solve(const std::string& request, const py::object& progress) {
    const service::SolveRequest r = service::solve_request_from_json(request_of(request, "solve"));
    interruptible([&](const service::Hooks& hooks) { return service::solve_table(r, hooks); },
                  progress);
    return Table(r.output);
}

py::dict sequence(const std::string& request, const py::object& progress) {
    const service::SequenceRequest r =
        service::sequence_request_from_json(request_of(request, "sequence"));
    const engine::LongSequence s = interruptible(
        [&](const service::Hooks& hooks) { return service::compute_sequence(r, hooks); }, progress);
    py::dict d = sequence_dict(r.rule, engine::to_string(s.method), s.values,
                               service::reported_period(r.rule, s));
    d["record"] = to_python(service::record_json(s.record));
    return d;
}

py::object quotient(const std::string& request, const py::object& progress) {
    const service::QuotientRequest r =
        service::quotient_request_from_json(request_of(request, "quotient"));
    const engine::MisereQuotient q = interruptible(
        [&](const service::Hooks& hooks) { return service::compute_quotient(r, hooks); }, progress);
    return to_python(service::quotient_json(r.rule, q, r.analyze));
}

py::object genus(const std::string& request, const py::object& progress) {
    const service::GenusRequest r = service::genus_request_from_json(request_of(request, "genus"));
    const engine::GenusTable t = interruptible(
        [&](const service::Hooks& hooks) { return service::compute_genus(r, hooks); }, progress);
    return to_python(service::genus_json(r.rule, t));
}

// Quotient.structure(): the monoid rebuilt from the table and P-portion
// the Python object holds (checked to be in range: a hand-made one may not be).
py::object quotient_structure(const py::array_t<uint32_t, py::array::c_style>& table,
                              const py::array_t<bool, py::array::c_style>& p) {
    engine::BipartiteMonoid m;
    m.order = static_cast<uint32_t>(p.size());
    if (m.order == 0 || table.ndim() != 2 || table.shape(0) != m.order || table.shape(1) != m.order)
        throw InputError("a quotient's table must be order x order, its P-portion order long");
    m.table.assign(table.data(), table.data() + table.size());
    m.p.assign(p.data(), p.data() + p.size());
    if (std::any_of(m.table.begin(), m.table.end(), [&](uint32_t x) { return x >= m.order; }))
        throw InputError("a quotient's table names an element past its order");
    return to_python(service::structure_json(m));
}

py::dict read_sequence(const std::filesystem::path& path) {
    const io::SequenceFile f = io::read_sequence(path.string());
    py::dict d = sequence_dict(f.rule, f.algorithm, f.values, f.period);
    if (f.record) d["record"] = to_python(service::record_json(*f.record));
    return d;
}

}  // namespace

#ifdef NIMTB_PYTHON_EMBEDDED
// Built into a program (tests/fuzz/fuzz_python.cpp) rather than loaded:
// the program imports it as nimtb._core.
PYBIND11_EMBEDDED_MODULE(_nimtb_core, m) {
#else
PYBIND11_MODULE(_core, m) {
#endif
    m.doc() = "the C++ half of nimtb (use the package: import nimtb)";
    m.attr("__version__") = VERSION;
    // The exceptions are Python classes (nimtb/_errors.py): NotInTableError
    // is both an InputError and a KeyError.
    const py::module_ errors = py::module_::import("nimtb._errors");
    // Held for the life of the process (released, so never decref'd after
    // the interpreter is gone).
    static PyObject* input_error = py::object(errors.attr("InputError")).release().ptr();
    static PyObject* not_in_table = py::object(errors.attr("NotInTableError")).release().ptr();
    static PyObject* table_error = py::object(errors.attr("TableError")).release().ptr();
    static PyObject* not_found = py::object(errors.attr("TableNotFoundError")).release().ptr();
    static PyObject* too_large = py::object(errors.attr("TooLargeError")).release().ptr();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const NotInTable& e) {
            PyErr_SetString(not_in_table, python_words(e.what()).c_str());
        } catch (const InputError& e) {
            PyErr_SetString(input_error, python_words(e.what()).c_str());
        } catch (const NoSuchFile& e) {
            PyErr_SetString(not_found, python_words(e.what()).c_str());
        } catch (const TableError& e) {
            PyErr_SetString(table_error, python_words(e.what()).c_str());
        } catch (const MemoryShortfall& e) {
            PyErr_SetString(PyExc_MemoryError, python_words(e.what()).c_str());
        } catch (const ResourceError& e) {
            PyErr_SetString(too_large, python_words(e.what()).c_str());
        } catch (const Cancelled& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        }
    });

    py::class_<Tablebase>(m, "Tablebase")
        .def(py::init<const std::filesystem::path&>(), py::arg("dir"))
        .def("tables", &Tablebase::tables)
        .def("skipped", &Tablebase::skipped)
        .def("table_for", &Tablebase::table_for, py::arg("rules"), py::arg("misere"),
             py::arg("position"));
    py::class_<Table>(m, "Table")
        .def(py::init<const std::filesystem::path&>(), py::arg("path"))
        .def_property_readonly("path", &Table::path)
        .def("info", &Table::info)
        .def("query", &Table::query, py::arg("position"), py::arg("line"))
        .def("contains", &Table::contains, py::arg("position"))
        .def("arrays", &Table::arrays)
        .def("plane", &Table::plane, py::arg("others"), py::arg("max_side"))
        .def("rank", &Table::rank, py::arg("position"))
        .def("rank_rows", &Table::rank_rows, py::arg("rows"))
        .def("positions", &Table::positions, py::arg("start"), py::arg("stop"))
        .def("unrank", &Table::unrank, py::arg("rank"))
        .def("size", &Table::size)
        .def("universe", &Table::universe)
        .def("census", &Table::census)
        .def("verify", &Table::verify, py::arg("progress"))
        .def("close", &Table::close)
        .def_property_readonly("closed", &Table::closed);

    py::class_<ProvenGame>(m, "ProvenGame")
        .def(py::init<const std::optional<std::string>&,
                      const std::optional<std::filesystem::path>&, uint64_t, const py::object&>(),
             py::arg("rules"), py::arg("sequence"), py::arg("limit"), py::arg("progress"))
        .def("query", &ProvenGame::query, py::arg("position"))
        .def("period", &ProvenGame::period)
        .def("rules", &ProvenGame::rules)
        .def("known_up_to", &ProvenGame::known_up_to);

    m.def("solve", &solve, py::arg("request"), py::arg("progress"));
    m.def("sequence", &sequence, py::arg("request"), py::arg("progress"));
    m.def("read_sequence", &read_sequence, py::arg("path"));
    m.def("quotient", &quotient, py::arg("request"), py::arg("progress"));
    m.def("quotient_structure", &quotient_structure, py::arg("table"), py::arg("p"));
    m.def("genus", &genus, py::arg("request"), py::arg("progress"));
}
