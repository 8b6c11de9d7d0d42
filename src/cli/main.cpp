// main.cpp — the `ssids` command-line program: dispatch to subcommands and error reporting.
// Exit statuses: see exit_status in cli.hpp (and the help text below).
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli/cli.hpp"
#include "ssids/config.hpp"
#include "ssids/error.hpp"

namespace {
const char* main_help =
    "ssids " SSIDS_VERSION_STRING " — sparse symmetric indefinite direct solver\n"
    "usage: ssids COMMAND [ARGS] [--help]\n"
    "commands:\n"
    "  demo                   generate a KKT system, analyse, factorize and solve it, print a report\n"
    "  solve FILE|gen:SPEC    analyse, factorize and solve a system (b = A*1 unless --rhs)\n"
    "  analyse FILE|gen:SPEC  print the analysis statistics (ordering, tree, predicted nnz(L), flops)\n"
    "  compare FILE|gen:SPEC  every scaling x ordering side by side: delays, nnz(L), flops, times, backward error\n"
    "  generate KIND ARGS -o FILE.mtx   write a generated matrix\n"
    "  sap FILE|gen:SPEC      solve a nonsymmetric system with SaP (banded preconditioner + Krylov)\n"
    "  repro FILE|gen:SPEC    reproducibility harness: fingerprints of factors and solutions over runs,\n"
    "                         thread counts and backends; fails on any promised difference\n"
    "FILE is a Matrix Market file (.mtx or .mtx.gz); gen:SPEC builds a matrix in memory, e.g. gen:laplace3d:50\n"
    "exit status: 0 success (warnings, if any, on stderr or in the JSON \"warnings\" array); 1 error (the input\n"
    "  cannot be read, the library failed or refused, an output cannot be written, `compare` had a failing\n"
    "  combination, `repro` found a difference); 2 usage error; 3 `sap` did not converge\n";

/// The message for an error of the library. A GPU asked for where the CUDA runtime finds no device or no
/// (recent enough) driver is said in those words; the runtime's own reason follows in parentheses.
std::string error_message(const ssids::Error& e) {
  const std::string what = e.what();
  if (e.code() == ssids::flag::no_cuda && what.find("built without CUDA") == std::string::npos &&
      what.find("CUDA") != std::string::npos)
    return "no CUDA-capable device or driver found (" + what + ")";
  return "error " + std::to_string(e.code()) + " (" + ssids::flag_name(e.code()) + "): " + what;
}
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(main_help, stdout);
    std::fputs("ssids: missing COMMAND\n", stderr);
    return ssids_cli::exit_status::usage;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(main_help, stdout);
    return 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("ssids %s (CUDA backend %s)\n", SSIDS_VERSION_STRING, SSIDS_HAVE_CUDA ? "built" : "not built");
    return 0;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "analyse" || cmd == "analyze") return ssids_cli::cmd_analyse(argc, argv);
    if (cmd == "generate") return ssids_cli::cmd_generate(argc, argv);
    if (cmd == "solve") return ssids_cli::cmd_solve(argc, argv);
    if (cmd == "compare") return ssids_cli::cmd_compare(argc, argv);
    if (cmd == "demo") return ssids_cli::cmd_demo(argc, argv);
    if (cmd == "sap") return ssids_cli::cmd_sap(argc, argv);
    if (cmd == "repro") return ssids_cli::cmd_repro(argc, argv);
    std::fprintf(stderr, "ssids: unknown command '%s' (see ssids --help)\n", cmd.c_str());
    return ssids_cli::exit_status::usage;
  } catch (const ssids_cli::UsageError& e) {
    std::fprintf(stderr, "ssids %s: %s (see ssids %s --help)\n", cmd.c_str(), e.message.c_str(), cmd.c_str());
    return ssids_cli::exit_status::usage;
  } catch (const ssids_cli::OutputError& e) {
    std::fprintf(stderr, "ssids %s: %s\n", cmd.c_str(), e.message.c_str());
    return ssids_cli::exit_status::error;
  } catch (const ssids::Error& e) {
    std::fprintf(stderr, "ssids %s: %s\n", cmd.c_str(), error_message(e).c_str());
    return ssids_cli::exit_status::error;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ssids %s: out of memory\n", cmd.c_str());
    return ssids_cli::exit_status::error;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ssids %s: %s\n", cmd.c_str(), e.what());
    return ssids_cli::exit_status::error;
  }
}
