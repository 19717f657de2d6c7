// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// golden_fuzz_corpus DIR: the seed corpus of the golden-reader fuzzer, small valid golden files
// written by octet::golden::Writer. Together they hold every dtype of golden/schema.md, string,
// int64 and int64-array case attributes, explicit strides and layouts, an empty dataset and a
// chunked, shuffled and deflated one. Exit code 2 on any error.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "octet/golden/h5.hpp"

namespace {

using octet::golden::CaseAttributes;
using octet::golden::Tensor;
using octet::golden::Writer;

// A row-major tensor of `dtype` whose bytes follow a fixed pattern (the values do not matter to
// the reader, only that every byte value occurs).
Tensor patterned(const std::string& dtype, std::vector<std::int64_t> shape) {
  const auto info = octet::golden::lookup_dtype(dtype);
  std::size_t bytes = std::size_t(info->element_size);
  for (std::int64_t d : shape) bytes *= std::size_t(d);
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.resize(bytes);
  for (std::size_t i = 0; i < bytes; ++i) t.bytes[i] = std::uint8_t(i * 37 + 11);
  return t;
}

CaseAttributes attributes(const std::string& kernel, const std::string& inputs) {
  CaseAttributes a;
  a.strings = {{"kernel", kernel}, {"recipe", "rceil"}, {"inputs", inputs}, {"distribution", "normal(0,1)"}};
  a.ints = {{"seed", 7}, {"block_size", 32}};
  a.int_arrays = {{"group_offsets", {16, 48, 64}}};
  return a;
}

// One file per call: a single case holding `tensors`. Small files keep the fuzzer fast (every
// input is opened and read in full), so the dtypes are spread over several files.
void write_file(const std::filesystem::path& path, const std::string& kernel, const std::vector<std::pair<std::string, Tensor>>& tensors) {
  Writer w(path, R"({"family":"fuzz_seed"})");
  std::string inputs;
  for (const auto& [name, t] : tensors) inputs += (inputs.empty() ? "" : ",") + name;
  w.add_case("case_000", attributes(kernel, inputs));
  for (const auto& [name, t] : tensors) w.write_tensor("case_000", name, t);
  w.commit();
}

void write_corpus(const std::filesystem::path& dir) {
  write_file(dir / "fp8.h5", "mx_quantize_dim0",
             {{"x", patterned("float8_e4m3fn", {4, 8})}, {"scale", patterned("float8_e8m0fnu", {4, 1})}});
  write_file(dir / "fp8_other.h5", "cast",
             {{"a", patterned("float8_e5m2", {3})}, {"b", patterned("float8_e4m3fnuz", {2, 2, 2})},
              {"c", patterned("float8_e5m2fnuz", {5})}});
  write_file(dir / "narrow.h5", "cast",
             {{"d", patterned("float6_e2m3fn", {4})}, {"e", patterned("float6_e3m2fn", {4})},
              {"f", patterned("float4_e2m1fn", {8})}});
  Tensor x = patterned("bfloat16", {4, 6});
  x.strides = {1, 4};
  x.layout = "col_major";
  write_file(dir / "wide.h5", "fp8_per_group_rowwise_scales",
             {{"x", x}, {"offs", patterned("int32", {3})}, {"y", patterned("float16", {2, 3})}});
  write_file(dir / "ieee.h5", "decode",
             {{"v", patterned("float32", {3, 2})}, {"w", patterned("float64", {2})}, {"i", patterned("int64", {2})},
              {"codes", patterned("uint8", {6})}, {"empty", patterned("float32", {0, 4})}});
  // 2048 bytes: above kCompressMinBytes, so chunked with shuffle and deflate.
  write_file(dir / "chunked.h5", "mx_quantize_dim1", {{"x", patterned("float32", {16, 32})}});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: golden_fuzz_corpus DIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    write_corpus(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
