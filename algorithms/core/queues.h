// LocalityQueues: the queue architecture of the JSQ+MaxWeight paper. One local
// queue per machine plus one common remote queue; each queue is split into
// per-job subqueues. Lengths are O(1); a pick chooses a job by the intra-queue
// policy and pops the head of its subqueue. Owned by JsqMaxWeight; single-threaded.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/cluster.h"
#include "algorithms/core/job_ranks.h"
#include "algorithms/core/policy.h"
#include "base/flat_map.h"

namespace locsched {

/// Local queues Q_1..Q_M and the remote queue R, each split by job.
class LocalityQueues {
 public:
  /// The remote queue's index (local queues are indexed by machine id).
  static constexpr uint32_t kRemote = UINT32_MAX - 1;

  /// Queues over `cluster`'s tasks and jobs, picking jobs by `intra`.
  LocalityQueues(Cluster& cluster, IntraQueue intra);

  /// Adds an empty local queue for the next machine id.
  void AddMachine();
  /// Appends task t to its job's subqueue in `queue`.
  void Push(TaskId t, uint32_t queue);
  /// Unlinks queued task t from wherever it is.
  void Remove(TaskId t);
  /// Pops the head of the best job's subqueue in `queue`, with its job; kNoId if empty.
  Pick PopBest(uint32_t queue);
  /// Tasks in `queue`, O(1).
  uint32_t Length(uint32_t queue) const {
    return queue == kRemote ? remote_length_ : lengths_[queue];
  }
  /// Tasks in machine m's local queue, O(1) (Length without the remote check).
  uint32_t LocalLength(MachineId m) const { return lengths_[m]; }
  /// Tasks of `queue` a new task of job j would wait behind under the intra-queue order:
  /// those of jobs ordered before j, plus j's own (FIFO inside a job). O(jobs in the queue).
  uint32_t TasksBefore(uint32_t queue, JobId j) const;
  /// Jobs with at least one task in `queue`, O(1).
  uint32_t JobCount(uint32_t queue) const { return static_cast<uint32_t>(At(queue).jobs.size()); }
  /// The job the next PopBest(queue) would serve; kNoId if empty.
  JobId BestJob(uint32_t queue) const;
  /// Sets each job's priority rank (index = job id; missing jobs rank last) and re-orders.
  void SetPriorityRanks(std::vector<uint32_t> ranks);
  /// As above, but a rank holds only for the job whose arrival seq matches seqs[id], so a
  /// job that later reuses a finished job's id is unranked until the next re-solve. With
  /// place_new, an unranked job is placed by Smith's rule instead of last (JobRanks: right
  /// after the c-th ranked job, c = ranked jobs with at least its weight per task not yet
  /// done; their counts as of this call, its own when first needed; fixed until the next).
  void SetPriorityRanks(std::vector<uint32_t> ranks, std::vector<uint64_t> seqs,
                        bool place_new = false);
  /// Records job j's running-task count and arrival seq, the `fair` key (the policy calls
  /// this on every change).
  void SetRunning(JobId j, uint32_t running, uint64_t seq) {
    // The rare growth is a tail call with every argument, so this path saves no
    // registers (it runs three times per task).
    if (j >= fair_keys_.size()) [[unlikely]]
      return SetRunningAfterGrow(j, running, seq);
    fair_keys_[j] = FairKey(running, seq);
  }
  /// Switches the intra-queue policy and re-orders every queue.
  void SetIntraQueue(IntraQueue intra);
  /// Removes and returns every task of `queue`, oldest first per job.
  std::vector<TaskId> DrainQueue(uint32_t queue);
  /// Number of local queues.
  uint32_t num_local() const { return static_cast<uint32_t>(local_.size()); }

 private:
  // One nonempty per-job subqueue, stored inline in its queue's job list: the
  // job and the ends and size of its FIFO of tasks (linked through
  // Task::prev/next). 16 bytes, so the scan that picks a job reads the winner's
  // head and count in the lines it already loaded; the job's ordering key lives
  // in the dense by-job arrays (fair_keys_, seqs_). The head's `prev` is left
  // stale (a pop then writes no second task record): a task is the head exactly
  // when head == its id, and every other task's `prev` is exact.
  struct Entry {
    JobId job;
    TaskId head, tail;
    uint32_t count;
  };
  // One cache line each: unaligned, a header straddled two and a push or pop missed on both.
  struct alignas(64) Queue {
    bool hashed = false;      // job -> position kept in index_ (else found by scanning)
    bool wide = false;        // ids mirrors the job list
    uint64_t seq_bound = 0;   // above every seq ever entered: a newer job has no entry here
    std::vector<Entry> jobs;  // a min-heap by key unless intra is fair (then unordered)
    std::vector<JobId> ids;   // while wide: ids[i] == jobs[i].job (4 bytes a job, for scans)
  };
  // A queue with many jobs finds a job's entry through index_; one with fewer
  // scans its contiguous job list, which the prefetcher makes cheaper than a
  // random hash probe. Hysteresis keeps a queue from flapping.
  static constexpr size_t kHashAbove = 128;
  static constexpr size_t kUnhashBelow = 32;
  static constexpr size_t kMissing = SIZE_MAX;
  static constexpr size_t kWideScanFrom = 16;  // jobs in a queue: BestOf's 4-lane scan
  // A queue with many jobs also keeps the compact ids mirror, so the fair scan and the
  // job search read 4 bytes a job instead of 16 (at 100 jobs a queue, 7 cache lines
  // instead of 25).
  static constexpr size_t kWideAbove = 32;
  static constexpr size_t kNarrowBelow = 16;

