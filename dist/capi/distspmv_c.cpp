// The C API (distspmv.h) over distributed_matrix<double>.
//
// Every entry point runs its body inside `guarded`, which turns any C++ exception into a status
// code and a message in the thread-local last error. Handles are ids into a registry, never
// addresses: an id is not reused, so a destroyed (or made-up) handle is found missing and reported
// instead of being dereferenced.
#include "dist/capi/distspmv.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/mpi_check.hpp"
#include "dist/distributed_matrix.hpp"
#include "distspmv/config.hpp"

namespace {

using matrix_type = distspmv::distributed_matrix<double>;

/// A failure found by this file: a wrong argument (a NULL pointer, a dead handle, an enum out of
/// range), or a backend this build lacks.
struct api_error {
  int status;
  std::string message;
};

api_error argument_error(std::string message) { return {DISTSPMV_ERROR_INVALID_ARGUMENT, std::move(message)}; }

/// What create found wrong on this rank before any communication (status 0: nothing).
struct local_problem {
  int status = DISTSPMV_SUCCESS;
  std::string text;
  bool empty() const { return status == DISTSPMV_SUCCESS; }
};

local_problem invalid(std::string text) { return {DISTSPMV_ERROR_INVALID_ARGUMENT, std::move(text)}; }

thread_local std::string last_error_text;
thread_local bool last_error_lost = false;  // formatting the message itself ran out of memory

int fail(int status, const char* function, const std::string& message) noexcept {
  try {
    last_error_text.assign(function);
    last_error_text += ": ";
    last_error_text += message.empty() ? std::string("failed") : message;
    last_error_lost = false;
  } catch (...) {
    last_error_lost = true;
  }
  return status;
}

/// Maps the exception in flight to a status (errors.hpp's hierarchy first, most derived first).
int translate_current_exception(const char* function) noexcept {
  try {
    throw;
  } catch (const api_error& e) {
    return fail(e.status, function, e.message);
  } catch (const distspmv::bad_input& e) {
    return fail(DISTSPMV_ERROR_BAD_INPUT, function, e.what());
  } catch (const distspmv::mpi_error& e) {
    return fail(DISTSPMV_ERROR_MPI, function, e.what());
  } catch (const distspmv::cuda_error& e) {
    return fail(DISTSPMV_ERROR_CUDA, function, e.what());
  } catch (const distspmv::not_compiled& e) {
    return fail(DISTSPMV_ERROR_NOT_COMPILED, function, e.what());
  } catch (const distspmv::error& e) {
    // The base class is what DSPMV_REQUIRE throws: a violated precondition of a public entry point.
    return fail(DISTSPMV_ERROR_INVALID_ARGUMENT, function, e.what());
  } catch (const std::bad_alloc&) {
    return fail(DISTSPMV_ERROR_INTERNAL, function, "out of memory");
  } catch (const std::invalid_argument& e) {
    return fail(DISTSPMV_ERROR_INVALID_ARGUMENT, function, e.what());
  } catch (const std::exception& e) {
    return fail(DISTSPMV_ERROR_INTERNAL, function, std::string("unexpected error: ") + e.what());
  } catch (...) {
    return fail(DISTSPMV_ERROR_INTERNAL, function, "unexpected non-standard exception");
  }
}

template <typename Body>
int guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return DISTSPMV_SUCCESS;
  } catch (...) {
    return translate_current_exception(function);
  }
}

// ---- handle registry ----------------------------------------------------------------------------

struct handle_entry {
  explicit handle_entry(matrix_type&& m) : matrix(std::move(m)) {}
  matrix_type matrix;
};

class registry {
 public:
  static registry& instance() {
    // Leaked on purpose: a handle the caller never destroyed must not be freed at exit, after
    // MPI_Finalize (its destructor frees a communicator).
    static registry* r = new registry;
    return *r;
  }

  distspmv_matrix add(std::unique_ptr<handle_entry> entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uintptr_t id = next_id_;
    next_id_ += 16;  // aligned-looking, never 0, never reused
    entries_.emplace(id, std::move(entry));
    return reinterpret_cast<distspmv_matrix>(id);
  }

