// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "octet/golden/h5.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <system_error>

#include "octet/version.hpp"

namespace octet::golden {

namespace {
std::string compose(const std::string& file, const std::string& group, const std::string& ds,
                    const std::string& what) {
  std::string m = "golden: " + (file.empty() ? std::string("<unnamed>") : file);
  if (!group.empty()) m += ": case '" + group + "'";
  if (!ds.empty()) m += ": dataset '" + ds + "'";
  return m + ": " + what;
}

std::string join(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}
}  // namespace

GoldenError::GoldenError(std::string file, std::string group, std::string dataset,
                         const std::string& what)
    : std::runtime_error(compose(file, group, dataset, what)),
      file_(std::move(file)), group_(std::move(group)), dataset_(std::move(dataset)), detail_(what) {}

// ---- dtypes -------------------------------------------------------------------------------------

std::optional<DtypeInfo> lookup_dtype(std::string_view s) {
  if (s == "int32") return DtypeInfo{"int32", 4, Storage::sint, std::nullopt};
  if (s == "int64") return DtypeInfo{"int64", 8, Storage::sint, std::nullopt};
  if (s == "uint8") return DtypeInfo{"uint8", 1, Storage::uint, std::nullopt};
  const auto id = parse_format(s);
  if (!id) return std::nullopt;
  const std::string_view name = dtype_name(*id);
  switch (*id) {
    case FormatId::fp32: return DtypeInfo{name, 4, Storage::ieee_float, id};
    case FormatId::fp64: return DtypeInfo{name, 8, Storage::ieee_float, id};
    case FormatId::bf16:
    case FormatId::fp16: return DtypeInfo{name, 2, Storage::uint, id};
    default: return DtypeInfo{name, 1, Storage::uint, id};  // fp8, e8m0, fp6 and fp4 unpacked
  }
}

namespace {
// Little-endian file (and memory: the bytes are little-endian) type of a dtype.
hid_t le_type(const DtypeInfo& d) {
  switch (d.storage) {
    case Storage::ieee_float: return d.element_size == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    case Storage::sint: return d.element_size == 4 ? H5T_STD_I32LE : H5T_STD_I64LE;
    case Storage::uint: return d.element_size == 1 ? H5T_STD_U8LE : H5T_STD_U16LE;
  }
  return H5T_STD_U8LE;
}

std::string describe_storage(Storage s, std::size_t size) {
  const char* k = s == Storage::ieee_float ? "float" : s == Storage::sint ? "signed integer" : "unsigned integer";
  return std::to_string(size) + "-byte " + k;
}
}  // namespace

// ---- RAII layer ---------------------------------------------------------------------------------

namespace h5 {

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    o.id_ = H5I_INVALID_HID;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0) H5Idec_ref(id_);
  id_ = H5I_INVALID_HID;
}

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string last_error() {
  std::string msg;
  // Upward walk starts at the most specific entry ("truncated file: eof = ...").
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto* out = static_cast<std::string*>(data);
        if (n == 0 && e->desc) *out = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg;
}

void Where::fail(const std::string& what) const { throw GoldenError(file, group, dataset, what); }

void Where::fail_hdf5(const std::string& what) const {
  const std::string detail = last_error();
  fail(detail.empty() ? what : what + " (HDF5: " + detail + ")");
}

Handle open_file(const std::filesystem::path& p, bool writable) {
  silence_errors();
  const Where w{p.string(), {}, {}};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) w.fail("no such file");
  Handle fapl(w.check(H5Pcreate(H5P_FILE_ACCESS), "cannot create a file access list"));
  w.check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "cannot set the close degree");
  const hid_t id = H5Fopen(p.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get());
  return Handle(w.check(id, "not a readable HDF5 file (truncated or corrupt?)"));
}

bool exists(hid_t loc, const std::string& name) {
  const htri_t r = H5Lexists(loc, name.c_str(), H5P_DEFAULT);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

Handle open_group(hid_t loc, const std::string& name, const Where& w) {
  if (!exists(loc, name)) w.fail("case not found");
  return Handle(w.check(H5Gopen2(loc, name.c_str(), H5P_DEFAULT), "cannot open the case group"));
}

Handle open_dataset(hid_t loc, const std::string& name, const Where& w) {
  if (!exists(loc, name)) w.fail("dataset not found");
  return Handle(w.check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "cannot open the dataset"));
}

