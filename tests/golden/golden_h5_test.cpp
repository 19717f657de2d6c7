// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// Golden files: round trips of every dtype, byte-identical rewrites, temp-then-rename, and every
// bad input turned into a GoldenError that names file, case and dataset.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "octet/golden/h5.hpp"
#include "octet/version.hpp"

namespace fs = std::filesystem;
using namespace octet::golden;

namespace {

fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = fs::temp_directory_path() /
               ("octet_golden_" + std::to_string(::getpid()) + "_" + info->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<std::uint8_t> file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Tensor pattern(const std::string& dtype, std::vector<std::int64_t> shape, int salt = 0) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  const auto info = lookup_dtype(dtype);
  t.bytes.resize(std::size_t(t.numel() * info->element_size));
  for (std::size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = std::uint8_t((i * 37 + salt) ^ (i >> 8));
  return t;
}

const std::vector<std::string> kAllDtypes = {
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float6_e2m3fn", "float6_e3m2fn",   "float4_e2m1fn", "bfloat16",      "float16",
    "float32",       "float64",         "int32",        "int64",          "uint8"};

// One file with a case per family member: small (contiguous) and large (chunked) datasets.
void write_family(const fs::path& p) {
  Writer w(p, R"({"seed":7,"families":["all_dtypes"]})");
  CaseAttributes a;
  a.strings = {{"kernel", "quantize_mx"}, {"recipe", "rceil"}, {"profile", "ocp"},
               {"rounding", "rne"}, {"distribution", "normal(0,1)"}, {"shape", "64x32"}};
  a.ints = {{"seed", 42}};
  a.int_arrays = {{"group_offsets", {0, 16, 64}}};
  w.add_case("case_000", a);
  int salt = 0;
  for (const std::string& d : kAllDtypes) {
    w.write_tensor("case_000", d + "_small", pattern(d, {3, 5}, salt++));
    w.write_tensor("case_000", d + "_large", pattern(d, {64, 32}, salt++));
  }
  w.commit();
}

// Expects a GoldenError whose message names the file and the given parts and contains `needle`.
template <class F>
void expect_golden_error(F&& f, const fs::path& file, const std::string& group,
                         const std::string& dataset, const std::string& needle) {
  try {
    f();
    FAIL() << "no GoldenError";
  } catch (const GoldenError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(file.string()), std::string::npos) << m;
    if (!group.empty()) {
      EXPECT_NE(m.find("case '" + group + "'"), std::string::npos) << m;
    }
    if (!dataset.empty()) {
      EXPECT_NE(m.find("dataset '" + dataset + "'"), std::string::npos) << m;
    }
    EXPECT_NE(m.find(needle), std::string::npos) << m;
    EXPECT_EQ(e.file(), file.string());
    EXPECT_EQ(e.group(), group);
    EXPECT_EQ(e.dataset(), dataset);
  }
}

// Opens a committed file for tampering through the RAII layer.
struct Tamper {
  h5::Handle file, group, ds;
  h5::Where w;
  Tamper(const fs::path& p, const std::string& g, const std::string& d) : w{p.string(), g, d} {
    file = h5::open_file(p, true);
    if (!g.empty()) group = h5::open_group(file.get(), g, w);
    if (!d.empty()) ds = h5::open_dataset(group.get(), d, w);
  }
};

}  // namespace

TEST(GoldenDtype, LookupCoversEverySpelling) {
  for (const std::string& d : kAllDtypes) {
    const auto info = lookup_dtype(d);
    ASSERT_TRUE(info) << d;
    EXPECT_EQ(info->name, d);
  }
  EXPECT_EQ(lookup_dtype("e4m3fn")->name, "float8_e4m3fn");
  EXPECT_EQ(lookup_dtype("bfloat16")->element_size, 2);
  EXPECT_EQ(lookup_dtype("float8_e8m0fnu")->element_size, 1);
  EXPECT_FALSE(lookup_dtype("float8_e4m3"));
  EXPECT_FALSE(lookup_dtype(""));
}

