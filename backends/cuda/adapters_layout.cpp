// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// adapters_layout.cpp — the CUDA layout, transpose, fused and a2a kernels behind the golden
// runner's signature: each adapter takes the KernelCall of the emulator adapter of the same name
// (golden/src/adapters/{mx,layout,transpose,fused,a2a}.cpp), validates it on the host with the
// emulator's rules (octet::Groups, the same range checks), uploads the inputs, runs the CUDA
// kernel, downloads, and returns the same datasets (names, dtypes, shapes). Also the production-
// shape cases of these kernels (large_layout_cases) for the GPU test.
//
// Host-side index bookkeeping that the peers also do on the host is shared with the emulator:
// fp8flow_layout (TE passes m_splits as a list), k_group_scale_offsets (torchao: offs // 32),
// routing_from_mask (the adapter's input form) and A2aPlan::gather (all_to_all_single's split sizes
// are host lists). Everything that produces output bytes — the
// group scans, row maps, routing row map, copies, sums, codes and scales — runs on the GPU.
// Outputs are poisoned (0xA5) before each launch, so a byte the kernel fails to write (padding
// included) shows as a mismatch.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>  // cudaMalloc(T**, size_t), which device_buffer.hpp calls

#include "adapter_util.hpp"
#include "cuda_adapters.hpp"
#include "device_buffer.hpp"
#include "octet/golden/inputs.hpp"
#include "octet/kernels/a2a_emulation.hpp"
#include "octet/kernels/fp8flow_transpose.hpp"
#include "octet/kernels/layout_pad_permute.hpp"
#include "octet/kernels/mx_swizzle.hpp"
#include "octet/kernels/swiglu_quant.hpp"
#include "sm90_a2a_emulation.hpp"
#include "sm90_bf16_swiglu_fp8.hpp"
#include "sm90_e8m0_scale_swizzle.hpp"
#include "sm90_fp8flow_transpose.hpp"
#include "sm90_token_pad_permute.hpp"

