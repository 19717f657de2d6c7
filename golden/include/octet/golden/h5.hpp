// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// h5.hpp — golden files (golden/schema.md): a small RAII layer over the HDF5 C API, a Writer that
// produces byte-reproducible files under a temporary name and renames them on commit(), and a
// Reader that validates what it returns. Every failure is a GoldenError naming file, case and
// dataset; the HDF5 error stack is never printed.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "octet/format.hpp"

namespace octet::golden {

// Bumped whenever a reader of version N could misread a file of version N+1.
inline constexpr std::int64_t kSchemaVersion = 1;

// Message: "golden: <file>: case '<case>': dataset '<dataset>': <what>" (empty parts omitted).
class GoldenError : public std::runtime_error {
 public:
  GoldenError(std::string file, std::string group, std::string dataset, const std::string& what);
  const std::string& file() const { return file_; }
  const std::string& group() const { return group_; }
  const std::string& dataset() const { return dataset_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_, group_, dataset_, detail_;
};

// ---- dtypes -------------------------------------------------------------------------------------

enum class Storage : std::uint8_t { uint, sint, ieee_float };

struct DtypeInfo {
  std::string_view name;        // canonical ml_dtypes / NumPy spelling
  int element_size;             // bytes per stored element
  Storage storage;              // HDF5 class of the stored elements
  std::optional<FormatId> format;  // the octet format when the dtype is one
};

// Known dtypes: every octet format (raw codes as uint8, or uint16 for bfloat16/float16; float32
// and float64 as IEEE floats), plus int32, int64 and uint8. Accepts octet's short names too
// ("e4m3fn"); `name` is always the ml_dtypes spelling.
std::optional<DtypeInfo> lookup_dtype(std::string_view s);

// ---- RAII handles -------------------------------------------------------------------------------

namespace h5 {

// Owns one HDF5 identifier (file, group, dataset, attribute, dataspace, datatype, property list)
// and releases it with H5Idec_ref.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept;
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Turns off HDF5's automatic error printing (idempotent, thread-safe).
void silence_errors();
// The innermost message of the current HDF5 error stack ("" if empty); clears the stack.
std::string last_error();

// Where an operation happens, for error messages.
struct Where {
  std::string file, group, dataset;
  [[noreturn]] void fail(const std::string& what) const;
  // Throws with `what` and the HDF5 error detail when rc < 0 (an hid_t, herr_t or htri_t);
  // returns rc otherwise.
  template <class T>
  T check(T rc, const std::string& what) const {
    if (rc < 0) fail_hdf5(what);
    return rc;
  }
  [[noreturn]] void fail_hdf5(const std::string& what) const;
};

Handle open_file(const std::filesystem::path& p, bool writable);
Handle open_group(hid_t loc, const std::string& name, const Where& w);
Handle open_dataset(hid_t loc, const std::string& name, const Where& w);
bool exists(hid_t loc, const std::string& name);
// Link names of a group, in name order.
std::vector<std::string> children(hid_t group, const Where& w);
// Attribute names of an object, in name order.
std::vector<std::string> attribute_names(hid_t obj, const Where& w);

// Attributes. Strings are fixed-length, null-terminated UTF-8 (deterministic: no global heap);
// integers are H5T_STD_I64LE scalars or 1-D arrays. Setting replaces an existing attribute.
void set_attr(hid_t obj, const std::string& name, std::string_view value, const Where& w);
void set_attr(hid_t obj, const std::string& name, std::int64_t value, const Where& w);
void set_attr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& value, const Where& w);
void delete_attr(hid_t obj, const std::string& name, const Where& w);
bool has_attr(hid_t obj, const std::string& name);
bool attr_is_string(hid_t obj, const std::string& name, const Where& w);
std::string get_string_attr(hid_t obj, const std::string& name, const Where& w);
std::int64_t get_int_attr(hid_t obj, const std::string& name, const Where& w);
std::vector<std::int64_t> get_int_array_attr(hid_t obj, const std::string& name, const Where& w);

// Property lists with the golden rules: no object times, attribute (and link) creation order
// tracked and indexed.
Handle group_create_plist(const Where& w);
// Dataset creation list: no times, creation order, and chunked shuffle+deflate(kDeflateLevel)
// when the dataset holds more than kCompressMinBytes.
inline constexpr int kDeflateLevel = 6;
inline constexpr std::size_t kCompressMinBytes = 1024;
Handle dataset_create_plist(const std::vector<hsize_t>& dims, std::size_t element_size, const Where& w);

// Creates a dataset of file type `file_type` (memory type `mem_type`) and writes `data`.
void write_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                   const std::vector<hsize_t>& dims, std::size_t element_size, const void* data,
                   const Where& w);

}  // namespace h5

