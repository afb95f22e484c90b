// _mapr: the thin pybind11 layer under the `mapr` Python package
// (bindings/python/mapr/__init__.py holds the Pythonic API and docs).
//
// Aggregation runs with the GIL released. Lines from Python are converted
// in chunks: while holding the GIL, up to kChunkLines str/bytes objects are
// turned into string_views (ASCII str objects expose their bytes without a
// copy) and a reference to each is held; then the GIL is released for
// Aggregator::PushLines over the whole chunk. A mutex per aggregator keeps
// the C++ object thread-compatible when Python threads share one.
//
// (Overlapping conversion and aggregation on two threads was measured to be
// slower: both touch the same string objects, so cache lines move between
// cores. One thread converting, then aggregating, is faster.)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "mapr/journal.h"
#include "mapr/mapr.h"
#include "mapr/partial.h"

namespace py = pybind11;

namespace {

// Lines converted per GIL release: big enough to amortize the release and
// the engine's per-call work, small enough to bound the references held.
constexpr size_t kChunkLines = 8 * mapr::kMaxBatchRows;
constexpr size_t kFileChunkBytes = 1 << 20;

// The exception classes, defined in Python and handed over at import time
// (_set_error_types). Leaked on purpose: they live as long as the process.
PyObject* g_mapr_error = nullptr;
PyObject* g_query_error = nullptr;
PyObject* g_partial_error = nullptr;

std::string Str(absl::string_view s) { return std::string(s.data(), s.size()); }

// What Raise() raises.
enum class ErrorKind { kMapr, kQuery, kPartial };

// Raises MaprError (QueryError for query problems, PartialError for the
// partial functions) for `status`.
[[noreturn]] void Raise(const absl::Status& status, ErrorKind kind) {
  PyObject* cls = g_mapr_error;
  if (kind == ErrorKind::kQuery &&
      status.code() == absl::StatusCode::kInvalidArgument) {
    cls = g_query_error;
  } else if (kind == ErrorKind::kPartial && g_partial_error != nullptr) {
    cls = g_partial_error;
  }
  std::string message = Str(status.message());
  if (cls == nullptr) {  // _mapr used without the mapr package.
    throw std::runtime_error(message);
  }
  std::optional<mapr::SourceSpan> span = mapr::GetSourceSpan(status);
  py::object none = py::none();
  py::object exc = py::reinterpret_borrow<py::object>(cls)(
      message, absl::StatusCodeToString(status.code()),
      span ? py::int_(span->line) : none, span ? py::int_(span->column) : none,
      span ? py::int_(span->offset) : none,
      span ? py::int_(span->length) : none);
  PyErr_SetObject(cls, exc.ptr());
  throw py::error_already_set();
}

[[noreturn]] void Raise(const absl::Status& status, bool query_error) {
  Raise(status, query_error ? ErrorKind::kQuery : ErrorKind::kMapr);
}

void Check(const absl::Status& status, bool query_error = false) {
  if (!status.ok()) Raise(status, query_error);
}

template <typename T>
T Take(absl::StatusOr<T> v, bool query_error = false) {
  if (!v.ok()) Raise(v.status(), query_error);
  return std::move(*v);
}

// Check() and Take() for the partial functions: PartialError.
void CheckPartial(const absl::Status& status) {
  if (!status.ok()) Raise(status, ErrorKind::kPartial);
}
template <typename T>
T TakePartial(absl::StatusOr<T> v) {
  if (!v.ok()) Raise(v.status(), ErrorKind::kPartial);
  return std::move(*v);
}

py::bytes Bytes(const std::string& s) { return py::bytes(s.data(), s.size()); }

// A view of a bytes-like object's buffer (bytes, bytearray, memoryview),
// valid while `buffer` lives.
std::string_view BufferView(const py::buffer_info& info) {
  return std::string_view(static_cast<const char*>(info.ptr),
                          static_cast<size_t>(info.size * info.itemsize));
}

// The counters as {name: value}, named and ordered by mapr::kLineCounterFields.
py::dict CountersDict(const mapr::LineCounters& c) {
  py::dict d;
  for (const mapr::LineCounterField& f : mapr::kLineCounterFields) {
    d[py::str(f.name.data(), f.name.size())] = c.*f.value;
  }
  return d;
}

// A row as Python values: count -> int, other numeric kinds -> float (the
// unrounded value), last() -> str.
py::tuple TypedRow(const mapr::ResultTable& t, size_t row) {
  py::tuple out(t.num_columns());
  for (size_t c = 0; c < t.num_columns(); ++c) {
    const mapr::ValueType type = t.columns()[c].type;
    double v = t.value(row, c);
    if (type == mapr::ValueType::kText) {
      const std::string_view cell = t.cell(row, c);
      out[c] = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
          cell.data(), static_cast<Py_ssize_t>(cell.size()), "replace"));
    } else if (type == mapr::ValueType::kInteger) {
      out[c] = py::int_(static_cast<long long>(v));
    } else {
      out[c] = py::float_(v);
    }
  }
  return out;
}