namespace octet::cuda {

using adapter_util::poisoned;
using adapter_util::weighted_group_ends;
using golden::KernelCall;
using golden::KernelInputError;
using golden::Tensor;
using golden::Tensors;

namespace {

// ---- host <-> device ---------------------------------------------------------------------------

DeviceBuffer<std::uint8_t> upload_bytes(const Tensor& t) {
  DeviceBuffer<std::uint8_t> d(t.bytes.size());
  d.upload(t.bytes);
  return d;
}

DeviceBuffer<std::int64_t> upload_int64(const std::vector<std::int64_t>& v) { return DeviceBuffer<std::int64_t>(v); }

Tensor bytes_tensor(std::string_view dtype, std::vector<std::int64_t> shape, std::vector<std::uint8_t> bytes,
                    std::string layout, std::vector<std::int64_t> strides) {
  Tensor t;
  t.dtype = std::string(dtype);
  t.shape = std::move(shape);
  t.strides = std::move(strides);
  t.layout = std::move(layout);
  t.bytes = std::move(bytes);
  return t;
}

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::int64_t element_size(const std::string& dtype) { return std::int64_t(golden::lookup_dtype(dtype)->element_size); }

using golden::combine_spec;
using golden::IntMatrix;
using golden::int_matrix;

// ================================================================================================
// MX scale swizzles (golden/src/adapters/mx.cpp)

const Tensor& scale_input(const Tensors& in, const std::string& name, int rank) {
  const Tensor& t = golden::input(in, name);
  golden::expect_dtype(t, name, {"float8_e8m0fnu", "uint8", "float8_e4m3fn"}, rank);
  return t;
}

Tensor blocked_tensor(const std::string& dtype, std::vector<std::int64_t> shape, std::vector<std::uint8_t> bytes,
                      const char* layout) {
  std::vector<std::int64_t> strides = row_major_strides(shape);
  return bytes_tensor(dtype, std::move(shape), std::move(bytes), layout, std::move(strides));
}

Tensors run_to_blocked(const KernelCall& call) {
  const Tensor& s = scale_input(call.inputs, "scale", 2);
  const std::int64_t H = s.shape[0], W = s.shape[1];
  const DeviceBuffer<std::uint8_t> d_s = upload_bytes(s);
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(blocked_rows(H) * blocked_cols(W));
  to_blocked({d_s.get(), H, W, W}, out.get());
  return {{"scale_blocked", blocked_tensor(s.dtype, {std::int64_t(out.size())}, out.download(), "blocked_128x4")}};
}

Tensors run_from_blocked(const KernelCall& call) {
  const std::int64_t rows = call.required_int("rows"), cols = call.required_int("cols");
  const Tensor& b = scale_input(call.inputs, "scale_blocked", -1);
  if (b.shape.empty()) throw KernelInputError("input 'scale_blocked': rank 0, expected a byte buffer of rank >= 1");
  require(rows >= 0 && cols >= 0, "from_blocked: negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  require_equal(std::int64_t(b.bytes.size()), blocked_rows(rows) * blocked_cols(cols), "from_blocked: blocked size (Hp·Wp bytes)");
  const DeviceBuffer<std::uint8_t> d_b = upload_bytes(b);
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(rows * cols);
  from_blocked(d_b.get(), rows, cols, out.get());
  return {{"scale", blocked_tensor(b.dtype, {rows, cols}, out.download(), "row_major")}};
}

// cuda_out_offset (CUDA test cases only): the blocked output starts that many bytes into its
// buffer, so that an output that is not 16-byte aligned takes the per-chunk kernels.
std::int64_t out_offset(const KernelCall& call) { return call.int_param("cuda_out_offset", 0); }

Tensors grouped_outputs(const std::string& dtype, std::int64_t rows, std::int64_t cols,
                        const DeviceBuffer<std::uint8_t>& out, std::int64_t offset,
                        const DeviceBuffer<std::int64_t>& starts, const char* layout) {
  Tensors t;
  std::vector<std::uint8_t> bytes = out.download();
  bytes.erase(bytes.begin(), bytes.begin() + offset);
  t["scale_blocked"] = blocked_tensor(dtype, {rows, cols}, std::move(bytes), layout);
  t["group_starts"] = golden::make_tensor("int64", {std::int64_t(starts.size())}, starts.download(), "row_major", {1});
  return t;
}

Tensors run_m_groups(const KernelCall& call) {
  const Tensor& s = scale_input(call.inputs, "scale", 2);
  const std::int64_t H = s.shape[0], W = s.shape[1];
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  const Groups groups(std::span<const std::int64_t>(offs), H, 1, "offs");  // the emulator's validation
  const std::int64_t G = groups.count(), rows = H + kScaleTileRows * G, cols = blocked_cols(W);
  const DeviceBuffer<std::uint8_t> d_s = upload_bytes(s);
  const DeviceBuffer<std::int64_t> d_offs = upload_int64(offs);
  const std::int64_t offset = out_offset(call);
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(rows * cols + offset);
  DeviceBuffer<std::int64_t> starts = poisoned<std::int64_t>(G + 1);
  to_blocked_m_groups({d_s.get(), H, W, W}, d_offs.get(), G, out.get() + offset, starts.get());
  return grouped_outputs(s.dtype, rows, cols, out, offset, starts, "blocked_128x4_m_groups");
}

Tensors run_k_groups(const KernelCall& call) {
  const Tensor& s = scale_input(call.inputs, "scale", 2);
  const std::int64_t N = s.shape[0], Mb = s.shape[1];
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  const std::int64_t block_size = call.int_param("block_size", 32);
  const std::vector<std::int64_t> scale_offs = k_group_scale_offsets(std::span<const std::int64_t>(offs), block_size);
  const Groups groups(std::span<const std::int64_t>(scale_offs), Mb, 1, "scale_offs");
  const std::int64_t G = groups.count(), rows = blocked_rows(N), cols = Mb + kScaleTileCols * G;
  const DeviceBuffer<std::uint8_t> d_s = upload_bytes(s);
  const DeviceBuffer<std::int64_t> d_offs = upload_int64(scale_offs);
  const std::int64_t offset = out_offset(call);
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(rows * cols + offset);
  DeviceBuffer<std::int64_t> starts = poisoned<std::int64_t>(G + 1);
  to_blocked_k_groups({d_s.get(), N, Mb, Mb}, d_offs.get(), G, out.get() + offset, starts.get());
  return grouped_outputs(s.dtype, rows, cols, out, offset, starts, "blocked_128x4_k_groups");
}

Tensors run_per_group_3d(const KernelCall& call) {
  const Tensor& s = scale_input(call.inputs, "scale", 3);
  const std::int64_t E = s.shape[0], H = s.shape[1], W = s.shape[2];
  const std::int64_t per_expert = blocked_rows(H) * blocked_cols(W);
  const DeviceBuffer<std::uint8_t> d_s = upload_bytes(s);
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(E * per_expert);
  to_blocked_per_group_3d(d_s.get(), E, H, W, out.get());
  return {{"scale_blocked", blocked_tensor(s.dtype, {E, per_expert}, out.download(), "blocked_128x4")}};
}

// ================================================================================================
// Token padding / permutation (golden/src/adapters/layout.cpp)

// Rows copied as bytes, uploaded; `tensor` keeps the dtype for the output.
// Validated first, uploaded afterwards (upload()): a misuse case throws before any CUDA call.
struct RowsInput {
  const Tensor* tensor = nullptr;
  DeviceBuffer<std::uint8_t> device;
  DeviceRows rows;  // data set by upload()
  void upload() {
    if (tensor == nullptr) return;
    device = upload_bytes(*tensor);
    rows.data = device.get();
  }
};

RowsInput rows_input(const Tensors& in, const std::string& name) {
  const Tensor& t = golden::input(in, name);
  golden::expect_dtype(t, name,
                       {"bfloat16", "float16", "float32", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                        "float8_e5m2fnuz"},
                       2);
  RowsInput r{&t, {}, {}};
  r.rows = {nullptr, t.shape[0], t.shape[1], element_size(t.dtype)};
  return r;
}

// The optional x_scale of x (absent: cols == 0).
RowsInput row_scales_input(const Tensors& in, const DeviceRows& x) {
  if (!golden::has_input(in, "x_scale")) return {};
  const Tensor& t = golden::input(in, "x_scale");
  golden::expect_dtype(t, "x_scale", {"float8_e8m0fnu", "float32"}, 2);
  if (t.shape[0] != x.rows)
    throw KernelInputError("input 'x_scale': " + std::to_string(t.shape[0]) + " rows, expected one per row of 'x' (" +
                           std::to_string(x.rows) + ")");
  if (t.shape[1] == 0) throw KernelInputError("input 'x_scale': 0 columns (leave the dataset out for no scales)");
  RowsInput r{&t, {}, {}};
  r.rows = {nullptr, t.shape[0], t.shape[1], element_size(t.dtype)};
  return r;
}

// Output rows of the shape of `like` with `rows` rows (absent scales: nothing).
struct RowsOutput {
  DeviceBuffer<std::uint8_t> device;
  std::int64_t rows = 0, cols = 0;
  RowsOutput() = default;
  RowsOutput(std::int64_t r, const DeviceRows& like)
      : device(poisoned<std::uint8_t>(r * like.row_bytes())), rows(r), cols(like.cols) {}
};

Tensor rows_tensor(const RowsOutput& o, const std::string& dtype) {
  return bytes_tensor(dtype, {o.rows, o.cols}, o.device.download(), "row_major", {});
}

void add_rows(Tensors& out, const RowsInput& x, const RowsOutput& y, const RowsInput& xs, const RowsOutput& ys) {
  out["y"] = rows_tensor(y, x.tensor->dtype);
  if (xs.tensor != nullptr) out["y_scale"] = rows_tensor(ys, xs.tensor->dtype);
}

Tensor int64_tensor(const std::vector<std::int64_t>& v) { return golden::make_tensor("int64", v); }

std::vector<float> optional_f32(const Tensors& in, const std::string& name, std::int64_t rows, std::int64_t cols) {
  if (!golden::has_input(in, name)) return {};
  const Tensor& t = golden::input(in, name);
  golden::expect_dtype(t, name, {"float32"}, 2);
  if (t.shape[0] != rows || t.shape[1] != cols)
    throw KernelInputError("input '" + name + "': shape (" + std::to_string(t.shape[0]) + ", " +
                           std::to_string(t.shape[1]) + "), expected (" + std::to_string(rows) + ", " +
                           std::to_string(cols) + ")");
  return golden::values_of<float>(t);
}

Tensors run_pad(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  const std::int64_t alignment = call.int_param("alignment", 32);
  require(alignment >= 1, "alignment must be >= 1, got " + std::to_string(alignment));
  const Groups groups(std::span<const std::int64_t>(offs), x.rows.rows, 1, "offs");
  const std::int64_t G = groups.count(), rows = padded_token_rows(x.rows.rows, G, alignment);
  x.upload();
  xs.upload();
  const DeviceBuffer<std::int64_t> d_offs = upload_int64(offs);
  RowsOutput y(rows, x.rows), ys(rows, xs.rows);
  DeviceBuffer<std::int64_t> starts = poisoned<std::int64_t>(G + 1);
  pad_token_groups(x.rows, xs.rows, d_offs.get(), G, alignment, y.device.get(), ys.device.get(), starts.get());
  const std::vector<std::int64_t> s = starts.download();
  Tensors out;
  add_rows(out, x, y, xs, ys);
  out["padded_starts"] = int64_tensor(std::vector<std::int64_t>(s.begin(), s.end() - 1));
  out["padded_offs"] = int64_tensor(std::vector<std::int64_t>(s.begin() + 1, s.end()));
  return out;
}

Tensors run_unpad(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const std::vector<std::int64_t> offs = golden::int_list(call.inputs, "offs");
  const std::vector<std::int64_t> starts = golden::int_list(call.inputs, "padded_starts");
  const std::int64_t num_tokens = call.int_param("num_tokens", offs.empty() ? 0 : offs.back());
  require(num_tokens >= 0, "num_tokens must be >= 0, got " + std::to_string(num_tokens));
  const Groups groups(std::span<const std::int64_t>(offs), num_tokens, 1, "offs");
  const std::int64_t G = groups.count();
  require_equal(std::int64_t(starts.size()), G, "padded_starts: size (one start per group)");
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t start = starts[static_cast<std::size_t>(g)];
    require(start >= 0 && start + groups.size(g) <= x.rows.rows,
            "padded_starts[" + std::to_string(g) + "] = " + std::to_string(start) + ": group of " +
                std::to_string(groups.size(g)) + " rows does not fit in the " + std::to_string(x.rows.rows) +
                " padded rows");
  }
  x.upload();
  xs.upload();
  const DeviceBuffer<std::int64_t> d_offs = upload_int64(offs), d_starts = upload_int64(starts);
  RowsOutput y(num_tokens, x.rows), ys(num_tokens, xs.rows);
  unpad_token_groups(x.rows, xs.rows, d_offs.get(), G, d_starts.get(), num_tokens, y.device.get(), ys.device.get());
  Tensors out;
  add_rows(out, x, y, xs, ys);
  return out;
}

Tensors run_permute(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const std::vector<std::int64_t> indices = golden::int_list(call.inputs, "permuted_indices");
  const std::int64_t n = std::int64_t(indices.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t src = indices[static_cast<std::size_t>(i)];
    require(src >= -1 && src < x.rows.rows, "permuted_indices[" + std::to_string(i) + "] = " + std::to_string(src) +
                                                " is outside [-1, " + std::to_string(x.rows.rows) + ")");
  }
  x.upload();
  xs.upload();
  const DeviceBuffer<std::int64_t> d_idx = upload_int64(indices);
  RowsOutput y(n, x.rows), ys(n, xs.rows);
  permute_tokens(x.rows, xs.rows, d_idx.get(), n, y.device.get(), ys.device.get());
  Tensors out;
  add_rows(out, x, y, xs, ys);
  return out;
}

Tensors run_unpermute(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const std::vector<std::int64_t> indices = golden::int_list(call.inputs, "permuted_indices");
  const std::int64_t num_tokens = call.required_int("num_tokens");
  require(num_tokens >= 0, "num_tokens must be >= 0, got " + std::to_string(num_tokens));
  require_equal(std::int64_t(indices.size()), x.rows.rows, "permuted_indices: size (one index per row of y)");
  std::vector<std::int64_t> seen(static_cast<std::size_t>(num_tokens), -1);
  for (std::int64_t i = 0; i < x.rows.rows; ++i) {
    const std::int64_t dst = indices[static_cast<std::size_t>(i)];
    require(dst >= -1 && dst < num_tokens, "permuted_indices[" + std::to_string(i) + "] = " + std::to_string(dst) +
                                               " is outside [-1, " + std::to_string(num_tokens) + ")");
    if (dst < 0) continue;
    require(seen[static_cast<std::size_t>(dst)] < 0, "permuted_indices[" + std::to_string(i) + "] = " + std::to_string(dst) +
                                            " repeats permuted_indices[" + std::to_string(seen[static_cast<std::size_t>(dst)]) +
                                            "]: not invertible");
    seen[static_cast<std::size_t>(dst)] = i;
  }
  x.upload();
  xs.upload();
  const DeviceBuffer<std::int64_t> d_idx = upload_int64(indices);
  RowsOutput y(num_tokens, x.rows), ys(num_tokens, xs.rows);
  unpermute_tokens(x.rows, xs.rows, d_idx.get(), num_tokens, y.device.get(), ys.device.get());
  Tensors out;
  add_rows(out, x, y, xs, ys);
  return out;
}

Tensors run_permute_and_pad(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const std::vector<std::int64_t> counts = golden::int_list(call.inputs, "tokens_per_expert_group");
  const std::int64_t R = call.required_int("ep_degree"), E = call.required_int("num_local_experts");
  const std::int64_t alignment = call.int_param("alignment", 32);
  // permute_and_pad_impl / permute_indices_impl checks (layout_pad_permute.cpp)
  require(alignment >= 1, "alignment must be >= 1, got " + std::to_string(alignment));
  std::int64_t sum = 0;
  for (const std::int64_t c : counts) sum += c;
  require(sum <= x.rows.rows, "tokens_per_expert_group sums to " + std::to_string(sum) + ", more than the " +
                                  std::to_string(x.rows.rows) + " rows of x");
  require(E >= 1, "num_local_experts must be >= 1, got " + std::to_string(E));
  require(R >= 1, "ep_degree must be >= 1, got " + std::to_string(R));
  require_equal(std::int64_t(counts.size()), R * E, "tokens_per_expert_group: size (ep_degree · num_local_experts)");
  for (std::size_t i = 0; i < counts.size(); ++i)
    require(counts[i] >= 0, "tokens_per_expert_group[" + std::to_string(i) + "] = " + std::to_string(counts[i]) +
                                " is negative");
  const std::int64_t rows = permute_and_pad_rows(x.rows.rows, E, alignment);
  x.upload();
  xs.upload();
  const DeviceBuffer<std::int64_t> d_counts = upload_int64(counts);
  DeviceBuffer<std::int64_t> indices = poisoned<std::int64_t>(rows);
  DeviceBuffer<std::int64_t> m_sizes = poisoned<std::int64_t>(E);
  DeviceBuffer<std::int64_t> m_offsets = poisoned<std::int64_t>(E);
  RowsOutput y(rows, x.rows), ys(rows, xs.rows);
  permute_and_pad(x.rows, xs.rows, d_counts.get(), R, E, alignment, y.device.get(), ys.device.get(), indices.get(),
                  m_sizes.get(), m_offsets.get());
  Tensors out;
  add_rows(out, x, y, xs, ys);
  out["permuted_indices"] = int64_tensor(indices.download());
  out["m_sizes"] = int64_tensor(m_sizes.download());
  out["m_offsets"] = int64_tensor(m_offsets.download());
  return out;
}

// The routing of fused_permute_pad: the top-k form (expert_t_k + num_experts) or the mask form.
OwnedRouting routing_input(const KernelCall& call) {
  const bool mask_form = golden::has_input(call.inputs, "routing_map");
  if (mask_form == golden::has_input(call.inputs, "expert_t_k"))
    throw KernelInputError("give exactly one of the inputs 'expert_t_k' (top-k form) and 'routing_map' (mask form)");
  if (mask_form) {
    const Tensor& map = golden::input(call.inputs, "routing_map");
    golden::expect_dtype(map, "routing_map", {"uint8"}, 2);
    const std::vector<float> probs = optional_f32(call.inputs, "probs", map.shape[0], map.shape[1]);
    return routing_from_mask(golden::values_of<std::uint8_t>(map), probs, map.shape[0], map.shape[1]);
  }
  const IntMatrix e = int_matrix(call.inputs, "expert_t_k");
  OwnedRouting r;
  r.tokens = e.rows;
  r.topk = e.cols;
  r.experts = call.required_int("num_experts");
  r.expert_t_k.resize(e.values.size());
  for (std::size_t i = 0; i < e.values.size(); ++i) {
    const std::int64_t v = e.values[i];
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      throw KernelInputError("input 'expert_t_k': element " + std::to_string(i) + " = " + std::to_string(v) +
                             " does not fit int32");
    r.expert_t_k[i] = std::int32_t(v);
  }
  r.prob_t_k = optional_f32(call.inputs, "probs", e.rows, e.cols);
  return r;
}

// make_row_id_map's checks (layout_pad_permute.cpp check_routing).
void check_routing(const OwnedRouting& r) {
  require(r.tokens >= 0 && r.topk >= 0, "routing: negative shape (tokens " + std::to_string(r.tokens) + ", topk " +
                                            std::to_string(r.topk) + ")");
  require(r.experts >= 1, "routing.experts must be >= 1, got " + std::to_string(r.experts));
  for (std::int64_t t = 0; t < r.tokens; ++t)
    for (std::int64_t k = 0; k < r.topk; ++k) {
      const std::int64_t e = r.expert_t_k[static_cast<std::size_t>(t * r.topk + k)];
      require(e >= -1 && e < r.experts, "routing.expert_t_k[" + std::to_string(t) + ", " + std::to_string(k) +
                                            "] = " + std::to_string(e) + " is outside [-1, " +
                                            std::to_string(r.experts) + ")");
      for (std::int64_t j = 0; j < k && e >= 0; ++j)
        require(r.expert_t_k[static_cast<std::size_t>(t * r.topk + j)] != e,
                "routing.expert_t_k: token " + std::to_string(t) + " routes to expert " + std::to_string(e) +
                    " twice (slots " + std::to_string(j) + " and " + std::to_string(k) + ")");
    }
}

Tensors run_fused_permute_pad(const KernelCall& call) {
  RowsInput x = rows_input(call.inputs, "x");
  RowsInput xs = row_scales_input(call.inputs, x.rows);
  const OwnedRouting routing = routing_input(call);
  const std::int64_t alignment = call.int_param("alignment", 1);
  require_equal(routing.tokens, x.rows.rows, "routing.tokens (rows of x)");
  check_routing(routing);
  require(alignment >= 1, "alignment must be >= 1, got " + std::to_string(alignment));
  const std::int64_t T = routing.tokens, K = routing.topk, E = routing.experts;

  x.upload();
  xs.upload();
  const DeviceBuffer<std::int32_t> d_experts(routing.expert_t_k);
  DeviceBuffer<std::int64_t> row_t_k = poisoned<std::int64_t>(T * K);
  DeviceBuffer<std::int64_t> per_expert = poisoned<std::int64_t>(E);
  DeviceBuffer<std::int64_t> pad_offsets = poisoned<std::int64_t>(E);
  DeviceBuffer<std::int64_t> padded_offs = poisoned<std::int64_t>(E);
  // The permuted row count, as TE's caller passes num_out_tokens: Σ_e round_up(routes to e, alignment).
  std::vector<std::int64_t> per_expert_host(static_cast<std::size_t>(E), 0);
  for (const std::int32_t e : routing.expert_t_k)
    if (e >= 0 && e < E) ++per_expert_host[static_cast<std::size_t>(e)];
  std::int64_t rows = 0;
  for (const std::int64_t n : per_expert_host) rows += (n + alignment - 1) / alignment * alignment;
  const bool has_probs = !routing.prob_t_k.empty();
  const DeviceBuffer<float> d_probs(routing.prob_t_k);
  DeviceBuffer<float> y_probs = poisoned<float>(has_probs ? rows : 0);
  RowsOutput y(rows, x.rows), ys(rows, xs.rows);
  route_permute_pad(d_experts.get(), T, K, E, alignment, x.rows, xs.rows, has_probs ? d_probs.get() : nullptr, rows,
                    y.device.get(), ys.device.get(), y_probs.get(), row_t_k.get(), per_expert.get(), pad_offsets.get(),
                    padded_offs.get());
  const std::vector<std::int64_t> ends = padded_offs.download();
  {
    // The two calls (make_row_id_map, then fused_permute_pad computing the inverse map itself)
    // must give the same bytes: both are API.
    DeviceBuffer<std::int64_t> row_t_k2 = poisoned<std::int64_t>(T * K);
    DeviceBuffer<std::int64_t> per_expert2 = poisoned<std::int64_t>(E);
    DeviceBuffer<std::int64_t> pad_offsets2 = poisoned<std::int64_t>(E);
    DeviceBuffer<std::int64_t> padded_offs2 = poisoned<std::int64_t>(E);
    make_row_id_map(d_experts.get(), T, K, E, alignment, row_t_k2.get(), per_expert2.get(), pad_offsets2.get(),
                    padded_offs2.get());
    DeviceBuffer<float> y_probs2 = poisoned<float>(has_probs ? rows : 0);
    RowsOutput y2(rows, x.rows), ys2(rows, xs.rows);
    fused_permute_pad(x.rows, xs.rows, row_t_k2.get(), T, K, rows, has_probs ? d_probs.get() : nullptr,
                      y2.device.get(), ys2.device.get(), y_probs2.get());
    const auto same = [](const char* what, const auto& a, const auto& b) {
      if (a != b)
        throw std::runtime_error(std::string("route_permute_pad and make_row_id_map + fused_permute_pad wrote different ") +
                                 what);
    };
    const auto bits = [](const std::vector<float>& v) {  // (NaN probs compare by their bits)
      std::vector<std::uint32_t> out(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::bit_cast<std::uint32_t>(v[i]);
      return out;
    };
    same("y", y.device.download(), y2.device.download());
    same("y_scale", ys.device.download(), ys2.device.download());
    same("y_probs", bits(y_probs.download()), bits(y_probs2.download()));
    same("row_id_map", row_t_k.download(), row_t_k2.download());
    same("tokens_per_expert", per_expert.download(), per_expert2.download());
    same("pad_offsets", pad_offsets.download(), pad_offsets2.download());
    same("padded_offs", ends, padded_offs2.download());
  }
  Tensors out;
  add_rows(out, x, y, xs, ys);
  if (golden::has_input(call.inputs, "probs")) out["y_probs"] = golden::make_tensor("float32", y_probs.download());
  out["row_id_map"] = golden::make_tensor("int64", {T, K}, row_t_k.download());
  out["tokens_per_expert"] = int64_tensor(per_expert.download());
  out["pad_offsets"] = int64_tensor(pad_offsets.download());
  out["padded_offs"] = int64_tensor(ends);
  return out;
}

Tensors run_fused_unpermute_unpad(const KernelCall& call) {
  const Tensor& xt = golden::input(call.inputs, "x");
  golden::expect_dtype(xt, "x", {"bfloat16", "float32"}, 2);
  RowsInput x = rows_input(call.inputs, "x");
  const IntMatrix map = int_matrix(call.inputs, "row_id_map");
  const std::vector<float> probs = optional_f32(call.inputs, "probs", map.rows, map.cols);
  const InputType type = xt.dtype == "bfloat16" ? InputType::bf16 : InputType::fp32;
  const CombineSpec spec = combine_spec(call);
  for (std::size_t i = 0; i < map.values.size(); ++i)
    require(map.values[i] >= -1 && map.values[i] < x.rows.rows,
            "map.row_t_k[" + std::to_string(i) + "] = " + std::to_string(map.values[i]) + " is outside [-1, " +
                std::to_string(x.rows.rows) + ")");
  x.upload();
  const DeviceBuffer<std::int64_t> d_map = upload_int64(map.values);
  const DeviceBuffer<float> d_probs(probs);
  RowsOutput y(map.rows, x.rows);
  fused_unpermute_unpad(x.rows, type, d_map.get(), map.rows, map.cols, probs.empty() ? nullptr : d_probs.get(), spec,
                        y.device.get());
  return {{"y", rows_tensor(y, xt.dtype)}};
}

// ================================================================================================
// FP8-Flow transposes (golden/src/adapters/transpose.cpp)

// +0 or a power of two in [2^-127, 2^127] (fp8flow_transpose.cpp valid_scale_inv).
bool valid_scale_inv(float si) {
  std::uint32_t b;
  std::memcpy(&b, &si, 4);
  if (b == 0u || b == 0x00400000u) return true;
  const std::uint32_t field = (b >> 23) & 0xFFu;
  return (b >> 31) == 0 && field != 0 && field != 0xFF && (b & 0x7FFFFFu) == 0;
}

template <Fp8FlowVariant kVariant>
Tensors run_fp8flow(const KernelCall& call) {
  const Tensor& q = golden::input(call.inputs, "q");
  golden::expect_dtype(q, "q", {"float8_e4m3fn"}, 2);
  const Tensor& si = golden::input(call.inputs, "scale_inv");
  golden::expect_dtype(si, "scale_inv", {"float32"}, 2);
  std::vector<std::int32_t> offs;
  for (const std::int64_t o : golden::int_list(call.inputs, "offs")) {
    if (o < 0 || o > std::numeric_limits<std::int32_t>::max())
      throw KernelInputError("input 'offs': " + std::to_string(o) + " is outside [0, 2^31) (the kernel takes int32 offs)");
    offs.push_back(std::int32_t(o));
  }
  const Fp8FlowLayout L = fp8flow_layout(offs, q.shape[0], q.shape[1]);
  require_equal(si.shape[0], L.rows, "si_m_cb rows (one scale row per row of q_m_c)");
  require_equal(si.shape[1], L.col_blocks, "si_m_cb cols (ceil(cols / 128), the COMPACT rowwise layout)");
  const std::vector<float> scale_inv = golden::values_of<float>(si);
  for (std::size_t i = 0; i < scale_inv.size(); ++i)
    require(valid_scale_inv(scale_inv[i]), "si_m_cb[" + std::to_string(i / static_cast<std::size_t>(L.col_blocks)) + ", " +
                                               std::to_string(i % static_cast<std::size_t>(L.col_blocks)) + "] = " +
                                               std::to_string(scale_inv[i]) +
                                               " is not +0 or a power of two in [2^-127, 2^127]");
  const DeviceBuffer<std::uint8_t> d_q = upload_bytes(q);
  const DeviceBuffer<float> d_si(scale_inv);
  DeviceBuffer<std::uint8_t> qt = poisoned<std::uint8_t>(L.qt_size());
  DeviceBuffer<float> csi = poisoned<float>(L.csi_size());
  DeviceBuffer<float> sit = poisoned<float>(L.sit_size());
  fp8flow_transpose(kVariant, d_q.get(), d_si.get(), L, {qt.get(), csi.get(), sit.get()});
  Tensors out;
  out["qt"] = golden::make_tensor("float8_e4m3fn", {L.qt_size()}, qt.download(), "group_packed");
  out["col_scale_inv"] = golden::make_tensor("float32", {L.tile_row_begin.back(), L.cols}, csi.download());
  out["scale_inv_t"] = golden::make_tensor("float32", {L.sit_size()}, sit.download(), "group_packed");
  return out;
}


// ================================================================================================
// SwiGLU + quantisation (golden/src/adapters/fused.cpp)

// A bf16 / fp32 input uploaded as stored.
// Validated first, uploaded afterwards (upload()), as RowsInput.
struct FloatDevice {
  golden::FloatInput host;
  const Tensor* tensor = nullptr;
  DeviceBuffer<std::uint8_t> device;
  void upload() { device = upload_bytes(*tensor); }
};
FloatDevice float_device(const Tensors& in, const std::string& name) {
  return {golden::float_input(in, name, 2), &golden::input(in, name), {}};
}

template <class T>
Tensor matrix(std::string_view dtype, std::int64_t rows, std::int64_t cols, const std::vector<T>& v) {
  return golden::make_tensor(dtype, {rows, cols}, v, "row_major", {cols, 1});
}

// y / dx, q and the scales of the fused kernels, named as the emulator adapter names them.
Tensors swiglu_outputs(const Recipe& r, std::string_view dtype, const char* values_name, std::int64_t M, std::int64_t N,
                       std::int64_t block, const DeviceBuffer<std::uint8_t>& y, const DeviceBuffer<std::uint8_t>& q,
                       const DeviceBuffer<std::uint8_t>& scales) {
  const std::int64_t NB = N / block;
  Tensors out;
  out.emplace(values_name, bytes_tensor(dtype, {M, N}, y.download(), "row_major", {N, 1}));
  out.emplace("q", bytes_tensor(dtype_name(element_format(r)), {M, N}, q.download(), "row_major", {N, 1}));
  if (storage(r) == ScaleStorage::E8m0)
    out.emplace("scale", bytes_tensor("float8_e8m0fnu", {M, NB}, scales.download(), "row_major", {NB, 1}));
  else
    out.emplace(storage(r) == ScaleStorage::DecodeFp32 ? "scale_inv" : "scale",
                bytes_tensor("float32", {M, NB}, scales.download(), "row_major", {NB, 1}));
  return out;
}

// x (M, 2H): H after the emulator's checks (check_gated_input).
std::int64_t gated_half(const golden::FloatInput& x, const Recipe& r, const std::string& kernel, std::int64_t& block) {
  require(x.dim(1) % 2 == 0, kernel + ": x_m_2h.cols (2H) = " + std::to_string(x.dim(1)) +
                                 " is odd; the input is the [a | g] halves of width H each");
  block = swiglu_block_size(r);
  const std::int64_t H = x.dim(1) / 2;
  require(H % block == 0, kernel + ": H = x_m_2h.cols / 2 = " + std::to_string(H) +
                              " is not a multiple of the block size " + std::to_string(block) + " of recipe '" +
                              std::string(name(r)) + "'");
  return H;
}

// The optional recorded sigmoid (M, H), checked (empty when absent).
std::vector<float> sigmoid_input(const Tensors& in, std::int64_t M, std::int64_t H) {
  return optional_f32(in, "sigmoid", M, H);
}

Tensors run_swiglu_forward(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, "te_mxfp8");
  FloatDevice x = float_device(call.inputs, "x");
  std::int64_t block = 0;
  const std::int64_t M = x.host.dim(0), H = gated_half(x.host, r, "swiglu_quantize_forward", block);
  std::vector<float> probs;
  if (golden::has_input(call.inputs, "probs")) {
    const Tensor& p = golden::input(call.inputs, "probs");
    golden::expect_dtype(p, "probs", {"float32"}, 1);
    probs = golden::values_of<float>(p);
  }
  require(probs.empty() || std::int64_t(probs.size()) == M,
          "swiglu_quantize_forward: probs_m has " + std::to_string(probs.size()) + " values; expected 0 or M = " +
              std::to_string(M));
  const std::vector<float> sig_host = sigmoid_input(call.inputs, M, H);
  x.upload();
  const DeviceBuffer<float> d_probs(probs), sig(sig_host);
  const std::int64_t in_bytes = x.host.type == InputType::bf16 ? 2 : 4, scale_bytes = block == 32 ? 1 : 4;
  DeviceBuffer<std::uint8_t> y = poisoned<std::uint8_t>(M * H * in_bytes);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(M * H);
  DeviceBuffer<std::uint8_t> scales = poisoned<std::uint8_t>(M * (H / block) * scale_bytes);
  swiglu_quantize_forward(x.host.type, x.device.get(), M, H, r, probs.empty() ? nullptr : d_probs.get(), sig.get(),
                          {y.get(), q.get(), scales.get()});
  return swiglu_outputs(r, x.host.dtype(), "y", M, H, block, y, q, scales);
}

Tensors run_swiglu_backward(const KernelCall& call) {
  const Recipe& r = golden::call_recipe(call, "te_mxfp8");
  const std::int64_t fma = call.int_param("dact_fma", 0);
  if (fma != 0 && fma != 1)
    throw KernelInputError("kernel " + call.kernel + ": attribute 'dact_fma' = " + std::to_string(fma) + ", expected 0 or 1");
  FloatDevice x = float_device(call.inputs, "x");
  FloatDevice grad = float_device(call.inputs, "grad");
  if (grad.host.type != x.host.type)
    throw KernelInputError("input 'grad': dtype '" + std::string(grad.host.dtype()) + "' differs from x's '" +
                           std::string(x.host.dtype()) + "'");
  std::int64_t block = 0;
  const std::int64_t M = x.host.dim(0), H = gated_half(x.host, r, "swiglu_quantize_backward", block);
  require_equal(grad.host.dim(0), M, "swiglu_quantize_backward: grad_m_h.rows (M)");
  require_equal(grad.host.dim(1), H, "swiglu_quantize_backward: grad_m_h.cols (H = x_m_2h.cols / 2)");
  const std::vector<float> sig_host = sigmoid_input(call.inputs, M, H);
  x.upload();
  grad.upload();
  const DeviceBuffer<float> sig(sig_host);
  const std::int64_t in_bytes = x.host.type == InputType::bf16 ? 2 : 4, scale_bytes = block == 32 ? 1 : 4;
  DeviceBuffer<std::uint8_t> y = poisoned<std::uint8_t>(M * 2 * H * in_bytes);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(M * 2 * H);
  DeviceBuffer<std::uint8_t> scales = poisoned<std::uint8_t>(M * (2 * H / block) * scale_bytes);
  swiglu_quantize_backward(x.host.type, grad.device.get(), x.device.get(), M, H, r, fma == 1, sig.get(),
                           {y.get(), q.get(), scales.get()});
  return swiglu_outputs(r, x.host.dtype(), "dx", M, 2 * H, block, y, q, scales);
}

// ================================================================================================
// All-to-all emulation (golden/src/adapters/a2a.cpp)

A2aPlan plan_input(const Tensors& in) {
  const IntMatrix s = int_matrix(in, "send_splits");
  if (s.rows != s.cols)
    throw KernelInputError("input 'send_splits': shape (" + std::to_string(s.rows) + ", " + std::to_string(s.cols) +
                           ") is not square (ranks, ranks)");
  std::vector<std::int64_t> rows_per_rank;
  if (golden::has_input(in, "rows_per_rank")) rows_per_rank = golden::int_list(in, "rows_per_rank");
  return A2aPlan(s.values, s.rows, rows_per_rank);
}

// a2a_emulation.cpp check_recipe and the block multiple of H.
void check_a2a_recipe(A2aPayload p, const Recipe& r, std::int64_t h) {
  if (p == A2aPayload::passthrough) return;
  require(format_of(element_format(r)).bits() == 8,
          "recipe '" + std::string(name(r)) + "' does not have 8-bit elements; the a2a payload is one byte per element");
  if (p == A2aPayload::mxfp8)
    require(storage(r) == ScaleStorage::E8m0, "payload mxfp8 needs an e8m0 recipe; recipe '" + std::string(name(r)) + "'");
  else
    require(storage(r) == ScaleStorage::DecodeFp32 || storage(r) == ScaleStorage::EncodeFp32,
            "payload fp8_blockwise needs an fp32-scale recipe; recipe '" + std::string(name(r)) + "'");
  const std::int64_t block = p == A2aPayload::mxfp8 ? 32 : 128;
  require(h % block == 0, "H = " + std::to_string(h) + " is not a multiple of the " + std::string(name(p)) +
                              " block size " + std::to_string(block));
}

const Recipe& payload_recipe(const KernelCall& call, A2aPayload payload) {
  return golden::call_recipe(call, name(*default_recipe(payload)));
}

template <A2aPayload kPayload>
Tensors run_a2a_exchange(const KernelCall& call) {
  FloatDevice x = float_device(call.inputs, "x");
  const A2aPlan plan = plan_input(call.inputs);
  const std::int64_t N = x.host.dim(0), H = x.host.dim(1);
  require(N == plan.rows(), "a2a_exchange: x_n_h.rows (N) = " + std::to_string(N) + ", but the send splits sum to " +
                                std::to_string(plan.rows()) + " rows");
  const Recipe& r = kPayload == A2aPayload::passthrough ? recipe("torchao_mx_rceil") : payload_recipe(call, kPayload);
  check_a2a_recipe(kPayload, r, H);
  x.upload();
  const DeviceBuffer<std::int64_t> gather(plan.gather());
  const std::int64_t in_bytes = x.host.type == InputType::bf16 ? 2 : 4;
  const std::int64_t block = kPayload == A2aPayload::mxfp8 ? 32 : 128, scale_bytes = block == 32 ? 1 : 4;
  const bool quantised = kPayload != A2aPayload::passthrough;
  DeviceBuffer<std::uint8_t> y = poisoned<std::uint8_t>(N * H * in_bytes);
  DeviceBuffer<std::uint8_t> q = poisoned<std::uint8_t>(quantised ? N * H : 0);
  DeviceBuffer<std::uint8_t> scales = poisoned<std::uint8_t>(quantised ? N * (H / block) * scale_bytes : 0);
  a2a_exchange(x.host.type, x.device.get(), N, H, gather.get(), kPayload, r, y.get(), q.get(), scales.get());
  Tensors out;
  out["y"] = bytes_tensor(x.host.dtype(), {N, H}, y.download(), "row_major", {});
  if (!quantised) return out;
  out["q"] = bytes_tensor(dtype_name(element_format(r)), {N, H}, q.download(), "row_major", {});
  if (kPayload == A2aPayload::mxfp8)
    out["scale"] = bytes_tensor("float8_e8m0fnu", {N, H / block}, scales.download(), "row_major", {});
  else
    out[storage(r) == ScaleStorage::DecodeFp32 ? "scale_inv" : "scale"] =
        bytes_tensor("float32", {N, H / block}, scales.download(), "row_major", {});
  return out;
}

A2aPayload payload_param(const KernelCall& call) {
  const std::string p = call.string_param("payload", "passthrough");
  for (const A2aPayload v : {A2aPayload::passthrough, A2aPayload::mxfp8, A2aPayload::fp8_blockwise})
    if (p == name(v)) return v;
  throw KernelInputError("kernel " + call.kernel + ": payload '" + p + "' is not passthrough, mxfp8 or fp8_blockwise");
}

Tensors run_a2a_combine(const KernelCall& call) {
  FloatDevice y = float_device(call.inputs, "x");
  const A2aPlan plan = plan_input(call.inputs);
  const std::vector<std::int64_t> tokens_per_rank = golden::int_list(call.inputs, "tokens_per_rank");
  const IntMatrix routes = int_matrix(call.inputs, "route_rows");
  std::vector<float> weights;
  if (golden::has_input(call.inputs, "weights")) weights = optional_f32(call.inputs, "weights", routes.rows, routes.cols);
  std::int64_t T = 0;
  for (const std::int64_t t : tokens_per_rank) T += t;
  if (routes.rows != T)
    throw KernelInputError("input 'route_rows': " + std::to_string(routes.rows) + " rows, but tokens_per_rank sums to " +
                           std::to_string(T));
  const A2aPayload payload = payload_param(call);
  const CombineSpec spec = combine_spec(call);
  const Recipe& r = payload == A2aPayload::passthrough ? recipe("torchao_mx_rceil") : payload_recipe(call, payload);
  // a2a_combine's checks (a2a_emulation.cpp)
  const std::int64_t N = y.host.dim(0), H = y.host.dim(1), R = plan.ranks(), K = routes.cols;
  require(N == plan.rows(), "a2a_combine: y_n_h.rows (N) = " + std::to_string(N) + ", but the dispatch splits sum to " +
                                std::to_string(plan.rows()) + " rows");
  require(std::int64_t(tokens_per_rank.size()) == R, "a2a_combine: routes.tokens_per_rank has " +
                                                         std::to_string(tokens_per_rank.size()) +
                                                         " entries; expected ranks = " + std::to_string(R));
  for (std::int64_t src = 0, t0 = 0; src < R; t0 += tokens_per_rank[static_cast<std::size_t>(src)], ++src) {
    require(tokens_per_rank[static_cast<std::size_t>(src)] >= 0, "a2a_combine: routes.tokens_per_rank[" + std::to_string(src) + "] is negative");
    for (std::int64_t t = t0; t < t0 + tokens_per_rank[static_cast<std::size_t>(src)]; ++t)
      for (std::int64_t k = 0; k < K; ++k) {
        const std::int64_t row = routes.values[static_cast<std::size_t>(t * K + k)];
        require(row == -1 || (row >= plan.send_offset(src) && row < plan.send_offset(src + 1)),
                "a2a_combine: routes.row_t_k[t=" + std::to_string(t) + "][k=" + std::to_string(k) + "] = " +
                    std::to_string(row) + " is not -1 and not a row that rank " + std::to_string(src) + " sent");
      }
  }
  check_a2a_recipe(payload, r, H);
  y.upload();
  const DeviceBuffer<std::int64_t> reverse(plan.reversed().gather()), d_routes(routes.values);
  const DeviceBuffer<float> d_weights(weights);
  const std::int64_t in_bytes = y.host.type == InputType::bf16 ? 2 : 4;
  DeviceBuffer<std::uint8_t> out = poisoned<std::uint8_t>(T * H * in_bytes);
  a2a_combine(y.host.type, y.device.get(), N, H, reverse.get(), d_routes.get(), T, K,
              weights.empty() ? nullptr : d_weights.get(), payload, r, spec, out.get());
  return {{"y", bytes_tensor(y.host.dtype(), {T, H}, out.download(), "row_major", {})}};
}

// ================================================================================================
// Production-shape cases

namespace large {

constexpr std::int64_t kTokens = 16640, kHidden = 5120;  // activations (tokens, hidden)
constexpr std::int64_t kScaleCols = kHidden / 32;        // 1x32 e8m0 scales per row
const std::int64_t kGroupCounts[] = {1, 16, 64, 128};

// n bytes, each uniform in [0, bound), from (seed, index).
std::vector<std::uint8_t> random_bytes(std::int64_t n, std::uint64_t seed, std::int64_t bound = 256) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = std::uint8_t(golden::uniform_int(seed, std::uint64_t(i), bound));
  return v;
}

Tensor e8m0_tensor(std::vector<std::int64_t> shape, std::uint64_t seed) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) n *= d;
  return golden::make_tensor("float8_e8m0fnu", std::move(shape), random_bytes(n, seed));
}

