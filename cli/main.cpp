// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// main.cpp — the `octet` command line: CLI11 wiring only; the work is in commands/*.cpp.
//   octet [demo [--no-sweep]]   the default work (formats, casts under every profile, a sweep)
//   octet formats [--json]
//   octet cast --format F [--from S] [--rounding R] [--overflow O] [--profile P]
//              [--random-bits U32] [--json] VALUE...
//   octet decode --format F [--json] [CODE...]
//   octet kernels [--json]
//   octet conformance [--format F]... [--source S]... [--profile P]... [--exhaustive] [--json]
//   octet sweep --format F [--rounding R] [--overflow O] [--profile P] [--seed N]
//               [--range N|A:B] [--check] [--json]
//   octet quantize --kernel K [--recipe R] --rows M --cols N [--offs a,b,c] [--dtype bf16|fp32]
//                  [--seed S] [--distribution normal|outliers] [--json]
//   octet golden gen [--suite default] [--out DIR]    (DIR default: ./golden-data)
//   octet golden list [--dir DIR]
//   octet golden verify [--suite default] [--dir DIR]
// Exit codes: 0 success, 1 a failed check, 2 a usage error (unknown name, malformed value, or an
// emulator std::invalid_argument such as non-monotonic offs or a dimension not divisible by the block).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "common.hpp"
#include "octet/golden/h5.hpp"
#include "octet/version.hpp"

