// bench_sap_gpu.cpp — the GPU SaP solver (include/ssids/sap.hpp, SapOptions::backend = Backend::gpu) on the dense
// banded family of issue 10, against LAPACK dgbsv on the host (a hard-coded reference table, see kDgbsv).
//
// Matrix: ssids::sap::detail::generate_banded_band_device (src/sap/sap_gpu.hpp), generated ON THE GPU and kept
// there: N x N, half-bandwidth K, off-diagonals hash-uniform in [-1, 1), a(i, i) = d * sum_{j != i} |a(i, j)|,
// seed 1. Defaults N in {1e4, 1e5, 1e6}, K in {10, 50, 200, 500}, d = 1.
// Per (N, K): the band is generated on the device; the configuration is skipped ("skipped: needs X GB") when the
// estimated peak device memory does not fit in cudaMemGetInfo's free memory: our band + the solver's copy of it
// + the factors (+ the UL scratch for SaP-C), the last two at half size in mixed precision — 3 copies of the
// band of n (2K+1) doubles for SaP-D in double, 4 for SaP-C. "upload" is ONE host -> device copy of the band
// (pinned host buffer, pageable when pinning fails; CUDA events): what a caller holding the band on the host
// would pay on top of the time to solution; "-" when the host buffer would exceed 16 GB.
// Per (N, K, P, variant): one warm-up (setup + solve), then R timed runs, each with a fresh Solver:
//   setup = setup_banded_device (device-to-device copy, band check, assembly, LU; SaP-C: UL, spike tips,
//           reduced systems), solve = solve_device of b = A * 1 (b from Solver::multiply on the host after the
//           first setup, uploaded once; untimed), both as reported by SapInform.
// Printed: medians of setup, of its split (assemble, LU, spikes), of solve and of setup + solve ("total" = time
// to solution; excludes generating and uploading the band), Krylov iterations (BiCGStab(2) in quarters), the
// worst max |x - 1| and relative residual over the timed runs, device memory held by the solver, and the
// speed-up dgbsv / total where the reference has (N, K). A row is "FAIL" when any run (warm-up included) did
// not converge. Variants: D = SaP-D, Dm = SaP-D mixed precision, C = SaP-C, Cm = SaP-C mixed precision.
// Partitions: --p P, --p-list P1,P2,... (sweep), or automatically P = min(N / (2K), 2048), at least 1 (the
// solver itself reduces P so that every partition has >= 2K rows; the P column is the P used).
//
// usage: bench_sap_gpu [--n N1,N2,...] [--k K1,K2,...] [--d D1,...] [--p P | --p-list P1,P2,...]
//                      [--variants D,Dm,C,Cm] [--tol T] [--maxit M] [--reps R] [--csv FILE]
//   defaults: --n 1e4,1e5,1e6 --k 10,50,200,500 --d 1 --variants D,Dm,C --tol 1e-10 --maxit 200 --reps 3
//   Needs a GPU with ~32 GB free for N = 1e6, K = 500 (8 GB per copy of the band) and ~8 GB of host memory
//   for the pinned upload buffer. Run alone on the GPU host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/sap.hpp"

#ifdef SSIDS_BENCH_HAVE_CUDA
#include <cuda_runtime.h>

#include "sap/sap_gpu.hpp"
#endif

using namespace ssids;

