// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
#include "octet/sweep.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <omp.h>

namespace octet {
namespace {

// XXH64 primes and round (public algorithm description, xxHash specification v0.8).
constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                        kP3 = 0x165667B19E3779F9ull, kP4 = 0x85EBCA77C2B2AE63ull,
                        kP5 = 0x27D4EB2F165667C5ull;
constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
constexpr std::uint64_t round64(std::uint64_t acc, std::uint64_t lane) {
  return rotl(acc + lane * kP2, 31) * kP1;
}
constexpr std::uint64_t merge(std::uint64_t h, std::uint64_t acc) {
  return (h ^ round64(0, acc)) * kP1 + kP4;
}
inline std::uint64_t read64(const std::uint8_t* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
inline std::uint32_t read32(const std::uint8_t* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; }

}  // namespace

std::uint64_t xxh64(std::span<const std::uint8_t> bytes, std::uint64_t seed) {
  const std::uint8_t* p = bytes.data();
  const std::uint8_t* const end = p + bytes.size();
  std::uint64_t h;
  if (bytes.size() >= 32) {
    std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    for (; p + 32 <= end; p += 32) {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = seed + kP5;
  }
  h += bytes.size();
  for (; p + 8 <= end; p += 8) h = rotl(h ^ round64(0, read64(p)), 27) * kP1 + kP4;
  if (p + 4 <= end) { h = rotl(h ^ (std::uint64_t(read32(p)) * kP1), 23) * kP2 + kP3; p += 4; }
  for (; p < end; ++p) h = rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33; h *= kP2; h ^= h >> 29; h *= kP3; h ^= h >> 32;
  return h;
}

SweepResult sweep_fp32(const Format& dst, const CastSpec& spec, std::uint64_t first, std::uint64_t count,
                       std::uint64_t seed,
                       const std::function<void(std::uint64_t, std::span<const std::uint8_t>)>& on_block) {
  if (count % kSweepBlock != 0 || first + count > (std::uint64_t(1) << 32))
    throw std::invalid_argument("sweep_fp32: the range must be whole blocks of 2^20 inside [0, 2^32)");
  if (dst.bits() > 8) throw std::invalid_argument("sweep_fp32: the target must have at most 8 bits");
  const std::int64_t blocks = std::int64_t(count / kSweepBlock);
  std::vector<std::uint64_t> block_digest(static_cast<std::size_t>(blocks));
  SweepResult result;
  result.inputs = count;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel
  {
#pragma omp single
    result.threads = omp_get_num_threads();
    std::vector<std::uint8_t> codes(kSweepBlock);
    std::vector<std::uint32_t> rbits(spec.rounding == Rounding::Stochastic ? kSweepBlock : 0);
    std::vector<std::uint32_t> inputs(rbits.size());
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t base = first + std::uint64_t(b) * kSweepBlock;
      if (spec.rounding == Rounding::Stochastic) {
        for (std::uint64_t i = 0; i < kSweepBlock; ++i) {
          inputs[i] = std::uint32_t(base + i);
          rbits[i] = counter_rbits(seed, base + i);
        }
        for (std::uint64_t i = 0; i < kSweepBlock; ++i)
          codes[i] = std::uint8_t(encode_bits<Fp32Source>(dst, spec, inputs[i], rbits[i]));
      } else {
        cast_fp32_range(std::uint32_t(base), kSweepBlock, dst, spec, codes.data());
      }
      block_digest[std::size_t(b)] = xxh64(codes);
      if (on_block) on_block(base, codes);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<std::uint8_t> le(block_digest.size() * 8);
  for (std::size_t i = 0; i < block_digest.size(); ++i)
    for (int k = 0; k < 8; ++k) le[i * 8 + k] = std::uint8_t(block_digest[i] >> (8 * k));
  result.digest = xxh64(le);
  result.seconds = seconds;
  result.conversions_per_second = double(count) / seconds;
  return result;
}

}  // namespace octet