py::str Text(std::string_view s) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
      s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

mapr::AggregatorOptions MakeOptions(const std::optional<std::string>& hostname,
                                    std::optional<size_t> max_line_bytes,
                                    std::optional<uint64_t> max_groups,
                                    std::optional<size_t> result_threads) {
  mapr::AggregatorOptions options;
  if (hostname) options.hostname = *hostname;
  if (max_line_bytes) options.max_line_bytes = *max_line_bytes;
  if (max_groups) options.max_groups = *max_groups;
  if (result_threads) options.result_threads = *result_threads;
  return options;
}

// A mapr::PartialReducer with the GIL released and a mutex held per call.
struct PyPartialReducer {
  explicit PyPartialReducer(const mapr::AggregatorOptions& o) : reducer(o) {}
  mapr::PartialReducer reducer;
  absl::Mutex mu;

  template <typename F>
  auto Locked(F&& f) {
    py::gil_scoped_release release;
    absl::MutexLock lock(&mu);
    return f(reducer);
  }
};

struct PyAggregator {
  explicit PyAggregator(mapr::Aggregator a) : agg(std::move(a)) {}
  mapr::Aggregator agg;
  absl::Mutex mu;
  // Set if a C++ exception escaped the engine mid-batch (see mapr/c_api.h).
  std::atomic<bool> poisoned{false};
  // Set by serialize_partial(): the input has ended; finish() only takes
  // the result.
  bool input_finished = false;

  void CheckUsable() const {
    if (poisoned) {
      Check(absl::InternalError(
          "the aggregator is unusable after an earlier internal error"));
    }
  }

  // Runs `f` on the aggregator with the GIL released and the mutex held.
  template <typename F>
  auto Locked(F&& f) {
    CheckUsable();
    py::gil_scoped_release release;
    absl::MutexLock lock(&mu);
    try {
      return f(agg);
    } catch (...) {
      poisoned = true;
      throw;
    }
  }
};

// Holds references to the Python objects whose bytes a chunk points into.
class RefHolder {
 public:
  ~RefHolder() { Clear(); }
  void Add(PyObject* o) { refs_.push_back(o); }  // Steals a reference.
  void Clear() {
    for (PyObject* o : refs_) Py_DECREF(o);
    refs_.clear();
  }

 private:
  std::vector<PyObject*> refs_;
};

// The bytes of a str (UTF-8) or bytes object. Raises TypeError otherwise.
std::string_view LineView(PyObject* item) {
  if (PyUnicode_Check(item)) {
    if (PyUnicode_IS_COMPACT_ASCII(item)) {  // Fast path: the bytes are inline.
      return std::string_view(static_cast<const char*>(PyUnicode_DATA(item)),
                              static_cast<size_t>(PyUnicode_GET_LENGTH(item)));
    }
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(item, &n);
    if (p == nullptr) throw py::error_already_set();
    return std::string_view(p, static_cast<size_t>(n));
  }
  if (PyBytes_Check(item)) {
    return std::string_view(PyBytes_AS_STRING(item),
                            static_cast<size_t>(PyBytes_GET_SIZE(item)));
  }
  PyErr_Format(PyExc_TypeError, "lines must be str or bytes, not %.200s",
               Py_TYPE(item)->tp_name);
  throw py::error_already_set();
}