namespace {

struct VariantSpec {
  const char* name;  // as in --variants
  sap::Variant variant;
  bool mixed;
};
constexpr VariantSpec kVariants[] = {
    {"D", sap::Variant::decoupled, false},
    {"Dm", sap::Variant::decoupled, true},
    {"C", sap::Variant::coupled, false},
    {"Cm", sap::Variant::coupled, true},
};

struct Args {
  std::vector<index_t> ns = {10000, 100000, 1000000};
  std::vector<index_t> ks = {10, 50, 200, 500};
  std::vector<double> ds = {1.0};
  std::vector<int> ps;  // empty = automatic
  std::vector<int> variants = {0, 1, 2};  // indices into kVariants
  double tol = 1e-10;
  int maxit = 200;
  int reps = 3;
  std::string csv;
};

[[noreturn]] void usage(const char* why) {
  if (why) std::fprintf(stderr, "bench_sap_gpu: %s\n", why);
  std::fprintf(stderr,
               "usage: bench_sap_gpu [--n N1,N2,...] [--k K1,K2,...] [--d D1,...] [--p P | --p-list P1,P2,...]\n"
               "                     [--variants D,Dm,C,Cm] [--tol T] [--maxit M] [--reps R] [--csv FILE]\n"
               "  defaults: --n 1e4,1e5,1e6 --k 10,50,200,500 --d 1 --variants D,Dm,C --tol 1e-10 --maxit 200\n"
               "            --reps 3; partitions by default P = min(N / (2K), 2048), at least 1\n"
               "  variants: D = SaP-D, Dm = SaP-D mixed precision, C = SaP-C, Cm = SaP-C mixed precision\n");
  std::exit(why ? 2 : 0);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (true) {
    const std::size_t e = s.find(',', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

double parse_double(const std::string& t, const char* opt) {
  char* end = nullptr;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v)) usage((std::string("bad value '") + t + "' for " + opt).c_str());
  return v;
}

// Integers may be written 1e6.
long long parse_int(const std::string& t, const char* opt, long long lo, long long hi) {
  const double v = parse_double(t, opt);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    usage((std::string("value '") + t + "' for " + opt + " out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "] or not an integer")
              .c_str());
  return static_cast<long long>(v);
}

Args parse(int argc, char** argv) {
  Args a;
  constexpr long long kIndexMax = 2147483647LL;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (opt == "--help" || opt == "-h") usage(nullptr);
    if (i + 1 >= argc) usage((opt.rfind("--", 0) == 0 ? opt + " needs a value" : "unknown argument " + opt).c_str());
    const std::string val = argv[++i];
    const char* o = opt.c_str();
    if (opt == "--n" || opt == "--k") {
      std::vector<index_t>& dst = opt == "--n" ? a.ns : a.ks;
      dst.clear();
      for (const std::string& t : split(val))
        dst.push_back(static_cast<index_t>(parse_int(t, o, opt == "--n" ? 1 : 0, kIndexMax)));
    } else if (opt == "--d") {
      a.ds.clear();
      for (const std::string& t : split(val)) {
        const double d = parse_double(t, o);
        if (d < 0) usage("--d must be >= 0");
        a.ds.push_back(d);
      }
    } else if (opt == "--p") {
      a.ps = {static_cast<int>(parse_int(val, o, 1, kIndexMax))};
    } else if (opt == "--p-list") {
      a.ps.clear();
      for (const std::string& t : split(val)) a.ps.push_back(static_cast<int>(parse_int(t, o, 1, kIndexMax)));
    } else if (opt == "--variants") {
      a.variants.clear();
      for (const std::string& t : split(val)) {
        int found = -1;
        for (int v = 0; v < 4; ++v)
          if (t == kVariants[v].name) found = v;
        if (found < 0) usage(("unknown variant '" + t + "' (D, Dm, C, Cm)").c_str());
        if (std::find(a.variants.begin(), a.variants.end(), found) == a.variants.end()) a.variants.push_back(found);
      }
    } else if (opt == "--tol") {
      a.tol = parse_double(val, o);
      if (!(a.tol > 0)) usage("--tol must be > 0");
    } else if (opt == "--maxit") {
      a.maxit = static_cast<int>(parse_int(val, o, 1, 1000000000LL));
    } else if (opt == "--reps") {
      a.reps = static_cast<int>(parse_int(val, o, 1, 1000000LL));
    } else if (opt == "--csv") {
      if (val.empty()) usage("--csv needs a file name");
      a.csv = val;
    } else {
      usage(("unknown option " + opt).c_str());
    }
  }
  return a;
}

}  // namespace

#ifdef SSIDS_BENCH_HAVE_CUDA

namespace {

// LAPACK dgbsv (OpenBLAS, all 16 host cores of the H200 host) on this family (N, K, d = 1), seconds, as measured
// and reported by the author of issue 10. Not re-measured here; dgbsv's work hardly depends on the values.
struct Reference {
  index_t n, k;
  double seconds;
};
constexpr Reference kDgbsv[] = {
    {100000, 10, 0.025}, {100000, 50, 0.11}, {100000, 200, 0.55}, {100000, 500, 1.40},
    {1000000, 10, 0.26}, {1000000, 50, 1.33}, {1000000, 200, 5.97}, {1000000, 500, 19.6},
};

double dgbsv_reference(index_t n, index_t k) {
  for (const Reference& r : kDgbsv)
    if (r.n == n && r.k == k) return r.seconds;
  return -1.0;
}

constexpr double kGB = 1e9;
constexpr std::int64_t kMaxUploadBytes = 16000000000LL;  // host buffer cap for the upload measurement

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(flag::cuda, std::string(what) + ": " + cudaGetErrorString(e));
}

