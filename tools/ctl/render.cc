#include "tools/ctl/render.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace locsched {

namespace {

using nlohmann::json;
using Rows = std::vector<std::vector<std::string>>;

// A JSON value as a table cell: strings bare, numbers short, null as "-".
std::string Cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
    return buf;
  }
  return v.dump();
}

std::string Percent(const json& v) {
  if (!v.is_number()) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v.get<double>());
  return buf;
}

// Rows of `items` (objects), one column per key in `keys`.
Rows ObjectRows(const json& items, const std::vector<std::string>& keys) {
  Rows rows{keys};
  for (const json& item : items) {
    std::vector<std::string> row;
    for (const std::string& k : keys) row.push_back(item.contains(k) ? Cell(item[k]) : "");
    rows.push_back(std::move(row));
  }
  return rows;
}

// The journal line of `status`: whether events are accepted, and failing snapshots.
// In high-availability mode (`ha`) the log is in ZooKeeper: the local snapshot
// counts do not apply, and a standby has no journal of its own.
std::string RenderJournal(const json& j, bool ha) {
  std::string out = "journal    ";
  if (j["unavailable"].is_string())
    out += "UNAVAILABLE, " + Cell(j["held_events"]) +
           " events held, state-changing requests refused: " + j["unavailable"].get<std::string>();
  else if (ha)
    out += "ok, committed to ZooKeeper before each acknowledgement";
  else
    out += "ok, " + Cell(j["snapshots"]) + " snapshots since start";
  out += "\n";
  if (!ha && j["snapshot_failures"].get<uint64_t>() > 0)
    out += "snapshots  " + Cell(j["snapshot_failures"]) + " failed in a row, next attempt in " +
           Cell(j["next_snapshot_in_s"]) + " s: " + j["last_snapshot_error"].get<std::string>() +
           "\n";
  return out;
}

// The high-availability line: this instance's role, the active and its epoch, the
// ZooKeeper session; a standby's progress through the log.
std::string RenderHa(const json& ha) {
  const std::string role = Cell(ha["role"]);
  std::string out = "ha         " + role + " at " + Cell(ha["instance"]);
  if (role == "active")
    out +=
        ", epoch " + Cell(ha["epoch"]) + "; " + Cell(ha["snapshots"]) + " snapshots into ZooKeeper";
  else
    out += "; the active is " +
           (ha["active"].is_string() ? ha["active"].get<std::string>() : "not known yet") + "; " +
           Cell(ha["applied_entries"]) + " log entries applied";
  return out + "; ZooKeeper session " + Cell(ha["session"]) + "\n";
}

std::string RenderStatus(const json& r) {
  const json& m = r["machines"];
  const json& t = r["tasks"];
  const json& j = r["jobs"];
  const json& rates = r["rates"];
  std::string out;
  out += "policy     " + Cell(r["policy"]) + ", up " + Cell(r["uptime_s"]) + " s\n";
  out += "machines   " + Cell(m["up"]) + " up, " + Cell(m["draining"]) + " draining, " +
         Cell(m["down"]) + " down, " + Cell(m["lost"]) + " lost; slots " +
         Cell(r["slots"]["busy"]) + "/" + Cell(r["slots"]["total"]) + " busy\n";
  out += "tasks      " + Cell(t["queued"]) + " queued, " + Cell(t["running"]) + " running, " +
         Cell(t["blocked"]) + " blocked; " + Cell(t["done"]) + " done, " + Cell(t["failed"]) +
         " failed\n";
  out += "jobs       " + Cell(j["live"]) + " live; " + Cell(j["done"]) + " done, " +
         Cell(j["failed"]) + " failed, " + Cell(j["cancelled"]) + " cancelled\n";
  if (r.contains("tenancy"))
    out += "tenancy    " +
           (r["tenancy"]["enabled"].get<bool>()
                ? "on, " + Cell(r["tenancy"]["queues"]) + " queues (locschedctl queue)"
                : std::string("off (no [queue.*] in the config)")) +
           "\n";
  out += "locality   " + Percent(r["locality"]) + " of " +
         std::to_string(r["assigned"]["local"].get<uint64_t>() +
                        r["assigned"]["remote"].get<uint64_t>()) +
         " assignments\n";
  out +=
      "rates      alpha " + Cell(rates["alpha"]) + "/s, gamma " + Cell(rates["gamma"]) + "/s (" +
      (rates["learning"].get<bool>() ? "learnt from " +
                                           std::to_string(rates["local_samples"].get<uint64_t>() +
                                                          rates["remote_samples"].get<uint64_t>()) +
                                           " completions"
                                     : "fixed") +
      ")\n";
  out += "daemon     " + Cell(r["daemon"]["clients"]) + " clients, " +
         Cell(r["daemon"]["requests"]) + " requests, " + Cell(r["daemon"]["requests_per_s"]) +
         "/s over the last 10 s\n";
  const bool ha = r.contains("ha");
  if (ha) out += RenderHa(r["ha"]);
  // Only where a journal is attached: a standby has none (the active commits to ZooKeeper).
  if (r["daemon"].contains("journal")) out += RenderJournal(r["daemon"]["journal"], ha);
  return out;
}