std::vector<std::string> children(hid_t group, const Where& w) {
  std::vector<std::string> out;
  hsize_t idx = 0;
  w.check(H5Literate(
              group, H5_INDEX_NAME, H5_ITER_INC, &idx,
              [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
                static_cast<std::vector<std::string>*>(data)->emplace_back(name);
                return 0;
              },
              &out),
          "cannot list the group");
  return out;
}

std::vector<std::string> attribute_names(hid_t obj, const Where& w) {
  std::vector<std::string> out;
  hsize_t idx = 0;
  w.check(H5Aiterate2(
              obj, H5_INDEX_NAME, H5_ITER_INC, &idx,
              [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
                static_cast<std::vector<std::string>*>(data)->emplace_back(name);
                return 0;
              },
              &out),
          "cannot list the attributes");
  return out;
}

bool has_attr(hid_t obj, const std::string& name) {
  const htri_t r = H5Aexists(obj, name.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

void delete_attr(hid_t obj, const std::string& name, const Where& w) {
  if (has_attr(obj, name)) w.check(H5Adelete(obj, name.c_str()), "cannot delete an attribute");
}

namespace {
void create_attr(hid_t obj, const std::string& name, hid_t type, hid_t space, const void* buf,
                 const Where& w) {
  delete_attr(obj, name, w);
  Handle a(w.check(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                   "cannot create attribute '" + name + "'"));
  w.check(H5Awrite(a.get(), type, buf), ("cannot write attribute '" + name + "'").c_str());
}

Handle open_attr(hid_t obj, const std::string& name, const Where& w) {
  if (!has_attr(obj, name)) w.fail("attribute '" + name + "' is missing");
  return Handle(w.check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute '" + name + "'"));
}

hssize_t attr_points(hid_t a, const std::string& name, const Where& w) {
  Handle space(w.check(H5Aget_space(a), "cannot read attribute '" + name + "'"));
  return H5Sget_simple_extent_npoints(space.get());
}

// Bytes of an attribute's value as stored in the file. A corrupt header can declare a dataspace
// or a string size far larger than the bytes behind it; reading such an attribute would allocate
// the declared size first, so every read is bounded by what the file holds.
std::size_t attr_stored_bytes(hid_t a) { return std::size_t(H5Aget_storage_size(a)); }
}  // namespace

void set_attr(hid_t obj, const std::string& name, std::string_view value, const Where& w) {
  // Fixed-length, null-terminated: the value lives in the object header, not a global heap.
  Handle type(w.check(H5Tcopy(H5T_C_S1), "cannot create a string type"));
  w.check(H5Tset_size(type.get(), value.size() + 1), "cannot size a string type");
  w.check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "cannot set string padding");
  w.check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot set string encoding");
  Handle space(w.check(H5Screate(H5S_SCALAR), "cannot create a dataspace"));
  std::string buf(value);  // with its terminator
  create_attr(obj, name, type.get(), space.get(), buf.c_str(), w);
}

void set_attr(hid_t obj, const std::string& name, std::int64_t value, const Where& w) {
  Handle space(w.check(H5Screate(H5S_SCALAR), "cannot create a dataspace"));
  create_attr(obj, name, H5T_STD_I64LE, space.get(), &value, w);
}

void set_attr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& value,
              const Where& w) {
  const hsize_t n = value.size();
  Handle space(w.check(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL),
                       "cannot create a dataspace"));
  if (n == 0) {
    delete_attr(obj, name, w);
    Handle a(w.check(H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                     "cannot create attribute '" + name + "'"));
    return;
  }
  // Stored little-endian; the host is little-endian (x86-64, aarch64).
  create_attr(obj, name, H5T_STD_I64LE, space.get(), value.data(), w);
}

bool attr_is_string(hid_t obj, const std::string& name, const Where& w) {
  Handle a = open_attr(obj, name, w);
  Handle type(w.check(H5Aget_type(a.get()), "cannot read the type of attribute '" + name + "'"));
  return H5Tget_class(type.get()) == H5T_STRING;
}

