#include "runtime/common/intra_process_rendezvous.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/framework/planted_bug.h"

namespace stepflow {
namespace {

absl::Status RecvCancelledError() {
  return absl::CancelledError("RecvAsync is cancelled.");
}

}  // namespace

IntraProcessRendezvous::IntraProcessRendezvous() = default;

IntraProcessRendezvous::~IntraProcessRendezvous() {
  bool empty;
  {
    absl::MutexLock l(&mu_);
    empty = table_.empty();
  }
  if (empty) return;  // The usual case: every Send met its Recv.
  AbortAll(absl::CancelledError(
      "The rendezvous was destroyed while a Recv was still waiting"));
}

absl::Status IntraProcessRendezvous::Send(const ParsedKey& key,
                                          const Args& args, const Tensor& val,
                                          bool is_dead) {
  std::shared_ptr<Waiter> waiter;
  DoneCallback done;
  {
    absl::MutexLock l(&mu_);
    if (!status_.ok()) return status_;
    if (PlantedBugActive(PlantedBug::kDropRecv) && !planted_drop_done_) {
      // Test-only planted bug (runtime/framework/planted_bug.h).
      planted_drop_done_ = true;
      return absl::OkStatus();
    }
    auto it = table_.find(key.full_key);
    if (it != table_.end()) {
      ItemQueue& q = it->second;
      // Skip Recvs that were cancelled while waiting.
      while (!q.empty() && q.front().waiter != nullptr) {
        std::shared_ptr<Waiter> w = std::move(q.front().waiter);
        q.pop_front();
        DoneCallback cb = w->Take();
        if (cb) {
          waiter = std::move(w);
          done = std::move(cb);
          break;
        }
      }
      if (waiter == nullptr) {
        // No Recv waiting: queue the value behind any earlier ones.
        Item item;
        item.value = val;
        item.is_dead = is_dead;
        item.send_args = args;
        q.push_back(std::move(item));
        return absl::OkStatus();
      }
      if (q.empty()) table_.erase(it);
    } else {
      Item item;
      item.value = val;
      item.is_dead = is_dead;
      item.send_args = args;
      table_[key.full_key].push_back(std::move(item));
      return absl::OkStatus();
    }
  }
  if (waiter->recv_args.cancellation_manager != nullptr) {
    // False means cancellation is running the callback, which will find
    // the Recv already completed and do nothing.
    waiter->recv_args.cancellation_manager->DeregisterCallback(waiter->token);
  }
  done(absl::OkStatus(), args, waiter->recv_args, val, is_dead);
  return absl::OkStatus();
}

void IntraProcessRendezvous::RecvAsync(const ParsedKey& key, const Args& args,
                                       DoneCallback done) {
  Item sent;
  absl::Status error;
  {
    absl::MutexLock l(&mu_);
    if (!status_.ok()) {
      error = status_;
    } else {
      auto it = table_.find(key.full_key);
      if (it != table_.end() && !it->second.empty() &&
          it->second.front().waiter == nullptr) {
        // A value is waiting: take the oldest.
        sent = std::move(it->second.front());
        it->second.pop_front();
        if (it->second.empty()) table_.erase(it);
      } else {
        auto waiter = std::make_shared<Waiter>();
        {
          absl::MutexLock wl(&waiter->mu);
          waiter->done = std::move(done);
        }
        waiter->recv_args = args;
        waiter->seq = next_seq_++;
        CancellationManager* cm = args.cancellation_manager;
        if (cm != nullptr) {
          waiter->token = cm->get_cancellation_token();
          // The callback only touches the shared Waiter, so it is safe
          // whenever it runs, even after this rendezvous is gone.
          const bool registered = cm->RegisterCallback(waiter->token, [waiter] {
            DoneCallback cb = waiter->Take();
            if (cb) {
              cb(RecvCancelledError(), Args(), waiter->recv_args, Tensor(),
                 false);
            }
          });
          if (!registered) {
            // Already cancelled: complete now, outside the lock.
            done = waiter->Take();
            error = RecvCancelledError();
          }
        }
        if (error.ok()) {
          table_[key.full_key].push_back(Item{std::move(waiter)});
          return;
        }
      }
    }
  }
  if (!error.ok()) {
    done(error, Args(), args, Tensor(), false);
    return;
  }
  done(absl::OkStatus(), sent.send_args, args, sent.value, sent.is_dead);
}

void IntraProcessRendezvous::StartAbort(const absl::Status& status) {
  if (status.ok()) return;
  {
    absl::MutexLock l(&mu_);
    if (!status_.ok()) return;  // Sticky: the first abort wins.
    status_ = status;
  }
  AbortAll(status);
}

void IntraProcessRendezvous::AbortAll(const absl::Status& status) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  absl::flat_hash_map<std::string, ItemQueue> table;
  {
    absl::MutexLock l(&mu_);
    table.swap(table_);
  }
  for (auto& [key, q] : table) {
    for (Item& item : q) {
      if (item.waiter != nullptr) waiters.push_back(std::move(item.waiter));
    }
  }
  std::sort(waiters.begin(), waiters.end(),
            [](const std::shared_ptr<Waiter>& a,
               const std::shared_ptr<Waiter>& b) { return a->seq < b->seq; });
  table.clear();  // Drop queued values outside the lock.
  for (const std::shared_ptr<Waiter>& w : waiters) {
    DoneCallback cb = w->Take();
    if (!cb) continue;  // Already cancelled.
    if (w->recv_args.cancellation_manager != nullptr) {
      w->recv_args.cancellation_manager->DeregisterCallback(w->token);
    }
    cb(status, Args(), w->recv_args, Tensor(), false);
  }
}

size_t IntraProcessRendezvous::NumPendingForTest() const {
  absl::MutexLock l(&mu_);
  size_t n = 0;
  for (const auto& [key, q] : table_) {
    for (const Item& item : q) {
      if (item.waiter == nullptr || !item.waiter->taken()) ++n;
    }
  }
  return n;
}

}  // namespace stepflow