Tensor bf16_rows(std::int64_t rows, std::int64_t cols, golden::Distribution d, std::uint64_t seed) {
  golden::InputSpec spec;
  spec.distribution = d;
  spec.seed = seed;
  return golden::generate_tensor(spec, {rows, cols}, "bfloat16");
}

golden::CaseSpec make_case(std::string name, std::string kernel, Tensors inputs) {
  golden::CaseSpec c;
  c.name = std::move(name);
  c.call.kernel = std::move(kernel);
  c.call.inputs = std::move(inputs);
  return c;
}

void swizzle_cases(std::vector<LargeCase>& out) {
  const std::string shape = std::to_string(kTokens) + "x" + std::to_string(kScaleCols);
  out.push_back({"to_blocked_" + shape, [] {
                   return make_case("to_blocked", "to_blocked", {{"scale", e8m0_tensor({kTokens, kScaleCols}, 11)}});
                 }});
  out.push_back({"from_blocked_" + shape, [] {
                   golden::CaseSpec c = make_case(
                       "from_blocked", "from_blocked",
                       {{"scale_blocked", e8m0_tensor({blocked_rows(kTokens) * blocked_cols(kScaleCols)}, 12)}});
                   c.call.attrs.ints["rows"] = kTokens;
                   c.call.attrs.ints["cols"] = kScaleCols;
                   return c;
                 }});
  for (const std::int64_t G : kGroupCounts) {
    out.push_back({"to_blocked_m_groups_" + shape + "_g" + std::to_string(G), [G] {
                     return make_case("to_blocked_m_groups", "to_blocked_m_groups",
                                      {{"scale", e8m0_tensor({kTokens, kScaleCols}, 13)},
                                       {"offs", golden::make_tensor("int64", weighted_group_ends(kTokens, G, 14))}});
                   }});
    out.push_back({"to_blocked_k_groups_" + std::to_string(kHidden) + "x" + std::to_string(kTokens / 32) + "_g" +
                       std::to_string(G),
                   [G] {
                     return make_case("to_blocked_k_groups", "to_blocked_k_groups",
                                      {{"scale", e8m0_tensor({kHidden, kTokens / 32}, 15)},
                                       {"offs", golden::make_tensor("int64", weighted_group_ends(kTokens, G, 16, 32))}});
                   }});
  }
  // One group (the kernels' no-scan form): ends short of the rows / columns, unaligned, and empty;
  // partial windows (9 and 11 tiles of scale columns).
  for (const std::int64_t end : {std::int64_t(4001), std::int64_t(0)})
    out.push_back({"to_blocked_m_groups_4104x36_one_group_end" + std::to_string(end), [end] {
                     return make_case("to_blocked_m_groups", "to_blocked_m_groups",
                                      {{"scale", e8m0_tensor({4104, 36}, 23)},
                                       {"offs", golden::make_tensor("int64", std::vector<std::int64_t>{end})}});
                   }});
  for (const std::int64_t end : {std::int64_t(32 * 29), std::int64_t(0)})
    out.push_back({"to_blocked_k_groups_1000x44_one_group_end" + std::to_string(end), [end] {
                     return make_case("to_blocked_k_groups", "to_blocked_k_groups",
                                      {{"scale", e8m0_tensor({1000, 44}, 24)},
                                       {"offs", golden::make_tensor("int64", std::vector<std::int64_t>{end})}});
                   }});
  // Many groups to a 128-row (32-column) input window: segments of a few rows (columns), runs of
  // empty groups, padding of several groups from one window, and rows (columns) past offs[-1].
  for (const auto& [rows, cols, G] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{4104, 36, 700},
                                      {1000, 20, 1024}})
    out.push_back({"to_blocked_m_groups_" + std::to_string(rows) + "x" + std::to_string(cols) + "_g" +
                       std::to_string(G),
                   [rows, cols, G] {
                     return make_case("to_blocked_m_groups", "to_blocked_m_groups",
                                      {{"scale", e8m0_tensor({rows, cols}, 25)},
                                       {"offs", golden::make_tensor("int64", weighted_group_ends(rows - 97, G, 26))}});
                   }});
  for (const auto& [rows, cols, G] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1000, 44, 40},
                                      {300, 600, 1024}})
    out.push_back({"to_blocked_k_groups_" + std::to_string(rows) + "x" + std::to_string(cols) + "_g" +
                       std::to_string(G),
                   [rows, cols, G] {
                     return make_case("to_blocked_k_groups", "to_blocked_k_groups",
                                      {{"scale", e8m0_tensor({rows, cols}, 27)},
                                       {"offs", golden::make_tensor("int64", weighted_group_ends((cols - 3) * 32, G,
                                                                                                 28, 32))}});
                   }});
  // Outputs 4 bytes into their buffers (not 16-byte aligned): the per-chunk kernels of the grouped
  // forms, which the window kernels replace for aligned outputs.
  out.push_back({"to_blocked_m_groups_1000x36_g16_out_offset_4", [] {
                   golden::CaseSpec c = make_case(
                       "to_blocked_m_groups", "to_blocked_m_groups",
                       {{"scale", e8m0_tensor({1000, 36}, 19)},
                        {"offs", golden::make_tensor("int64", weighted_group_ends(990, 16, 20))}});
                   c.call.attrs.ints["cuda_out_offset"] = 4;
                   return c;
                 }});
  out.push_back({"to_blocked_k_groups_300x64_g16_out_offset_4", [] {
                   golden::CaseSpec c = make_case(
                       "to_blocked_k_groups", "to_blocked_k_groups",
                       {{"scale", e8m0_tensor({300, 64}, 21)},
                        {"offs", golden::make_tensor("int64", weighted_group_ends(64 * 32, 16, 22, 32))}});
                   c.call.attrs.ints["cuda_out_offset"] = 4;
                   return c;
                 }});
  // expert weights: E=8 (5120, 8192) and E=64 (2048, 1408), 1x32 scales along the second dimension
  out.push_back({"to_blocked_per_group_3d_8x5120x256", [] {
                   return make_case("to_blocked_per_group_3d", "to_blocked_per_group_3d",
                                    {{"scale", e8m0_tensor({8, 5120, 8192 / 32}, 17)}});
                 }});
  out.push_back({"to_blocked_per_group_3d_64x2048x44", [] {
                   return make_case("to_blocked_per_group_3d", "to_blocked_per_group_3d",
                                    {{"scale", e8m0_tensor({64, 2048, 1408 / 32}, 18)}});
                 }});
}

