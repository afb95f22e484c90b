#include "runtime/window.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/combine_states.h"
#include "runtime/time_functions.h"
#include "util/run_on_threads.h"
#include "util/status_macros.h"

namespace mapr::runtime {
namespace {

// Writes the key of the window that starts `k` hops before hop group `g`
// into `*key`; false if it cannot be written (a group without a time has
// only its own, k == 0).
class WindowKeys {
 public:
  WindowKeys(const plan::Plan& plan, const GroupTable& hops)
      : hops_(hops),
        parts_(plan.group_by.size()),
        part_(plan.window->key_part),
        hop_seconds_(plan.window->hop_seconds) {}

  bool Key(uint32_t g, int64_t k, std::string* key) {
    const std::string_view full = hops_.key(g);
    if (k == 0) {
      key->assign(full.data(), full.size());
      return true;
    }
    const std::string_view hop = KeyPart(full, parts_, part_);
    if (hop.empty() || !ShiftBack(reader_, hop, k * hop_seconds_, &start_)) {
      return false;
    }
    if (parts_ == 1) {
      key->swap(start_);
      return true;
    }
    key->clear();
    for (size_t i = 0; i < parts_; ++i) {
      AppendKeyPart(
          i == part_ ? std::string_view(start_) : KeyPart(full, parts_, i),
          key);
    }
    return true;
  }

 private:
  const GroupTable& hops_;
  const size_t parts_;
  const size_t part_;
  const int64_t hop_seconds_;
  TimeReader reader_;
  std::string start_;
};

}  // namespace

absl::StatusOr<WindowGroups> JoinWindows(
    const plan::Plan& plan, const GroupTable& hops,
    std::span<const std::unique_ptr<AggregateState>> states, size_t threads,
    size_t min_groups_per_thread, uint64_t max_groups) {
  WindowGroups out;
  const int64_t per_window =
      plan.window->width_seconds / plan.window->hop_seconds;
  const uint32_t n = static_cast<uint32_t>(hops.size());
  WindowKeys keys(plan, hops);
  std::string key;
  // Every window first, so that the spare group's id is known. The
  // windows are groups of the result: max_groups bounds them as it bounds
  // the hops (a pure function of the hops, so of the input, whatever the
  // split).
  bool created;
  for (int64_t k = 0; k < per_window; ++k) {
    for (uint32_t g = 0; g < n; ++g) {
      if (!keys.Key(g, k, &key)) continue;
      out.groups.FindOrInsert(key, HashKey(key), &created);
      if (created && max_groups != 0 && out.groups.size() > max_groups) {
        return absl::ResourceExhaustedError(absl::StrCat(
            MoreGroupsThan(max_groups),
            " once hops are joined into windows; raise the limit or give "
            "window() fewer hops per window"));
      }
    }
  }
  const uint32_t spare = static_cast<uint32_t>(out.groups.size());
  out.states.resize(states.size());
  for (size_t s = 0; s < states.size(); ++s) {
    if (states[s] == nullptr) continue;
    out.states[s] = FindAggregate(*plan.slots[s].aggregate)
                        ->new_state(plan::SlotOptions(plan, s));
    out.states[s]->Resize(size_t{spare} + 1);
  }
  // Round k gives each window its hop k (the window starting k hops before
  // the hop): rounds 0, 1, ... add each window's hops in time order, each
  // later than the ones before it (AggregateState::Combine's order).
  threads = util::ThreadsFor(n, threads, min_groups_per_thread);
  std::vector<uint32_t> to(n);
  for (int64_t k = 0; k < per_window; ++k) {
    for (uint32_t g = 0; g < n; ++g) {
      to[g] = keys.Key(g, k, &key) ? out.groups.Find(key, HashKey(key)) : spare;
    }
    // A window's counts may overflow where its hops' did not (hops read
    // from hostile partials): refused, as a merge refuses them.
    MAPR_RETURN_IF_ERROR(
        CombineSlots(plan, out.states, states, to.data(), n, threads));
  }
  return out;
}

std::string_view PartitionBytes(const plan::Plan& plan, std::string_view key,
                                std::string* scratch) {
  if (!plan.window) return key;
  const size_t parts = plan.group_by.size();
  scratch->clear();
  for (size_t i = 0; i < parts; ++i) {
    if (i != plan.window->key_part) {
      AppendKeyPart(KeyPart(key, parts, i), scratch);
    }
  }
  return *scratch;
}

}  // namespace mapr::runtime