std::string get_string_attr(hid_t obj, const std::string& name, const Where& w) {
  Handle a = open_attr(obj, name, w);
  Handle type(w.check(H5Aget_type(a.get()), "cannot read the type of attribute '" + name + "'"));
  if (H5Tget_class(type.get()) != H5T_STRING) w.fail("attribute '" + name + "' is not a string");
  if (attr_points(a.get(), name, w) != 1) w.fail("attribute '" + name + "' is not a single string");
  if (H5Tis_variable_str(type.get()) > 0) {  // h5py's default for str
    Handle mem(w.check(H5Tcopy(H5T_C_S1), "cannot create a string type"));
    w.check(H5Tset_size(mem.get(), H5T_VARIABLE), "cannot size a string type");
    w.check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), "cannot set string encoding");
    char* p = nullptr;
    w.check(H5Aread(a.get(), mem.get(), &p), ("cannot read attribute '" + name + "'").c_str());
    std::string s = p ? p : "";
    if (p) H5free_memory(p);
    return s;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) w.fail("attribute '" + name + "' has an invalid string size");
  if (size > attr_stored_bytes(a.get()))
    w.fail("attribute '" + name + "' declares a " + std::to_string(size) + "-byte string but stores " +
           std::to_string(attr_stored_bytes(a.get())) + " bytes (corrupt file?)");
  std::string buf(size, '\0');
  w.check(H5Aread(a.get(), type.get(), buf.data()), ("cannot read attribute '" + name + "'").c_str());
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

std::int64_t get_int_attr(hid_t obj, const std::string& name, const Where& w) {
  Handle a = open_attr(obj, name, w);
  Handle type(w.check(H5Aget_type(a.get()), "cannot read the type of attribute '" + name + "'"));
  if (H5Tget_class(type.get()) != H5T_INTEGER) w.fail("attribute '" + name + "' is not an integer");
  if (attr_points(a.get(), name, w) != 1) w.fail("attribute '" + name + "' is not a single integer");
  std::int64_t v = 0;
  w.check(H5Aread(a.get(), H5T_NATIVE_INT64, &v), ("cannot read attribute '" + name + "'").c_str());
  return v;
}

std::vector<std::int64_t> get_int_array_attr(hid_t obj, const std::string& name, const Where& w) {
  Handle a = open_attr(obj, name, w);
  Handle type(w.check(H5Aget_type(a.get()), "cannot read the type of attribute '" + name + "'"));
  if (H5Tget_class(type.get()) != H5T_INTEGER) w.fail("attribute '" + name + "' is not an integer array");
  const hssize_t n = attr_points(a.get(), name, w);
  if (n < 0) w.fail("attribute '" + name + "' has an unreadable size");
  // Every stored element takes at least one byte.
  if (std::uint64_t(n) > attr_stored_bytes(a.get()))
    w.fail("attribute '" + name + "' declares " + std::to_string(n) + " elements but stores " +
           std::to_string(attr_stored_bytes(a.get())) + " bytes (corrupt file?)");
  std::vector<std::int64_t> v(std::size_t(n), 0);
  if (n > 0)
    w.check(H5Aread(a.get(), H5T_NATIVE_INT64, v.data()), ("cannot read attribute '" + name + "'").c_str());
  return v;
}

namespace {
constexpr unsigned kCreationOrder = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
}

Handle group_create_plist(const Where& w) {
  Handle p(w.check(H5Pcreate(H5P_GROUP_CREATE), "cannot create a group creation list"));
  w.check(H5Pset_obj_track_times(p.get(), false), "cannot turn off time tracking");
  w.check(H5Pset_link_creation_order(p.get(), kCreationOrder), "cannot set link creation order");
  w.check(H5Pset_attr_creation_order(p.get(), kCreationOrder), "cannot set attribute creation order");
  // A case has ~10-20 attributes: keep them in the object header (compact) rather than in a
  // fractal heap + B-tree per group, which costs ~1.5 KB per case.
  w.check(H5Pset_attr_phase_change(p.get(), 64, 48), "cannot set the attribute storage threshold");
  return p;
}