// Exclusive scan of round_up(size_g, align): torchao's padded starts, for unpad inputs.
std::vector<std::int64_t> padded_starts_of(const std::vector<std::int64_t>& ends, std::int64_t align) {
  std::vector<std::int64_t> starts(ends.size());
  std::int64_t at = 0, prev = 0;
  for (std::size_t g = 0; g < ends.size(); ++g) {
    starts[g] = at;
    at += (ends[g] - prev + align - 1) / align * align;
    prev = ends[g];
  }
  return starts;
}

// A permutation of n rows with every 64th entry -1 (a zero row / an unrouted token).
std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = i;
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(golden::uniform_int(seed, std::uint64_t(i), i + 1))]);
  for (std::int64_t i = 0; i < n; i += 64) p[static_cast<std::size_t>(i)] = -1;
  return p;
}

// Top-k routing of `tokens` tokens over `experts` experts: K distinct experts per token, every
// 16th slot unused (-1); probs uniform in (0, 1), every 32nd route 0 (a padding slot).
struct Routing {
  std::int64_t topk;
  std::vector<std::int64_t> experts;
  std::vector<float> probs;
};
Routing routing(std::int64_t tokens, std::int64_t experts, std::int64_t topk, std::uint64_t seed) {
  Routing r{topk, std::vector<std::int64_t>(static_cast<std::size_t>(tokens * topk)), std::vector<float>(static_cast<std::size_t>(tokens * topk))};
  for (std::int64_t t = 0; t < tokens; ++t) {
    const std::int64_t first = golden::uniform_int(seed, std::uint64_t(t), experts);
    for (std::int64_t k = 0; k < topk; ++k) {
      const std::int64_t i = t * topk + k;
      r.experts[static_cast<std::size_t>(i)] = (i % 16 == 15) ? -1 : (first + k * 7) % experts;  // distinct for K <= E/gcd
      r.probs[static_cast<std::size_t>(i)] = i % 32 == 7 ? 0.0f : float(1 + golden::uniform_int(seed + 1, std::uint64_t(i), 1 << 20)) * 0x1p-21f;
    }
  }
  return r;
}