std::string RenderMachineQueues(const json& r) {
  std::string out = "queued " + Cell(r["queued"]) + ", remote queue " + Cell(r["remote"]) + "\n\n";
  out += "longest local queues:\n" + RenderTable(ObjectRows(r["longest"], {"machine", "length"}));
  out += "\nlocal queue lengths:\n";
  Rows hist{{"length", "machines"}};
  for (const json& b : r["histogram"])
    hist.push_back({b["min"] == b["max"] ? Cell(b["min"]) : Cell(b["min"]) + "-" + Cell(b["max"]),
                    Cell(b["machines"])});
  return out + RenderTable(hist);
}

// queue: one row per tenant queue, shares as percentages of the cluster's slots.
std::string RenderQueue(const json& r) {
  Rows rows{{"queue", "parent", "state", "guarantee", "maximum", "in use", "pending", "running",
             "held", "users"}};
  for (const json& q : r["queues"]) {
    const bool root = q["parent"] == "";
    rows.push_back({Cell(q["queue"]) + (q["configured"].get<bool>() ? "" : " (not configured)"),
                    root ? "-" : Cell(q["parent"]), Cell(q["state"]), Percent(q["guarantee"]),
                    Percent(q["maximum"]), Percent(q["share"]), Cell(q["pending_tasks"]),
                    Cell(q["running_jobs"]), Cell(q["held_jobs"]), Cell(q["users"])});
  }
  std::string out = RenderTable(rows);
  if (!r["tenancy"].get<bool>())
    out += "(tenant queues are off: no [queue.*] in the config; every job is in default)\n";
  return out;
}

// A waiting task's holders: "n0 up 0/2 free, n1 down".
std::string HolderText(const json& holders) {
  std::string out;
  for (const json& h : holders) {
    out += (out.empty() ? "" : ", ") + Cell(h["machine"]) + " " + Cell(h["state"]);
    if (h["state"] == "up") out += " " + Cell(h["free"]) + "/" + Cell(h["slots"]) + " free";
  }
  return out.empty() ? "-" : out;
}

// Most waiting tasks `job` explains in text (--json has every one).
constexpr size_t kWaitRows = 50;

// The waiting tasks of a job: holders, the reason and what it means.
std::string RenderWaits(const json& tasks) {
  Rows rows{{"task", "holders", "reason", "why"}};
  size_t waiting = 0;
  for (const json& t : tasks) {
    if (!t.contains("wait")) continue;
    if (++waiting > kWaitRows) continue;
    rows.push_back({Cell(t["task"]), HolderText(t["holders"]), Cell(t["wait"]["reason"]),
                    Cell(t["wait"]["detail"])});
  }
  if (waiting == 0) return "";
  std::string out = "\nwaiting tasks:\n" + RenderTable(rows);
  if (waiting > kWaitRows)
    out += "(" + std::to_string(waiting - kWaitRows) + " more waiting; --json lists them all)\n";
  return out;
}

std::string RenderJob(const json& r) {
  std::string out;
  for (const char* k : {"job", "state", "queue", "user", "weight", "tasks", "queued", "running",
                        "done", "maps_left", "age_s", "seconds"})
    if (r.contains(k)) out += std::string(k) + ": " + Cell(r[k]) + "\n";
  if (r.contains("locality")) out += "locality: " + Percent(r["locality"]) + "\n";
  if (!r.contains("task_list")) return out;
  out += "\n" + RenderTable(ObjectRows(r["task_list"],
                                       {"task", "kind", "state", "attempts", "machine", "local"}));
  if (r["tasks_truncated"].get<bool>()) out += "(list truncated)\n";
  return out + RenderWaits(r["task_list"]);
}

