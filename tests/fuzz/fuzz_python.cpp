// libFuzzer: the conversions of `import nimtb`, Python values into nimtb's
// requests. The module (python/core.cpp) is built into this program and the
// package (python/nimtb/) imported from the source tree by an embedded
// interpreter. Each input is decoded into a call of the public API (a table's
// query, get, rank, unrank, positions, a proven game's query, a quotient's
// element, sequence, quotient, Table and read_sequence) with arguments of
// any type: ints of any size, floats, text, bytes, lists, tuples, numpy
// arrays of every kind and shape. Every call either answers or raises one of
// the errors the API documents (nimtb's InputError, TableError,
// NotInTableError; TypeError, ValueError, OverflowError, IndexError,
// KeyError); anything else — SystemError, RuntimeError (an exception C++ did
// not translate), a crash — is a finding.
#include <pybind11/embed.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace py = pybind11;

// Python's own allocations live until exit: not nimtb's leaks.
extern "C" const char* __asan_default_options() {
    return "detect_leaks=0";
}

namespace {

// The decoder of inputs and the calls, in Python: a value is a tag byte and
// what that tag needs; a call is a byte choosing the function and its values.
constexpr const char* HARNESS = R"PY(
import importlib.abc, importlib.util, operator, os, sys, tempfile
import numpy as np

class _Embedded(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "nimtb._core" else None
    def create_module(self, spec):
        return importlib.import_module("_nimtb_core")
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Embedded())
sys.path.insert(0, PACKAGE_DIR)
import nimtb

work = tempfile.mkdtemp(prefix="nimtb-fuzz-python-")
table = nimtb.solve("nim", os.path.join(work, "t.h5"), heaps=3, max_heap=7, misere=True)
game = nimtb.ProvenGame("octal:0.77")
kayles = nimtb.quotient("octal:0.75", 12)
nimtb.sequence("octal:0.77", 200, path=os.path.join(work, "s.h5"))

ALLOWED = (nimtb.InputError, nimtb.TableError, TypeError, ValueError, OverflowError, IndexError,
           KeyError)
DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float32, np.float64, np.bool_, object]
SMALL = [0, 1, 2, 3, 7, 8, -1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, 10**30]

class Input:
    def __init__(self, data):
        self.data, self.at = data, 0
    def byte(self):
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]
    def bytes(self, n):
        b = self.data[self.at:self.at + n]
        self.at += len(b)
        return b
    def value(self, depth=0):
        tag = self.byte() % 14
        if tag == 0:
            return SMALL[self.byte() % len(SMALL)]
        if tag == 1:
            return int.from_bytes(self.bytes(8), "little", signed=True)
        if tag == 2:
            return self.bytes(self.byte() % 32).decode("utf-8", "replace")
        if tag == 3:
            return " ".join(str(self.byte()) for _ in range(self.byte() % 6))
        if tag == 4:
            return self.bytes(self.byte() % 16)
        if tag == 5:
            return [float("nan"), float("inf"), 3.0, -0.5, 1e300][self.byte() % 5]
        if tag in (6, 7) and depth < 3:
            items = [self.value(depth + 1) for _ in range(self.byte() % 5)]
            return items if tag == 6 else tuple(items)
        if tag == 8:
            dtype = DTYPES[self.byte() % len(DTYPES)]
            shape = [(), (0,), (3,), (2, 3), (1, 1, 2), (4,)][self.byte() % 6]
            raw = [SMALL[self.byte() % len(SMALL)] % 300 for _ in range(int(np.prod(shape)))]
            return np.array(raw).astype(dtype).reshape(shape)  # the casts may overflow: on purpose
        if tag == 9:
            return None
        if tag == 10:
            return bool(self.byte() & 1)
        if tag == 11:
            return iter([self.byte() % 8 for _ in range(self.byte() % 4)])
        if tag == 12:
            return np.uint64(SMALL[self.byte() % len(SMALL)] % 2**64)
        return ["nim", "octal:0.77", "subtract:1,3,4", "wythoff", "grundy", "octal:0.7x",
                os.path.join(work, "t.h5"), os.path.join(work, "s.h5"), work][self.byte() % 9]

def bounded(v, most):
    """A size of work: a whole number (of any type) kept below `most`, anything else as it
    is (the call refuses it): the harness asks for conversions, not hours of work."""
    try:
        n = operator.index(v.item() if isinstance(v, np.ndarray) and v.size == 1 else v)
    except (TypeError, ValueError):
        return v
    return n % most if n >= 0 and not isinstance(v, bool) else v

CALLS = [
    lambda i: table.query(i.value()),
    lambda i: table.query(i.value(), line=i.value()),
    lambda i: table.get(i.value()),
    lambda i: table.rank(i.value()),
    lambda i: table.unrank(i.value()),
    lambda i: table.positions(i.value(), i.value()),
    lambda i: i.value() in table,
    lambda i: table[i.value()],
    lambda i: game.query(i.value()),
    lambda i: kayles.element(i.value()),
    lambda i: kayles.outcome(i.value()),
    lambda i: nimtb.sequence(i.value(), bounded(i.value(), 300)),
    lambda i: nimtb.quotient(i.value(), bounded(i.value(), 16)),
    lambda i: nimtb.Table(i.value()),
    lambda i: nimtb.read_sequence(i.value()),
    lambda i: nimtb.ProvenGame(i.value(), limit=bounded(i.value(), 300)),
    lambda i: nimtb.ProvenGame(sequence=i.value()),
]

def fuzz_one(data):
    i = Input(data)
    call = CALLS[i.byte() % len(CALLS)]
    try:
        call(i)
    except ALLOWED:
        pass
)PY";

py::object fuzz_one;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    py::initialize_interpreter();
    py::dict scope = py::module_::import("__main__").attr("__dict__");
    scope["PACKAGE_DIR"] = NIMTB_PYTHON_PACKAGE_DIR;
    py::exec(HARNESS, scope);
    fuzz_one = scope["fuzz_one"];
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        fuzz_one(py::bytes(reinterpret_cast<const char*>(data), size));
    } catch (const py::error_already_set& e) {
        // An exception the API does not document: print it, then stop as a crash.
        std::fprintf(stderr, "%s\n", e.what());
        std::abort();
    }
    return 0;
}