TEST(GoldenRoundTrip, EveryDtype) {
  const fs::path dir = scratch_dir();
  const fs::path p = dir / "family.h5";
  write_family(p);
  Reader r(p);
  EXPECT_EQ(r.root().schema_version, kSchemaVersion);
  EXPECT_EQ(r.root().generator, std::string("octet ") + octet::kVersion);
  EXPECT_EQ(r.root().git_revision, octet::kGitRevision);
  EXPECT_EQ(r.root().creation_parameters, R"({"seed":7,"families":["all_dtypes"]})");
  ASSERT_EQ(r.cases(), std::vector<std::string>{"case_000"});
  const CaseAttributes a = r.case_attributes("case_000");
  EXPECT_EQ(a.strings.at("kernel"), "quantize_mx");
  EXPECT_EQ(a.strings.at("octet_version"), octet::kVersion);
  EXPECT_EQ(a.strings.at("git_revision"), octet::kGitRevision);
  EXPECT_EQ(a.ints.at("seed"), 42);
  EXPECT_EQ(a.int_arrays.at("group_offsets"), (std::vector<std::int64_t>{0, 16, 64}));
  EXPECT_EQ(r.datasets("case_000").size(), 2 * kAllDtypes.size());
  int salt = 0;
  for (const std::string& d : kAllDtypes) {
    for (const auto& [suffix, shape] : {std::pair{"_small", std::vector<std::int64_t>{3, 5}},
                                        std::pair{"_large", std::vector<std::int64_t>{64, 32}}}) {
      Tensor expected = pattern(d, shape, salt++);
      expected.strides = {shape[1], 1};
      EXPECT_EQ(r.read_tensor("case_000", d + suffix), expected) << d << suffix;
    }
  }
}

TEST(GoldenRoundTrip, StridesLayoutAndShortNames) {
  const fs::path p = scratch_dir() / "layout.h5";
  Tensor t = pattern("e5m2", {2, 3, 4});
  t.strides = {12, 1, 3};
  t.layout = "expert_col_major";
  {
    Writer w(p);
    w.add_case("c", {});
    w.write_tensor("c", "w_e_k_n", t);
    w.write_tensor("c", "empty", pattern("float32", {0, 4}));
    w.commit();
  }
  Reader r(p);
  Tensor back = r.read_tensor("c", "w_e_k_n");
  t.dtype = "float8_e5m2";  // stored in the ml_dtypes spelling
  EXPECT_EQ(back, t);
  EXPECT_EQ(r.read_tensor("c", "empty").numel(), 0);
}

TEST(GoldenDeterminism, SameContentSameBytes) {
  const fs::path dir = scratch_dir();
  write_family(dir / "a.h5");
  // Object timestamps have one-second resolution: a second write after a pause would differ if
  // any object tracked its times.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_family(dir / "b.h5");
  const auto a = file_bytes(dir / "a.h5"), b = file_bytes(dir / "b.h5");
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "golden files differ: " << a.size() << " vs " << b.size() << " bytes";
}

TEST(GoldenDeterminism, LargeDatasetsAreCompressed) {
  const fs::path dir = scratch_dir();
  const fs::path p = dir / "zeros.h5";
  Tensor t;
  t.dtype = "float8_e4m3fn";
  t.shape = {1024, 1024};
  t.bytes.assign(1 << 20, 0);
  Writer w(p);
  w.add_case("c", {});
  w.write_tensor("c", "x", t);
  w.commit();
  EXPECT_LT(fs::file_size(p), 64u * 1024u);  // 1 MiB of zeros deflates to a few KiB
  EXPECT_EQ(Reader(p).read_tensor("c", "x"), (Tensor{t.dtype, t.shape, {1024, 1}, "row_major", t.bytes}));
}

