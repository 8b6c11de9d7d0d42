// cmd_generate.cpp — `ssids generate KIND ARGS [--shift s] [--peclet p] [--dominance d] [--delta d]
// [--seed s] -o FILE.mtx`: writes a generated matrix in Matrix Market format.
#include <cstdio>

#include "cli/cli.hpp"
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
    return 0;
  }
  args.check_known({"--help", "-o", "--shift", "--peclet", "--dominance", "--delta", "--seed"});
  const auto& pos = args.positional();
  if (pos.empty()) throw UsageError{"missing KIND"};
  if (!args.has("-o")) throw UsageError{"missing -o FILE"};
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
  const std::string out = args.get("-o", "");
  if (symmetric) {
    ssids::SymmetricMatrix a = ssids::load_symmetric(spec);
    ssids::write_symmetric(out, a);
    std::printf("wrote %s: n = %d, nnz (lower) = %lld\n", out.c_str(), a.n, static_cast<long long>(a.nnz()));
  } else {
    ssids::CsrMatrix a = ssids::load_general(spec);
    ssids::write_general(out, a);
    std::printf("wrote %s: n = %d, nnz = %lld\n", out.c_str(), a.nrow, static_cast<long long>(a.nnz()));
  }
  return 0;
}

}  // namespace ssids_cli