void PushIterable(PyAggregator& self, py::handle lines, uint64_t source) {
  self.CheckUsable();
  std::vector<std::string_view> views;
  RefHolder refs;
  auto flush = [&] {
    if (views.empty()) return;
    absl::Status s = self.Locked(
        [&](mapr::Aggregator& a) { return a.PushLines(views, source); });
    views.clear();
    refs.Clear();
    Check(s);
  };
  if (PyList_Check(lines.ptr()) || PyTuple_Check(lines.ptr())) {
    // Fast path: index the sequence directly. A reference to each item is
    // held, so another thread mutating the list cannot free the bytes.
    PyObject* seq = lines.ptr();
    const bool is_list = PyList_Check(seq);
    views.reserve(kChunkLines);
    for (Py_ssize_t i = 0;; ++i) {
      Py_ssize_t size = is_list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
      if (i >= size) break;
      PyObject* item =
          is_list ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
      Py_INCREF(item);
      refs.Add(item);
      views.push_back(LineView(item));
      if (views.size() == kChunkLines) flush();
    }
  } else {
    py::iterator it = py::iter(lines);
    views.reserve(kChunkLines);
    while (true) {
      PyObject* item = PyIter_Next(it.ptr());
      if (item == nullptr) {
        if (PyErr_Occurred()) throw py::error_already_set();
        break;
      }
      refs.Add(item);
      views.push_back(LineView(item));
      if (views.size() == kChunkLines) flush();
    }
  }
  flush();
}

void PushBuffer(PyAggregator& self, py::handle data, uint64_t source) {
  if (PyUnicode_Check(data.ptr())) {
    throw py::type_error("push_bytes needs a bytes-like object, not str");
  }
  Py_buffer view;
  // PyBUF_SIMPLE: contiguous bytes. While the view is held a bytearray
  // cannot be resized, so the bytes stay put with the GIL released.
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) {
    throw py::error_already_set();
  }
  std::unique_ptr<Py_buffer, void (*)(Py_buffer*)> release(&view,
                                                           PyBuffer_Release);
  std::string_view data_view(static_cast<const char*>(view.buf),
                             static_cast<size_t>(view.len));
  Check(self.Locked([&](mapr::Aggregator& a) {
    // Slices keep the splitter's line array small (and in cache) when a
    // whole file arrives as one buffer.
    absl::Status st;
    for (size_t i = 0; st.ok() && i < data_view.size(); i += kFileChunkBytes) {
      st = a.PushBytes(data_view.substr(i, kFileChunkBytes), source);
    }
    return st;
  }));
}

// Reads a file through the library's input layer (mapr::PushFile: the same
// decompression, refusals and line cutting as the `mapr` command). A file
// that cannot be opened raises the OSError subclass Python's open() would
// (FileNotFoundError, PermissionError); every other problem MaprError.
// Raises `s` for the file `path`: the OSError subclass Python's open() would
// raise for a missing or unreadable file, else MaprError.
void CheckFile(const absl::Status& s, const std::string& path) {
  if (s.ok()) return;
  int error_number = 0;
  if (absl::IsNotFound(s)) error_number = ENOENT;
  if (absl::IsPermissionDenied(s)) error_number = EACCES;
  if (error_number != 0) {
    errno = error_number;
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
    throw py::error_already_set();
  }
  Check(s);
}

void PushFile(PyAggregator& self, const std::string& path, uint64_t source) {
  CheckFile(self.Locked([&](mapr::Aggregator& a) {
    return mapr::PushFile(a, path, source);
  }),
            path);
}