// jobs: the live jobs, or the finished ones (they carry a completion time in seconds).
std::string RenderJobs(const json& r) {
  const bool finished = r.contains("kept");
  Rows rows = finished ? Rows{{"job", "state", "tasks", "seconds", "locality"}}
                       : ObjectRows(r["jobs"], {"job", "queue", "user", "weight", "tasks", "queued",
                                                "running", "done", "age_s"});
  if (finished)
    for (const json& j : r["jobs"])
      rows.push_back({Cell(j["job"]), Cell(j["state"]), Cell(j["tasks"]), Cell(j["seconds"]),
                      Percent(j["locality"])});
  std::string out = RenderTable(rows);
  if (r["truncated"].get<bool>())
    out += "(" + std::to_string(r["jobs"].size()) + " of " + Cell(r["count"]) + " listed)\n";
  if (finished)
    out += "(the last " + Cell(r["kept"]) + " finished jobs are kept: history.finished_jobs)\n";
  return out;
}

bool IsListOfObjects(const json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_object(); });
}

std::string ScalarText(const json& v) {
  if (!v.is_array()) return Cell(v);
  std::string joined;
  for (const json& x : v) joined += (joined.empty() ? "" : ", ") + Cell(x);
  return joined.empty() ? "-" : joined;
}

// An object's fields as "key value" rows, deeper objects flattened to dotted keys.
void FieldRows(const std::string& prefix, const json& object, Rows* rows) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object())
      FieldRows(key, *it, rows);
    else
      rows->push_back({key, ScalarText(*it)});
  }
}

// A list of objects as a table, one column per key in first-seen order.
std::string ListTable(const json& list) {
  std::vector<std::string> keys;
  for (const json& item : list)
    for (auto it = item.begin(); it != item.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) keys.push_back(it.key());
  return RenderTable(ObjectRows(list, keys));
}

// Any other reply: "key: value" lines for its plain fields, then each nested object as
// a two-column table and each list of objects as a table, under its key.
std::string RenderGeneric(const json& r) {
  std::string out, nested;
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it.key() == "ok") continue;
    if (it->is_object()) {
      Rows rows;
      FieldRows("", *it, &rows);
      nested += "\n" + it.key() + ":\n" + RenderTable(rows);
    } else if (IsListOfObjects(*it)) {
      nested += "\n" + it.key() + ":\n" + ListTable(*it);
    } else {
      out += it.key() + ": " + ScalarText(*it) + "\n";
    }
  }
  out += nested;
  return out.empty() ? "ok\n" : out;
}

}  // namespace

std::string RenderTable(const Rows& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      out += row[c];
      if (c + 1 < row.size()) out += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += "\n";
  }
  return out;
}

std::string RenderReply(std::string_view command, const json& r) {
  if (command == "status") return RenderStatus(r);
  if (command == "machine_queues") return RenderMachineQueues(r);
  if (command == "queue") return RenderQueue(r);
  if (command == "job") return RenderJob(r);
  if (command == "metrics") return r["text"].get<std::string>();
  if (command == "jobs") return RenderJobs(r);
  if (command == "machines")
    return RenderTable(ObjectRows(
               r["machines"], {"machine", "state", "slots", "running", "free", "local_queue"})) +
           (r["truncated"].get<bool>() ? "(" + std::to_string(r["machines"].size()) + " of " +
                                             Cell(r["count"]) + " listed)\n"
                                       : "");
  if (command == "help" && r.contains("commands"))
    return RenderTable(ObjectRows(r["commands"], {"command", "summary"}));
  if (command == "help")
    return Cell(r["command"]) + ": " + Cell(r["summary"]) + "\n\n" +
           RenderTable(ObjectRows(r["fields"], {"name", "type", "required", "help"}));
  return RenderGeneric(r);
}

std::string RenderWatch(const json& status, const json& queues, double events_per_second) {
  char rate[64];
  std::snprintf(rate, sizeof rate, "events     %.0f/s\n", events_per_second);
  std::string out = RenderStatus(status) + rate + "\nlongest local queues (remote queue " +
                    Cell(queues["remote"]) + "):\n";
  return out + RenderTable(ObjectRows(queues["longest"], {"machine", "length"}));
}

}  // namespace locsched