void token_cases(std::vector<LargeCase>& out) {
  using golden::Distribution;
  for (const std::int64_t G : kGroupCounts) {
    const std::string g = "_g" + std::to_string(G);
    out.push_back({"pad_token_groups_16640x5120_bf16" + g, [G] {
                     golden::CaseSpec c = make_case(
                         "pad", "pad_token_groups",
                         {{"x", bf16_rows(kTokens, kHidden, Distribution::normal, 21)},
                          {"offs", golden::make_tensor("int64", weighted_group_ends(kTokens, G, 22))}});
                     c.call.attrs.ints["alignment"] = 32;
                     return c;
                   }});
    out.push_back({"unpad_token_groups_16640x5120_bf16" + g, [G] {
                     const std::vector<std::int64_t> ends = weighted_group_ends(kTokens, G, 23);
                     const std::int64_t rows = padded_token_rows(kTokens, G, 32);
                     golden::CaseSpec c = make_case(
                         "unpad", "unpad_token_groups",
                         {{"x", bf16_rows(rows, kHidden, Distribution::outliers, 24)},
                          {"offs", golden::make_tensor("int64", ends)},
                          {"padded_starts", golden::make_tensor("int64", padded_starts_of(ends, 32))}});
                     c.call.attrs.ints["num_tokens"] = kTokens;
                     return c;
                   }});
  }
  out.push_back({"pad_token_groups_16640x5120_e4m3_e8m0_g64", [] {
                   golden::CaseSpec c = make_case(
                       "pad_fp8", "pad_token_groups",
                       {{"x", golden::make_tensor("float8_e4m3fn", {kTokens, kHidden}, random_bytes(kTokens * kHidden, 25))},
                        {"x_scale", e8m0_tensor({kTokens, kScaleCols}, 26)},
                        {"offs", golden::make_tensor("int64", weighted_group_ends(kTokens, 64, 27))}});
                   c.call.attrs.ints["alignment"] = 128;
                   return c;
                 }});
  for (const std::int64_t E : {std::int64_t(1), std::int64_t(16)}) {
    out.push_back({"permute_and_pad_16640x5120_bf16_r8_e" + std::to_string(E), [E] {
                     const std::int64_t R = 8;
                     const std::vector<std::int64_t> ends = weighted_group_ends(kTokens - 100, R * E, 28);
                     std::vector<std::int64_t> counts(ends.size());
                     for (std::size_t i = 0; i < ends.size(); ++i) counts[i] = ends[i] - (i ? ends[i - 1] : 0);
                     golden::CaseSpec c = make_case("permute_and_pad", "permute_and_pad",
                                                    {{"x", bf16_rows(kTokens, kHidden, Distribution::normal, 29)},
                                                     {"tokens_per_expert_group", golden::make_tensor("int64", counts)}});
                     c.call.attrs.ints["ep_degree"] = R;
                     c.call.attrs.ints["num_local_experts"] = E;
                     c.call.attrs.ints["alignment"] = 32;
                     return c;
                   }});
  }
  out.push_back({"permute_tokens_16640x5120_bf16", [] {
                   return make_case("permute", "permute_tokens",
                                    {{"x", bf16_rows(kTokens, kHidden, Distribution::normal, 31)},
                                     {"permuted_indices", golden::make_tensor("int64", permutation(kTokens, 32))}});
                 }});
  out.push_back({"unpermute_tokens_16640x5120_e4m3_e8m0", [] {
                   golden::CaseSpec c = make_case(
                       "unpermute", "unpermute_tokens",
                       {{"x", golden::make_tensor("float8_e4m3fn", {kTokens, kHidden}, random_bytes(kTokens * kHidden, 33))},
                        {"x_scale", e8m0_tensor({kTokens, kScaleCols}, 34)},
                        {"permuted_indices", golden::make_tensor("int64", permutation(kTokens, 35))}});
                   c.call.attrs.ints["num_tokens"] = kTokens;
                   return c;
                 }});
  // 589,824 routes: more sub-blocks of routes than the routing map's blocks (two per block).
  out.push_back({"fused_permute_pad_73728x32_bf16_k8_e64", [] {
                   constexpr std::int64_t T = 73728, K = 8, E = 64;
                   const Routing r = routing(T, E, K, 45);
                   golden::CaseSpec c = make_case("permute_pad", "fused_permute_pad",
                                                  {{"x", bf16_rows(T, 32, Distribution::normal, 46)},
                                                   {"expert_t_k", golden::make_tensor("int64", {T, K}, r.experts)},
                                                   {"probs", golden::make_tensor("float32", {T, K}, r.probs)}});
                   c.call.attrs.ints["num_experts"] = E;
                   c.call.attrs.ints["alignment"] = 32;
                   return c;
                 }});
  for (const std::int64_t E : kGroupCounts) {
    const std::int64_t K = E == 1 ? 1 : 8, T = kTokens / K;
    const std::string e = "_e" + std::to_string(E);
    out.push_back({"fused_permute_pad_" + std::to_string(T) + "x5120_bf16_k" + std::to_string(K) + e, [E, K, T] {
                     const Routing r = routing(T, E, K, 41);
                     golden::CaseSpec c = make_case(
                         "permute_pad", "fused_permute_pad",
                         {{"x", bf16_rows(T, kHidden, Distribution::normal, 42)},
                          {"expert_t_k", golden::make_tensor("int64", {T, K}, r.experts)},
                          {"probs", golden::make_tensor("float32", {T, K}, r.probs)}});
                     c.call.attrs.ints["num_experts"] = E;
                     c.call.attrs.ints["alignment"] = 32;
                     return c;
                   }});
    out.push_back({"fused_unpermute_unpad_" + std::to_string(T) + "x5120_bf16_k" + std::to_string(K) + e, [E, K, T] {
                     const Routing r = routing(T, E, K, 43);
                     std::vector<std::int32_t> experts32(r.experts.begin(), r.experts.end());
                     const RowIdMap m = octet::make_row_id_map(TokenRouting{T, K, E, experts32, r.probs}, 32);
                     golden::CaseSpec c = make_case(
                         "unpermute_unpad", "fused_unpermute_unpad",
                         {{"x", bf16_rows(m.rows, kHidden, Distribution::outliers, 44)},
                          {"row_id_map", golden::make_tensor("int64", {T, K}, m.row_t_k)},
                          {"probs", golden::make_tensor("float32", {T, K}, r.probs)}});
                     if (E == 64) c.call.attrs.strings["combine_order"] = "row_descending";
                     if (E == 128) c.call.attrs.ints["fma"] = 1;
                     return c;
                   }});
  }
}