Handle dataset_create_plist(const std::vector<hsize_t>& dims, std::size_t element_size, const Where& w) {
  Handle p(w.check(H5Pcreate(H5P_DATASET_CREATE), "cannot create a dataset creation list"));
  w.check(H5Pset_obj_track_times(p.get(), false), "cannot turn off time tracking");
  w.check(H5Pset_attr_creation_order(p.get(), kCreationOrder), "cannot set attribute creation order");
  std::size_t bytes = element_size;
  bool empty = false;
  for (hsize_t d : dims) {
    bytes *= d;
    empty = empty || d == 0;
  }
  if (!empty && bytes > kCompressMinBytes) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) w.fail("this HDF5 has no deflate filter");
    // Chunks of at most 1 MiB: halve the leading dimension that is still > 1.
    std::vector<hsize_t> chunk = dims;
    auto chunk_bytes = [&] {
      std::size_t b = element_size;
      for (hsize_t c : chunk) b *= c;
      return b;
    };
    while (chunk_bytes() > (std::size_t(1) << 20)) {
      auto it = std::find_if(chunk.begin(), chunk.end(), [](hsize_t c) { return c > 1; });
      if (it == chunk.end()) break;
      *it = (*it + 1) / 2;
    }
    w.check(H5Pset_chunk(p.get(), int(chunk.size()), chunk.data()), "cannot set chunking");
    w.check(H5Pset_shuffle(p.get()), "cannot set the shuffle filter");
    w.check(H5Pset_deflate(p.get(), kDeflateLevel), "cannot set the deflate filter");
  }
  return p;
}

void write_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                   const std::vector<hsize_t>& dims, std::size_t element_size, const void* data,
                   const Where& w) {
  Handle space(w.check(H5Screate_simple(int(dims.size()), dims.data(), nullptr), "cannot create a dataspace"));
  Handle dcpl = dataset_create_plist(dims, element_size, w);
  Handle ds(w.check(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                    "cannot create the dataset"));
  bool empty = false;
  for (hsize_t d : dims) empty = empty || d == 0;
  if (!empty) w.check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "cannot write the dataset");
}

}  // namespace h5

// ---- Tensor -------------------------------------------------------------------------------------

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

namespace {
std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * std::max<std::int64_t>(shape[k], 1);
  return s;
}
}  // namespace

// ---- Writer -------------------------------------------------------------------------------------

Provenance Provenance::build() { return {std::string(kVersion), std::string(kGitRevision)}; }

Writer::Writer(std::filesystem::path path, std::string creation_parameters_json, const Provenance& provenance)
    : path_(std::move(path)), provenance_(provenance) {
  h5::silence_errors();
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = path_.has_parent_path() ? path_.parent_path() : std::filesystem::path(".");
  temp_ = dir / ("." + path_.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                 std::to_string(counter++));
  const h5::Where w = where();
  h5::Handle fcpl(w.check(H5Pcreate(H5P_FILE_CREATE), "cannot create a file creation list"));
  // The root group takes its object-creation properties from the file creation list.
  w.check(H5Pset_obj_track_times(fcpl.get(), false), "cannot turn off time tracking");
  w.check(H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
          "cannot set link creation order");
  w.check(H5Pset_attr_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
          "cannot set attribute creation order");
  h5::Handle fapl(w.check(H5Pcreate(H5P_FILE_ACCESS), "cannot create a file access list"));
  w.check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "cannot set the close degree");
  // Pin the on-disk object versions so a newer library writes the same bytes. (The 1.10 format
  // would save the v1 chunk B-tree's ~2 KB per chunked dataset, but HDF5 1.10 then stores object
  // times in the root group's header whatever the creation list says: files would differ by
  // the second they were written. So would a smaller chunk B-tree node, H5Pset_istore_k.)
  w.check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "cannot pin the format version");
  file_ = h5::Handle(w.check(H5Fcreate(temp_.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
                             "cannot create " + temp_.string()));
  try {
    const hid_t root = file_.get();
    h5::set_attr(root, "schema_version", kSchemaVersion, w);
    h5::set_attr(root, "generator", "octet " + provenance_.version, w);
    h5::set_attr(root, "git_revision", std::string_view(provenance_.revision), w);
    h5::set_attr(root, "creation_parameters", creation_parameters_json, w);
  } catch (...) {
    file_.reset();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    throw;
  }
}