  handle_entry* find(distspmv_matrix h) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(reinterpret_cast<std::uintptr_t>(h));
    return it == entries_.end() ? nullptr : it->second.get();
  }

  std::unique_ptr<handle_entry> remove(distspmv_matrix h) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(reinterpret_cast<std::uintptr_t>(h));
    if (it == entries_.end()) return nullptr;
    std::unique_ptr<handle_entry> entry = std::move(it->second);
    entries_.erase(it);
    return entry;
  }

 private:
  std::mutex mutex_;
  std::uintptr_t next_id_ = 0x10000;
  std::unordered_map<std::uintptr_t, std::unique_ptr<handle_entry>> entries_;
};

matrix_type& live_matrix(distspmv_matrix h, const char* argument = "matrix") {
  if (!h) throw argument_error(std::string("argument '") + argument + "' is NULL");
  handle_entry* e = registry::instance().find(h);
  if (!e)
    throw argument_error(std::string("argument '") + argument +
                         "' is not a live distspmv matrix (destroyed already, or never created)");
  return e->matrix;
}

void require_pointer(const void* p, const char* argument, const std::string& why = "") {
  if (!p) throw argument_error(std::string("argument '") + argument + "' is NULL" + why);
}

std::string entries_note(const char* what, std::int64_t n) {
  return " (" + std::string(what) + " = " + std::to_string(n) + " > 0)";
}

// ---- option conversion --------------------------------------------------------------------------

/// Converts the C options; returns the problem instead of throwing, so that create can agree on
/// it between the ranks. A backend or partitioner this build lacks is NOT_COMPILED here, before
/// any setup work.
/// The int a C caller passed as one of our enums. C lets a caller pass any int (the tests pass 7),
/// but in C++ loading an enum object whose value lies outside its enumerators' range is undefined
/// behaviour (UBSan: "load of value 7, which is not a valid value for type
/// 'distspmv_memory_space'"): the bytes are copied into an int instead, and only that is compared.
template <typename Enum>
int c_enum_value(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "a C enum has the size of int");
  int v = 0;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

