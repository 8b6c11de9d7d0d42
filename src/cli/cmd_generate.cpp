// cmd_generate.cpp — `ssids generate KIND ARGS [--shift s] [--peclet p] [--dominance d] [--delta d]
// [--seed s] -o FILE.mtx`: writes a generated matrix in Matrix Market format.
#include <cstdio>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"

namespace ssids_cli {

int cmd_generate(int argc, char** argv) {
  Args args(argc, argv, 2, {"--help"});
  if (args.has("--help")) {
    std::printf("usage: ssids generate KIND ARGS [options] -o FILE.mtx[.gz]\n"
                "kinds:\n"
                "  laplace2d K\n  laplace3d K [--shift s]\n"
                "  kkt-qp NVAR NCON [--delta d] [--seed s]\n  stokes K\n"
                "  convdiff K [--peclet p]      (nonsymmetric)\n  banded N K [--dominance d] [--seed s]   (nonsymmetric)\n\n%s",
                ssids::generator_help().c_str());
    return exit_status::ok;
  }
  args.check_known({"--help", "--output", "--shift", "--peclet", "--dominance", "--delta", "--seed"});
  const auto& pos = args.positional();
  if (pos.empty()) throw UsageError{"missing KIND"};
  if (!args.has("--output") || args.get("--output", "").empty()) throw UsageError{"missing -o FILE"};
  const std::string& kind = pos[0];
  std::string spec = "gen:" + kind;
  for (size_t i = 1; i < pos.size(); ++i) spec += ":" + pos[i];
  bool symmetric = true;
  if (kind == "laplace3d") {
    if (args.has("--shift")) spec += ":" + args.get("--shift", "0");
  } else if (kind == "kkt-qp") {
    spec += ":" + args.get("--delta", "0") + ":" + args.get("--seed", "1");
  } else if (kind == "convdiff") {
    symmetric = false;
    spec += ":" + args.get("--peclet", "1");
  } else if (kind == "banded") {
    symmetric = false;
    spec += ":" + args.get("--dominance", "1") + ":" + args.get("--seed", "1");
  }
  const std::string out = args.get("--output", "");
  check_output_path(out);
  // a writer's failure is an output error, not one of the input
  auto write = [&](auto&& w) {
    try {
      w();
    } catch (const ssids::Error& e) {
      throw OutputError{e.what()};
    }
  };
  if (symmetric) {
    ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
    write([&] { ssids::write_symmetric(out, a); });
    std::printf("wrote %s: n = %d, nnz (lower) = %lld\n", out.c_str(), a.n, static_cast<long long>(a.nnz()));
  } else {
    ssids::CsrMatrix a = ssids::load_general(spec);
    write([&] { ssids::write_general(out, a); });
    std::printf("wrote %s: n = %d, nnz = %lld\n", out.c_str(), a.nrow, static_cast<long long>(a.nnz()));
  }
  return exit_status::ok;
}

}  // namespace ssids_cli