double wall() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> t) {
  if (t.empty()) return NAN;
  std::sort(t.begin(), t.end());
  const std::size_t h = t.size() / 2;
  return t.size() % 2 ? t[h] : 0.5 * (t[h - 1] + t[h]);
}

struct DeviceArray {
  double* p = nullptr;
  explicit DeviceArray(std::size_t count) {
    ck(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(count, 1) * sizeof(double)), "cudaMalloc");
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

struct Row {
  index_t n = 0, k = 0;
  double d = 0;
  std::string variant;
  int p_requested = 0, p_used = 0;
  double iterations = NAN;
  double setup = NAN, assemble = NAN, lu = NAN, spikes = NAN, solve = NAN, total = NAN;
  double upload = -1, dgbsv = -1, speedup = -1;
  double max_err = NAN, relres = NAN, device_gb = NAN;
  std::string status;   // ok, FAIL, error, skipped
  std::string message;  // Krylov status of a failed run, error text, skip reason
};

std::string fmt_time(double s) {
  char b[32];
  if (s < 0 || std::isnan(s)) return "-";
  std::snprintf(b, sizeof b, "%.4f", s);
  return b;
}

void print_header() {
  std::printf("%8s %4s %-3s %5s %7s | %9s %9s %9s %9s | %9s %9s | %8s | %7s %8s | %8s %8s %7s  %s\n", "N", "K",
              "var", "P", "iters", "setup", "assemble", "lu", "spikes", "solve", "total", "upload", "dgbsv",
              "speedup", "max|x-1|", "relres", "dev GB", "status");
  std::fflush(stdout);
}

void print_row(const Row& r) {
  if (r.status == "skipped" || r.status == "error") {
    std::printf("%8d %4d %-3s %5s %7s | %s: %s\n", r.n, r.k, r.variant.c_str(),
                r.p_requested > 0 ? std::to_string(r.p_requested).c_str() : "-", "-", r.status.c_str(),
                r.message.c_str());
    std::fflush(stdout);
    return;
  }
  char speed[32] = "-";
  if (r.speedup > 0) std::snprintf(speed, sizeof speed, "%.2fx", r.speedup);
  std::printf("%8d %4d %-3s %5d %7g | %9.5f %9.5f %9.5f %9.5f | %9.5f %9.5f | %8s | %7s %8s | %8.1e %8.1e %7.3f  %s%s%s\n",
              r.n, r.k, r.variant.c_str(), r.p_used, r.iterations, r.setup, r.assemble, r.lu, r.spikes, r.solve,
              r.total, fmt_time(r.upload).c_str(), fmt_time(r.dgbsv).c_str(), speed, r.max_err, r.relres,
              r.device_gb, r.status.c_str(), r.message.empty() ? "" : " ", r.message.c_str());
  std::fflush(stdout);
}

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_csv_header(std::FILE* f) {
  if (!f) return;
  std::fprintf(f, "n,k,d,variant,p_requested,p_used,iterations,setup_s,assemble_s,lu_s,spikes_s,solve_s,total_s,"
                  "upload_s,dgbsv_s,speedup,max_err,rel_residual,device_gb,status,message\n");
  std::fflush(f);
}

void write_csv(std::FILE* f, const Row& r) {
  if (!f) return;
  auto num = [](double v) -> std::string {
    if (std::isnan(v) || v < 0) return "";
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
  };
  auto sci = [](double v) -> std::string {
    if (std::isnan(v)) return "";
    char b[40];
    std::snprintf(b, sizeof b, "%.3e", v);
    return b;
  };
  std::fprintf(f, "%d,%d,%g,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r.n, r.k, r.d,
               r.variant.c_str(), r.p_requested, r.p_used, num(r.iterations).c_str(), num(r.setup).c_str(),
               num(r.assemble).c_str(), num(r.lu).c_str(), num(r.spikes).c_str(), num(r.solve).c_str(),
               num(r.total).c_str(), num(r.upload).c_str(), num(r.dgbsv).c_str(), num(r.speedup).c_str(),
               sci(r.max_err).c_str(), sci(r.relres).c_str(), num(r.device_gb).c_str(), r.status.c_str(),
               csv_quote(r.message).c_str());
  std::fflush(f);
}

// One host -> device copy of the band (contents unchanged: the host buffer is first filled from the device band,
// which also touches its pages), timed with CUDA events. Returns seconds, -1 when not measured; sets `how`.
double measure_upload(double* device_band, std::int64_t bytes, std::string& how) {
  if (bytes > kMaxUploadBytes) {
    how = "not measured (host buffer > 16 GB)";
    return -1.0;
  }
  void* host = nullptr;
  bool pinned = cudaMallocHost(&host, static_cast<std::size_t>(bytes)) == cudaSuccess;
  std::unique_ptr<char[]> pageable;
  if (!pinned) {
    cudaGetLastError();  // clear the failed pinned allocation
    pageable.reset(new char[static_cast<std::size_t>(bytes)]);
    host = pageable.get();
  }
  how = pinned ? "pinned" : "pageable";
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  double sec = -1.0;
  try {
    ck(cudaMemcpy(host, device_band, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToHost), "cudaMemcpy (band D2H)");
    ck(cudaEventCreate(&e0), "cudaEventCreate");
    ck(cudaEventCreate(&e1), "cudaEventCreate");
    ck(cudaEventRecord(e0, 0), "cudaEventRecord");
    ck(cudaMemcpyAsync(device_band, host, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice, 0),
       "cudaMemcpyAsync (band H2D)");
    ck(cudaEventRecord(e1, 0), "cudaEventRecord");
    ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    sec = ms * 1e-3;
  } catch (...) {
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (pinned) cudaFreeHost(host);
    throw;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (pinned) cudaFreeHost(host);
  return sec;
}

// Peak device bytes of one run: our band + the solver's copy + the factors (+ the UL scratch of SaP-C), the last
// two in float for mixed precision, plus ~24 vectors of n doubles (b, x, Krylov workspace, sweeps).
std::int64_t needed_bytes(index_t n, index_t k, const VariantSpec& v) {
  const double band = static_cast<double>(n) * (2.0 * k + 1.0) * sizeof(double);
  const double f = v.mixed ? 0.5 : 1.0;
  const double copies = 2.0 + f * (v.variant == sap::Variant::coupled ? 2.0 : 1.0);
  return static_cast<std::int64_t>(copies * band + 24.0 * n * sizeof(double));
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  int devices = 0;
  const cudaError_t dev_err = cudaGetDeviceCount(&devices);
  if (dev_err != cudaSuccess || devices == 0) {
    std::printf("bench_sap_gpu: no usable CUDA device (%s), nothing to measure\n",
                dev_err != cudaSuccess ? cudaGetErrorString(dev_err) : "no device found");
    return 0;
  }
  std::FILE* csv = nullptr;
  if (!args.csv.empty()) {
    csv = std::fopen(args.csv.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "bench_sap_gpu: cannot write %s\n", args.csv.c_str());
      return 1;
    }
  }
  std::vector<Row> rows;
  try {
    int dev = 0;
    ck(cudaGetDevice(&dev), "cudaGetDevice");
    cudaDeviceProp prop;
    ck(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    std::size_t free0 = 0, total0 = 0;
    ck(cudaMemGetInfo(&free0, &total0), "cudaMemGetInfo");
    std::printf("bench_sap_gpu: GPU %d: %s (%d SMs, %.1f GB, %.1f GB free)\n", dev, prop.name,
                prop.multiProcessorCount, total0 / kGB, free0 / kGB);
    std::string vnames;
    for (int v : args.variants) vnames += std::string(vnames.empty() ? "" : ",") + kVariants[v].name;
    std::string pdesc = "P = min(N/(2K), 2048)";
    if (!args.ps.empty()) {
      pdesc = "P in {";
      for (std::size_t i = 0; i < args.ps.size(); ++i) pdesc += (i ? "," : "") + std::to_string(args.ps[i]);
      pdesc += "}";
    }
    std::printf("dense banded (issue 10), seed 1; variants %s; %s; BiCGStab(2) (iterations in quarters), rtol %.0e, "
                "max %d; median of %d after 1 warm-up, fresh solver per run; times in seconds; "
                "total = setup + solve (band already on the device)\n",
                vnames.c_str(), pdesc.c_str(), args.tol, args.maxit, args.reps);
    std::fflush(stdout);
    write_csv_header(csv);
    print_header();

    for (double d : args.ds) {
      for (index_t n : args.ns) {
        for (index_t k : args.ks) {
          const std::int64_t len = static_cast<std::int64_t>(n) * (2 * static_cast<std::int64_t>(k) + 1);
          const std::int64_t band_bytes = len * static_cast<std::int64_t>(sizeof(double));
          const double ref = dgbsv_reference(n, k);
          std::vector<int> plist = args.ps;
          if (plist.empty()) {
            const long long auto_p = k > 0 ? n / (2LL * k) : n;
            plist.push_back(static_cast<int>(std::max(1LL, std::min(auto_p, 2048LL))));
          }
          auto base_row = [&](int vi, int p) {
            Row r;
            r.n = n;
            r.k = k;
            r.d = d;
            r.variant = kVariants[vi].name;
            r.p_requested = p;
            r.dgbsv = ref;
            return r;
          };
          auto emit = [&](const Row& r) {
            print_row(r);
            write_csv(csv, r);
            rows.push_back(r);
          };
          auto emit_all = [&](const char* status, const std::string& msg) {
            for (int p : plist)
              for (int vi : args.variants) {
                Row r = base_row(vi, p);
                r.status = status;
                r.message = msg;
                emit(r);
              }
          };

          std::size_t free_b = 0, total_b = 0;
          ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
          std::int64_t need_min = INT64_MAX;
          for (int vi : args.variants) need_min = std::min(need_min, needed_bytes(n, k, kVariants[vi]));
          char msg[160];
          if (need_min > static_cast<std::int64_t>(free_b)) {
            std::snprintf(msg, sizeof msg, "needs %.1f GB (%.1f GB free)", need_min / kGB, free_b / kGB);
            emit_all("skipped", msg);
            continue;
          }
          std::unique_ptr<DeviceArray> band, db, dx;
          double t_gen = 0.0, t_upload = -1.0;
          std::string how;
          try {
            band.reset(new DeviceArray(static_cast<std::size_t>(len)));
            db.reset(new DeviceArray(static_cast<std::size_t>(n)));
            dx.reset(new DeviceArray(static_cast<std::size_t>(n)));
            const double t0 = wall();
            sap::detail::generate_banded_band_device(n, k, d, 1, band->p);
            t_gen = wall() - t0;
            t_upload = measure_upload(band->p, band_bytes, how);
          } catch (const Error& e) {
            emit_all("error", std::string("band: ") + e.what());
            continue;
          } catch (const std::bad_alloc&) {
            emit_all("error", "host allocation failed (upload buffer)");
            continue;
          }
          std::printf("-- N=%d K=%d d=%g: band %.3f GB generated on the GPU in %.4f s; upload (%s) %s s", n, k, d,
                      band_bytes / kGB, t_gen, how.c_str(), fmt_time(t_upload).c_str());
          if (t_upload > 0) std::printf(" = %.1f GB/s", band_bytes / t_upload / kGB);
          std::printf("; dgbsv reference %s s\n", fmt_time(ref).c_str());
          std::fflush(stdout);

          std::vector<double> ones(static_cast<std::size_t>(n), 1.0), b, x(static_cast<std::size_t>(n));
          for (int p : plist) {
            for (int vi : args.variants) {
              const VariantSpec& vs = kVariants[vi];
              Row r = base_row(vi, p);
              r.upload = t_upload;
              const std::int64_t need = needed_bytes(n, k, vs);
              // free_b was taken before our band was allocated, and each run frees its solver
              if (need > static_cast<std::int64_t>(free_b)) {
                std::snprintf(msg, sizeof msg, "needs %.1f GB (%.1f GB free)", need / kGB, free_b / kGB);
                r.status = "skipped";
                r.message = msg;
                emit(r);
                continue;
              }
              sap::SapOptions o;
              o.backend = Backend::gpu;
              o.mixed_precision = vs.mixed;
              o.variant = vs.variant;
              o.partitions = p;
              o.krylov = sap::Krylov::bicgstab2;
              o.rtol = args.tol;
              o.max_iterations = args.maxit;
              try {
                std::vector<double> t_setup, t_asm, t_lu, t_spk, t_solve, t_total;
                bool failed = false;
                std::string fail_status;
                double worst_err = 0.0, worst_rel = 0.0;
                for (int run = 0; run <= args.reps; ++run) {  // run 0 = warm-up
                  sap::Solver s;
                  sap::SapInform inf;
                  s.setup_banded_device(n, k, band->p, o, inf);
                  if (b.empty()) {  // b = A x_true, x_true = 1 (host arrays, untimed), uploaded once
                    std::vector<double> ax(static_cast<std::size_t>(n), 0.0);
                    s.multiply(ones.data(), ax.data());
                    ck(cudaMemcpy(db->p, ax.data(), ax.size() * sizeof(double), cudaMemcpyHostToDevice),
                       "cudaMemcpy (b)");
                    b.swap(ax);
                  }
                  ck(cudaMemset(dx->p, 0, static_cast<std::size_t>(n) * sizeof(double)), "cudaMemset (x)");
                  const sap::Status st = s.solve_device(db->p, dx->p, inf);
                  ck(cudaMemcpy(x.data(), dx->p, x.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (x)");
                  double err = 0.0;
                  for (double xi : x) {
                    const double e = std::abs(xi - 1.0);
                    err = std::isnan(e) ? INFINITY : std::max(err, e);
                  }
                  if (st != sap::Status::converged) {
                    failed = true;
                    fail_status = sap::status_name(st);
                  }
                  if (run == 0) continue;
                  worst_err = std::max(worst_err, err);
                  worst_rel = std::isnan(inf.relative_residual) ? INFINITY : std::max(worst_rel, inf.relative_residual);
                  t_setup.push_back(inf.time_setup);
                  t_asm.push_back(inf.time_assemble);
                  t_lu.push_back(inf.time_lu);
                  t_spk.push_back(inf.time_spikes);
                  t_solve.push_back(inf.time_solve);
                  t_total.push_back(inf.time_setup + inf.time_solve);
                  r.p_used = inf.partitions;
                  r.iterations = inf.iterations;
                  r.device_gb = inf.device_bytes / kGB;
                }
                r.setup = median(t_setup);
                r.assemble = median(t_asm);
                r.lu = median(t_lu);
                r.spikes = median(t_spk);
                r.solve = median(t_solve);
                r.total = median(t_total);
                r.max_err = worst_err;
                r.relres = worst_rel;
                if (ref > 0 && r.total > 0) r.speedup = ref / r.total;
                r.status = failed ? "FAIL" : "ok";
                if (failed) r.message = fail_status;
              } catch (const Error& e) {
                r.status = "error";
                r.message = e.what();
              } catch (const std::bad_alloc&) {
                r.status = "error";
                r.message = "host allocation failed";
              }
              emit(r);
            }
          }
        }
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_sap_gpu: error %d: %s\n", e.code(), e.what());
    if (csv) std::fclose(csv);
    return 1;
  }
  if (csv) std::fclose(csv);

  // Summary: per variant, the speed-up over dgbsv on the rows with a reference (N >= 1e5) that converged.
  std::printf("speed-up over dgbsv (16 host cores, issue 10), rows with N >= 1e5 and a reference:\n");
  for (int vi : args.variants) {
    std::vector<double> s;
    const Row* worst = nullptr;
    int failed = 0;
    for (const Row& r : rows) {
      if (r.variant != kVariants[vi].name || r.n < 100000 || r.dgbsv <= 0) continue;
      if (r.status != "ok" || !(r.speedup > 0)) {
        ++failed;
        continue;
      }
      s.push_back(r.speedup);
      if (!worst || r.speedup < worst->speedup) worst = &r;
    }
    if (s.empty()) {
      std::printf("  %-3s no converged rows with a reference (%d failed/skipped/errors)\n", kVariants[vi].name, failed);
    } else {
      std::printf("  %-3s median %.2fx, min %.2fx (N=%d K=%d P=%d) over %zu rows", kVariants[vi].name, median(s),
                  worst->speedup, worst->n, worst->k, worst->p_used, s.size());
      if (failed) std::printf("; %d rows failed/skipped/errors, not counted", failed);
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  return 0;
}

#else  // !SSIDS_BENCH_HAVE_CUDA

int main(int argc, char** argv) {
  parse(argc, argv);  // bad arguments still exit 2
  std::printf("bench_sap_gpu: built without CUDA, nothing to measure\n");
  return 0;
}

#endif