// q (rows, cols) random e4m3fn codes (NaN codes included), scale_inv powers of two 2^-20..2^5
// with every 97th row +0 (pad rows).
Tensors fp8flow_inputs(std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> offs, std::uint64_t seed) {
  const std::int64_t cb = (cols + 127) / 128;
  std::vector<float> si(static_cast<std::size_t>(rows * cb));
  for (std::int64_t i = 0; i < rows * cb; ++i) {
    const std::int64_t e = golden::uniform_int(seed + 1, std::uint64_t(i), 26) - 20;
    si[static_cast<std::size_t>(i)] = (i / cb) % 97 == 3 ? 0.0f : std::ldexp(1.0f, int(e));
  }
  return {{"q", golden::make_tensor("float8_e4m3fn", {rows, cols}, random_bytes(rows * cols, seed))},
          {"scale_inv", golden::make_tensor("float32", {rows, cb}, si)},
          {"offs", golden::make_tensor("int64", std::move(offs))}};
}
Tensors fp8flow_inputs(std::int64_t groups, std::uint64_t seed) {
  return fp8flow_inputs(kTokens, kHidden, weighted_group_ends(kTokens, groups, seed + 2), seed);
}

// Groups of 0 to 300 rows (66 groups, 6078 rows, 90 tile rows), three rounds of 22 lengths, each
// round starting one length further on: one-tile groups shorter than a 16-byte chunk (a chunk then
// holds the runs of several columns, written by the byte stores of one tile), runs starting and
// ending at every alignment, groups of one, two and three tiles; cols 5072 (a last column block of
// 80 columns: byte loads). 3600 tiles: several per block of the persistent grid.
std::vector<std::int64_t> fp8flow_small_group_ends() {
  constexpr std::int64_t kLengths[] = {0,   1,   2,   3,   5,   8,   13,  15,  16,  17,  31,
                                       33,  100, 127, 128, 129, 130, 200, 255, 256, 257, 300};
  constexpr std::size_t n = std::size(kLengths);
  std::vector<std::int64_t> offs;
  std::int64_t end = 0;
  for (std::size_t round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < n; ++i) offs.push_back(end += kLengths[(i + round) % n]);
  return offs;
}