local_problem convert_options(const distspmv_options* in, distspmv::matrix_options& out) {
  distspmv_options defaults;
  distspmv_options_default(&defaults);
  const distspmv_options& o = in ? *in : defaults;
  out = distspmv::matrix_options{};
  out.format = (o.format && o.format[0]) ? o.format : "auto";
  switch (c_enum_value(o.partitioner)) {
    case DISTSPMV_PARTITION_METIS: out.partition = distspmv::partitioner::metis; break;
    case DISTSPMV_PARTITION_BLOCK: out.partition = distspmv::partitioner::block; break;
    case DISTSPMV_PARTITION_AUTO: out.partition = distspmv::partitioner::automatic; break;
    case DISTSPMV_PARTITION_PTSCOTCH: out.partition = distspmv::partitioner::ptscotch; break;
    case DISTSPMV_PARTITION_LP: out.partition = distspmv::partitioner::lp; break;
    default:
      return invalid("opts->partitioner = " + std::to_string(c_enum_value(o.partitioner)) +
                     " is not a distspmv_partitioner");
  }
  switch (c_enum_value(o.order)) {
    case DISTSPMV_ORDER_NONE: out.order = distspmv::row_order::none; break;
    case DISTSPMV_ORDER_DEGREE: out.order = distspmv::row_order::degree; break;
    case DISTSPMV_ORDER_RCM: out.order = distspmv::row_order::rcm; break;
    case DISTSPMV_ORDER_AUTO: out.order = distspmv::row_order::automatic; break;
    default:
      return invalid("opts->order = " + std::to_string(c_enum_value(o.order)) + " is not a distspmv_order");
  }
  out.float_values = o.float_values != 0;
  out.cuda_graphs = o.cuda_graphs != 0;
  switch (c_enum_value(o.backend)) {
    case DISTSPMV_BACKEND_CUDA: out.where = distspmv::backend::cuda; break;
    case DISTSPMV_BACKEND_HOST: out.where = distspmv::backend::host; break;
    default:
      return invalid("opts->backend = " + std::to_string(c_enum_value(o.backend)) + " is not a distspmv_backend");
  }
  switch (c_enum_value(o.transport)) {
    case DISTSPMV_TRANSPORT_AUTO: out.transport = distspmv::transport_kind::automatic; break;
    case DISTSPMV_TRANSPORT_NCCL: out.transport = distspmv::transport_kind::nccl; break;
    case DISTSPMV_TRANSPORT_MPI_CUDA: out.transport = distspmv::transport_kind::mpi_cuda; break;
    case DISTSPMV_TRANSPORT_MPI_STAGED: out.transport = distspmv::transport_kind::mpi_staged; break;
    case DISTSPMV_TRANSPORT_MPI_HOST: out.transport = distspmv::transport_kind::mpi_host; break;
    case DISTSPMV_TRANSPORT_CUDA_IPC: out.transport = distspmv::transport_kind::cuda_ipc; break;
    case DISTSPMV_TRANSPORT_PEER_PUT: out.transport = distspmv::transport_kind::peer_put; break;
    default:
      return invalid("opts->transport = " + std::to_string(c_enum_value(o.transport)) +
                     " is not a distspmv_transport");
  }
  out.metis_seed = o.metis_seed;
  out.h5_group = o.h5_group ? o.h5_group : "";
  out.generator_seed = o.generator_seed;
  out.allow_nonfinite = o.allow_nonfinite != 0;
  if (!DISTSPMV_HAVE_CUDA && out.where == distspmv::backend::cuda)
    return {DISTSPMV_ERROR_NOT_COMPILED,
            "opts->backend is DISTSPMV_BACKEND_CUDA but distspmv was built without CUDA (reconfigure with "
            "DISTSPMV_ENABLE_CUDA=ON, or use DISTSPMV_BACKEND_HOST)"};
  if (!DISTSPMV_HAVE_METIS && out.partition == distspmv::partitioner::metis)
    return {DISTSPMV_ERROR_NOT_COMPILED,
            "opts->partitioner is DISTSPMV_PARTITION_METIS but distspmv was built without METIS (install METIS "
            "and reconfigure, or use DISTSPMV_PARTITION_BLOCK)"};
  if (!DISTSPMV_HAVE_PTSCOTCH && out.partition == distspmv::partitioner::ptscotch)
    return {DISTSPMV_ERROR_NOT_COMPILED,
            "opts->partitioner is DISTSPMV_PARTITION_PTSCOTCH but distspmv was built without PT-Scotch (install "
            "libptscotch-dev and reconfigure, or use DISTSPMV_PARTITION_METIS or DISTSPMV_PARTITION_BLOCK)"};
  return {};
}

/// `space` is c_enum_value of the caller's distspmv_memory_space.
bool valid_space(int space) { return space == DISTSPMV_MEMORY_HOST || space == DISTSPMV_MEMORY_DEVICE; }

distspmv::memory_space to_space(int space) {
  return space == DISTSPMV_MEMORY_DEVICE ? distspmv::memory_space::device : distspmv::memory_space::host;
}

/// Collective: every rank learns whether any rank found a problem in its arguments. The lowest
/// such rank's status and text are broadcast, so all ranks throw the same api_error and none is
/// left waiting in the setup that would have followed.
void agree_on_arguments(MPI_Comm comm, const local_problem& problem) {
  int rank = 0;
  DSPMV_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const int mine = problem.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  DSPMV_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return;
  int header[2] = {problem.status, static_cast<int>(problem.text.size())};
  DSPMV_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string text = rank == first ? problem.text : std::string(static_cast<std::size_t>(header[1]), ' ');
  if (header[1] > 0) DSPMV_MPI_CHECK(MPI_Bcast(&text[0], header[1], MPI_CHAR, first, comm));
  throw api_error{header[0], text + " (on rank " + std::to_string(first) + ")"};
}

}  // namespace

// Declared only, never defined: a distspmv_matrix holds a registry id, not an address.
struct distspmv_matrix_s;

