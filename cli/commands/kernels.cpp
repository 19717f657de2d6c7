// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// octet kernels — every kernel, scale recipe and GEMM model of the emulator, with the peer
// implementation or spec section it reproduces.
#include <cstdio>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../json.hpp"
#include "commands.hpp"
#include "octet/registry.hpp"

namespace octet::cli {

int run_kernels(const KernelsOptions& o) {
  if (o.json) {
    std::vector<std::string> items;
    for (const RegistryEntry& e : registry()) {
      json::Object item;
      item.str("name", e.name);
      item.str("kind", name(e.kind));
      item.str("peer", e.peer);
      item.str("summary", e.summary);
      items.push_back(item.dump());
    }
    std::printf("%s\n", json::array_lines(items).c_str());
    return 0;
  }
  std::vector<std::vector<std::string>> rows{{"name", "kind", "summary", "peer"}};
  for (const RegistryEntry& e : registry())
    rows.push_back({std::string(e.name), std::string(name(e.kind)), std::string(e.summary), std::string(e.peer)});
  std::printf("%s", render_table(rows).c_str());
  return 0;
}

}  // namespace octet::cli