Writer::~Writer() {
  if (committed_) return;
  file_.reset();
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
}

h5::Where Writer::where(const std::string& group, const std::string& ds) const {
  return h5::Where{path_.string(), group, ds};
}

void Writer::add_case(const std::string& case_name, const CaseAttributes& attrs) {
  const h5::Where w = where(case_name);
  if (committed_) w.fail("writer already committed");
  if (case_name.empty() || case_name.find('/') != std::string::npos) w.fail("invalid case name");
  if (h5::exists(file_.get(), case_name)) w.fail("case written twice");
  h5::Handle gcpl = h5::group_create_plist(w);
  h5::Handle g(w.check(H5Gcreate2(file_.get(), case_name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                       "cannot create the case group"));
  // One name-ordered pass over every attribute, whatever its type.
  std::map<std::string, int> order;
  for (const auto& [k, v] : attrs.strings) order[k] |= 1;
  for (const auto& [k, v] : attrs.ints) order[k] |= 2;
  for (const auto& [k, v] : attrs.int_arrays) order[k] |= 4;
  if (!order.count("octet_version")) order["octet_version"] = 8;
  if (!order.count("git_revision")) order["git_revision"] = 16;
  for (const auto& [k, kinds] : order) {
    if (kinds != 1 && kinds != 2 && kinds != 4 && kinds != 8 && kinds != 16)
      w.fail("case attribute '" + k + "' given with two types");
    if (kinds == 1) h5::set_attr(g.get(), k, std::string_view(attrs.strings.at(k)), w);
    if (kinds == 2) h5::set_attr(g.get(), k, attrs.ints.at(k), w);
    if (kinds == 4) h5::set_attr(g.get(), k, attrs.int_arrays.at(k), w);
    if (kinds == 8) h5::set_attr(g.get(), k, std::string_view(provenance_.version), w);
    if (kinds == 16) h5::set_attr(g.get(), k, std::string_view(provenance_.revision), w);
  }
}

void Writer::write_tensor(const std::string& case_name, const std::string& dataset, const Tensor& t) {
  const h5::Where w = where(case_name, dataset);
  if (committed_) w.fail("writer already committed");
  if (dataset.empty() || dataset.find('/') != std::string::npos) w.fail("invalid dataset name");
  const auto info = lookup_dtype(t.dtype);
  if (!info) w.fail("unknown dtype '" + t.dtype + "'");
  if (t.shape.empty()) w.fail("rank-0 tensors are not supported");
  std::vector<hsize_t> dims;
  std::uint64_t numel = 1;
  for (std::int64_t d : t.shape) {
    if (d < 0) w.fail("negative dimension in shape " + join(t.shape));
    dims.push_back(hsize_t(d));
    numel *= std::uint64_t(d);
  }
  if (t.bytes.size() != numel * std::uint64_t(info->element_size))
    w.fail("shape " + join(t.shape) + " of " + std::string(info->name) + " needs " +
           std::to_string(numel * info->element_size) + " bytes, got " + std::to_string(t.bytes.size()));
  if (!t.strides.empty() && t.strides.size() != t.shape.size())
    w.fail("strides " + join(t.strides) + " do not match the rank of shape " + join(t.shape));
  if (!h5::exists(file_.get(), case_name)) w.fail("case not found (add_case first)");
  h5::Handle g = h5::open_group(file_.get(), case_name, w);
  if (h5::exists(g.get(), dataset)) w.fail("dataset written twice");
  const hid_t type = le_type(*info);
  h5::write_dataset(g.get(), dataset, type, type, dims, std::size_t(info->element_size), t.bytes.data(), w);
  h5::Handle ds = h5::open_dataset(g.get(), dataset, w);
  h5::set_attr(ds.get(), "dtype", info->name, w);
  h5::set_attr(ds.get(), "shape", t.shape, w);
  h5::set_attr(ds.get(), "strides", t.strides.empty() ? row_major_strides(t.shape) : t.strides, w);
  h5::set_attr(ds.get(), "layout", std::string_view(t.layout), w);
}

void Writer::commit() {
  const h5::Where w = where();
  if (committed_) w.fail("writer already committed");
  w.check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "cannot flush the file");
  const hid_t id = file_.get();
  herr_t rc = H5Fclose(id);
  // H5Fclose released the identifier even on failure paths we care about; do not close it twice.
  file_ = h5::Handle();
  if (rc < 0) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    w.fail_hdf5("cannot close the file");
  }
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) {
    std::error_code ec2;
    std::filesystem::remove(temp_, ec2);
    w.fail("cannot rename " + temp_.string() + " into place: " + ec.message());
  }
  committed_ = true;
}

