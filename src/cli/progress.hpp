// progress.hpp — progress on stderr for long commands: the phase being worked on ("factorizing",
// "combination 3 of 12: matching/metis"). Automatic mode shows it only when stderr is a terminal and the
// command has run for more than a second, on one line that is rewritten and cleared at the end; forced
// mode (--progress) prints each phase as a line when it starts, whatever stderr is; --quiet turns it off.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ssids_cli {

class Args;

class Progress {
 public:
  enum class Mode { off, automatic, lines };
  /// The mode asked for on the command line: --quiet off, --progress lines, else automatic.
  static Mode mode_of(const Args& args);
  Progress(const std::string& cmd, Mode mode);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// The phase now running.
  void phase(const std::string& name);
  /// Stop showing progress (clears the line); call before printing the report.
  void done();

 private:
  void run();
  std::string cmd_;
  Mode mode_;
  std::chrono::steady_clock::time_point start_, phase_start_;
  std::string phase_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false, shown_ = false;
  std::thread thread_;
};

}  // namespace ssids_cli
