// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// sha256.hpp — SHA-256 (FIPS 180-4) of a byte string or a file, as 64 lowercase hex digits; the
// digest of golden/data/MANIFEST lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace octet::golden {

std::string sha256_hex(std::span<const std::uint8_t> bytes);
// Throws GoldenError when the file cannot be read.
std::string sha256_file(const std::filesystem::path& p);

}  // namespace octet::golden
