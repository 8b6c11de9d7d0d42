// cmd_analyse.cpp — `ssids analyse FILE|gen:SPEC [--save-order FILE] [--json] [solver options]`.
#include <chrono>
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "cli/load.hpp"
#include "cli/notes.hpp"
#include "cli/progress.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"

namespace ssids_cli {

int cmd_analyse(int argc, char** argv) {
  Args args(argc, argv, 2, {"--help", "--json", "--quiet", "--progress"});
  if (args.has("--help")) {
    std::printf("usage: ssids analyse FILE|gen:SPEC [options]\n"
                "Orders the matrix and builds the assembly tree; prints n, nnz, predicted nnz(L) and flops,\n"
                "supernodes, levels, largest front and the time taken.\n"
                "  --save-order FILE  write the pivot order used (Matrix Market array, 1-based positions)\n"
                "  --json             one JSON object on stdout (times in seconds; \"warnings\" and \"info\" arrays)\n%s%s",
                solver_option_help, input_option_help);
    return exit_status::ok;
  }
  auto known = solver_option_keys;
  known.insert(known.end(), input_option_keys.begin(), input_option_keys.end());
  known.insert(known.end(), {"--help", "--json", "--save-order"});
  args.check_known(known);
  if (args.positional().size() != 1) throw UsageError{"expected exactly one FILE or gen:SPEC"};
  ssids::Options options;
  const std::string order_file = parse_solver_options(args, options);
  const bool json = args.has("--json");
  const ssids::SymmetricEntries policy = symmetric_entries_option(args);
  const std::string order_out = args.get("--save-order", "");
  if (!order_out.empty()) check_output_path(order_out);

  Progress progress("analyse", Progress::mode_of(args));
  Notes notes;
  progress.phase("reading " + args.positional()[0]);
  LoadedProblem prob = load_problem(args.positional()[0], order_file, policy, notes);
  ssids::Inform inform;
  progress.phase("analysing");
  ssids::Analysis an = ssids::analyse(prob.a.view(), options, inform, prob.order_ptr());
  if (!order_out.empty()) save_order(order_out, an.order());
  progress.done();
  notes.add_inform(inform, an.n());

  if (json) {
    Json j;
    j.add("input", args.positional()[0]);
    j.add("n", an.n());
    j.add("nnz", static_cast<long long>(prob.a.nnz()));
    j.add("num_factor", static_cast<long long>(an.num_factor()));
    j.add("num_flops", static_cast<long long>(an.num_flops()));
    j.add("maxfront", an.maxfront());
    j.add("maxsupernode", an.maxsupernode());
    j.add("num_sup", an.num_sup());
    j.add("num_levels", an.num_levels());
    j.add("memory_host", static_cast<long long>(an.memory_host()));
    j.add("flag", inform.flag);
    j.add("matrix_dup", inform.matrix_dup);
    j.add("matrix_outrange", inform.matrix_outrange);
    j.add("matrix_missing_diag", inform.matrix_missing_diag);
    j.add("time_read", prob.time_read);
    j.add("time_analyse", inform.time_analyse);
    notes.to_json(j);
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("ssids analyse %s\n", args.positional()[0].c_str());
    std::printf("  n                  %d\n", an.n());
    std::printf("  nnz (lower)        %lld\n", static_cast<long long>(prob.a.nnz()));
    std::printf("  supernodes         %d\n", an.num_sup());
    std::printf("  levels             %d\n", an.num_levels());
    std::printf("  largest front      %d\n", an.maxfront());
    std::printf("  largest supernode  %d\n", an.maxsupernode());
    std::printf("  nnz(L) predicted   %lld\n", static_cast<long long>(an.num_factor()));
    std::printf("  flops predicted    %.4g\n", static_cast<double>(an.num_flops()));
    std::printf("  host memory        %.1f MiB (predicted for one factorization)\n", an.memory_host() / 1048576.0);
    std::printf("  time read          %.3f s\n", prob.time_read);
    std::printf("  time analyse       %.3f s\n", inform.time_analyse);
    notes.print_info();
    std::fflush(stdout);
    notes.print_warnings("analyse");
  }
  return exit_status::ok;
}

}  // namespace ssids_cli