  Queue& At(uint32_t q) { return q == kRemote ? remote_ : local_[q]; }
  const Queue& At(uint32_t q) const { return q == kRemote ? remote_ : local_[q]; }
  static uint64_t MapKey(uint32_t queue, JobId job) { return uint64_t{queue} << 32 | job; }
  // The `fair` order as one integer: fewer running tasks first, then earlier
  // arrival. The seq keeps its low 40 bits (a tie-break between jobs 2^40
  // arrivals apart may be wrong); running counts saturate at 2^24 - 1.
  static uint64_t FairKey(uint32_t running, uint64_t seq) {
    constexpr uint64_t kSeqBits = 40, kMaxRunning = (uint64_t{1} << 24) - 1;
    const uint64_t r = running < kMaxRunning ? running : kMaxRunning;
    return r << kSeqBits | (seq & ((uint64_t{1} << kSeqBits) - 1));
  }
  // The priority order of a job as one integer (JobRanks::Key), from the seq it holds.
  uint64_t PriorityKey(JobId job, uint64_t seq) const { return ranks_.Key(job, seq); }
  uint64_t PriorityKey(const Entry& e) const { return PriorityKey(e.job, seqs_[e.job]); }
  // Heap order: priority key first (priority only), then arrival. The priority case is out
  // of line so that fifo's sift loops stay small (inlined, it cost fifo 10-25% in core_bench).
  bool Before(const Entry& a, const Entry& b) const {
    if (intra_ == IntraQueue::kPriority) return PriorityBefore(a, b);
    return seqs_[a.job] < seqs_[b.job];
  }
  bool PriorityBefore(const Entry& a, const Entry& b) const;
  bool Heaped() const { return intra_ != IntraQueue::kFair; }
  // The entry the next pop of a nonempty queue serves: its position and its job.
  struct Best {
    size_t index;
    JobId job;
  };
  Best BestOf(const Queue& q) const;
  template <typename T, typename JobOf>
  size_t FairMin(const T* items, size_t n, JobOf job_of) const;
  size_t FindEntry(const Queue& q, uint32_t queue, JobId job) const;
  static size_t FindId(const JobId* ids, size_t n, JobId job);
  static size_t FindJob(const Entry* entries, size_t n, JobId job);
  void RemoveAt(uint32_t queue, size_t i, TaskId t);
  void AddEntry(uint32_t queue, Entry e, uint64_t seq);
  void IndexLastEntry(Queue& q, uint32_t queue);
  void EraseEntry(uint32_t queue, size_t i);
  void EraseIndexedEntry(Queue& q, uint32_t queue, size_t i);
  void Place(Queue& q, uint32_t queue, size_t i, const Entry& e);
  size_t SiftUp(Queue& q, uint32_t queue, size_t i);
  size_t SiftDown(Queue& q, uint32_t queue, size_t i);
  void SetHashed(Queue& q, uint32_t queue, bool hashed);
  static void SetWide(Queue& q, bool wide);
  void Reorder(Queue& q, uint32_t queue);
  void AddLength(uint32_t queue, int32_t delta);
  void GrowKeys(JobId j);
  void SetRunningAfterGrow(JobId j, uint32_t running, uint64_t seq);

  Cluster& cluster_;
  IntraQueue intra_;
  std::vector<Queue> local_;
  std::vector<uint32_t> lengths_;  // local queue lengths, dense for JSQ's comparisons
  Queue remote_;
  uint32_t remote_length_ = 0;
  std::vector<uint64_t> fair_keys_;  // by job id: FairKey(running, seq), dense for the `fair` scan
  // By job id, as long as the job has an entry: its arrival seq (the fifo key and every
  // policy's tie-break). Grown with fair_keys_.
  std::vector<uint64_t> seqs_;
  FlatMap64 index_;  // (queue, job) -> position in jobs, for hashed queues only
  JobRanks ranks_;   // the `priority` order: the last LP ranks, newcomers placed (or last)
};

}  // namespace locsched