extern "C" {

void distspmv_options_default(distspmv_options* opts) {
  if (!opts) return;
  const distspmv::matrix_options d{};
  opts->format = "auto";
  opts->partitioner = d.partition == distspmv::partitioner::block    ? DISTSPMV_PARTITION_BLOCK
                      : d.partition == distspmv::partitioner::metis ? DISTSPMV_PARTITION_METIS
                                                                    : DISTSPMV_PARTITION_AUTO;
  opts->backend = d.where == distspmv::backend::host ? DISTSPMV_BACKEND_HOST : DISTSPMV_BACKEND_CUDA;
  opts->transport = DISTSPMV_TRANSPORT_AUTO;
  opts->metis_seed = d.metis_seed;
  opts->h5_group = nullptr;
  opts->generator_seed = d.generator_seed;
  opts->allow_nonfinite = d.allow_nonfinite ? 1 : 0;
  opts->order = d.order == distspmv::row_order::degree    ? DISTSPMV_ORDER_DEGREE
                : d.order == distspmv::row_order::rcm       ? DISTSPMV_ORDER_RCM
                : d.order == distspmv::row_order::automatic ? DISTSPMV_ORDER_AUTO
                                                            : DISTSPMV_ORDER_NONE;
  opts->float_values = d.float_values ? 1 : 0;
  opts->cuda_graphs = d.cuda_graphs ? 1 : 0;
}

const char* distspmv_last_error(void) {
  if (last_error_lost) return "distspmv: out of memory while recording the last error";
  return last_error_text.c_str();
}

const char* distspmv_status_name(int status) {
  switch (status) {
    case DISTSPMV_SUCCESS: return "DISTSPMV_SUCCESS";
    case DISTSPMV_ERROR_INVALID_ARGUMENT: return "DISTSPMV_ERROR_INVALID_ARGUMENT";
    case DISTSPMV_ERROR_BAD_INPUT: return "DISTSPMV_ERROR_BAD_INPUT";
    case DISTSPMV_ERROR_MPI: return "DISTSPMV_ERROR_MPI";
    case DISTSPMV_ERROR_CUDA: return "DISTSPMV_ERROR_CUDA";
    case DISTSPMV_ERROR_NOT_COMPILED: return "DISTSPMV_ERROR_NOT_COMPILED";
    case DISTSPMV_ERROR_INTERNAL: return "DISTSPMV_ERROR_INTERNAL";
    default: return "unknown status";
  }
}

int distspmv_has_cuda(void) { return DISTSPMV_HAVE_CUDA ? 1 : 0; }

int distspmv_create_csr(MPI_Comm comm, int64_t global_rows, int64_t first_row, int64_t rows,
                        const int64_t* row_ptr, const int64_t* col_ids, const double* values,
                        distspmv_memory_space space, const distspmv_options* opts, distspmv_matrix* out) {
  static const char* fn = "distspmv_create_csr";
  if (out) *out = nullptr;
  if (comm == MPI_COMM_NULL) return fail(DISTSPMV_ERROR_INVALID_ARGUMENT, fn, "argument 'comm' is MPI_COMM_NULL");
  return guarded(fn, [&] {
    // Local checks first, then agreement, so that every rank returns the same code.
    static const std::int64_t zero_offset = 0;
    static const std::int64_t no_col = 0;
    static const double no_value = 0.0;
    distspmv::matrix_options options;
    local_problem problem;
    if (!out) problem = invalid("argument 'out' is NULL");
    if (problem.empty()) problem = convert_options(opts, options);
    const int space_value = c_enum_value(space);
    if (problem.empty() && !valid_space(space_value))
      problem = invalid("argument 'space' = " + std::to_string(space_value) + " is not a distspmv_memory_space");
    if (problem.empty() && space_value == DISTSPMV_MEMORY_DEVICE && !DISTSPMV_HAVE_CUDA)
      problem = {DISTSPMV_ERROR_NOT_COMPILED,
                 "argument 'space' is DISTSPMV_MEMORY_DEVICE but distspmv was built without CUDA"};
    if (problem.empty() && rows < 0) problem = invalid("argument 'rows' = " + std::to_string(rows) + " is negative");
    const bool host = space_value == DISTSPMV_MEMORY_HOST;
    if (problem.empty() && !row_ptr) {
      if (host && rows == 0)
        row_ptr = &zero_offset;
      else
        problem = invalid("argument 'row_ptr' is NULL" +
                          (host ? entries_note("rows", rows) : std::string(" (device memory)")));
    }
    if (problem.empty() && (!col_ids || !values)) {
      // Host arrays may be NULL when the rank has no entries; device arrays only without rows.
      const std::int64_t nnz = host ? row_ptr[rows] : rows;
      if (nnz > 0) {
        problem = invalid(std::string("argument '") + (!col_ids ? "col_ids" : "values") + "' is NULL" +
                          entries_note(host ? "row_ptr[rows]" : "rows", nnz));
      } else {
        if (!col_ids) col_ids = &no_col;
        if (!values) values = &no_value;
      }
    }
    agree_on_arguments(comm, problem);
    auto entry = std::make_unique<handle_entry>(matrix_type::from_csr(
        comm, global_rows, first_row, rows, row_ptr, col_ids, values, to_space(space_value), options));
    *out = registry::instance().add(std::move(entry));
  });
}

int distspmv_create_source(MPI_Comm comm, const char* source, const distspmv_options* opts, distspmv_matrix* out) {
  static const char* fn = "distspmv_create_source";
  if (out) *out = nullptr;
  if (comm == MPI_COMM_NULL) return fail(DISTSPMV_ERROR_INVALID_ARGUMENT, fn, "argument 'comm' is MPI_COMM_NULL");
  return guarded(fn, [&] {
    distspmv::matrix_options options;
    local_problem problem;
    if (!out) problem = invalid("argument 'out' is NULL");
    if (problem.empty() && !source) problem = invalid("argument 'source' is NULL");
    if (problem.empty()) problem = convert_options(opts, options);
    agree_on_arguments(comm, problem);
    auto entry = std::make_unique<handle_entry>(matrix_type::from_source(comm, source, options));
    *out = registry::instance().add(std::move(entry));
  });
}

int distspmv_destroy(distspmv_matrix* matrix) {
  static const char* fn = "distspmv_destroy";
  if (!matrix || !*matrix) return DISTSPMV_SUCCESS;
  return guarded(fn, [&] {
    std::unique_ptr<handle_entry> entry = registry::instance().remove(*matrix);
    if (!entry)
      throw argument_error("argument '*matrix' is not a live distspmv matrix (destroyed already, or never created)");
    *matrix = nullptr;
    entry.reset();  // the destructor is collective (frees the duplicated communicator)
  });
}

int distspmv_apply(distspmv_matrix matrix, double alpha, const double* x, double beta, double* y, void* stream) {
  return guarded("distspmv_apply", [&] {
    matrix_type& a = live_matrix(matrix);
    const std::int64_t n = a.local_rows();
    if (n > 0) {
      require_pointer(x, "x", entries_note("local_rows", n));
      require_pointer(y, "y", entries_note("local_rows", n));
      if (static_cast<const void*>(x) == static_cast<const void*>(y))
        throw argument_error("arguments 'x' and 'y' are the same array (y = alpha*A*x + beta*y needs distinct x and y)");
    }
    a.apply(alpha, x, beta, y, static_cast<distspmv::cuda_stream_t>(stream));
  });
}

int distspmv_to_partitioned(distspmv_matrix matrix, const double* caller, double* partitioned) {
  return guarded("distspmv_to_partitioned", [&] {
    const matrix_type& a = live_matrix(matrix);
    if (a.caller_rows() > 0) require_pointer(caller, "caller", entries_note("caller_rows", a.caller_rows()));
    if (a.local_rows() > 0) require_pointer(partitioned, "partitioned", entries_note("local_rows", a.local_rows()));
    a.to_partitioned(caller, partitioned);
  });
}

int distspmv_from_partitioned(distspmv_matrix matrix, const double* partitioned, double* caller) {
  return guarded("distspmv_from_partitioned", [&] {
    const matrix_type& a = live_matrix(matrix);
    if (a.local_rows() > 0) require_pointer(partitioned, "partitioned", entries_note("local_rows", a.local_rows()));
    if (a.caller_rows() > 0) require_pointer(caller, "caller", entries_note("caller_rows", a.caller_rows()));
    a.from_partitioned(partitioned, caller);
  });
}

int distspmv_update_values(distspmv_matrix matrix, const double* values, distspmv_memory_space space) {
  return guarded("distspmv_update_values", [&] {
    static const double no_value = 0.0;
    matrix_type& a = live_matrix(matrix);
    const int space_value = c_enum_value(space);
    if (!valid_space(space_value))
      throw argument_error("argument 'space' = " + std::to_string(space_value) + " is not a distspmv_memory_space");
    if (!values) {
      if (a.caller_nnz() > 0) require_pointer(values, "values", entries_note("caller_nnz", a.caller_nnz()));
      values = &no_value;
    }
    a.update_values(values, to_space(space_value));
  });
}

#define DISTSPMV_QUERY(name, expression)                      \
  int name(distspmv_matrix matrix, int64_t* out) {            \
    return guarded(#name, [&] {                               \
      const matrix_type& a = live_matrix(matrix);             \
      require_pointer(out, "out");                            \
      *out = static_cast<int64_t>(expression);                \
    });                                                       \
  }