// Every code in every row under every shift k = 0..31: q(r, c) = c % 256 and scale_inv
// 2^-(r % 32), so that each tile's max is 2^0 (a row r % 32 == 0 lies in every run of 32 rows) and
// row r has k = r % 32; pad rows (+0, r % 61 == 7) take k = 31. Groups of 256, 200, 1 and 348
// rows (tiles from rows 0 and 128: whole, with 16-byte aligned column runs; 256, 384, 456, 457,
// 585 and 713: runs at every alignment). cols 256: the 16-byte load path; cols 336 (rows not
// 16-byte aligned, a 80-column last block): the byte load path.
Tensors fp8flow_every_code_inputs(std::int64_t cols) {
  constexpr std::int64_t m = 805;
  const std::int64_t cb = (cols + 127) / 128;
  std::vector<std::uint8_t> q(static_cast<std::size_t>(m * cols));
  for (std::int64_t i = 0; i < m * cols; ++i) q[static_cast<std::size_t>(i)] = std::uint8_t(i % cols % 256);
  std::vector<float> si(static_cast<std::size_t>(m * cb));
  for (std::int64_t i = 0; i < m * cb; ++i)
    si[static_cast<std::size_t>(i)] = (i / cb) % 61 == 7 ? 0.0f : std::ldexp(1.0f, -int((i / cb) % 32));
  return {{"q", golden::make_tensor("float8_e4m3fn", {m, cols}, q)},
          {"scale_inv", golden::make_tensor("float32", {m, cb}, si)},
          {"offs", golden::make_tensor("int64", std::vector<std::int64_t>{256, 456, 457, m})}};
}

