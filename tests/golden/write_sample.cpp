// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// golden_write_sample OUT.h5: one case "case_000" with an e4m3fn dataset "x" holding the codes
// kE4m3Codes and an e8m0fnu dataset "scale" holding kE8m0Codes (check_schema_snippet.py knows
// their values). Exit code 2 on any error.
#include <cstdio>
#include <exception>

#include "octet/golden/h5.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: golden_write_sample OUT.h5\n");
    return 2;
  }
  try {
    using namespace octet::golden;
    // e4m3fn: 0, 1, -1, 448, 2^-9 (min subnormal), -0, NaN, 1.125
    const std::vector<std::uint8_t> e4m3{0x00, 0x38, 0xB8, 0x7E, 0x01, 0x80, 0x7F, 0x39};
    // e8m0fnu: 2^0, 2^-127, 2^127, NaN
    const std::vector<std::uint8_t> e8m0{0x7F, 0x00, 0xFE, 0xFF};
    Writer w(argv[1], R"({"purpose":"schema snippet test"})");
    CaseAttributes a;
    a.strings = {{"kernel", "sample"}, {"profile", "ocp"}, {"rounding", "rne"}};
    a.ints = {{"seed", 0}};
    w.add_case("case_000", a);
    w.write_tensor("case_000", "x", Tensor{"float8_e4m3fn", {2, 4}, {}, "row_major", e4m3});
    w.write_tensor("case_000", "scale", Tensor{"float8_e8m0fnu", {4}, {}, "row_major", e8m0});
    w.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