DISTSPMV_QUERY(distspmv_global_rows, a.global_rows())
DISTSPMV_QUERY(distspmv_global_nnz, a.global_nnz())
DISTSPMV_QUERY(distspmv_local_rows, a.local_rows())
DISTSPMV_QUERY(distspmv_first_row, a.first_row())
DISTSPMV_QUERY(distspmv_caller_rows, a.caller_rows())
DISTSPMV_QUERY(distspmv_caller_first_row, a.caller_first_row())
DISTSPMV_QUERY(distspmv_caller_nnz, a.caller_nnz())
#undef DISTSPMV_QUERY

int distspmv_comm(distspmv_matrix matrix, MPI_Comm* out) {
  return guarded("distspmv_comm", [&] {
    const matrix_type& a = live_matrix(matrix);
    require_pointer(out, "out");
    *out = a.comm();
  });
}

int distspmv_diagonal(distspmv_matrix matrix, double* diag) {
  return guarded("distspmv_diagonal", [&] {
    const matrix_type& a = live_matrix(matrix);
    if (a.local_rows() > 0) require_pointer(diag, "diag", entries_note("local_rows", a.local_rows()));
    const std::vector<double> d = a.diagonal();
    for (std::size_t i = 0; i < d.size(); ++i) diag[i] = d[i];
  });
}