void transpose_cases(std::vector<LargeCase>& out) {
  for (const char* variant : {"published", "ideal", "naive"}) {
    const std::string kernel = std::string("fp8flow_transpose_") + variant;
    for (const std::int64_t G : kGroupCounts)
      out.push_back({kernel + "_16640x5120_g" + std::to_string(G),
                     [kernel, G] { return make_case(kernel, kernel, fp8flow_inputs(G, 51)); }});
    for (const std::int64_t cols : {256, 336})
      out.push_back({kernel + "_every_code_and_shift_805x" + std::to_string(cols),
                     [kernel, cols] { return make_case(kernel, kernel, fp8flow_every_code_inputs(cols)); }});
    out.push_back({kernel + "_small_groups_6078x5072", [kernel] {
                     const std::vector<std::int64_t> offs = fp8flow_small_group_ends();
                     return make_case(kernel, kernel, fp8flow_inputs(offs.back(), 5072, offs, 53));
                   }});
  }
}


void fused_cases(std::vector<LargeCase>& out) {
  using golden::Distribution;
  for (const char* recipe : {"te_mxfp8", "te_blockwise"}) {
    const std::string r = recipe;
    out.push_back({"swiglu_quantize_forward_16640x10240_bf16_" + r, [r] {
                     golden::CaseSpec c = make_case("swiglu_fwd", "swiglu_quantize_forward",
                                                    {{"x", bf16_rows(kTokens, 2 * kHidden, Distribution::outliers, 61)}});
                     c.call.attrs.strings["recipe"] = r;
                     if (r == "te_mxfp8") {
                       std::vector<float> p(static_cast<std::size_t>(kTokens));
                       for (std::int64_t i = 0; i < kTokens; ++i)
                         p[static_cast<std::size_t>(i)] = float(1 + golden::uniform_int(62, std::uint64_t(i), 1024)) * 0x1p-10f;
                       c.call.inputs["probs"] = golden::make_tensor("float32", p);
                     }
                     return c;
                   }});
    out.push_back({"swiglu_quantize_backward_16640x10240_bf16_" + r, [r] {
                     golden::CaseSpec c = make_case("swiglu_bwd", "swiglu_quantize_backward",
                                                    {{"x", bf16_rows(kTokens, 2 * kHidden, Distribution::outliers, 63)},
                                                     {"grad", bf16_rows(kTokens, kHidden, Distribution::normal, 64)}});
                     c.call.attrs.strings["recipe"] = r;
                     if (r == "te_blockwise") c.call.attrs.ints["dact_fma"] = 1;
                     return c;
                   }});
  }
}

// 8 ranks, 16640 rows of 5120 bf16 split by a random (8, 8) matrix.
Tensors a2a_inputs(std::uint64_t seed) {
  const std::int64_t R = 8;
  const std::vector<std::int64_t> ends = weighted_group_ends(kTokens, R * R, seed);
  std::vector<std::int64_t> splits(static_cast<std::size_t>(R * R));
  for (std::int64_t i = 0; i < R * R; ++i)
    splits[static_cast<std::size_t>(i)] = ends[static_cast<std::size_t>(i)] - (i ? ends[static_cast<std::size_t>(i - 1)] : 0);
  return {{"x", bf16_rows(kTokens, kHidden, golden::Distribution::outliers, seed + 1)},
          {"send_splits", golden::make_tensor("int64", {R, R}, splits)}};
}

// 4096 x 256 bf16 rows whose magnitudes sweep the whole bf16 range: row r is a normal sample times
// 2^((r % 300) - 160) (rounded to bf16: subnormals, zeros and infinities at the ends), with a NaN or
// -Inf every 1031 elements and -0 every 1543. The block decode multipliers then cross every bound
// of the exchange's fast dequantisation (products_in_range) and the e8m0 / fp32 scale ends.
Tensors a2a_range_sweep_inputs() {
  const std::int64_t rows = 4096, cols = 256;
  const std::vector<std::uint16_t> normal =
      golden::values_of<std::uint16_t>(bf16_rows(rows, cols, golden::Distribution::normal, 75));
  std::vector<std::uint16_t> x(normal.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int k = int((std::int64_t(i) / cols) % 300) - 160;
    const float v = std::ldexp(std::bit_cast<float>(std::uint32_t(normal[i]) << 16), k);
    const std::uint32_t u = std::bit_cast<std::uint32_t>(v);  // finite: RNE to bf16 (may round to Inf)
    x[i] = std::isinf(v) ? std::uint16_t(u >> 16) : std::uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    if (i % 1031 == 0) x[i] = (i / 1031) % 2 == 0 ? 0x7FC0 : 0xFF80;
    if (i % 1543 == 0) x[i] = 0x8000;
  }
  return {{"x", golden::make_tensor("bfloat16", {rows, cols}, x)},
          {"send_splits", golden::make_tensor("int64", {2, 2}, std::vector<std::int64_t>{1000, 1048, 900, 1148})}};
}

void a2a_cases(std::vector<LargeCase>& out) {
  for (const char* k : {"a2a_exchange_mxfp8", "a2a_exchange_fp8_blockwise", "a2a_exchange_passthrough"}) {
    const std::string kernel = k;
    out.push_back({kernel + "_16640x5120_bf16_r8", [kernel] { return make_case(kernel, kernel, a2a_inputs(71)); }});
  }
  for (const char* k : {"a2a_exchange_mxfp8", "a2a_exchange_fp8_blockwise"}) {
    const std::string kernel = k;
    out.push_back({kernel + "_range_sweep_4096x256_bf16_r2",
                   [kernel] { return make_case(kernel, kernel, a2a_range_sweep_inputs()); }});
  }
  out.push_back({"a2a_exchange_fp8_blockwise_deepep_round_range_sweep_4096x256_bf16_r2", [] {
                   golden::CaseSpec c = make_case("a2a_exchange_fp8_blockwise_deepep_round", "a2a_exchange_fp8_blockwise",
                                                  a2a_range_sweep_inputs());
                   c.call.attrs.strings["recipe"] = "deepep_round";
                   return c;
                 }});
  for (const char* payload : {"passthrough", "mxfp8"}) {
    const std::string p = payload;
    out.push_back({"a2a_combine_16640x5120_bf16_r8_" + p, [p] {
                     Tensors in = a2a_inputs(73);
                     // each send row is one route of its own token (K = 2: the second slot unused every
                     // other token, else the next row of the same rank)
                     const std::vector<std::int64_t> splits = golden::values_of<std::int64_t>(in.at("send_splits"));
                     const std::int64_t R = 8;
                     std::vector<std::int64_t> per_rank(static_cast<std::size_t>(R)), routes;
                     std::vector<float> weights;
                     std::int64_t row = 0;
                     for (std::int64_t src = 0; src < R; ++src) {
                       std::int64_t n = 0;
                       for (std::int64_t d = 0; d < R; ++d) n += splits[static_cast<std::size_t>(src * R + d)];
                       per_rank[static_cast<std::size_t>(src)] = n;
                       for (std::int64_t i = 0; i < n; ++i) {
                         routes.push_back(row + i);
                         routes.push_back(i % 2 == 0 && i + 1 < n ? row + i + 1 : -1);
                         weights.push_back(0.625f), weights.push_back(0.375f);
                       }
                       row += n;
                     }
                     in["tokens_per_rank"] = golden::make_tensor("int64", per_rank);
                     in["route_rows"] = golden::make_tensor("int64", {kTokens, 2}, routes);
                     in["weights"] = golden::make_tensor("float32", {kTokens, 2}, weights);
                     golden::CaseSpec c = make_case("a2a_combine", "a2a_combine", std::move(in));
                     c.call.attrs.strings["payload"] = p;
                     return c;
                   }});
  }
}
}  // namespace large

// ================================================================================================
// The table

const std::vector<golden::KernelAdapter>& table() {
  static const std::vector<golden::KernelAdapter> adapters = twin_adapters({
        {"to_blocked", run_to_blocked},
        {"from_blocked", run_from_blocked},
        {"to_blocked_m_groups", run_m_groups},
        {"to_blocked_k_groups", run_k_groups},
        {"to_blocked_per_group_3d", run_per_group_3d},
        {"pad_token_groups", run_pad},
        {"unpad_token_groups", run_unpad},
        {"permute_tokens", run_permute},
        {"unpermute_tokens", run_unpermute},
        {"permute_and_pad", run_permute_and_pad},
        {"fused_permute_pad", run_fused_permute_pad},
        {"fused_unpermute_unpad", run_fused_unpermute_unpad},
        {"fp8flow_transpose_published", run_fp8flow<Fp8FlowVariant::published>},
        {"fp8flow_transpose_ideal", run_fp8flow<Fp8FlowVariant::ideal>},
        {"fp8flow_transpose_naive", run_fp8flow<Fp8FlowVariant::naive>},
        {"swiglu_quantize_forward", run_swiglu_forward},
        {"swiglu_quantize_backward", run_swiglu_backward},
        {"a2a_exchange_mxfp8", run_a2a_exchange<A2aPayload::mxfp8>},
        {"a2a_exchange_fp8_blockwise", run_a2a_exchange<A2aPayload::fp8_blockwise>},
        {"a2a_exchange_passthrough", run_a2a_exchange<A2aPayload::passthrough>},
        {"a2a_combine", run_a2a_combine},
  });
  return adapters;
}

}  // namespace

std::span<const golden::KernelAdapter> layout_adapters() { return table(); }

std::vector<LargeCase> large_layout_cases() {
  std::vector<LargeCase> out;
  large::swizzle_cases(out);
  large::token_cases(out);
  large::transpose_cases(out);
  large::fused_cases(out);
  large::a2a_cases(out);
  return out;
}

}  // namespace octet::cuda
