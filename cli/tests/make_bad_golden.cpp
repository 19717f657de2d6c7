// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet_make_bad_golden DIR: the inputs of the CLI's bad-input tests. DIR/run/ holds one file per
// defect, each a copy of good.h5 (one case "case_000": kernel mx_quantize_dim0, input x bfloat16
// (32, 64)) with one thing wrong; DIR/list_<defect>/ holds that file and a MANIFEST naming it, for
// `octet golden list`. Valid files come from octet::golden::Writer, defects are then made with
// the HDF5 C API, so each file is wrong in exactly one way. Exit code 2 on any error.
#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "octet/golden/h5.hpp"

namespace {

namespace fs = std::filesystem;
using namespace octet::golden;

// bfloat16 codes of finite values near 1: alternating sign, biased exponent 124..127, varied
// mantissa.
Tensor bf16_tensor(std::vector<std::int64_t> shape) {
  Tensor t;
  t.dtype = "bfloat16";
  t.shape = std::move(shape);
  std::size_t n = 1;
  for (std::int64_t d : t.shape) n *= std::size_t(d);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t code = std::uint16_t((i % 2) << 15 | (0x3e00 + (i * 13) % 0x200));
    t.bytes.push_back(std::uint8_t(code & 0xff));
    t.bytes.push_back(std::uint8_t(code >> 8));
  }
  return t;
}

Tensor int32_tensor(const std::vector<std::int32_t>& values) {
  Tensor t;
  t.dtype = "int32";
  t.shape = {std::int64_t(values.size())};
  for (std::int32_t v : values)
    for (int b = 0; b < 4; ++b) t.bytes.push_back(std::uint8_t(std::uint32_t(v) >> (8 * b)));
  return t;
}

// One case "case_000" with `kernel`, `inputs` and the tensors.
void write_case(const fs::path& path, const std::string& kernel, const std::string& inputs,
                const std::vector<std::pair<std::string, Tensor>>& tensors) {
  Writer w(path, R"({"family":"cli_bad_input"})");
  CaseAttributes a;
  a.strings = {{"kernel", kernel}, {"inputs", inputs}};
  w.add_case("case_000", a);
  for (const auto& [name, t] : tensors) w.write_tensor("case_000", name, t);
  w.commit();
}

void write_good(const fs::path& path) { write_case(path, "mx_quantize_dim0", "x", {{"x", bf16_tensor({32, 64})}}); }

// Opens `path` for writing and hands `edit` the file, the case group and the dataset x.
void edit(const fs::path& path, const std::function<void(hid_t file, hid_t group, hid_t x, const h5::Where&)>& change) {
  const h5::Where w{path.string(), "case_000", "x"};
  h5::Handle file = h5::open_file(path, true);
  h5::Handle group = h5::open_group(file.get(), "case_000", w);
  h5::Handle x = h5::open_dataset(group.get(), "x", w);
  change(file.get(), group.get(), x.get(), w);
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A dataset `big` of 2^20 x 2^20 uint8 elements (1 TiB) that was never written: its header is
// valid, its storage empty. Reading it must fail before allocating.
void add_unwritten_terabyte(hid_t group, const h5::Where& w) {
  const hsize_t dims[2] = {hsize_t(1) << 20, hsize_t(1) << 20};
  const hsize_t chunk[2] = {1024, 1024};
  h5::Handle space(w.check(H5Screate_simple(2, dims, nullptr), "cannot create a dataspace"));
  h5::Handle dcpl(w.check(H5Pcreate(H5P_DATASET_CREATE), "cannot create a creation list"));
  w.check(H5Pset_chunk(dcpl.get(), 2, chunk), "cannot set chunking");
  h5::Handle ds(w.check(H5Dcreate2(group, "big", H5T_STD_U8LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                        "cannot create the dataset"));
  h5::set_attr(ds.get(), "dtype", std::string_view("uint8"), w);
  h5::set_attr(ds.get(), "shape", std::vector<std::int64_t>{std::int64_t(1) << 20, std::int64_t(1) << 20}, w);
}

// Every defect: name -> how to make DIR/run/<name>.h5 from nothing.
void write_all(const fs::path& run) {
  write_good(run / "good.h5");
  const std::string good = read_bytes(run / "good.h5");
  write_bytes(run / "truncated.h5", good.substr(0, good.size() / 2));
  write_bytes(run / "not_hdf5.h5", "x,y\n1,2\n");
  write_case(run / "missing_dataset.h5", "mx_quantize_dim0", "x,w", {{"x", bf16_tensor({32, 64})}});
  write_good(run / "unknown_dtype.h5");
  edit(run / "unknown_dtype.h5", [](hid_t, hid_t, hid_t x, const h5::Where& w) {
    h5::set_attr(x, "dtype", std::string_view("float7_e3m3"), w);
  });
  write_good(run / "wrong_dtype.h5");  // float32 needs 4-byte floats; x stores 2-byte codes
  edit(run / "wrong_dtype.h5", [](hid_t, hid_t, hid_t x, const h5::Where& w) {
    h5::set_attr(x, "dtype", std::string_view("float32"), w);
  });
  write_good(run / "shape_mismatch.h5");
  edit(run / "shape_mismatch.h5", [](hid_t, hid_t, hid_t x, const h5::Where& w) {
    h5::set_attr(x, "shape", std::vector<std::int64_t>{64, 32}, w);
  });
  write_good(run / "future_schema.h5");
  edit(run / "future_schema.h5", [](hid_t file, hid_t, hid_t, const h5::Where& w) {
    h5::set_attr(file, "schema_version", std::int64_t(kSchemaVersion + 1), w);
  });
  write_case(run / "unknown_kernel.h5", "no_such_kernel", "x", {{"x", bf16_tensor({32, 64})}});
  write_case(run / "wrong_rank.h5", "mx_quantize_dim0", "x", {{"x", bf16_tensor({2, 32, 64})}});
  write_case(run / "wrong_input_dtype.h5", "mx_quantize_dim0", "x",
             {{"x", int32_tensor(std::vector<std::int32_t>(32 * 64, 1))}});
  write_case(run / "offs_not_monotonic.h5", "fp8_per_group_rowwise_scales", "x,offs",
             {{"x", bf16_tensor({4, 128})}, {"offs", int32_tensor({100, 50})}});
  write_good(run / "unwritten_terabyte.h5");
  edit(run / "unwritten_terabyte.h5",
       [](hid_t, hid_t group, hid_t, const h5::Where& w) { add_unwritten_terabyte(group, w); });
}

// DIR/list_<defect>/: the defective file and a MANIFEST naming it (`golden list` does not check
// digests); list_missing_file names a file that is not there.
void write_list_dirs(const fs::path& dir, const fs::path& run) {
  const std::string zeros(64, '0');
  for (const char* defect : {"truncated", "not_hdf5", "unknown_dtype", "wrong_dtype", "shape_mismatch",
                             "future_schema", "unwritten_terabyte", "missing_file"}) {
    const fs::path d = dir / (std::string("list_") + defect);
    fs::create_directories(d);
    const std::string file = std::string(defect) + ".h5";
    if (fs::exists(run / file)) fs::copy_file(run / file, d / file, fs::copy_options::overwrite_existing);
    write_bytes(d / "MANIFEST", zeros + "  " + file + "\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: octet_make_bad_golden DIR\n");
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    fs::remove_all(dir);
    fs::create_directories(dir / "run");
    write_all(dir / "run");
    write_list_dirs(dir, dir / "run");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