// ---- Reader -------------------------------------------------------------------------------------

Reader::Reader(std::filesystem::path path) : path_(std::move(path)) {
  file_ = h5::open_file(path_, false);
  const h5::Where w = where();
  const hid_t root = file_.get();
  if (!h5::has_attr(root, "schema_version"))
    w.fail("root attribute 'schema_version' is missing (not an octet golden file?)");
  root_.schema_version = h5::get_int_attr(root, "schema_version", w);
  if (root_.schema_version > kSchemaVersion)
    w.fail("schema version " + std::to_string(root_.schema_version) +
           " is newer than this octet supports (" + std::to_string(kSchemaVersion) + ")");
  if (root_.schema_version < 1) w.fail("invalid schema version " + std::to_string(root_.schema_version));
  root_.generator = h5::get_string_attr(root, "generator", w);
  root_.git_revision = h5::get_string_attr(root, "git_revision", w);
  root_.creation_parameters = h5::get_string_attr(root, "creation_parameters", w);
}

h5::Where Reader::where(const std::string& group, const std::string& ds) const {
  return h5::Where{path_.string(), group, ds};
}

h5::Handle Reader::open_case(const std::string& case_name) const {
  return h5::open_group(file_.get(), case_name, where(case_name));
}

std::vector<std::string> Reader::cases() const { return h5::children(file_.get(), where()); }

std::vector<std::string> Reader::datasets(const std::string& case_name) const {
  h5::Handle g = open_case(case_name);
  return h5::children(g.get(), where(case_name));
}

CaseAttributes Reader::case_attributes(const std::string& case_name) const {
  const h5::Where w = where(case_name);
  h5::Handle g = open_case(case_name);
  CaseAttributes out;
  for (const std::string& name : h5::attribute_names(g.get(), w)) {
    if (h5::attr_is_string(g.get(), name, w)) {
      out.strings[name] = h5::get_string_attr(g.get(), name, w);
      continue;
    }
    h5::Handle a(w.check(H5Aopen(g.get(), name.c_str(), H5P_DEFAULT), "cannot open attribute '" + name + "'"));
    h5::Handle space(w.check(H5Aget_space(a.get()), "cannot read attribute '" + name + "'"));
    if (H5Sget_simple_extent_type(space.get()) == H5S_SCALAR)
      out.ints[name] = h5::get_int_attr(g.get(), name, w);
    else
      out.int_arrays[name] = h5::get_int_array_attr(g.get(), name, w);
  }
  return out;
}

