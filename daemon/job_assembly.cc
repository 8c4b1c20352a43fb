#include "daemon/job_assembly.h"

namespace locsched {

namespace {

std::string Quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

// A part is checked as the Engine would check the job (replicas known, names
// unique inside the part), and its names against the earlier parts.
Status JobAssembly::CheckPart(const Request& r, const Job& job) const {
  if (Status s = engine_.CheckJob(r); !s.ok()) return s;
  const uint64_t have = job.names.size();
  if (r.tasks.size() > job.total - have)
    return Status::InvalidArgument(
        "tasks", std::to_string(r.tasks.size()) + " tasks would pass the job's tasks_total (" +
                     std::to_string(job.total) + "; " + std::to_string(have) + " arrived)");
  for (size_t i = 0; i < r.tasks.size(); ++i)
    if (job.names.count(r.tasks[i].task) != 0)
      return Status::AlreadyExists(
          "tasks[" + std::to_string(i) + "].task",
          "duplicate task " + Quoted(r.tasks[i].task) + " (sent in an earlier part of the job)");
  return Status::Ok();
}

void JobAssembly::Keep(Job& job, const Request& r, std::string_view line) {
  job.lines.emplace_back(line);
  for (const TaskRequest& t : r.tasks) job.names.insert(t.task);
}

Status JobAssembly::Start(const Request& r, std::string_view line, JsonWriter& w) {
  if (Has(r.job))
    return Status::AlreadyExists("job", Quoted(r.job) + " is being assembled already");
  if (r.tasks_total > engine_.max_tasks_per_job())
    return Status::ResourceExhausted(
        "tasks_total", std::to_string(r.tasks_total) + " tasks exceed limits.max_tasks_per_job (" +
                           std::to_string(engine_.max_tasks_per_job()) + ")");
  Job job;
  job.total = r.tasks_total;
  if (Status s = CheckPart(r, job); !s.ok()) return s;
  Keep(job, r, line);
  w.Field("tasks", static_cast<uint64_t>(r.tasks.size()));
  w.Field("pending", job.total - job.names.size());
  jobs_.emplace(r.job, std::move(job));
  return Status::Ok();
}

Status JobAssembly::Add(const Request& r, std::string_view line, JsonWriter& w) {
  const auto it = jobs_.find(r.job);
  if (it == jobs_.end())
    return Status::NotFound("job", Quoted(r.job) +
                                       " is not being assembled (task_add follows a job_submit "
                                       "with tasks_total)");
  Job& job = it->second;
  if (Status s = CheckPart(r, job); !s.ok()) return s;
  Keep(job, r, line);
  const uint64_t pending = job.total - job.names.size();
  w.Field("tasks", static_cast<uint64_t>(r.tasks.size())).Field("pending", pending);
  if (pending > 0) {
    w.Field("submitted", false);
    return Status::Ok();
  }
  Status s = Submit(r.job, job);
  jobs_.erase(it);
  if (!s.ok()) return s;
  w.Field("submitted", true);
  return Status::Ok();
}

// The parts as one job_submit: the first part's fields with every part's tasks.
Status JobAssembly::Submit(const std::string& name, Job& job) {
  Request whole, part;
  for (size_t i = 0; i < job.lines.size(); ++i) {
    if (Status s = DecodeRequest(job.lines[i], i == 0 ? &whole : &part); !s.ok()) return s;
    if (i == 0) {
      whole.tasks.reserve(job.total);
      continue;
    }
    for (TaskRequest& t : part.tasks) whole.tasks.push_back(std::move(t));
    job.lines[i].clear();
    job.lines[i].shrink_to_fit();
  }
  whole.tasks_total = 0;
  std::string ignored;
  JsonWriter w(&ignored);
  w.BeginObject();
  Status s = engine_.JobSubmit(whole, w);
  if (!s.ok())
    return Status::Internal("job", Quoted(name) + " could not be submitted: " + s.message());
  return Status::Ok();
}

bool JobAssembly::Cancel(const std::string& job, uint64_t* tasks) {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) return false;
  *tasks = it->second.total;
  jobs_.erase(it);
  return true;
}

void JobAssembly::Save(const std::function<void(const std::string&)>& emit) const {
  for (const auto& [name, job] : jobs_)
    for (const std::string& line : job.lines) emit(line);
}

Status JobAssembly::Load(std::string_view line) {
  Request r;
  if (Status s = DecodeRequest(line, &r); !s.ok()) return s;
  std::string ignored;
  JsonWriter w(&ignored);
  w.BeginObject();
  if (r.op == Op::kJobSubmit && r.tasks_total > r.tasks.size()) return Start(r, line, w);
  if (r.op == Op::kTaskAdd) return Add(r, line, w);
  return Status::InvalidArgument("snapshot", "a saved job part is neither job_submit nor task_add");
}

}  // namespace locsched