TEST(GoldenWriter, ThrowMidwayLeavesNothing) {
  const fs::path dir = scratch_dir();
  const fs::path p = dir / "partial.h5";
  try {
    Writer w(p);
    EXPECT_TRUE(fs::exists(w.temp_path()));
    EXPECT_EQ(w.temp_path().parent_path(), dir);
    w.add_case("c", {});
    w.write_tensor("c", "x", pattern("bfloat16", {4, 4}));
    throw std::runtime_error("generator failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "partial output left behind";
  EXPECT_FALSE(fs::exists(p));
}

TEST(GoldenWriter, CommitReplacesAtomicallyAndRejectsBadTensors) {
  const fs::path dir = scratch_dir();
  const fs::path p = dir / "f.h5";
  { std::ofstream(p) << "old"; }
  Writer w(p);
  w.add_case("c", {});
  expect_golden_error([&] { w.write_tensor("c", "x", Tensor{"float8_e4m3", {2}, {}, "row_major", {0, 0}}); }, p, "c", "x",
                      "unknown dtype 'float8_e4m3'");
  Tensor bad = pattern("bfloat16", {2, 2});
  bad.bytes.pop_back();
  expect_golden_error([&] { w.write_tensor("c", "x", bad); }, p, "c", "x", "needs 8 bytes, got 7");
  expect_golden_error([&] { w.write_tensor("nope", "x", pattern("uint8", {1})); }, p, "nope", "x",
                      "case not found");
  EXPECT_EQ(file_bytes(p).size(), 3u);  // untouched until commit
  w.write_tensor("c", "x", pattern("uint8", {1}));
  w.commit();
  EXPECT_EQ(Reader(p).read_tensor("c", "x").bytes.size(), 1u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(GoldenBadInput, MissingFile) {
  const fs::path p = scratch_dir() / "absent.h5";
  expect_golden_error([&] { Reader r(p); }, p, "", "", "no such file");
}

TEST(GoldenBadInput, TruncatedFile) {
  const fs::path p = scratch_dir() / "trunc.h5";
  write_family(p);
  fs::resize_file(p, fs::file_size(p) / 2);
  expect_golden_error([&] { Reader r(p); }, p, "", "", "not a readable HDF5 file");
}

TEST(GoldenBadInput, GarbageBytes) {
  const fs::path p = scratch_dir() / "garbage.h5";
  {
    std::ofstream out(p, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(char(i * 131 + 7));
  }
  expect_golden_error([&] { Reader r(p); }, p, "", "", "not a readable HDF5 file");
}

TEST(GoldenBadInput, MissingCaseAndDataset) {
  const fs::path p = scratch_dir() / "missing.h5";
  write_family(p);
  Reader r(p);
  expect_golden_error([&] { r.read_tensor("case_999", "x"); }, p, "case_999", "x", "case not found");
  expect_golden_error([&] { r.read_tensor("case_000", "weights"); }, p, "case_000", "weights",
                      "dataset not found");
}

TEST(GoldenBadInput, MissingDtypeAttribute) {
  const fs::path p = scratch_dir() / "nodtype.h5";
  write_family(p);
  {
    Tamper t(p, "case_000", "bfloat16_small");
    h5::delete_attr(t.ds.get(), "dtype", t.w);
  }
  expect_golden_error([&] { Reader(p).read_tensor("case_000", "bfloat16_small"); }, p, "case_000",
                      "bfloat16_small", "attribute 'dtype' is missing");
}

TEST(GoldenBadInput, UnknownDtype) {
  const fs::path p = scratch_dir() / "unknown.h5";
  write_family(p);
  {
    Tamper t(p, "case_000", "float8_e4m3fn_small");
    h5::set_attr(t.ds.get(), "dtype", std::string_view("float8_e4m3b11fnuz"), t.w);
  }
  expect_golden_error([&] { Reader(p).read_tensor("case_000", "float8_e4m3fn_small"); }, p, "case_000",
                      "float8_e4m3fn_small", "unknown dtype 'float8_e4m3b11fnuz'");
}

TEST(GoldenBadInput, DtypeAttributeNotAString) {
  const fs::path p = scratch_dir() / "intdtype.h5";
  write_family(p);
  {
    Tamper t(p, "case_000", "uint8_small");
    h5::set_attr(t.ds.get(), "dtype", std::int64_t{8}, t.w);
  }
  expect_golden_error([&] { Reader(p).read_tensor("case_000", "uint8_small"); }, p, "case_000",
                      "uint8_small", "attribute 'dtype' is not a string");
}

TEST(GoldenBadInput, DtypeElementSizeMismatch) {
  const fs::path p = scratch_dir() / "size.h5";
  write_family(p);
  {
    // uint8 storage labelled bfloat16 (needs uint16), and uint16 storage labelled fp8.
    Tamper t(p, "case_000", "float8_e5m2_small");
    h5::set_attr(t.ds.get(), "dtype", std::string_view("bfloat16"), t.w);
    Tamper u(p, "case_000", "float16_small");
    h5::set_attr(u.ds.get(), "dtype", std::string_view("float8_e8m0fnu"), u.w);
    Tamper v(p, "case_000", "int32_small");
    h5::set_attr(v.ds.get(), "dtype", std::string_view("float32"), v.w);
  }
  Reader r(p);
  expect_golden_error([&] { r.read_tensor("case_000", "float8_e5m2_small"); }, p, "case_000",
                      "float8_e5m2_small",
                      "dtype 'bfloat16' needs 2-byte unsigned integer elements, the dataset stores "
                      "1-byte unsigned integer elements");
  expect_golden_error([&] { r.read_tensor("case_000", "float16_small"); }, p, "case_000", "float16_small",
                      "dtype 'float8_e8m0fnu' needs 1-byte unsigned integer");
  expect_golden_error([&] { r.read_tensor("case_000", "int32_small"); }, p, "case_000", "int32_small",
                      "dtype 'float32' needs 4-byte float elements, the dataset stores 4-byte signed integer");
}

TEST(GoldenBadInput, ShapeAttributeMismatch) {
  const fs::path p = scratch_dir() / "shape.h5";
  write_family(p);
  {
    Tamper t(p, "case_000", "float8_e8m0fnu_large");
    h5::set_attr(t.ds.get(), "shape", std::vector<std::int64_t>{32, 64}, t.w);
    Tamper u(p, "case_000", "float32_small");
    h5::delete_attr(u.ds.get(), "shape", u.w);
  }
  Reader r(p);
  expect_golden_error([&] { r.read_tensor("case_000", "float8_e8m0fnu_large"); }, p, "case_000",
                      "float8_e8m0fnu_large",
                      "shape attribute [32,64] does not match the dataset dimensions [64,32]");
  expect_golden_error([&] { r.read_tensor("case_000", "float32_small"); }, p, "case_000", "float32_small",
                      "attribute 'shape' is missing");
}

TEST(GoldenBadInput, SchemaVersionFromTheFuture) {
  const fs::path p = scratch_dir() / "future.h5";
  write_family(p);
  {
    Tamper t(p, "", "");
    h5::set_attr(t.file.get(), "schema_version", kSchemaVersion + 1, t.w);
  }
  expect_golden_error([&] { Reader r(p); }, p, "", "",
                      "schema version " + std::to_string(kSchemaVersion + 1) +
                          " is newer than this octet supports (" + std::to_string(kSchemaVersion) + ")");
}

TEST(GoldenBadInput, NotAGoldenFile) {
  const fs::path p = scratch_dir() / "plain.h5";
  write_family(p);
  {
    Tamper t(p, "", "");
    h5::delete_attr(t.file.get(), "schema_version", t.w);
  }
  expect_golden_error([&] { Reader r(p); }, p, "", "", "root attribute 'schema_version' is missing");
}