namespace {
// HDF5 1.10 copies a chunk whose filters (after its mask) keep the size into the chunk buffer
// without comparing its recorded size with the chunk's: a heap overflow on a corrupt chunk index
// or mask. Each allocated chunk must lie inside the file, and such a chunk must hold exactly the
// chunk's bytes. One lookup per chunk of the grid, so the grid is bounded by the file size
// (every allocated chunk takes at least a byte; octet's chunks are up to 1 MiB).
void check_chunks(hid_t ds, hid_t dcpl, const std::vector<hsize_t>& dims, std::uint64_t file_bytes,
                  const h5::Where& w) {
  const int rank = int(dims.size());
  std::vector<hsize_t> chunk(dims.size(), 0);
  if (H5Pget_chunk(dcpl, rank, chunk.data()) != rank) w.fail("cannot read the chunk dimensions");
  h5::Handle type(w.check(H5Dget_type(ds), "cannot read the element type"));
  std::uint64_t chunk_bytes = H5Tget_size(type.get());
  std::uint64_t grid = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (chunk[k] == 0) w.fail("a chunk dimension is 0 (corrupt file?)");
    chunk_bytes *= chunk[k];  // bounded by the chunk-dimension check before
    grid *= (dims[k] + chunk[k] - 1) / chunk[k];
    if (grid > std::max<std::uint64_t>(file_bytes, 1 << 20))
      w.fail("more chunks than the file could hold (corrupt file?)");
  }
  const int nfilters = H5Pget_nfilters(dcpl);
  std::vector<H5Z_filter_t> filter_ids;
  for (int i = 0; i < nfilters; ++i) {
    unsigned flags = 0;
    std::size_t n_values = 0;
    filter_ids.push_back(H5Pget_filter2(dcpl, unsigned(i), &flags, &n_values, nullptr, 0, nullptr, nullptr));
  }
  std::vector<hsize_t> offset(dims.size(), 0);
  for (std::uint64_t n = 0; n < grid; ++n) {
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    w.check(H5Dget_chunk_info_by_coord(ds, offset.data(), &mask, &addr, &size), "cannot read the chunk index");
    if (addr != HADDR_UNDEF) {
      if (size > file_bytes || addr > file_bytes - size)
        w.fail("a chunk lies outside the file (corrupt file?)");
      // Shuffle keeps the size; any other applied filter (deflate, ...) may change it.
      bool resized = false;
      for (int i = 0; i < nfilters && i < 32; ++i)
        resized = resized || (((mask >> i) & 1u) == 0 && filter_ids[std::size_t(i)] != H5Z_FILTER_SHUFFLE);
      if (!resized && size != chunk_bytes)
        w.fail("a chunk stored without size-changing filters has " + std::to_string(size) + " bytes, chunks hold " +
               std::to_string(chunk_bytes) + " (corrupt file?)");
    }
    // Next chunk of the grid, last dimension fastest.
    for (std::size_t k = dims.size(); k-- > 0;) {
      offset[k] += chunk[k];
      if (offset[k] < dims[k]) break;
      offset[k] = 0;
    }
  }
}
}  // namespace

