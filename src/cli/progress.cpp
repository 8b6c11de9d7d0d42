// progress.cpp — see progress.hpp.
#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "cli/cli.hpp"

namespace ssids_cli {

namespace {
/// Automatic mode stays silent for commands shorter than this.
constexpr std::chrono::milliseconds kQuietStart(1000);
constexpr std::chrono::milliseconds kRefresh(250);

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

Progress::Mode Progress::mode_of(const Args& args) {
  if (args.has("--quiet")) return Mode::off;
  if (args.has("--progress")) return Mode::lines;
  return isatty(STDERR_FILENO) ? Mode::automatic : Mode::off;
}

Progress::Progress(const std::string& cmd, Mode mode)
    : cmd_(cmd), mode_(mode), start_(std::chrono::steady_clock::now()), phase_start_(start_) {
  if (mode_ == Mode::automatic) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() { done(); }

void Progress::phase(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stop_) return;
  phase_ = name;
  phase_start_ = std::chrono::steady_clock::now();
  if (mode_ == Mode::lines) {
    std::fprintf(stderr, "ssids %s: %s (%.1f s)\n", cmd_.c_str(), name.c_str(), seconds(phase_start_ - start_));
    std::fflush(stderr);
  }
}

void Progress::done() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void Progress::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kRefresh);
    if (stop_) break;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < kQuietStart || phase_.empty()) continue;
    std::fprintf(stderr, "\r\033[Kssids %s: %s (%.0f s, total %.0f s)", cmd_.c_str(), phase_.c_str(),
                 seconds(now - phase_start_), seconds(now - start_));
    std::fflush(stderr);
    shown_ = true;
  }
}

}  // namespace ssids_cli
