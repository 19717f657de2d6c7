// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// gpu_kernels_test.cpp — every CUDA kernel against the emulator, byte for byte: each case of the
// golden catalogues (default suite: small, medium and adversarial shapes, misuse cases) whose
// kernel has a CUDA adapter, and the production-shape cases of cuda_adapters.hpp. Expected
// outputs come from the emulator (golden::run_kernel), which its own tests check against naive
// second implementations; the comparison and the mismatch report are `octet check`'s
// (golden::compare_case): first mismatches with index, coordinates, hex and values, and a
// classification of the failure.
//
// Env: OCTET_GPU_TEST_REDUCED=1 runs the catalogue cases and only the smallest large case (for
// compute-sanitizer, which is 10-100x slower).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <unistd.h>

#include "cuda_adapters.hpp"
#include "octet/golden/check.hpp"
#include "octet/golden/h5.hpp"
#include "octet/golden/runner.hpp"
#include "octet/golden/suite.hpp"

namespace {

namespace golden = octet::golden;

struct GpuCase {
  std::string name;  // "<family>_<case>" or "large_<case>"
  std::function<golden::CaseSpec()> make;
};

bool reduced() {
  const char* e = std::getenv("OCTET_GPU_TEST_REDUCED");
  return e != nullptr && std::string(e) == "1";
}

bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// The formats family (cast and decode cases) is written as a file rather than listed as case
// specs: write it to a temporary file and read its cases back, as `octet run` does.
std::vector<golden::CaseSpec> format_cases(golden::Suite suite) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("octet_gpu_formats_" + std::to_string(::getpid()) + ".h5");
  golden::write_formats(path, suite, golden::Provenance::build(), {});
  std::vector<golden::CaseSpec> out;
  {
    const golden::Reader reader(path);
    for (const std::string& name : reader.cases()) {
      golden::CaseSpec c;
      c.name = name;
      c.call.attrs = reader.case_attributes(name);
      c.call.kernel = c.call.attrs.strings.at("kernel");
      for (const std::string& d : golden::split_names(c.call.attrs.strings.at("inputs")))
        c.call.inputs.emplace(d, reader.read_tensor(name, d));
      for (const char* stale : {"inputs", "outputs", "octet_version", "git_revision"}) c.call.attrs.strings.erase(stale);
      out.push_back(std::move(c));
    }
  }
  std::filesystem::remove(path);
  return out;
}

// The catalogue cases (only those the CUDA backend implements), then the large ones.
std::vector<GpuCase> gpu_cases() {
  std::vector<GpuCase> out;
  const struct {
    const char* family;
    std::vector<golden::CaseSpec> (*cases)(golden::Suite);
  } families[] = {{"fp8", golden::fp8_cases},         {"mx", golden::mx_cases},
                  {"layout", golden::layout_cases},   {"transpose", golden::transpose_cases},
                  {"fused", golden::fused_cases},     {"a2a", golden::a2a_cases},
                  {"recipes", golden::recipe_cases},  {"formats", format_cases}};
  for (const auto& f : families) {
    for (golden::CaseSpec& c : f.cases(golden::Suite::default_suite)) {
      if (!octet::cuda::find_kernel_adapter(c.call.kernel)) continue;
      auto spec = std::make_shared<golden::CaseSpec>(std::move(c));
      out.push_back({sanitize(std::string(f.family) + "_" + spec->name), [spec] { return *spec; }});
    }
  }
  std::vector<octet::cuda::LargeCase> large = octet::cuda::large_quant_cases();
  for (auto more : {octet::cuda::large_layout_cases(), octet::cuda::large_blockwise_cases(), octet::cuda::large_mx_cases()})
    for (octet::cuda::LargeCase& l : more) large.push_back(std::move(l));
  for (std::size_t i = 0; i < large.size(); ++i) {
    if (reduced() && i > 0) break;
    out.push_back({sanitize("large_" + large[i].name), large[i].make});
  }
  return out;
}

const std::vector<GpuCase>& all_cases() {
  static const std::vector<GpuCase> cases = gpu_cases();
  return cases;
}

class GpuKernels : public testing::TestWithParam<std::size_t> {};

TEST_P(GpuKernels, BytesEqualEmulator) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const GpuCase& gc = all_cases()[GetParam()];
  const golden::CaseSpec spec = gc.make();
  const golden::KernelAdapter* cuda = octet::cuda::find_kernel_adapter(spec.call.kernel);
  ASSERT_NE(cuda, nullptr) << spec.call.kernel;

  if (spec.expect_error) {
    EXPECT_THROW(golden::run_kernel(spec.call), golden::KernelInputError) << "emulator accepted a misuse case";
    EXPECT_THROW(cuda->run(spec.call), std::invalid_argument) << "CUDA accepted a misuse case";
    return;
  }
  const golden::Tensors want = golden::run_kernel(spec.call);
  const golden::Tensors got = cuda->run(spec.call);
  const golden::CaseReport report =
      golden::compare_case(spec.name, spec.call.attrs, spec.call.inputs, want, got, 8);
  EXPECT_TRUE(report.pass) << golden::format_text(report);
}

INSTANTIATE_TEST_SUITE_P(Cases, GpuKernels, testing::Range<std::size_t>(0, all_cases().size()),
                         [](const testing::TestParamInfo<std::size_t>& i) { return all_cases()[i.param].name; });

// The CUDA table must cover the kernels it claims with the emulator's names.
TEST(GpuKernelTable, EveryCudaAdapterHasAnEmulatorTwin) {
  for (const golden::KernelAdapter& a : octet::cuda::kernel_adapters())
    EXPECT_NE(golden::find_adapter(a.name), nullptr) << "CUDA adapter '" << a.name << "' has no emulator adapter";
}

}  // namespace