// Reads systemd's journal (mapr/journal.h) into the aggregator, without the
// GIL; returns the cursor of the last entry read. A file that cannot be
// opened raises the OSError subclass Python's open() would.
std::string PushJournal(PyAggregator& self,
                        const std::vector<std::string>& files,
                        const std::string& directory,
                        const std::string& after_cursor) {
  mapr::JournalSpec spec;
  spec.files = files;
  spec.directory = directory;
  spec.after_cursor = after_cursor;
  std::string cursor;
  absl::Status s = self.Locked([&](mapr::Aggregator& a) -> absl::Status {
    absl::StatusOr<std::unique_ptr<mapr::JournalReader>> reader =
        mapr::JournalReader::Open(spec);
    if (!reader.ok()) return reader.status();
    absl::Status read =
        (*reader)->ReadAll([&](std::span<const std::string_view> lines) {
          return a.PushLines(lines);
        });
    cursor = (*reader)->cursor();
    return read;
  });
  CheckFile(s, files.empty() ? directory : files[0]);
  return cursor;
}

// Runs a query over files and globs on `threads` threads (mapr::QueryFiles)
// with the GIL released. The callbacks, which mapr/files.h calls on this
// thread and never concurrently, take the GIL back; the first exception one
// raises is kept, later calls are skipped, and it is raised after the run.
// Returns (result, inputs_ok, inputs_failed, [(name, code, message)]), names
// as bytes (the package decodes them with os.fsdecode).
py::tuple QueryFiles(const mapr::Query& query,
                     const std::vector<std::string>& names, int threads,
                     std::optional<std::string> hostname,
                     std::optional<size_t> max_line_bytes,
                     std::optional<uint64_t> max_groups, py::object on_problem,
                     py::object on_progress, double progress_interval) {
  mapr::FilesOptions options;
  options.threads = std::max(1, threads);
  options.aggregator =
      MakeOptions(hostname, max_line_bytes, max_groups, std::nullopt);
  options.progress_interval = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.0, progress_interval) * 1000));
  std::exception_ptr callback_error;
  // The lambdas hold only references: the options may be copied by the run
  // without the GIL, and copying a py::object needs it.
  if (!on_problem.is_none()) {
    options.on_problem = [&](const mapr::InputProblem& p) {
      py::gil_scoped_acquire gil;
      if (callback_error) return;
      try {
        on_problem(Bytes(p.name), absl::StatusCodeToString(p.status.code()),
                   Text(Str(p.status.message())));
      } catch (...) {
        callback_error = std::current_exception();
      }
    };
  }
  if (!on_progress.is_none()) {
    options.on_progress = [&](const mapr::FilesProgress& p) {
      py::gil_scoped_acquire gil;
      if (callback_error) return;
      try {
        on_progress(p.bytes_read, p.total_bytes, p.lines,
                    std::chrono::duration<double>(p.elapsed).count(), p.done);
      } catch (...) {
        callback_error = std::current_exception();
      }
    };
  }
  mapr::FilesReport report;
  absl::StatusOr<mapr::ResultTable> table;
  {
    py::gil_scoped_release release;
    table = mapr::QueryFiles(query, names, options, &report);
  }
  if (callback_error) std::rethrow_exception(callback_error);
  mapr::ResultTable result = Take(std::move(table));
  py::list problems;
  for (const mapr::InputProblem& p : report.problems) {
    problems.append(py::make_tuple(Bytes(p.name),
                                   absl::StatusCodeToString(p.status.code()),
                                   Text(Str(p.status.message()))));
  }
  return py::make_tuple(std::move(result), report.inputs_ok,
                        report.inputs_failed, problems);
}

}  // namespace