int main(int argc, char** argv) {
  using namespace octet::cli;
  const std::string target_help = "target format: " + format_names(true, false);
  const std::string rounding_help = rounding_names() + " (default: the profile's)";
  const std::string overflow_help = overflow_names() + " (default: the profile's)";
  const std::string profile_help = "rule set: " + profile_names();
  CLI::App app{"octet: bit-exact emulator of the fp8 / MX element formats (no subcommand: the demo)", "octet"};
  app.set_version_flag("--version", std::string("octet ") + octet::kVersion + " (git " + octet::kGitRevision + ")");
  app.require_subcommand(0, 1);

  FormatsOptions formats_o;
  CLI::App* formats = app.add_subcommand("formats", "table of every format: widths, bias, limits, Inf and NaN codes");
  formats->add_flag("--json", formats_o.json, "print a JSON array");

  CastOptions cast_o;
  CLI::App* cast = app.add_subcommand("cast", "cast VALUE... to a target format, one line per value");
  cast->add_option("--format", cast_o.format, target_help)->required();
  cast->add_option("--from", cast_o.from, "source type: fp32, fp64, bf16, fp16")->capture_default_str();
  cast->add_option("--rounding", cast_o.rounding, rounding_help);
  cast->add_option("--overflow", cast_o.overflow, overflow_help);
  cast->add_option("--profile", cast_o.profile, profile_help)->capture_default_str();
  cast->add_option("--random-bits", cast_o.random_bits, "U32 for --rounding sr, used for every value (hex or decimal)");
  cast->add_flag("--json", cast_o.json, "print a JSON array");
  // VALUEs are collected as extras rather than a positional, so that "-inf" and "-nan" (which
  // CLI11 would read as short options) are values too, in command-line order.
  cast->allow_extras();
  cast->footer(
      "VALUE: a decimal (448, -1e-3, nan, -inf), a hex float (0x1.8p+3), or the source's raw bits\n"
      "(bits:0x7f800001; 32 bits for fp32, 64 for fp64, 16 for bf16 / fp16). Decimals are rounded once,\n"
      "to nearest even, to the source type.");

  DecodeOptions decode_o;
  CLI::App* decode = app.add_subcommand("decode", "code to exact value and class (no CODE: every code of an 8-bit format)");
  decode->add_option("--format", decode_o.format, "format: " + format_names(false, false))->required();
  decode->add_flag("--json", decode_o.json, "print a JSON array");
  decode->add_option("CODE", decode_o.codes, "code in hex (0x7e) or decimal");

  SweepOptions sweep_o;
  CLI::App* sweep = app.add_subcommand("sweep", "convert all 2^32 fp32 inputs: throughput and digest");
  sweep->add_option("--format", sweep_o.format, "target of at most 8 bits: " + format_names(true, true))->required();
  sweep->add_option("--rounding", sweep_o.rounding, rounding_help);
  sweep->add_option("--overflow", sweep_o.overflow, overflow_help);
  sweep->add_option("--profile", sweep_o.profile, profile_help)->capture_default_str();
  sweep->add_option("--seed", sweep_o.seed, "seed of the random bits for --rounding sr")->capture_default_str();
  sweep->add_option("--range", sweep_o.range, "only blocks [0, N) or [A, B) of 2^20 inputs (4096 blocks in all)");
  sweep->add_flag("--check", sweep_o.check, "compare every output with the CLI's independent reference (exit 1 on a mismatch)");
  sweep->add_flag("--json", sweep_o.json, "print one JSON object");

  ConformanceArgs conf_o;
  CLI::App* conformance =
      app.add_subcommand("conformance", "where the profiles disagree: differing inputs per profile pair, by class");
  conformance->add_option("--format", conf_o.formats, "target(s) of at most 8 bits (default: the fp8 formats and e8m0fnu)");
  conformance->add_option("--source", conf_o.sources, "source(s): fp32 (default), fp64, bf16, fp16");
  conformance->add_option("--profile", conf_o.profiles, "profiles to compare (default: all): " + profile_names());
  conformance->add_flag("--exhaustive", conf_o.exhaustive, "all 2^32 fp32 inputs (fp16/bf16 are always exhaustive)");
  conformance->add_flag("--json", conf_o.json, "print a JSON array, one object per (format, source, pair)");

  KernelsOptions kernels_o;
  CLI::App* kernels = app.add_subcommand("kernels", "every kernel, scale recipe and GEMM model, with its peer");
  kernels->add_flag("--json", kernels_o.json, "print a JSON array with keys name, kind, peer, summary");

  QuantizeOptions quantize_o;
  CLI::App* quantize =
      app.add_subcommand("quantize", "run one emulator quantiser on a seeded input: timing, digests of codes and scales");
  quantize->add_option("--kernel", quantize_o.kernel,
                       "fp8_rowwise_2d_scale_and_cast, fp8_per_group_rowwise_scales, fp8_per_group_colwise_scales, "
                       "fp8_blockwise_act_quant_lhs, fp8_blockwise_weight_quant_rhs, mx_quantize_dim0, mx_quantize_dim1")
      ->required();
  quantize->add_option("--recipe", quantize_o.recipe, "scale recipe (default: the kernel's; see `octet kernels`)");
  quantize->add_option("--rows", quantize_o.rows, "rows M of the input")->required();
  quantize->add_option("--cols", quantize_o.cols, "columns N of the input")->required();
  quantize->add_option("--offs", quantize_o.offs,
                       "per-group kernels: inclusive cumulative group ends, a,b,c (over cols for "
                       "fp8_per_group_rowwise_scales, over rows for fp8_per_group_colwise_scales; default one group)");
  quantize->add_option("--dtype", quantize_o.dtype, "input type: bf16, fp32")->capture_default_str();
  quantize->add_option("--seed", quantize_o.seed, "seed of the counter-based input")->capture_default_str();
  quantize->add_option("--distribution", quantize_o.distribution,
                       "normal, or outliers (about 1 value in 256 scaled by 256)")
      ->capture_default_str();
  quantize->add_flag("--json", quantize_o.json, "print one JSON object");

  GoldenOptions golden_o;
  CLI::App* golden = app.add_subcommand("golden", "golden HDF5 files (golden/schema.md): gen, list, verify");
  golden->require_subcommand(1);
  CLI::App* golden_gen = golden->add_subcommand("gen", "write a suite's files and its MANIFEST of SHA-256 digests");
  golden_gen->add_option("--suite", golden_o.suite, "suite: default")->capture_default_str();
  golden_gen->add_option("--out", golden_o.dir, "output directory")->capture_default_str();
  CLI::App* golden_list = golden->add_subcommand("list", "the files of a MANIFEST and the cases in each");
  golden_list->add_option("--dir", golden_o.dir, "directory holding MANIFEST")->capture_default_str();
  CLI::App* golden_verify =
      golden->add_subcommand("verify", "regenerate the suite and compare with MANIFEST (exit 1 on a mismatch)");
  golden_verify->add_option("--suite", golden_o.suite, "suite: default")->capture_default_str();
  golden_verify->add_option("--dir", golden_o.dir, "directory holding MANIFEST")->capture_default_str();

  RunOptions run_o;
  CLI::App* run = app.add_subcommand(
      "run", "run an emulator kernel on the cases of an HDF5 file (golden/schema.md): expected outputs for your inputs");
  run->add_option("--kernel", run_o.kernel, "kernel (default: each case's `kernel` attribute); `octet kernels` lists them");
  run->add_option("--recipe", run_o.recipe, "scale recipe (default: each case's, else the kernel's)");
  run->add_option("--profile", run_o.profile, "conversion profile, for kernels that take one");
  run->add_option("--input", run_o.input, "input file: one group per case, input datasets in it")->required();
  run->add_option("--output", run_o.output, "output file: each case with its inputs and the kernel's outputs")->required();

  CheckOptions check_o;
  CLI::App* check = app.add_subcommand(
      "check", "compare a candidate's outputs with a golden file, case by case, and classify each mismatch");
  check->add_option("--golden", check_o.golden, "golden file (octet golden gen / octet run)")->required();
  check->add_option("--candidate", check_o.candidate, "candidate file: the same cases with the kernel's outputs")->required();
  check->add_option("--max-mismatches", check_o.max_mismatches, "first mismatches printed per dataset")->capture_default_str();
  check->add_flag("--json", check_o.json, "print one JSON object");

  DemoOptions demo_o;
  CLI::App* demo = app.add_subcommand("demo", "the default work: formats, casts under every profile, a checked sweep");
  demo->add_flag("--no-sweep", demo_o.no_sweep, "leave out the exhaustive sweep");

  // After `cast`, drop one end-of-options marker "--": CLI11 would end the subcommand there and
  // hand "-inf" to the top level. VALUEs are extras of `cast`, so "-inf" needs no marker anyway.
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "cast") continue;
    for (std::size_t j = i + 1; j < args.size(); ++j)
      if (args[j] == "--") {
        args.erase(args.begin() + std::ptrdiff_t(j));
        break;
      }
    break;
  }
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector

  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help / version (rc 0) or the error
    return rc == 0 ? 0 : 2;
  }

  try {
    if (*formats) return run_formats(formats_o);
    if (*cast) {
      cast_o.values = cast->remaining();
      return run_cast(cast_o);
    }
    if (*decode) return run_decode(decode_o);
    if (*sweep) return run_sweep(sweep_o);
    if (*conformance) return run_conformance(conf_o);
    if (*kernels) return run_kernels(kernels_o);
    if (*quantize) return run_quantize(quantize_o);
    if (*golden_gen) return run_golden_gen(golden_o);
    if (*golden_list) return run_golden_list(golden_o);
    if (*golden_verify) return run_golden_verify(golden_o);
    if (*run) return run_run(run_o);
    if (*check) return run_check(check_o);
    return run_demo(demo_o);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "octet: %s\n", e.what());
    return 2;
  } catch (const octet::golden::GoldenError& e) {  // a missing, corrupt or malformed HDF5 file
    std::fprintf(stderr, "octet: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {  // the emulator's misuse errors name the argument
    std::fprintf(stderr, "octet: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "octet: error: %s\n", e.what());
    return 1;
  }
}
