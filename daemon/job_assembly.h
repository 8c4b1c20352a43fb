// JobAssembly: jobs too big for one request line, gathered from a job_submit
// with "tasks_total" and the task_add requests that follow, and submitted to
// the Engine as one job once every task has arrived. Each part is checked as it
// arrives; the parts are kept as their request lines (the snapshot saves them
// so). Owned by the Dispatcher; event-loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "daemon/engine.h"
#include "io/wire/json_writer.h"
#include "io/wire/request.h"

namespace locsched {

/// Jobs whose tasks are still arriving, by name.
class JobAssembly {
 public:
  /// Checks parts against `engine` and submits finished jobs to it; it must outlive this.
  explicit JobAssembly(Engine& engine) : engine_(engine) {}

  /// Whether a job of this name is being assembled.
  bool Has(const std::string& job) const { return jobs_.count(job) != 0; }
  /// Jobs being assembled now.
  uint64_t size() const { return jobs_.size(); }
  /// job_submit with tasks_total above its task count: starts the job (`line` is kept).
  Status Start(const Request& r, std::string_view line, JsonWriter& w);
  /// task_add: adds r's tasks; the last part submits the job to the Engine.
  Status Add(const Request& r, std::string_view line, JsonWriter& w);
  /// Drops a job being assembled (job_cancel); false if there is none.
  bool Cancel(const std::string& job, uint64_t* tasks);
  /// Calls emit(line) for every kept part, in arrival order per job.
  void Save(const std::function<void(const std::string&)>& emit) const;
  /// Re-applies one saved part (a snapshot's), after the Engine's own records.
  Status Load(std::string_view line);

 private:
  struct Job {
    uint64_t total = 0;
    std::vector<std::string> lines;         // job_submit first, then the task_add parts
    std::unordered_set<std::string> names;  // every task name so far
  };
  Status CheckPart(const Request& r, const Job& job) const;
  void Keep(Job& job, const Request& r, std::string_view line);
  Status Submit(const std::string& name, Job& job);

  Engine& engine_;
  std::map<std::string, Job> jobs_;
};

}  // namespace locsched