PYBIND11_MODULE(_mapr, m) {
  m.doc() =
      "Low-level bindings of the mapr C++ library; use the `mapr` package.";
  m.attr("version") = MAPR_VERSION_STRING;
  {
    // The names of the line counters (mapr::kLineCounterFields), in order:
    // the fields of mapr.Stats.
    py::tuple names(std::size(mapr::kLineCounterFields));
    for (size_t i = 0; i < std::size(mapr::kLineCounterFields); ++i) {
      const std::string_view name = mapr::kLineCounterFields[i].name;
      names[i] = py::str(name.data(), name.size());
    }
    m.attr("line_counters") = names;
  }

  m.def(
      "_set_error_types",
      [](py::object mapr_error, py::object query_error,
         py::object partial_error) {
        Py_XDECREF(g_mapr_error);
        Py_XDECREF(g_query_error);
        Py_XDECREF(g_partial_error);
        g_mapr_error = mapr_error.release().ptr();
        g_query_error = query_error.release().ptr();
        g_partial_error =
            partial_error.is_none() ? nullptr : partial_error.release().ptr();
      },
      "Registers the MaprError and QueryError classes raised by _mapr.");

  m.def(
      "log_format_line_independent",
      [](const std::string& name) {
        return mapr::LogFormatIsLineIndependent(name);
      },
      py::arg("name"),
      "True if the registered log format `name` parses every line on its "
      "own, so that its files may be cut into byte ranges "
      "(LogFormat::line_independent).");

  m.def(
      "inspect_partial",
      [](py::buffer data) {
        py::buffer_info buf = data.request();
        absl::StatusOr<mapr::PartialInfo> info = [&] {
          py::gil_scoped_release release;
          return mapr::InspectPartial(BufferView(buf));
        }();
        const mapr::PartialInfo i = TakePartial(std::move(info));
        py::dict d;
        d["major"] = i.major;
        d["minor"] = i.minor;
        d["query"] = Text(i.query);
        d["log_format"] = Text(i.log_format);
        d["fingerprint"] = py::make_tuple(i.fingerprint[0], i.fingerprint[1]);
        d["splits"] = py::make_tuple(i.splits.begin, i.splits.end);
        d["source"] = Text(i.source);
        d["final"] = i.mark.final;
        py::list positions;
        for (const mapr::InputPosition& p : i.mark.positions) {
          positions.append(py::make_tuple(Text(p.input), p.offset));
        }
        d["positions"] = positions;
        d["partitions"] = i.partitions;
        d["partition"] = i.partition;
        d["stats"] = CountersDict(i.counters);
        d["groups"] = i.groups;
        d["frame_bytes"] = i.frame_bytes;
        return d;
      },
      py::arg("data"));

  m.def("query_files", &QueryFiles, py::arg("query"), py::arg("names"),
        py::arg("threads"), py::arg("hostname"), py::arg("max_line_bytes"),
        py::arg("max_groups"), py::arg("on_problem"), py::arg("on_progress"),
        py::arg("progress_interval"),
        "Runs a query over files and glob patterns (mapr::QueryFiles).");

  py::class_<mapr::Query>(m, "Query", "A compiled query (mapr::Query).")
      .def_static(
          "compile",
          [](const std::string& text, size_t max_query_bytes, size_t max_depth,
             size_t max_items, int64_t percentile_exact_values,
             double percentile_accuracy, bool allow_file_lookups) {
            mapr::CompileOptions options;
            options.allow_file_lookups = allow_file_lookups;
            if (max_query_bytes != 0) options.max_query_bytes = max_query_bytes;
            if (max_depth != 0) options.max_depth = max_depth;
            if (max_items != 0) options.max_items = max_items;
            if (percentile_exact_values >= 0) {
              options.percentile_exact_values = static_cast<uint32_t>(
                  std::min<int64_t>(percentile_exact_values, INT32_MAX));
            }
            if (percentile_accuracy != 0) {
              options.percentile_accuracy = percentile_accuracy;
            }
            return Take(mapr::Query::Compile(text, options),
                        /*query_error=*/true);
          },
          py::arg("text"), py::arg("max_query_bytes") = 0,
          py::arg("max_depth") = 0, py::arg("max_items") = 0,
          py::arg("percentile_exact_values") = -1,
          py::arg("percentile_accuracy") = 0.0,
          py::arg("allow_file_lookups") = false)
      .def_property_readonly("text", &mapr::Query::text)
      .def_property_readonly("columns", &mapr::Query::column_names)
      .def_property_readonly("warnings", &mapr::Query::warnings)
      .def_property_readonly("log_format", &mapr::Query::log_format)
      .def_property_readonly("multiline", &mapr::Query::multiline)
      .def_property_readonly("interval_ms", &mapr::Query::interval_ms)
      .def_property_readonly("limit", &mapr::Query::limit)
      .def_property_readonly("outfile", &mapr::Query::outfile)
      .def_property_readonly("outfile_append", &mapr::Query::outfile_append)
      .def("to_string", &mapr::Query::ToString)
      .def("explain", &mapr::Query::Explain)
      .def("write_outfile",
           [](const mapr::Query& q, const mapr::ResultTable& r) {
             absl::Status s;
             {
               py::gil_scoped_release release;
               s = mapr::WriteOutfile(q, r);
             }
             Check(s);
           });

  py::class_<mapr::ResultTable>(m, "Result",
                                "A query result (mapr::ResultTable).")
      .def_property_readonly("columns",
                             [](const mapr::ResultTable& t) {
                               py::list out;
                               for (const auto& c : t.columns()) {
                                 out.append(Text(c.name));
                               }
                               return out;
                             })
      .def_property_readonly("column_kinds",
                             [](const mapr::ResultTable& t) {
                               py::list out;
                               for (const auto& c : t.columns()) {
                                 out.append(c.aggregate);
                               }
                               return out;
                             })
      .def_property_readonly("num_rows", &mapr::ResultTable::num_rows)
      .def_property_readonly("total_groups", &mapr::ResultTable::total_groups)
      .def_property_readonly(
          "notes",
          [](const mapr::ResultTable& t) {
            py::list out;
            for (const mapr::ResultNote& n : t.notes()) {
              out.append(py::make_tuple(n.code, Text(n.text)));
            }
            return out;
          })
      .def("rows",
           [](const mapr::ResultTable& t) {
             py::list out(t.num_rows());
             for (size_t r = 0; r < t.num_rows(); ++r) out[r] = TypedRow(t, r);
             return out;
           })
      .def("cells",
           [](const mapr::ResultTable& t) {
             py::list out(t.num_rows());
             for (size_t r = 0; r < t.num_rows(); ++r) {
               py::tuple row(t.num_columns());
               for (size_t c = 0; c < t.num_columns(); ++c) {
                 row[c] = Text(t.cell(r, c));
               }
               out[r] = row;
             }
             return out;
           })
      .def("values",
           [](const mapr::ResultTable& t) {
             py::list out(t.num_rows());
             for (size_t r = 0; r < t.num_rows(); ++r) {
               py::tuple row(t.num_columns());
               for (size_t c = 0; c < t.num_columns(); ++c) {
                 row[c] = py::float_(t.value(r, c));
               }
               out[r] = row;
             }
             return out;
           })
      .def("stats",
           [](const mapr::ResultTable& t) { return CountersDict(t.stats()); })
      .def("to_csv", [](const mapr::ResultTable& t) { return Text(t.ToCsv()); })
      .def("to_json",
           [](const mapr::ResultTable& t) { return Text(t.ToJson()); })
      .def("to_ndjson",
           [](const mapr::ResultTable& t) { return Text(t.ToNdjson()); })
      .def(
          "to_table",
          [](const mapr::ResultTable& t, int64_t max_rows) {
            mapr::TableOptions options;
            options.max_rows = max_rows;
            return Text(t.ToTable(options));
          },
          py::arg("max_rows") = -1)
      .def("__eq__", [](const mapr::ResultTable& a,
                        const mapr::ResultTable& b) { return a == b; });

  py::class_<PyPartialReducer>(
      m, "PartialReducer",
      "Merges the partials of several sources (mapr::PartialReducer).")
      .def(py::init([](std::optional<std::string> hostname,
                       std::optional<uint64_t> max_groups,
                       std::optional<size_t> result_threads,
                       std::optional<std::string> partial_lookup_dir) {
             mapr::AggregatorOptions options = MakeOptions(
                 hostname, std::nullopt, max_groups, result_threads);
             if (partial_lookup_dir) {
               options.partial_lookup_dir = *partial_lookup_dir;
             }
             return std::make_unique<PyPartialReducer>(options);
           }),
           py::arg("hostname") = py::none(), py::arg("max_groups") = py::none(),
           py::arg("result_threads") = py::none(),
           py::arg("partial_lookup_dir") = py::none())
      .def("declare_source",
           [](PyPartialReducer& self, const std::string& source) {
             self.Locked(
                 [&](mapr::PartialReducer& r) { r.DeclareSource(source); });
           })
      .def("add",
           [](PyPartialReducer& self, py::buffer data) {
             py::buffer_info info = data.request();
             CheckPartial(self.Locked([&](mapr::PartialReducer& r) {
               return r.Add(BufferView(info));
             }));
           })
      .def("end_partition",
           [](PyPartialReducer& self, uint32_t index) {
             CheckPartial(self.Locked([&](mapr::PartialReducer& r) {
               return r.EndPartition(index);
             }));
           })
      .def("result",
           [](PyPartialReducer& self) {
             return TakePartial(self.Locked(
                 [](mapr::PartialReducer& r) { return r.Result(); }));
           })
      .def("take_result", [](PyPartialReducer& self) {
        return TakePartial(self.Locked(
            [](mapr::PartialReducer& r) { return r.TakeResult(); }));
      });

  py::class_<PyAggregator>(m, "Aggregator",
                           "Aggregates lines for one query (mapr::Aggregator).")
      .def(
          py::init([](const mapr::Query& q, std::optional<std::string> hostname,
                      std::optional<size_t> max_line_bytes,
                      std::optional<uint64_t> max_groups,
                      std::optional<std::pair<uint64_t, uint64_t>> splits,
                      std::optional<size_t> result_threads,
                      std::optional<std::string> source) {
            mapr::AggregatorOptions options = MakeOptions(
                hostname, max_line_bytes, max_groups, result_threads);
            if (source) options.source = *source;
            if (splits) {
              if (splits->first >= splits->second) {
                throw py::value_error("splits: begin must be less than end");
              }
              options.splits = {splits->first, splits->second};
            }
            return std::make_unique<PyAggregator>(
                Take(mapr::Aggregator::Create(q, options),
                     /*query_error=*/true));
          }),
          py::arg("query"), py::arg("hostname") = py::none(),
          py::arg("max_line_bytes") = py::none(),
          py::arg("max_groups") = py::none(), py::arg("splits") = py::none(),
          py::arg("result_threads") = py::none(),
          py::arg("source") = py::none())
      .def_static(
          "from_partial",
          [](py::buffer data, std::optional<std::string> hostname,
             std::optional<size_t> max_line_bytes,
             std::optional<uint64_t> max_groups,
             std::optional<size_t> result_threads,
             std::optional<std::string> partial_lookup_dir) {
            mapr::AggregatorOptions options = MakeOptions(
                hostname, max_line_bytes, max_groups, result_threads);
            if (partial_lookup_dir) {
              options.partial_lookup_dir = *partial_lookup_dir;
            }
            py::buffer_info info = data.request();
            absl::StatusOr<mapr::Aggregator> agg = [&] {
              py::gil_scoped_release release;
              return mapr::Aggregator::FromPartial(BufferView(info), options);
            }();
            return std::make_unique<PyAggregator>(TakePartial(std::move(agg)));
          },
          py::arg("data"), py::arg("hostname") = py::none(),
          py::arg("max_line_bytes") = py::none(),
          py::arg("max_groups") = py::none(),
          py::arg("result_threads") = py::none(),
          py::arg("partial_lookup_dir") = py::none())
      .def("query", [](PyAggregator& self) { return self.agg.query(); })
      .def("serialize_partial",
           [](PyAggregator& self) {
             std::string frame = TakePartial(self.Locked(
                 [&](mapr::Aggregator& a) -> absl::StatusOr<std::string> {
                   if (!self.input_finished) {
                     absl::Status s = a.FinishInput();
                     if (!s.ok()) return s;
                     self.input_finished = true;
                   }
                   return a.SerializePartial();
                 }));
             return Bytes(frame);
           })
      .def(
          "serialize_partitions",
          [](PyAggregator& self, uint32_t count) {
            std::vector<std::string> frames = TakePartial(
                self.Locked([&](mapr::Aggregator& a)
                                -> absl::StatusOr<std::vector<std::string>> {
                  if (!self.input_finished) {
                    absl::Status s = a.FinishInput();
                    if (!s.ok()) return s;
                    self.input_finished = true;
                  }
                  return a.SerializePartitions(count);
                }));
            py::list out;
            for (const std::string& f : frames) out.append(Bytes(f));
            return out;
          },
          py::arg("count"))
      .def("merge_serialized",
           [](PyAggregator& self, py::buffer data) {
             py::buffer_info info = data.request();
             CheckPartial(self.Locked([&](mapr::Aggregator& a) {
               return a.MergeSerialized(BufferView(info));
             }));
           })
      .def(
          "take_delta_partial",
          [](PyAggregator& self, bool final) {
            mapr::StreamMark mark;
            mark.final = final;
            std::string frame = TakePartial(self.Locked(
                [&](mapr::Aggregator& a) { return a.TakeDeltaPartial(mark); }));
            return Bytes(frame);
          },
          py::arg("final") = false)
      .def("push_lines", &PushIterable, py::arg("lines"), py::arg("source") = 0)
      .def("push_bytes", &PushBuffer, py::arg("data"), py::arg("source") = 0)
      .def("push_file", &PushFile, py::arg("path"), py::arg("source") = 0)
      .def("push_journal", &PushJournal, py::arg("files"), py::arg("directory"),
           py::arg("after_cursor"))
      .def(
          "end_source",
          [](PyAggregator& self, uint64_t source) {
            Check(self.Locked(
                [&](mapr::Aggregator& a) { return a.EndSource(source); }));
          },
          py::arg("source") = 0)
      .def(
          "set_source_name",
          [](PyAggregator& self, uint64_t source, const std::string& name) {
            Check(self.Locked([&](mapr::Aggregator& a) {
              return a.SetSourceName(source, name);
            }));
          },
          py::arg("source"), py::arg("name"))
      .def("merge",
           [](PyAggregator& self, PyAggregator& later) {
             if (&self == &later) {
               throw py::value_error("cannot merge an aggregator into itself");
             }
             self.CheckUsable();
             later.CheckUsable();
             absl::Status s;
             {
               py::gil_scoped_release release;
               // Both locks, in address order (no deadlock with a merge
               // the other way round on another thread).
               const bool self_first =
                   std::less<PyAggregator*>()(&self, &later);
               absl::MutexLock first(self_first ? &self.mu : &later.mu);
               absl::MutexLock second(self_first ? &later.mu : &self.mu);
               s = self.agg.Merge(std::move(later.agg));
             }
             Check(s);
           })
      .def("snapshot",
           [](PyAggregator& self) {
             return Take(
                 self.Locked([](mapr::Aggregator& a) { return a.Snapshot(); }));
           })
      .def("take_delta",
           [](PyAggregator& self) {
             return Take(self.Locked(
                 [](mapr::Aggregator& a) { return a.TakeDelta(); }));
           })
      .def("finish",
           [](PyAggregator& self) {
             return Take(self.Locked(
                 [&](mapr::Aggregator& a) -> absl::StatusOr<mapr::ResultTable> {
                   if (!self.input_finished) {
                     absl::Status s = a.FinishInput();
                     if (!s.ok()) return s;
                   }
                   self.input_finished = true;
                   return a.TakeResult();
                 }));
           })
      .def("stats", [](PyAggregator& self) {
        mapr::LineCounters c;
        {
          py::gil_scoped_release release;
          absl::MutexLock lock(&self.mu);
          c = self.agg.stats();
        }
        return CountersDict(c);
      });
}