int distspmv_owned_caller_ids(distspmv_matrix matrix, int64_t* ids) {
  return guarded("distspmv_owned_caller_ids", [&] {
    const matrix_type& a = live_matrix(matrix);
    if (a.local_rows() > 0) require_pointer(ids, "ids", entries_note("local_rows", a.local_rows()));
    const auto& owned = a.owned_caller_ids();
    for (std::size_t i = 0; i < owned.size(); ++i) ids[i] = static_cast<int64_t>(owned[i]);
  });
}

int distspmv_halo_stats_get(distspmv_matrix matrix, distspmv_halo_stats* out) {
  return guarded("distspmv_halo_stats_get", [&] {
    const matrix_type& a = live_matrix(matrix);
    require_pointer(out, "out");
    const distspmv::rank_summary& s = a.summary();
    const distspmv::partition_summary& p = a.partition_quality();
    distspmv_halo_stats r{};
    r.rows = s.rows;
    r.nnz = s.nnz;
    r.interior_rows = s.interior_rows;
    r.boundary_rows = s.boundary_rows;
    r.halo_nnz = s.halo_nnz;
    r.ghosts = s.ghosts;
    r.sends = s.sends;
    r.neighbours = s.neighbours;
    r.edge_cut = p.edge_cut;
    r.halo_entries_total = p.halo_entries_total;
    r.halo_entries_max = p.halo_entries_max;
    r.nnz_imbalance = p.nnz_imbalance;
    *out = r;
  });
}

int distspmv_transport_name(distspmv_matrix matrix, const char** name) {
  return guarded("distspmv_transport_name", [&] {
    const matrix_type& a = live_matrix(matrix);
    require_pointer(name, "name");
    *name = distspmv::to_string(a.transport());
  });
}

int distspmv_format_name(distspmv_matrix matrix, const char** name) {
  return guarded("distspmv_format_name", [&] {
    const matrix_type& a = live_matrix(matrix);
    require_pointer(name, "name");
    *name = a.summary().format.c_str();
  });
}

}  // extern "C"