Tensor Reader::read_tensor(const std::string& case_name, const std::string& dataset) const {
  const h5::Where w = where(case_name, dataset);
  h5::Handle g = h5::open_group(file_.get(), case_name, w);
  h5::Handle ds = h5::open_dataset(g.get(), dataset, w);
  Tensor t;
  t.dtype = h5::get_string_attr(ds.get(), "dtype", w);
  const auto info = lookup_dtype(t.dtype);
  if (!info) w.fail("unknown dtype '" + t.dtype + "'");
  t.dtype = std::string(info->name);

  h5::Handle type(w.check(H5Dget_type(ds.get()), "cannot read the element type"));
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  Storage stored;
  if (cls == H5T_FLOAT) stored = Storage::ieee_float;
  else if (cls == H5T_INTEGER) stored = H5Tget_sign(type.get()) == H5T_SGN_NONE ? Storage::uint : Storage::sint;
  else w.fail("elements are neither integers nor floats");
  if (stored != info->storage || size != std::size_t(info->element_size))
    w.fail("dtype '" + t.dtype + "' needs " + describe_storage(info->storage, std::size_t(info->element_size)) +
           " elements, the dataset stores " + describe_storage(stored, size) + " elements");

  h5::Handle space(w.check(H5Dget_space(ds.get()), "cannot read the dataspace"));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) w.fail("the dataset is not an array of rank >= 1");
  std::vector<hsize_t> dims(std::size_t(rank), 0);
  w.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "cannot read the dimensions");
  // The element count in bytes must fit an int64 (Tensor::numel) before anything is allocated.
  std::uint64_t bytes = std::uint64_t(info->element_size);
  for (hsize_t d : dims) {
    if (d != 0 && bytes > std::uint64_t(std::numeric_limits<std::int64_t>::max()) / d)
      w.fail("dataset dimensions " + join(std::vector<std::int64_t>(dims.begin(), dims.end())) +
             " overflow the addressable size");
    bytes *= d;
  }
  std::vector<std::int64_t> actual(dims.begin(), dims.end());
  t.shape = h5::get_int_array_attr(ds.get(), "shape", w);
  if (t.shape != actual)
    w.fail("shape attribute " + join(t.shape) + " does not match the dataset dimensions " + join(actual));
  if (h5::has_attr(ds.get(), "strides")) {
    t.strides = h5::get_int_array_attr(ds.get(), "strides", w);
    if (t.strides.size() != t.shape.size())
      w.fail("strides attribute " + join(t.strides) + " does not match the rank of shape " + join(t.shape));
  }
  if (h5::has_attr(ds.get(), "layout")) t.layout = h5::get_string_attr(ds.get(), "layout", w);

  // A corrupt header can declare dimensions far beyond the bytes the file holds. Deflate expands
  // at most ~1032:1 and shuffle not at all, so a large dataset with more than kMaxExpansion
  // bytes per stored byte is corrupt (octet always writes the data; a small unwritten dataset
  // reads as its fill value and is allowed).
  constexpr std::uint64_t kMaxExpansion = 1100;
  constexpr std::uint64_t kUncheckedBytes = std::uint64_t(16) << 20;
  const std::uint64_t stored_bytes = H5Dget_storage_size(ds.get());
  // HDF5 allocates a chunk's buffer from its recorded size before reading it: a corrupt chunk
  // index claiming gigabytes would be allocated as such. Stored bytes beyond the file's own size
  // can only come from such an index.
  hsize_t file_bytes = 0;
  w.check(H5Fget_filesize(file_.get(), &file_bytes), "cannot read the file size");
  if (stored_bytes > file_bytes)
    w.fail("the dataset claims " + std::to_string(stored_bytes) + " stored bytes, more than the file's " +
           std::to_string(file_bytes) + " (corrupt file?)");
  h5::Handle dcpl(w.check(H5Dget_create_plist(ds.get()), "cannot read the dataset's creation list"));
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  // HDF5 1.10 copies a compact dataset's elements out of its layout message without comparing the
  // message's size with the dataspace (a heap overflow on a corrupt file), and a contiguous one
  // spans the size its message records: both must hold exactly the shape's bytes (a contiguous
  // dataset may also be unallocated, reading as its fill value).
  if ((layout == H5D_COMPACT && stored_bytes != bytes) ||
      (layout == H5D_CONTIGUOUS && stored_bytes != 0 && stored_bytes != bytes))
    w.fail("the dataset stores " + std::to_string(stored_bytes) + " bytes, its shape " + join(t.shape) + " needs " +
           std::to_string(bytes) + " (corrupt file?)");
  // Likewise a chunk's buffer is allocated from the chunk dimensions of the layout message.
  if (layout == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(std::size_t(rank), 0);
    if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank) w.fail("cannot read the chunk dimensions");
    const std::uint64_t limit = std::max(kUncheckedBytes, kMaxExpansion * std::uint64_t(file_bytes));
    std::uint64_t chunk_bytes = std::uint64_t(info->element_size);
    bool too_large = false;
    for (hsize_t c : chunk) {
      too_large = too_large || (c != 0 && chunk_bytes > limit / c);
      if (!too_large) chunk_bytes *= c;
    }
    if (too_large || chunk_bytes > limit)
      w.fail("chunk dimensions " + join(std::vector<std::int64_t>(chunk.begin(), chunk.end())) +
             " cannot come from a file of " + std::to_string(file_bytes) + " bytes (corrupt file?)");
  }
  if (bytes > kUncheckedBytes && bytes / kMaxExpansion > stored_bytes)
    w.fail("the dataset's " + std::to_string(bytes) + " bytes of " + join(t.shape) + " cannot come from the " +
           std::to_string(stored_bytes) + " bytes it stores (truncated or corrupt file?)");
  if (layout == H5D_CHUNKED && bytes > 0) check_chunks(ds.get(), dcpl.get(), dims, std::uint64_t(file_bytes), w);
  t.bytes.assign(bytes, 0);
  if (bytes > 0)
    w.check(H5Dread(ds.get(), le_type(*info), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.bytes.data()),
            "cannot read the data (corrupt file?)");
  return t;
}

}  // namespace octet::golden