// ---- typed contents -----------------------------------------------------------------------------

// One stored tensor: raw little-endian elements in `bytes` (numel × element size of `dtype`) in
// logical row-major (C) order, as NumPy shows the dataset; `shape` in elements. `strides` (in
// elements; empty on write: row-major) and `layout` ("row_major", "col_major", ...) record the
// memory layout the kernel used: buffer[sum(i_k * strides[k])] = element i. Rank >= 1.
struct Tensor {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::string layout = "row_major";
  std::vector<std::uint8_t> bytes;

  std::int64_t numel() const;
  bool operator==(const Tensor&) const = default;
};

// Case attributes (schema.md §Case): kernel, recipe, profile, rounding, distribution, ... as
// strings; seed and other integers as int64; integer lists as 1-D int64. Written in name order.
struct CaseAttributes {
  std::map<std::string, std::string> strings;
  std::map<std::string, std::int64_t> ints;
  std::map<std::string, std::vector<std::int64_t>> int_arrays;  // e.g. group_offsets
  bool operator==(const CaseAttributes&) const = default;
};

struct RootAttributes {
  std::int64_t schema_version = kSchemaVersion;
  std::string generator;              // "octet <version>"
  std::string git_revision;
  std::string creation_parameters;    // a JSON object, as text
};

// What a file says about the build that made it (root `generator` = "octet <version>",
// `git_revision`; and each case's octet_version / git_revision). `golden verify` regenerates with
// the committed file's provenance, so that only the data is compared.
struct Provenance {
  std::string version, revision;
  static Provenance build();  // octet::kVersion, octet::kGitRevision
};

// Writes one golden file (one case family). The file is built as "<dir>/.<name>.tmp-<pid>-<n>"
// and renamed over `path` by commit(); destroying an uncommitted Writer removes the temporary.
class Writer {
 public:
  Writer(std::filesystem::path path, std::string creation_parameters_json = "{}",
         const Provenance& provenance = Provenance::build());
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  // Creates the case group with `attrs`, plus octet_version and git_revision (the writer's
  // provenance) unless given.
  void add_case(const std::string& case_name, const CaseAttributes& attrs);
  void write_tensor(const std::string& case_name, const std::string& dataset, const Tensor& t);
  // Closes the file and renames it into place. No further calls are allowed.
  void commit();

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  std::filesystem::path path_, temp_;
  h5::Handle file_;
  bool committed_ = false;
  Provenance provenance_;
  h5::Where where(const std::string& group = {}, const std::string& ds = {}) const;
};

// Opens and validates a golden file. Validation of each tensor happens on read_tensor.
class Reader {
 public:
  explicit Reader(std::filesystem::path path);

  const RootAttributes& root() const { return root_; }
  std::vector<std::string> cases() const;                       // name order
  std::vector<std::string> datasets(const std::string& case_name) const;
  CaseAttributes case_attributes(const std::string& case_name) const;
  // Checks: dataset present; `dtype` present, a string and known; stored element class and size
  // match the dtype; `shape` present and equal to the dataset's dimensions; strides (if any) of
  // the same rank. Returns the dtype in its canonical spelling.
  Tensor read_tensor(const std::string& case_name, const std::string& dataset) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  h5::Handle file_;
  RootAttributes root_;
  h5::Where where(const std::string& group = {}, const std::string& ds = {}) const;
  h5::Handle open_case(const std::string& case_name) const;
};

}  // namespace octet::golden
